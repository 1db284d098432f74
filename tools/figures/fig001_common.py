#!/usr/bin/python3
"""Shared helpers of the seed-001 figure scripts (tools/figures/fig001_*.py, ids 001-4, 001-7, 001-8,
001-stickslip, 001-gripper; `make fig-<id>`).

Seed 001 is Castro et al., "A Transition-Aware Method for the Simulation of Compliant Contact with
Regularized Friction" (TAMSI, TALS). Every script runs ./csim (or $CSIM) with --set overrides
into its own directory out/figures/tmp-<id> (removed at the end, so `make -j2 figures` is safe),
reads the HDF5 outputs with h5py and writes out/figures/fig<id_>.png and fig<id_>.json (the
figure convention: id, seed, item, title, command, seconds, setup, images, tables, claims).
TALS on/off is the scenario key integrator.line_search (tals | backtracking | none); the Newton
residual per iteration is /compliant/newton_history (output.newton_history).
"""
import json
import os
import shutil
import subprocess
import sys
import time

import h5py
import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
CSIM = os.environ.get("CSIM", os.path.join(ROOT, "csim"))
FIGDIR = os.path.join(ROOT, "out", "figures")
BOX = os.path.join(ROOT, "scenarios", "stick_slip_box.yaml")
GRIPPER = os.path.join(ROOT, "scenarios", "gripper_mug.yaml")


class Figure:
    """One experiment: its temporary directory, timer and output names."""

    def __init__(self, fid):
        if not os.access(CSIM, os.X_OK):
            sys.exit("fig%s: %s not found or not executable: run `make` first" % (fid, CSIM))
        self.id = fid
        self.stem = "fig" + fid.replace("-", "_")
        self.t0 = time.time()
        os.makedirs(FIGDIR, exist_ok=True)
        self.tmp = os.path.join(FIGDIR, "tmp-" + fid)
        shutil.rmtree(self.tmp, ignore_errors=True)
        os.makedirs(self.tmp)

    # path of a file in the temporary directory
    def path(self, name):
        return os.path.join(self.tmp, name)

    # `csim run SCENARIO --set k=v ... --out tmp/NAME.h5 --quiet`; returns (h5py.File, exit code,
    # wall time of the whole process). check: exit the script on a non-zero exit code
    def run(self, scenario, name, sets=(), check=True):
        out = self.path(name + ".h5")
        cmd = [CSIM, "run", scenario, "--quiet", "--out", out]
        for k, v in sets:
            cmd += ["--set", "%s=%s" % (k, v)]
        t = time.time()
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        wall = time.time() - t
        if check and p.returncode != 0:
            sys.exit("%s: failed (exit %d): %s\n%s" % (self.stem, p.returncode, " ".join(cmd),
                                                       p.stderr))
        return h5py.File(out, "r"), p.returncode, wall

    # write the PNG(s) and the JSON record, remove the temporary directory
    def finish(self, fig, item, title, setup, tables, claims, extra_images=()):
        png = self.stem + ".png"
        fig.savefig(os.path.join(FIGDIR, png), dpi=110)
        rec = {"id": self.id, "seed": "001", "item": item, "title": title,
               "command": "make fig-" + self.id, "seconds": round(time.time() - self.t0, 2),
               "setup": setup, "images": [png] + list(extra_images), "tables": tables,
               "claims": claims}
        with open(os.path.join(FIGDIR, self.stem + ".json"), "w") as f:
            json.dump(rec, f, indent=1, default=_jsonable)
            f.write("\n")
        shutil.rmtree(self.tmp, ignore_errors=True)
        print("%s: %s, %s (%.1f s)" % (self.stem, os.path.join("out/figures", png),
                                      os.path.join("out/figures", self.stem + ".json"),
                                      rec["seconds"]))


# numpy scalars -> JSON numbers; NaN/inf -> null
def _jsonable(x):
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, (np.floating,)):
        return None if not np.isfinite(x) else float(x)
    if isinstance(x, np.bool_):
        return bool(x)
    raise TypeError("not JSON: %r" % (x,))


# a finite float for JSON (None for NaN / inf)
def num(x):
    x = float(x)
    return x if np.isfinite(x) else None


# least-squares slope of log(e) against log(h): the fitted convergence order
def fitted_order(hs, es):
    return float(np.polyfit(np.log(np.asarray(hs, float)), np.log(np.asarray(es, float)), 1)[0])


# the first step that ends in stiction after a step that ended sliding (/compliant/stiction_count)
def first_stick(f):
    ns = f["/compliant/stiction_count"][:]
    for k in range(1, len(ns)):
        if ns[k - 1] == 0 and ns[k] > 0:
            return k
    return -1


# summed world x contact force (friction on the box) per recorded row of a csim HDF5 file
def friction_x(f):
    cnt, off = f["/contacts/count"][:], f["/contacts/offset"][:]
    frc, frm = f["/contacts/force"][:], f["/contacts/frame"][:]
    out = np.zeros(len(cnt))
    for k in range(len(cnt)):
        s, n = off[k], cnt[k]
        fx = frc[s:s + n, 0] * frm[s:s + n, 0] + frc[s:s + n, 1] * frm[s:s + n, 3] + \
            frc[s:s + n, 2] * frm[s:s + n, 6]
        out[k] = fx.sum()
    return out
