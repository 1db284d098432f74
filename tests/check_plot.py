#!/usr/bin/env python3
"""Check a `csim plot` PNG and its --json sidecar against the HDF5 runs, read here on their own.

usage: check_plot.py SIDECAR.json PANELS RUN.h5 [RUN.h5...]

PANELS is the comma-separated list asked for; the eight base panels in their order stand for the
default, which adds the control panels for which a run has data (/control/tau; /control/log
channels named vx_cmd/vx/vy_cmd/vy/wz_cmd/wz, *iterations, *eps*/*residual). Checks: the PNG's size (read with Pillow)
is the sidecar's; the panels are the ones asked for, in order; every panel's box in the PNG holds
drawn pixels (not blank); every series' min/max equals what this script computes from the file
with its own vectorised code (numpy reduceat over /contacts/offset, not plot_run.py's loop);
incomplete runs are plotted on the rows present. Exit 0 when all hold, 1 with a message when not.
"""
import json
import sys

import h5py
import numpy as np


def fail(msg):
    print("check_plot: FAIL: " + msg)
    sys.exit(1)


def png_rgb(path):
    """the PNG as an RGB array (Pillow, which Debian's python3-matplotlib depends on)"""
    from PIL import Image
    im = Image.open(path)
    if im.format != "PNG":
        fail("%s is not a PNG" % path)
    w, h = im.size
    return w, h, np.asarray(im.convert("RGB")).astype(np.int32)


def per_row(f, rows, values, fn):
    """fn over each row's contacts (reduceat); NaN where a row has none"""
    off = f["/contacts/offset"][:rows].astype(np.int64)
    cnt = f["/contacts/count"][:rows].astype(np.int64)
    out = np.full(rows, np.nan)
    ok = (cnt > 0) & (off + cnt <= values.shape[0])
    if ok.any():
        starts = off[ok]
        # reduceat over [start, start + count): the flat arrays are contiguous per row
        red = fn.reduceat(values, starts)
        # reduceat reduces up to the next start; clip each row to its own count
        for j, (s, n) in enumerate(zip(starts, cnt[ok])):
            if j + 1 < len(starts) and starts[j + 1] != s + n:
                red[j] = fn.reduce(values[s:s + n])
        if starts[-1] + cnt[ok][-1] != values.shape[0]:
            red[-1] = fn.reduce(values[starts[-1]:starts[-1] + cnt[ok][-1]])
        out[ok] = red
    return out


def expected(path):
    """series name -> values, per panel, from the file"""
    f = h5py.File(path, "r")
    names = ["/time", "/energy/kinetic", "/energy/potential", "/energy/total", "/solver/eps_abs",
             "/solver/primal", "/solver/dual", "/solver/complementarity", "/solver/iterations",
             "/solver/converged", "/contacts/count", "/contacts/offset", "/timing/step"]
    extra = [p for p in ("/energy/work", "/energy/injected") if p in f]
    rows = min(f[p].shape[0] for p in names + extra)
    flat = min(f[p].shape[0] for p in ("/contacts/depth", "/contacts/force", "/contacts/velocity"))
    g = lambda p: f[p][:rows].astype(float)
    depth = f["/contacts/depth"][:flat]
    force = f["/contacts/force"][:flat]
    vel = f["/contacts/velocity"][:flat]
    ft = np.sqrt(force[:, 0] ** 2 + force[:, 1] ** 2)
    vt = np.sqrt(vel[:, 0] ** 2 + vel[:, 1] ** 2)
    it, conv, cnt = g("/solver/iterations"), g("/solver/converged"), g("/contacts/count")
    bad = (conv == 0) & (cnt > 0)
    e = {"energy": [g("/energy/kinetic"), g("/energy/potential"), g("/energy/total")] +
                   [g(p) for p in extra],
         "eps": [g("/solver/eps_abs"), g("/solver/primal"), g("/solver/dual"),
                 g("/solver/complementarity")],
         "iterations": [it, it[bad]],
         "contacts": [cnt],
         "penetration": [per_row(f, rows, depth, np.maximum)],
         "forces": [per_row(f, rows, force[:, 2], np.add), per_row(f, rows, ft, np.add)],
         "slip": [per_row(f, rows, vt, np.maximum)],
         "timing": [g("/timing/step") * 1e6]}
    e.update(control_expected(f, rows))
    return e, rows, int(f.attrs["complete"]) == 1


