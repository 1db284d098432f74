#!/usr/bin/python3
"""Shared code of the locomotion figures (tools/figures/fig000_17.py, fig000_18.py, fig002_3.py).

Seed 000 Sec. IV-D (Figs. 17, 18) and seed 002 Experiment 3 (Fig. 5) run an MPC controller on
Solo-12 over flat and bumpy ground. csim has no MPC: the stand-in is the open-loop trot of
scenarios/solo12_trot.yaml (flat, mu = 0.9) and scenarios/solo12_trot_bumpy.yaml (height field,
mu = 0.3), documented in those files and in docs/scenarios.md ("Terrain and the trotting gait"). Every
model/solver pair runs the same joint trajectories; what differs is what each contact model
makes of the feet sticking and sliding. Physics numbers (eps_abs, iterations, base motion) come
from csim's HDF5 output; solve times from /timing/solve (wall time, reported, never asserted).
"""
import json
import os
import shutil
import subprocess
import sys
import time

import h5py
import numpy as np

# the repository root, csim, the figure folder and every model/solver pair with its plot label
from fig000_common import CSIM, FIGDIR, PAIRS, ROOT  # noqa: E402,F401
import fig000_common as C  # noqa: E402


def start(fid):
    """Check ./csim, make out/figures and this figure's own temporary directory."""
    if not os.access(CSIM, os.X_OK):
        sys.exit("fig %s: %s not found or not executable: run `make` first" % (fid, CSIM))
    os.makedirs(FIGDIR, exist_ok=True)
    tmp = os.path.join(FIGDIR, "tmp-" + fid)
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    return tmp, time.time()


def run(scenario, out, sets):
    """csim run scenarios/SCENARIO.yaml --set k=v ... --out OUT --quiet; exits on failure."""
    cmd = [CSIM, "run", os.path.join(ROOT, "scenarios", scenario + ".yaml"), "--quiet", "--out", out]
    sets = C.with_criterion(sets)  # the papers' NCP criterion (fig000_common.PAPER_CRITERION)
    for k, v in sets:
        cmd += ["--set", "%s=%s" % (k, v)]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        sys.exit("failed (exit %d): %s\n%s" % (p.returncode, " ".join(cmd), p.stderr))
    return " ".join(["csim run scenarios/%s.yaml" % scenario] + ["--set %s=%s" % kv for kv in sets])


def read(path):
    """The datasets the figures use, as numpy arrays."""
    with h5py.File(path, "r") as f:
        r = {k: f[k][:] for k in ["/time", "/state/q", "/state/v", "/solver/eps_abs",
                                  "/solver/iterations", "/solver/converged", "/timing/solve",
                                  "/contacts/count"]}
        assert int(f.attrs["complete"]) == 1, path
    return r


def metrics(r):
    """Per-run reductions: forward distance, mean base speed over the last half, eps_abs, cost."""
    q, t = r["/state/q"], r["/time"]
    half = len(t) // 2
    steps = len(t)
    return {
        "dx": float(q[-1, 0] - q[0, 0]),
        "dy": float(q[-1, 1] - q[0, 1]),
        "vx": float((q[-1, 0] - q[half, 0]) / (t[-1] - t[half])),
        "zmin": float(q[:, 2].min()),
        "eps_mean": float(r["/solver/eps_abs"].mean()),
        "eps_max": float(r["/solver/eps_abs"].max()),
        "it_mean": float(r["/solver/iterations"].mean()),
        "nonconv": int((r["/solver/converged"] == 0).sum()),
        "steps": steps,
        "solve_us": float(1e6 * r["/timing/solve"].mean()),
    }


def smooth(x, n):
    """Moving average over n samples (same length, edges averaged over what there is)."""
    k = np.ones(n)
    return np.convolve(x, k, "same") / np.convolve(np.ones_like(x), k, "same")


def write_json(fid, seed, item, title, seconds, setup, images, tables, claims):
    doc = {"id": fid, "seed": seed, "item": item, "title": title,
           "command": "make fig-%s" % fid, "seconds": round(seconds, 1), "setup": setup,
           "images": images, "tables": tables, "claims": claims}
    with open(os.path.join(FIGDIR, "fig%s.json" % fid.replace("-", "_")), "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


def contact_points(path):
    """Every contact point of a run (csim does not write the height grid itself: the terrain
    panel shows the ground where the feet touched it)."""
    with h5py.File(path, "r") as f:
        return f["/contacts/point"][:]
