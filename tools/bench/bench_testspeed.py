#!/usr/bin/env python3
"""tools/bench/bench_testspeed.py — MuJoCo's own timing tool beside csim on MuJoCo's model files
(part of `make bench`).

Every figure is measured in this run; nothing is quoted. For each model file of Debian's
libmujoco-samples (MuJoCo 2.2.2: humanoid/humanoid.xml, humanoid/22_humanoids.xml,
humanoid100/humanoid100.xml):
  MuJoCo     `mujoco-testspeed FILE NSTEP 1 0` (one thread, no control noise; the file's own
             options, else MuJoCo's defaults: Newton, pyramidal cone): its "Time per step" and
             "Contacts per step";
  csim       `csim run` on a scenario naming the same file (robots.0.mjcf, no ground of csim's
             own, the file's time step, NSTEP steps, nothing recorded but the last row) with
             csim's model matching MuJoCo's, ccp with the file's solref/solimp (MuJoCo-style
             softness, contact.combine mujoco, friction 1 for the floor pairs as
             scenarios/mujoco_humanoid.yaml; ccp's Lorentz cone, and MuJoCo's default pyramid,
             contact.cone pyramidal), solver pgs (tolerance 1e-8, at most 500 iterations) and
             newton (MuJoCo's primal Newton method on the same problem), csim's default solver in
             that model: ccp under solver auto in the file's own cone (its <option cone>, else
             MuJoCo's default pyramid, as these three; auto is newton there: MuJoCo's own model
             and method; "csim matching model, default solver"), the same with csim's own
             midpoint velocity products in place of the file's integrator, and what a scenario
             naming the file gets without contact or integrator keys, csim's default model,
             solver and integrator (ncp, solver auto, same tolerance, midpoint; "csim default
             (ncp/auto)"): the time per step and mean contacts and ε_abs (seed 000 eq. 14) csim
             run prints. Every ccp side takes the file's own integrator, MuJoCo's Euler step for
             these three (no <option integrator>): velocity products at the step's start,
             integrator.velocity_products explicit, as MuJoCo's;
  rounds     ROUNDS interleaved rounds (MuJoCo, then each csim side in turn), the median
             time per step of each;
  Ir/step    callgrind instructions inside the step: MuJoCo's testspeed with
             --toggle-collect=mj_step, csim through build/bench_mujoco with
             --toggle-collect=bench_csim_step (as tools/bench/bench_scenes.py), over the same
             steps as the time;
  ε_abs      csim's as csim run prints it; MuJoCo's from `build/bench_mujoco --mjcf-eps FILE
             --steps NSTEP` (one untimed run of the same steps as testspeed's, the file as it is):
             after each mj_step, every contact's impulse dt f (mj_contactForce, which decodes the
             pyramidal cone's edge forces) and its velocity c = J v+ with MuJoCo's own next
             velocity, whatever else its step held (limit rows, implicit damping); seed 000
             eq. 14 on the sliding cone of friction[0] by csim's residual code, the mean over
             steps (0 for a step without contact); c* = 0 as for the matched scenes.
A side that cannot run a file says why in the note (csim's own error message, e.g.
a file that needs what csim lacks). Writes out/bench/testspeed.csv, prints the table.
  tools/bench/bench_testspeed.py            # NSTEP 2000 / 500 / 500, 5 rounds
  QUICK=1 tools/bench/bench_testspeed.py    # 200 / 50 / 50 steps, 3 rounds
Exit status: 0 when every side ran or stated why not, 1 when a run failed unexpectedly.
"""
import csv
import os
import re
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CSIM = os.environ.get("CSIM", os.path.join(ROOT, "csim"))
BENCH = os.path.join(ROOT, "build", "bench_mujoco")
TESTSPEED = "mujoco-testspeed"
QUICK = os.environ.get("QUICK", "0") == "1"
ROUNDS = int(os.environ.get("ROUNDS", "3" if QUICK else "5"))
MODELS = "/usr/share/mujoco/model"
# (label, file, steps timed, steps counted under callgrind): the same steps, so that the time and
# Ir ratios describe the same run (humanoid100's first 100 steps hold 10 contacts, its 500 hold
# 125: counted over 100, csim's Ir ratio read 1.20 beside a time ratio of 3.56 over 500, whose
# own Ir ratio is 3.69)
FILES = [("humanoid", "humanoid/humanoid.xml", 200 if QUICK else 2000, 200 if QUICK else 2000),
         ("22_humanoids", "humanoid/22_humanoids.xml", 50 if QUICK else 500, 50 if QUICK else 500),
         ("humanoid100", "humanoid100/humanoid100.xml", 50 if QUICK else 500, 50 if QUICK else 500)]