BASE = ["energy", "eps", "iterations", "contacts", "penetration", "forces", "slip", "timing"]
AXES = ["vx", "vy", "wz"]


def control_expected(f, rows):
    """the control panels' series from /control, by channel name (commanded before measured)"""
    e = {}
    if "/control/log" in f:
        log = f["/control/log"]
        a = log.attrs["columns"]
        names = [c.strip().split("/")[-1] for c in (a.decode() if isinstance(a, bytes)
                                                    else a).split(",")]
        n = min(rows, log.shape[0])
        col = {c: log[:n, j].astype(float) for j, c in enumerate(names)}
        vel = [col[c] for ax in AXES for c in (ax + "_cmd", ax) if c in col]
        it = [col[c] for c in names if c.endswith("iterations")]
        res = [col[c] for c in names if ("eps" in c or "residual" in c)
               and not c.endswith("iterations")]
        for k, v in (("control_velocity", vel), ("control_iterations", it),
                     ("control_residual", res)):
            if v:
                e[k] = v
    if "/control/tau" in f:
        tau = f["/control/tau"]
        n = min(rows, tau.shape[0])
        e["control_tau"] = [tau[:n, j].astype(float) for j in range(tau.shape[1])]
    return e


def close(a, b):
    if a is None or b is None:
        return a is None and b is None
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


def main():
    side, panels, runs = sys.argv[1], sys.argv[2].split(","), sys.argv[3:]
    rec = json.load(open(side))
    w, h, img = png_rgb(rec["png"])
    if [w, h] != rec["size"]:
        fail("PNG is %dx%d, sidecar says %s" % (w, h, rec["size"]))
    if panels == BASE:  # the default: and the control panels the runs have data for
        have = set()
        for path in runs:
            have |= set(control_expected(h5py.File(path, "r"), 1 << 62))
        panels = panels + [p for p in ("control_velocity", "control_iterations",
                                       "control_residual", "control_tau") if p in have]
    got = [p["name"] for p in rec["panels"]]
    if got != panels:
        fail("panels %s, asked for %s" % (got, panels))
    if len(rec["runs"]) != len(runs):
        fail("%d runs in the sidecar, %d given" % (len(rec["runs"]), len(runs)))
    for k, path in enumerate(runs):
        e, rows, complete = expected(path)
        r = rec["runs"][k]
        if r["rows"] != rows or r["complete"] != complete:
            fail("%s: rows %d complete %s, expected %d %s" % (path, r["rows"], r["complete"], rows,
                                                               complete))
        if not complete and "incomplete" not in r["label"]:
            fail("%s: incomplete run not labelled so: %r" % (path, r["label"]))
        for p in rec["panels"]:
            want = e.get(p["name"], [])
            per_run = len(p["lines"]) // len(runs)
            if per_run != len(want):
                fail("panel %s: %d lines per run, expected %d" % (p["name"], per_run, len(want)))
            for j, y in enumerate(want):
                ln = p["lines"][k * per_run + j]
                fin = y[np.isfinite(y)]
                lo = float(fin.min()) if fin.size else None
                hi = float(fin.max()) if fin.size else None
                if ln["n"] != y.size or not close(ln["min"], lo) or not close(ln["max"], hi):
                    fail("panel %s line %r of %s: n %d range [%s, %s], file gives n %d [%s, %s]"
                         % (p["name"], ln["label"], path, ln["n"], ln["min"], ln["max"], y.size,
                            lo, hi))
                if len(runs) > 1 and r["name"] not in ln["label"]:
                    fail("panel %s: line %r lacks the run's name %r" % (p["name"], ln["label"],
                                                                        r["name"]))
    for p in rec["panels"]:
        x0, y0, x1, y1 = [int(round(v)) for v in p["box"]]
        region = img[y0 + 2:y1 - 2, x0 + 2:x1 - 2]
        ink = np.mean(np.any(region < 200, axis=2))
        # a panel with data draws lines; one without (no contacts) says so in a line of text
        empty = all(ln["min"] is None for ln in p["lines"])
        if region.size == 0 or ink < (0.0003 if empty else 0.002):
            fail("panel %s: its box %s in the PNG is blank (%.4f inked)" % (p["name"], p["box"], ink))
    print("check_plot: ok: %d panels, %d runs, %dx%d" % (len(panels), len(runs), w, h))


if __name__ == "__main__":
    main()
