#!/usr/bin/python3
"""Shared helpers of the seed-000 figure scripts (tools/figures/fig000_*.py).

Seed 000 is "Contact Models in Robotics: a Comparative Analysis" (Sec. IV, Figs. 9-18, Tabs.
III-IV). Every figure script (`make fig-000-<n>`) runs ./csim (or $CSIM) on the repository's
scenarios with --set overrides, into its own scratch directory (tools/figures/figjson.py: out/figures/
tmp-<id>, removed at the end), reads the HDF5 outputs with h5py and writes its PNGs and JSON
record to out/figures/.
"""
import os
import subprocess
import sys

import h5py
import numpy as np

# repository root (tools/..), so the scripts work from any current directory
ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
CSIM = os.environ.get("CSIM", os.path.join(ROOT, "csim"))
FIGDIR = os.path.join(ROOT, "out", "figures")

# the model/solver pairs of csim (docs/models_and_solvers.md) with plot labels
PAIRS = [
    ("ncp", "pgs", "NCP/PGS"),
    ("ncp", "admm", "NCP/ADMM"),
    ("ncp", "staggered", "NCP/Staggered"),
    ("ccp", "pgs", "CCP/PGS"),
    ("ccp", "admm", "CCP/ADMM"),
    ("lcp", "pgs", "LCP/PGS"),
    ("lcp", "lemke", "LCP/Lemke"),
    ("raisim", "bisection", "RaiSim"),
    ("raisim_ds", "bisection", "RaiSim+DS"),
]


# stop with a clear message when ./csim has not been built
def check_csim():
    if not os.access(CSIM, os.X_OK):
        sys.exit("fig000: %s not found or not executable: run `make` first" % CSIM)
    os.makedirs(FIGDIR, exist_ok=True)


# run `csim run SCENARIO --set k=v ... --out OUT --quiet`; exits the script on failure
# The papers' measurement holds every model to the NCP residual (000 Sec. IV; ContactBench stops
# RaiSim on it too): solver.criterion ncp unless a script sets it (csim's default, auto, stops a
# relaxed model at its own fixed point)
PAPER_CRITERION = ("solver.criterion", "ncp")


def with_criterion(sets):
    """sets (a dict or (key, value) pairs) as pairs, with PAPER_CRITERION unless they set it"""
    pairs = list(sets.items() if isinstance(sets, dict) else sets)
    return pairs if any(k == PAPER_CRITERION[0] for k, _ in pairs) else pairs + [PAPER_CRITERION]


def run(scenario, out, sets=(), check=True):
    path = scenario if os.path.isabs(scenario) else os.path.join(ROOT, "scenarios", scenario + ".yaml")
    cmd = [CSIM, "run", path, "--quiet", "--out", out]
    for k, v in with_criterion(sets):
        cmd += ["--set", "%s=%s" % (k, v)]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if check and p.returncode != 0:
        sys.exit("fig000: failed (exit %d): %s\n%s" % (p.returncode, " ".join(cmd), p.stderr))
    return p.returncode


# run `csim solve PROBLEM --model M --solver S ...`; returns (iterations, converged, eps_abs)
def solve(problem, model, solver, tolerance, max_iterations):
    cmd = [CSIM, "solve", problem, "--model", model, "--solver", solver,
           "--tolerance", repr(tolerance), "--max-iterations", str(max_iterations)]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        sys.exit("fig000: failed: %s\n%s" % (" ".join(cmd), p.stderr))
    # the table row is the line that starts with the problem's path
    for line in p.stdout.splitlines():
        if line.startswith(problem):
            f = line.split()
            return int(f[3]), f[4] == "yes", float(f[5])
    sys.exit("fig000: no result row in the output of %s" % " ".join(cmd))


class Run:
    """The datasets of one csim output file, read once into numpy arrays."""

    # read every dataset the figure scripts use
    def __init__(self, path):
        with h5py.File(path, "r") as f:
            self.t = f["/time"][:]
            self.q = f["/state/q"][:]
            self.v = f["/state/v"][:]
            self.ek = f["/energy/kinetic"][:]
            self.ep = f["/energy/potential"][:]
            self.e = f["/energy/total"][:]
            self.eps = f["/solver/eps_abs"][:]
            self.iters = f["/solver/iterations"][:]
            self.conv = f["/solver/converged"][:]
            self.count = f["/contacts/count"][:]
            self.offset = f["/contacts/offset"][:]
            self.force = f["/contacts/force"][:]
            self.cvel = f["/contacts/velocity"][:]
            self.frame = f["/contacts/frame"][:].reshape(-1, 3, 3)
            self.point = f["/contacts/point"][:]
            self.dt = float(f.attrs["dt"])
            self.complete = int(f.attrs["complete"])

    # contact forces of row k in world coordinates (rows t1, t2, n of the frame), shape (n, 3)
    def world_forces(self, k):
        s, n = self.offset[k], self.count[k]
        return np.einsum("ci,cij->cj", self.force[s:s + n], self.frame[s:s + n])

    # contact velocities of row k in world coordinates, shape (n, 3)
    def world_velocities(self, k):
        s, n = self.offset[k], self.count[k]
        return np.einsum("ci,cij->cj", self.cvel[s:s + n], self.frame[s:s + n])

    # contact points of row k, shape (n, 3)
    def points(self, k):
        s, n = self.offset[k], self.count[k]
        return self.point[s:s + n]


# integral over t of ||p(t) - p_ref(t)|| (m s), p = base position (first 3 of q); the reference
# is sampled at the run's times (linear interpolation: the reference's grid is finer or equal)
def integral_error(run, ref, cols=slice(0, 3)):
    pr = np.stack([np.interp(run.t, ref.t, ref.q[:, j]) for j in range(ref.q.shape[1])[cols]], 1)
    err = np.linalg.norm(run.q[:, cols] - pr, axis=1)
    return float(np.sum(err) * run.dt)


# a "paper: ... / csim: ..." text box in the corner of an axis
def textbox(ax, text, loc="upper left", fontsize=7.5):
    x, ha = (0.02, "left") if "left" in loc else (0.98, "right")
    y, va = (0.98, "top") if "upper" in loc else (0.02, "bottom")
    ax.text(x, y, text, transform=ax.transAxes, ha=ha, va=va, fontsize=fontsize,
            bbox=dict(boxstyle="round", fc="white", ec="0.6", alpha=0.9))


# rotation matrices of quaternions [qx qy qz qw] (csim's order), shape (rows, 3, 3)
def quat_to_rot(quat):
    x, y, z, w = quat[:, 0], quat[:, 1], quat[:, 2], quat[:, 3]
    return np.stack([
        np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)], -1),
        np.stack([2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)], -1),
        np.stack([2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)], -1)], -2)


# world-frame linear velocity of a free-flyer base (csim stores it in the body frame)
def base_world_velocity(run, q0=0, v0=0):
    rot = quat_to_rot(run.q[:, q0 + 3:q0 + 7])
    return np.einsum("rij,rj->ri", rot, run.v[:, v0:v0 + 3])