# csim's sides: (engine name, model/solver pair for bench_mujoco, --set overrides)
# the default first (what a user of the file gets: its rows come right under MuJoCo's), then
# csim's generic default, then the fixed solvers beside them
CSIM_SIDES = [# the file's own cone (file_cone): MuJoCo's pyramid unless its <option> says elliptic;
              # the file's own integrator (file_vp): MuJoCo's Euler step, velocity products
              # explicit, unless its <option> names another
              ("csim matching model, default solver (ccp/auto CONE)", "ccp/auto",
               ["solver.name=auto", "contact.cone=CONE"]),
              # the same with csim's own integrator in place of the file's: the velocity products
              # at the step's midpoint (implicit, by fixed-point iteration)
              ("csim matching model, csim's midpoint velocity products (ccp/auto CONE)",
               "ccp/auto", ["solver.name=auto", "contact.cone=CONE",
                            "integrator.velocity_products=midpoint"]),
              ("csim default (ncp/auto)", "ncp/auto",
               ["contact.model=ncp", "solver.name=auto", "integrator.velocity_products=midpoint"]),
              ("csim ccp/pgs", "ccp/pgs", []),
              ("csim ccp/newton", "ccp/newton", ["solver.name=newton"])]


def file_vp(path):
    """csim's velocity products for the file's <option integrator>: MuJoCo's Euler step (its
    default) evaluates them at the step's start (integrator.velocity_products explicit); for
    another integrator csim's own midpoint rule"""
    with open(path) as f:
        m = re.search(r"<option[^>]*\bintegrator=\"(\w+)\"", f.read())
    return "explicit" if not m or m.group(1) == "Euler" else "midpoint"


def scenario(path, steps, dt, tmp, label, cone="elliptic"):
    """a scenario naming the MJCF file: ccp with its softness and its integrator (as
    scenarios/mujoco_humanoid.yaml)"""
    p = os.path.join(tmp, label + ".yaml")
    with open(p, "w") as f:
        f.write("name: %s\nworld: {gravity: [0, 0, -9.81], ground: {type: none}}\n"
                "robots:\n  - mjcf: %s\ncontact: {model: ccp, friction: 1, combine: mujoco, cone: %s}\n"
                "solver: {name: pgs, tolerance: 1.0e-8, max_iterations: 500, warm_start: true}\n"
                "integrator: {duration: %.10g, velocity_products: %s}\n"
                "output: {path: %s.h5, every: 100000}\n"
                % (label, path, cone, steps * dt, file_vp(path), label))
    return p


def file_cone(path):
    """the file's <option cone> in csim's words: MuJoCo's default pyramid unless it says elliptic"""
    with open(path) as f:
        m = re.search(r"<option[^>]*\bcone=\"(\w+)\"", f.read())
    return "elliptic" if m and m.group(1) == "elliptic" else "pyramidal"


def sides_of(path):
    """CSIM_SIDES with the default row in the file's own cone"""
    cone = file_cone(path)
    return [(n.replace("CONE", cone), pair, [x.replace("CONE", cone) for x in sets])
            for n, pair, sets in CSIM_SIDES]


def timestep(path):
    """the file's <option timestep> (MuJoCo's default 0.002 when none)"""
    with open(path) as f:
        m = re.search(r"<option[^>]*\btimestep=\"([0-9.eE+-]+)\"", f.read())
    return float(m.group(1)) if m else 0.002


def field(text, pat):
    m = re.search(pat, text, re.M)
    return float(m.group(1)) if m else None


