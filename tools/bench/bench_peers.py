#!/usr/bin/env python3
"""tools/bench/bench_peers.py — Bullet 3.24 and ODE 0.16 beside csim and MuJoCo 2.2.2 (part of `make bench`).

Every figure is measured in this run. Per scene (the cube scenes of tools/bench/bench_scenes.py:
cube at rest and sliding, the 2-cube stack, grids and stacks of cubes), BATCHES rounds; each round
runs, one after the other, build/bench_mujoco (csim ncp/pgs and lcp/pgs, MuJoCo Newton), then
build/bench_ode (quick: ODE's PGS/SOR with its default 20 iterations; dantzig: dWorldStep's LCP)
and build/bench_bullet (default: Bullet's sequential impulses with its default solver mode;
pyramid: two fixed friction directions, the 4-facet pyramid), one batch each, so the engines'
batches are interleaved in time (the machine's load moves all of them alike):
  us/step    the median over rounds of a batch's wall time of the step loop per step;
  Ir/step    instructions inside one step (valgrind --tool=callgrind, collection toggled on in
             bench_csim_step / mj_step / ode_step / bullet_step), over the scene's counted steps;
  contacts   mean contacts per step (Bullet: manifold points within the processing threshold);
  eps_abs    mean seed 000 eq. 14 residual per step of each engine's impulses, computed by csim's
             solver_residuals (tools/bench/peer_common.c for ODE's dJointFeedback and Bullet's
             manifold impulses; the harnesses also check G lambda + g = J v+ to round-off).
Writes out/bench/peers.csv and prints the table.
  tools/bench/bench_peers.py                 every scene
  QUICK=1 tools/bench/bench_peers.py         cube_rest, cube_slide, cube_stack2, grid_16, stack_4
  SCENES="cube_rest" BATCHES=3 tools/bench/bench_peers.py
Exit status: 0 when every run completed, 1 when one failed, 2 when a harness cannot be built.
"""
import csv
import os
import re
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_scenes as S  # noqa: E402  the scenes, bench_mujoco's binary and its callgrind count

ROOT = S.ROOT
QUICK = S.QUICK
BATCHES = S.BATCHES
BUILD = os.path.join(ROOT, "build")
CSIM_PAIRS = ["ncp/pgs", "lcp/pgs"]
PEERS = [("ode", "quick"), ("ode", "dantzig"), ("bullet", "default"), ("bullet", "pyramid")]
QUICK_SCENES = ["cube_rest", "cube_slide", "cube_stack2", "grid_16", "stack_4"]
FULL_SCENES = QUICK_SCENES + ["grid_64", "stack_8"]


def peer_run(engine, solver, label, steps, batches, eps=True):
    """one harness invocation: its CSV row (dict) or None"""
    cmd = [os.path.join(BUILD, "bench_" + engine), "--scene", label, "--solver", solver,
           "--steps", str(steps), "--batches", str(batches), "--header"]
    if not eps:
        cmd.append("--no-eps")
    r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if r.returncode != 0:
        sys.stderr.write("bench_peers: %s\n" % r.stderr.strip())
        return None
    rows = list(csv.DictReader(r.stdout.splitlines()))
    return rows[0] if rows else None


def peer_ir(engine, solver, label, steps, tmp):
    """instructions per step inside ode_step / bullet_step, or None"""
    out = os.path.join(tmp, "cg.%s.%s.%s" % (label, engine, solver))
    cmd = ["valgrind", "--tool=callgrind", "--collect-atstart=no",
           "--toggle-collect=%s_step" % engine, "--callgrind-out-file=" + out,
           os.path.join(BUILD, "bench_" + engine), "--scene", label, "--solver", solver,
           "--steps", str(steps), "--batches", "1", "--no-eps"]
    r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if r.returncode != 0 or not os.path.exists(out):
        return None
    with open(out) as f:
        m = re.search(r"^totals:\s*(\d+)", f.read(), re.M)
    return int(m.group(1)) / (2.0 * steps) if m else None  # a timed batch and the statistics pass


