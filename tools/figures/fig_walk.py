#!/usr/bin/python3
"""Closed-loop locomotion runs over seeds, shared by seed 000 Figs. 17, 18 and seed 002 Exp. 3.

Each run is Solo-12 under csim's quadruped_walk controller (scenarios/solo12_walk.yaml on flat
ground, scenarios/solo12_walk_bumpy.yaml on the 10 cm bumps) for DURATIONS[scenario] s with one contact
model/solver pair and one seed. Seed k (1..NSEEDS) sets the terrain (world.ground.seed, bumps
only) and an initial perturbation of the base: roll and pitch uniform in +-0.05 rad, yaw in
+-0.1 rad, x and y in +-2 cm (numpy's RandomState(k)), the same for every pair, so pairs are
compared seed by seed (paired differences).

Runs are cached in out/figures/walk-cache/<tag of csim's binary: path, size, mtime>/ under a
hash of the command (another binary's runs are removed), so 000-18 and 002-3 share their bumpy runs of the same pair and seed (a run written
by another script is reused; a half-written one never is: written to a temporary name, then
renamed).

Statistics: per pair, the mean over seeds and a 95 % Student-t interval (mean +- t_{0.975,n-1}
s / sqrt(n)); a pair differs from NCP/PGS in a quantity only where the t-interval of the paired
per-seed difference excludes 0.
"""
import hashlib
import os
import shutil
import subprocess
import sys

import h5py
import numpy as np
from scipy import stats

from fig000_common import CSIM, FIGDIR, ROOT
import fig000_common as C

NSEEDS = 10
# s of each run: 5 on flat ground; 3 on the bumps, where the robot stands up for about 0.6 s
# first and the MPC's solves cost about 4 times more (its cones at mu 0.3 are active: about 225
# ADMM iterations per solve against 51; 1,800 before force_prox), so that the three figures stay
# within about 12 minutes of `make test-figures` on an idle 2-core machine
DURATIONS = {"solo12_walk": 5.0, "solo12_walk_bumpy": 10.0}
VCMD = 0.3          # the scenarios' commanded forward velocity, m/s
FALL_TILT = 60.0    # a fall: the base tilted beyond this (degrees) ...
FALL_Z = 0.10       # ... or its origin below this height (m) at any instant
CACHE = os.path.join(FIGDIR, "walk-cache")


def perturbation(seed):
    """The base's initial q0 (position, quaternion xyzw, joints) for this seed."""
    r = np.random.RandomState(seed)
    roll, pitch = r.uniform(-0.05, 0.05, 2)
    yaw = r.uniform(-0.1, 0.1)
    dx, dy = r.uniform(-0.02, 0.02, 2)
    cr, sr, cp, sp, cy, sy = (np.cos(roll / 2), np.sin(roll / 2), np.cos(pitch / 2),
                              np.sin(pitch / 2), np.cos(yaw / 2), np.sin(yaw / 2))
    quat = [sr * cp * cy - cr * sp * sy, cr * sp * cy + sr * cp * sy,
            cr * cp * sy - sr * sp * cy, cr * cp * cy + sr * sp * sy]
    return [dx, dy], quat


def q0_text(scenario, seed):
    z = 0.335 if scenario.endswith("bumpy") else 0.235  # the scenarios' own base heights
    (dx, dy), quat = perturbation(seed)
    legs = [0, 0.8, -1.6, 0, 0.8, -1.6, 0, -0.8, 1.6, 0, -0.8, 1.6]
    vals = [dx, dy, z] + list(quat) + legs
    return "[" + ",".join("%.9g" % v for v in vals) + "]"


def _cache_dir():
    """CACHE/<tag of csim's binary>; the other binaries' runs are removed"""
    st = os.stat(CSIM)
    tag = hashlib.sha1(("%s|%d|%d" % (CSIM, st.st_size, st.st_mtime_ns)).encode()).hexdigest()[:12]
    os.makedirs(os.path.join(CACHE, tag), exist_ok=True)
    for d in os.listdir(CACHE):
        if d != tag:
            shutil.rmtree(os.path.join(CACHE, d), ignore_errors=True)
    return os.path.join(CACHE, tag)


def _key(scenario, sets):
    return hashlib.sha1(("%s|%s" % (scenario, sets)).encode()).hexdigest()[:16]


def run(scenario, model, solver, seed, extra=()):
    """One run (cached); returns (h5 path, command text)."""
    sets = [("contact.model", model), ("solver.name", solver),
            ("integrator.duration", "%g" % DURATIONS[scenario]), ("robots.0.q0", q0_text(scenario, seed))]
    if scenario.endswith("bumpy"):
        sets.append(("world.ground.seed", str(seed)))
    sets = C.with_criterion(sets + list(extra))
    out = os.path.join(_cache_dir(), "%s_%s_%s_%d_%s.h5" % (scenario, model, solver, seed,
                                                     _key(scenario, sets)))
    cmd = "csim run scenarios/%s.yaml %s" % (scenario, " ".join("--set %s=%s" % kv for kv in sets))
    if os.path.exists(out):
        return out, cmd
    tmp = out + ".%d.tmp" % os.getpid()
    args = [CSIM, "run", os.path.join(ROOT, "scenarios", scenario + ".yaml"), "--quiet",
            "--out", tmp]
    for k, v in sets:
        args += ["--set", "%s=%s" % (k, v)]
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        sys.exit("failed (exit %d): %s\n%s" % (p.returncode, " ".join(args), p.stderr))
    os.replace(tmp, out)
    return out, cmd