def run_mujoco(path, steps):
    """testspeed's (us/step, contacts per step, nv), or an error text"""
    r = subprocess.run([TESTSPEED, path, str(steps), "1", "0"], capture_output=True, text=True)
    ms = field(r.stdout, r"Time per step\s*:\s*([0-9.eE+-]+) ms")
    if r.returncode != 0 or ms is None:
        return (r.stderr or r.stdout).strip().splitlines()[-1:] or ["failed"]
    return (1e3 * ms, field(r.stdout, r"Contacts per step\s*:\s*([0-9.eE+-]+)"),
            int(field(r.stdout, r"Degrees of freedom\s*:\s*([0-9]+)") or 0))


def mujoco_eps(path, steps):
    """the mean eps_abs of MuJoCo's answers over the file's first `steps` steps (bench_mujoco
    --mjcf-eps), or None"""
    if not os.path.exists(BENCH):
        return None
    r = subprocess.run([BENCH, "--mjcf-eps", path, "--steps", str(steps)], capture_output=True,
                       text=True)
    return field(r.stdout, r"eps_abs_mean ([0-9.eE+-]+)") if r.returncode == 0 else None


def run_csim(yaml, sets, tmp):
    """csim run's (us/step, contacts mean, eps_abs mean, nv), or its error message"""
    cmd = [CSIM, "run", yaml, "--out", os.path.join(tmp, "cs.h5")]
    for s in sets:
        cmd += ["--set", s]
    r = subprocess.run(cmd, capture_output=True, text=True)
    us = field(r.stdout, r", ([0-9.eE+-]+) us/step")
    if r.returncode != 0 or us is None:
        msg = [ln for ln in (r.stderr + r.stdout).splitlines() if "error" in ln]
        return [(msg or ["exit %d" % r.returncode])[0].replace("csim: error: ", "")]
    return (us, field(r.stdout, r"contacts mean ([0-9.eE+-]+)"),
            field(r.stdout, r"eps_abs mean ([0-9.eE+-]+)"), int(field(r.stdout, r"nv ([0-9]+);") or 0))


def callgrind(cmd, fn, tmp, steps):
    """instructions per step inside fn (callgrind totals / steps: testspeed steps once, and
    bench_mujoco too with --batches 0, its statistics pass alone), or None"""
    out = os.path.join(tmp, "cg.out")
    if os.path.exists(out):
        os.remove(out)
    r = subprocess.run(["valgrind", "--tool=callgrind", "--collect-atstart=no",
                        "--toggle-collect=" + fn, "--callgrind-out-file=" + out] + cmd,
                       cwd=ROOT, capture_output=True, text=True)
    if r.returncode != 0 or not os.path.exists(out):
        return None
    with open(out) as f:
        m = re.search(r"^totals:\s*(\d+)", f.read(), re.M)
    return int(m.group(1)) / float(steps) if m and int(m.group(1)) > 0 else None  # 0: toggle missed


def bench_file(label, rel, steps, nir, tmp, have_vg):
    """the rows of one model file: MuJoCo, then each csim side"""
    path = os.path.join(MODELS, rel)
    dt = timestep(path)
    sides = sides_of(path)
    yaml = scenario(path, steps, dt, tmp, label)
    times = {"mujoco": []}
    last = {}
    for name, _, _ in sides:
        times[name] = []
    for _ in range(ROUNDS):
        res = run_mujoco(path, steps)
        last["mujoco"] = res
        if isinstance(res, tuple):
            times["mujoco"].append(res[0])
        for name, _, sets in sides:
            res = run_csim(yaml, sets, tmp)
            last[name] = res
            if isinstance(res, tuple):
                times[name].append(res[0])
    rows = []
    mj = last["mujoco"]
    mj_us = statistics.median(times["mujoco"]) if times["mujoco"] else None
    mj_ir = None
    if have_vg and isinstance(mj, tuple):
        mj_ir = callgrind([TESTSPEED, path, str(nir), "1", "0"], "mj_step", tmp, nir)
    rows.append({"model": label, "file": rel, "engine": "MuJoCo testspeed", "steps": steps,
                 "steps_ir": nir, "rounds": ROUNDS, "nv": mj[2] if isinstance(mj, tuple) else None,
                 "contacts_mean": mj[1] if isinstance(mj, tuple) else None, "us_per_step": mj_us,
                 "ratio_us": None, "ir_per_step": mj_ir, "ratio_ir": None,
                 "eps_abs_mean": mujoco_eps(path, steps) if isinstance(mj, tuple) else None,
                 "note": "" if isinstance(mj, tuple) else mj[0]})
    for name, pair, sets in sides:
        c = last[name]
        ok = isinstance(c, tuple)
        us = statistics.median(times[name]) if times[name] else None
        ir = None
        if ok and have_vg and os.path.exists(BENCH):
            cone = "pyramidal" if "contact.cone=pyramidal" in sets else "elliptic"
            yaml_ir = scenario(path, nir, dt, tmp, label + "_ir", cone)
            # the side's integrator (the model and solver are the pair's, the cone the yaml's)
            vp = [a for x in sets if x.startswith("integrator.") for a in ("--set", x)]
            ir = callgrind([BENCH, "--scenario", yaml_ir, "--label", label, "--csim", pair,
                            "--mujoco", "none", "--steps", str(nir), "--batches", "0", "--no-eps"]
                           + vp, "bench_csim_step*", tmp, nir)
        rows.append({"model": label, "file": rel, "engine": name, "steps": steps, "steps_ir": nir,
                     "rounds": ROUNDS,
                     "nv": c[3] if ok else None, "contacts_mean": c[1] if ok else None,
                     "us_per_step": us, "ratio_us": us / mj_us if us and mj_us else None,
                     "ir_per_step": ir, "ratio_ir": ir / mj_ir if ir and mj_ir else None,
                     "eps_abs_mean": c[2] if ok else None,
                     "note": "" if ok else "csim refuses the file: " + c[0]})
    return rows