def scene_rows(s, tmp, have_vg, avail):
    """the rows (dicts) of one scene: csim pairs, MuJoCo, then the peers"""
    label, steps, counted = s[0], s[5], s[6]
    times = {}
    stats = {}
    for b in range(BATCHES):
        saved = S.BATCHES
        S.BATCHES = 1
        S.SOLVERS[:] = CSIM_PAIRS
        rows, err = S.timing(s, tmp)
        S.BATCHES = saved
        for k, row in rows.items():
            times.setdefault(("csim " + k) if k != "mujoco" else "MuJoCo newton", []).append(
                S.num(row.get("us_per_step")))
            if b == 0:
                stats[("csim " + k) if k != "mujoco" else "MuJoCo newton"] = row
        for eng, sv in PEERS:
            if eng not in avail:
                continue
            row = peer_run(eng, sv, label, steps, 1, eps=(b == 0))
            key = "%s %s" % ("ODE" if eng == "ode" else "Bullet", sv)
            times.setdefault(key, []).append(S.num(row.get("us_per_step")) if row else None)
            if b == 0 and row:
                stats[key] = row
    out = []
    for key, us in times.items():
        row = stats.get(key, {})
        vals = [u for u in us if u is not None]
        ir = None
        if have_vg:
            if key.startswith("csim "):
                ir = S.count(s, key[5:], tmp)
            elif key.startswith("MuJoCo"):
                ir = S.count(s, "mujoco", tmp)
            else:
                eng, sv = key.split()
                ir = peer_ir(eng.lower(), sv, label, counted, tmp)
        out.append({"scene": label, "engine": key, "nv": row.get("nv", ""),
                    "contacts": S.num(row.get("contacts_mean")),
                    "us": statistics.median(vals) if len(vals) == len(us) else None,
                    "ir": ir, "eps": S.num(row.get("eps_abs_mean")),
                    "mismatch": S.num(row.get("mismatch_max")), "batches": len(vals)})
    return out


def main():
    avail = []
    for eng in ("ode", "bullet"):
        r = subprocess.run(["make", "--no-print-directory", "-s", "build/bench_" + eng], cwd=ROOT,
                           capture_output=True, text=True)
        if r.returncode == 0 and os.path.exists(os.path.join(BUILD, "bench_" + eng)):
            avail.append(eng)
        else:
            print("bench_peers: SKIP %s (not built: %s)" % (eng, (r.stderr or r.stdout).strip()[-200:]))
    r = subprocess.run([os.path.join(ROOT, "tools", "bench", "bench_mujoco.sh"), "--build-only"], cwd=ROOT)
    if r.returncode != 0 or not avail:
        print("bench_peers: cannot build the harnesses", file=sys.stderr)
        return 2
    have_vg = subprocess.run(["sh", "-c", "command -v valgrind"], capture_output=True).returncode == 0
    want = os.environ.get("SCENES", " ".join(QUICK_SCENES if QUICK else FULL_SCENES)).split()
    results = []
    status = 0
    with tempfile.TemporaryDirectory(prefix="csim_peers.") as tmp:
        for s in [s for s in S.scenes(tmp) if s[0] in want]:
            print("bench_peers: %s" % s[0], file=sys.stderr, flush=True)
            rows = scene_rows(s, tmp, have_vg, avail)
            status |= any(r["us"] is None for r in rows)
            results += rows
    os.makedirs(os.path.join(ROOT, "out", "bench"), exist_ok=True)
    cols = ["scene", "engine", "nv", "contacts", "us", "ir", "eps", "mismatch", "batches"]
    with open(os.path.join(ROOT, "out", "bench", "peers.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["scene", "engine", "nv", "contacts_mean", "us_per_step", "ir_per_step",
                     "eps_abs_mean", "mismatch_max", "batches"])
        for r in results:
            w.writerow(["" if r[c] is None else r[c] for c in cols])
    hdr = "%-12s %-16s %4s %8s %9s %11s %9s %9s"
    print(hdr % ("scene", "engine", "nv", "contacts", "us/step", "Ir/step", "eps_abs", "G l+g-Jv+"))
    for r in results:
        print(hdr % (r["scene"], r["engine"], r["nv"], S.fmt(r["contacts"]), S.fmt(r["us"]),
                     S.fmt(r["ir"], "%.4g"), S.fmt(r["eps"], "%.2e"), S.fmt(r["mismatch"], "%.1e")))
    print("written: out/bench/peers.csv")
    return 1 if status else 0


if __name__ == "__main__":
    sys.exit(main())