def metrics(path):
    """One run's numbers: distance, tracking error, fall, eps_abs, solver time, iterations."""
    with h5py.File(path, "r") as f:
        assert int(f.attrs["complete"]) == 1, path
        q, t = f["/state/q"][:], f["/time"][:]
        log = f["/control/log"][:]
        cols = f["/control/log"].attrs["columns"]
        cols = [c.strip().split("/")[-1] for c in (cols.decode() if isinstance(cols, bytes)
                                                   else str(cols)).split(",")]
        eps = f["/solver/eps_abs"][:]
        its = f["/solver/iterations"][:]
        solve = f["/timing/solve"][:]
    up = 1 - 2 * (q[:, 3] ** 2 + q[:, 4] ** 2)           # base z axis, world z component
    tilt = np.degrees(np.arccos(np.clip(up, -1, 1)))
    half = t >= t[-1] / 2                                # the second half: walking, not starting
    vx, vcmd = log[:, cols.index("vx")], log[:, cols.index("vx_cmd")]
    return {
        "dist": float(q[-1, 0] - q[0, 0]),
        "track": float(np.sqrt(np.mean((vx[half] - vcmd[half]) ** 2))),
        "fall": float(tilt.max() > FALL_TILT or q[:, 2].min() < FALL_Z),
        "eps": float(np.mean(eps)),
        "logeps": float(np.log10(max(np.mean(eps), 1e-300))),
        "iters": float(np.mean(its)),
        "solve_us": float(1e6 * np.mean(solve)),
        "t": t, "x": q[:, 0], "y": q[:, 1], "vx": vx,
    }


def interval(x):
    """mean and the 95 % Student-t interval of the samples x"""
    x = np.asarray(x, float)
    m = float(np.mean(x))
    if len(x) < 2 or np.all(x == x[0]):
        return m, m, m
    h = float(stats.t.ppf(0.975, len(x) - 1) * np.std(x, ddof=1) / np.sqrt(len(x)))
    return m, m - h, m + h


def differs(ci):
    return ci[1] > 0 or ci[2] < 0


def run_all(scenario, pairs, extra=()):
    """{label: [metrics per seed]} and the command of the first seed of each pair"""
    M, cmds = {}, []
    for model, solver, label in pairs:
        M[label] = []
        for seed in range(1, NSEEDS + 1):
            path, cmd = run(scenario, model, solver, seed, extra)
            M[label].append(metrics(path))
            if seed == 1:
                cmds.append(cmd)
    return M, cmds


QUANTITIES = [("track", "tracking error (m/s, RMS of vx - 0.3, second half)"),
              ("dist", "distance walked (m)"), ("fall", "falls (fraction of seeds)"),
              ("logeps", "log10 mean eps_abs (000 eq. 14)"), ("iters", "iterations per step"),
              ("solve_us", "solve time per step (us, wall)")]


def table(M, ref="NCP/PGS"):
    """rows: per pair and quantity, mean [95 % interval], and the paired difference's interval
    against ref with 'differs' where it excludes 0"""
    rows = []
    for label, runs in M.items():
        row = [label]
        for q, _ in QUANTITIES:
            m, lo, hi = interval([r[q] for r in runs])
            row.append("%.4g [%.4g, %.4g]" % (m, lo, hi))
        for q in ("track", "dist", "logeps"):
            if label == ref:
                row.append("-")
                continue
            d = paired(M, label, ref, q)
            row.append("%+.3g [%+.3g, %+.3g]%s" % (d[0], d[1], d[2], " differs" if differs(d) else ""))
        row.append(int(sum(r["fall"] for r in runs)))
        rows.append(row)
    cols = ["pair"] + [name for _, name in QUANTITIES] + [
        "tracking error - %s's" % ref, "distance - %s's" % ref, "log10 eps_abs - %s's" % ref,
        "falls (of %d)" % NSEEDS]
    return cols, rows


def paired(M, a, b, q):
    return interval([x[q] - y[q] for x, y in zip(M[a], M[b])])


def plot(M, title, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(2, 2, figsize=(12, 8.5))
    labels = list(M)
    a = ax[0, 0]
    for k, label in enumerate(labels):
        r = M[label][0]
        a.plot(r["x"], r["y"], lw=0.8, label=label, color="C%d" % k)
    a.set_xlabel("x (m)")
    a.set_ylabel("y (m)")
    a.set_title("base paths, seed 1")
    a.legend(fontsize=6)
    a = ax[0, 1]
    for k, label in enumerate(labels):
        r = M[label][0]
        a.plot(r["t"], np.convolve(r["vx"], np.ones(32) / 32, "same"), lw=0.8, label=label,
               color="C%d" % k)
    a.axhline(VCMD, color="k", lw=0.5, ls="--")
    a.set_xlabel("time (s)")
    a.set_ylabel("base forward velocity (m/s), 0.32 s mean")
    a.set_title("tracked velocity, seed 1 (command dashed)")
    for a, (q, name) in zip([ax[1, 0], ax[1, 1]], [("dist", "distance walked (m)"),
                                                    ("logeps", "log10 mean eps_abs")]):
        for k, label in enumerate(labels):
            m, lo, hi = interval([r[q] for r in M[label]])
            a.errorbar([k], [m], yerr=[[m - lo], [hi - m]], fmt="o", color="C%d" % k, capsize=3)
            a.plot(np.full(NSEEDS, k) + 0.15, [r[q] for r in M[label]], ".", ms=3, color="0.5")
        a.set_xticks(range(len(labels)))
        a.set_xticklabels(labels, rotation=45, ha="right", fontsize=7)
        a.set_ylabel(name)
        a.set_title("%s: mean, 95 %% t-interval over %d seeds (dots: seeds)" % (name, NSEEDS))
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
