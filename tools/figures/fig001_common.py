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


# 001 Sec. IV-A's localized global error. The solution under test is sampled at t^m = m dw (rows of
# times t, states x: one row each, x 1-D or 2-D); the reference of window m starts from the test
# solution's own state, x_r^m = flow(x^(m-1), t^(m-1), dw), integrated far more accurately than
# the errors measured (001: a 3rd-order Runge-Kutta at h = 1e-7 s); the error is the L2 norm over
# windows of x^m - x_r^m ("the L2-norm of the difference between the solution {v^m} and the
# reference solution {v_r^m}", with dw = 25 ms). Restarting every window from the test solution
# removes the drift a first-order method accumulates over long times. flow takes arrays (one
# entry per window) and returns the states at the window ends. rms: the L2 norm divided by the
# square root of the number of windows (a per-window error, comparable with v_s and independent
# of the run's length). Returns (error, per-window errors)
def localized_error(t, x, flow, dw=0.025, rms=False):
    t = np.asarray(t, float)
    x = np.asarray(x, float)
    m = np.round(t / dw)
    on = np.abs(t - m * dw) <= 1e-9 * max(dw, 1.0)
    tm, xm = t[on], x[on]
    if len(tm) < 2 or np.any(np.abs(np.diff(tm) - dw) > 1e-9):
        raise ValueError("localized_error: the rows must include every multiple of dw = %g s" % dw)
    xr = flow(xm[:-1], tm[:-1], dw)
    d = np.abs(xm[1:] - xr)
    if d.ndim > 1:
        d = np.sqrt((d * d).sum(axis=1))
    e = float(np.sqrt((d * d).sum()))
    return (e / np.sqrt(len(d)) if rms else e), d


# flow of 001 Sec. IV-A's box, mx dv/dt = f(t) - mu~(|v| / vs) m g sgn(v) with mu~(s) = mu min(s, 1)
# (001 eq. 7, csim's hunt_crossley friction), f(t) = amp sin(2 pi freq t) and mx the moving mass
# (m, or m plus robots/box_slider.urdf's carriage): the velocities v0
# (array) at times t0 advanced by dw with Kutta's 3rd-order Runge-Kutta at step h, all windows at
# once. h = 1e-6 s is 1/10 of the stiction time scale vs / (mu g) = 1e-5 s (001's reference used
# 1e-7 s; fig001_5 checks the two agree on the error it measures)
def box_flow(m=0.33, mx=None, mu=1.0, g=9.8, vs=1e-4, amp=4.0, freq=1.0, h=1e-6):
    mx = m if mx is None else mx

    def acc(t, v):
        return (amp * np.sin(2 * np.pi * freq * t) - mu * np.minimum(np.abs(v) / vs, 1.0) * m * g *
                np.sign(v)) / mx

    def flow(v0, t0, dw):
        v, t = np.array(v0, float), np.array(t0, float)
        n = int(round(dw / h))
        hh = dw / n
        for _ in range(n):
            k1 = acc(t, v)
            k2 = acc(t + 0.5 * hh, v + 0.5 * hh * k1)
            k3 = acc(t + hh, v - hh * k1 + 2 * hh * k2)
            v = v + hh * (k1 + 4 * k2 + k3) / 6
            t = t + hh
        return v
    return flow