COLS = ["model", "file", "engine", "nv", "steps", "steps_ir", "rounds", "contacts_mean", "us_per_step",
        "ratio_us", "ir_per_step", "ratio_ir", "eps_abs_mean", "note"]


def fmt(v, f="%.3g"):
    return "-" if v is None else f % v if isinstance(v, float) else str(v)


def main():
    if subprocess.run(["which", TESTSPEED], capture_output=True).returncode != 0:
        print("testspeed comparison: SKIP (mujoco-testspeed not installed: libmujoco-samples, make deps)")
        return 0
    have_vg = subprocess.run(["which", "valgrind"], capture_output=True).returncode == 0
    # always through the build (as bench_scenes.py): a harness older than libcsim would time old code
    subprocess.run([os.path.join(ROOT, "tools", "bench", "bench_mujoco.sh"), "--build-only"],
                   cwd=ROOT, capture_output=True)
    status, rows = 0, []
    print("MuJoCo's testspeed beside csim on MuJoCo's model files (%s; median of %d interleaved "
          "rounds; Ir: callgrind inside mj_step / csim's step)" % ("QUICK" if QUICK else "full", ROUNDS))
    hdr = "%-13s %-24s %4s %6s %9s %10s %7s %11s %7s %9s  %s"
    print(hdr % ("model", "engine", "nv", "steps", "contacts", "us/step", "ratio", "Ir/step",
                 "ratio", "eps_abs", "note"))
    with tempfile.TemporaryDirectory() as tmp:
        for label, rel, steps, nir in FILES:
            if not os.path.exists(os.path.join(MODELS, rel)):
                print("%s: SKIP (%s not installed)" % (label, rel))
                continue
            for r in bench_file(label, rel, steps, nir, tmp, have_vg):
                rows.append(r)
                if r["engine"] == "MuJoCo testspeed" and r["us_per_step"] is None:
                    status = 1
                print(hdr % (r["model"], r["engine"], fmt(r["nv"]), r["steps"],
                             fmt(r["contacts_mean"]), fmt(r["us_per_step"], "%.4g"),
                             fmt(r["ratio_us"], "%.2f"), fmt(r["ir_per_step"], "%.4g"),
                             fmt(r["ratio_ir"], "%.2f"), fmt(r["eps_abs_mean"], "%.1e"), r["note"]))
    os.makedirs(os.path.join(ROOT, "out", "bench"), exist_ok=True)
    with open(os.path.join(ROOT, "out", "bench", "testspeed.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLS)
        w.writeheader()
        for r in rows:
            w.writerow({k: ("" if r[k] is None else r[k]) for k in COLS})
    return status


if __name__ == "__main__":
    sys.exit(main())
