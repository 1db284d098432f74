#!/usr/bin/env python3
"""tools/bench/bench_scenes.py — csim against MuJoCo 2.2.2 on matched scenes (part of `make bench`).

Every figure is measured in this run; nothing is quoted. Per scene, csim with each solver of
CSIM_SOLVERS (default "ncp/pgs ncp/admm ncp/auto": per-contact PGS is cheapest on few, loosely
coupled contacts; ADMM factors each island in dof space, cheapest on stacks and chains; auto
chooses between them per island, docs/models_and_solvers.md) and MuJoCo
(Newton, elliptic cone, default solref/solimp, the scenario's dt, tolerance and iteration cap)
run the same robot description through build/bench_mujoco (tools/bench/bench_mujoco.c says how the
models are matched):
  horizon    every figure of the default pair and MuJoCo covers the scene's whole run
             (duration / dt: 600 steps for the cubes, 2000 for Solo-12 and Talos, 1000 for the
             generated scenes); the fixed pairs beside the default are counted over the first
             FIXED_COUNT steps (FIXED_COUNT below); the CSV's steps_run, steps_time,
             steps_counted and steps_counted_fixed say which;
  time       us/step, the median over BATCHES interleaved batches (batch b of every csim solver
             and MuJoCo in turn, one bench_mujoco run), wall time of the step loop only;
  Ir/step    instructions inside the step (valgrind --tool=callgrind, collection toggled on inside
             bench_csim_step (sim_step's caller) or mj_step only, so set-up and the residual pass
             are not counted), one callgrind run per csim solver and one for MuJoCo; noise-free,
             the figure to compare on a shared machine; where the run settles (SETTLE) the default
             pair and MuJoCo are counted again over the settling window alone;
  default    DEFAULT (ncp/auto, csim's default solver): ratio_ir_default / ratio_us_default and
             issue 26's targets met or missed (target_ir: Ir ratio <= 0.5, target_us: time ratio
             <= 0.6, target_cap: no step at the iteration cap over the timed horizon); cap_csim_<k>
             counts the steps that ended at the cap per csim solver;
  profile    the default pair's and MuJoCo's stages' shares of the step (inclusive: csim's
             collision, contact build, solve, apply and the rest; MuJoCo's mj_collision,
             mj_makeConstraint, mj_fwdConstraint and the rest) and top functions by their own
             instructions over the counted horizon (callgrind_annotate of the same runs): where
             the instructions go, shown in the table for every scene where the default misses a
             target (kept through MERGE=1, as every text column);
  contacts   mean contacts per step on each side (MuJoCo: active contacts);
  eps_abs    mean NCP residual of seed 000 eq. 14 per step, computed by csim's code on each
             engine's own answer (MuJoCo's: from its contacts, efc_force and M; see
             tools/bench/bench_mujoco.c), "-" where that pass would not fit (1024 cubes).
Scenes: cube at rest and sliding, a 2-cube stack, Solo-12 and Talos standing (scenarios/),
grids of N resting 10 cm cubes 0.2 m apart, stacks of N cubes, and chains of N 0.1 m links lying
on the ground (free base, 5 + N dofs, 4 contacts per link); the generated scenarios are written
to a temporary directory. A side that cannot run a scene says why in the note (e.g. csim's
contact buffers past contact.memory_budget, or MuJoCo 2.2.2's mjData, whose size is an int, past
2 GiB: 1024 resting cubes need 12288 constraint rows, see tools/bench/bench_mujoco.c).
Then log-log least-squares slopes of cost (Ir/step and us/step) against contacts and against
dofs per family, for each csim solver and MuJoCo.

Writes out/bench/mujoco.csv (one row per scene: columns <what>_csim_<solver> per csim solver,
e.g. ir_csim_pgs, ratio_ir_admm, <what>_mujoco, and best_csim, the csim solver with the fewest
Ir/step on that scene, with ir_csim_best and ratio_ir_best; csim_solvers lists the pairs) and out/bench/slopes.csv (engine
"csim ncp/pgs", ..., "mujoco"), prints both tables.
  tools/bench/bench_scenes.py              # every scene (long: tens of minutes on 2 busy cores)
  QUICK=1 tools/bench/bench_scenes.py      # a subset in a few minutes
  CSIM_SOLVERS="ncp/pgs" tools/bench/bench_scenes.py   # csim with these solvers only
  BATCHES=9 SCENES="cube_rest grid_16" MERGE=1 tools/bench/bench_scenes.py
                                     # some scenes, their rows replaced in the existing CSV
Exit status: 0 when every scene ran on every side (MuJoCo past its own mjData size limit, which
bench_mujoco states, is noted, not a failure), 1 when one could not, 2 when the tool cannot be
built.
"""
import csv
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.path.join(ROOT, "build", "bench_mujoco")
QUICK = os.environ.get("QUICK", "0") == "1"
BATCHES = int(os.environ.get("BATCHES", "3" if QUICK else "7"))
CUBE = os.path.join(ROOT, "robots", "cube.urdf")
# csim's model/solver pairs, each measured on every scene
SOLVERS = os.environ.get("CSIM_SOLVERS", "ncp/pgs ncp/admm ncp/auto").split()
# csim's default pair (solver.name defaults to auto): the `ratio` columns and the targets are its
DEFAULT = os.environ.get("CSIM_DEFAULT", "ncp/auto")
# issue 26's targets for the default pair against MuJoCo, whole runs: instructions and time per step
TARGET_IR, TARGET_US = 0.5, 0.6


def skey(pair):
    """the short name of a csim pair in column names: its solver ("pgs"), or model_solver when
    two pairs share a solver"""
    short = pair.split("/")[-1]
    if sum(1 for p in SOLVERS if p.split("/")[-1] == short) > 1:
        return pair.replace("/", "_")
    return short


SOLVER = "solver: {name: pgs, tolerance: 1.0e-6, max_iterations: 500, warm_start: true}\n"


def grid_yaml(n):
    side = math.isqrt(n)
    side += side * side < n
    rows = "".join("  - {urdf: %s, base: free, q0: [%.3f, %.3f, 0.05, 0, 0, 0, 1]}\n"
                   % (CUBE, 0.2 * (i % side), 0.2 * (i // side)) for i in range(n))
    return ("name: grid_%d\nworld: {gravity: [0, 0, -9.81], ground: {type: plane, height: 0}}\n"
            "robots:\n%scontact: {model: ncp, friction: 0.5, baumgarte: 0}\n%s"
            "integrator: {dt: 1.0e-3, duration: 1.0}\n" % (n, rows, SOLVER))


def stack_yaml(n):
    # cubes exactly touching, centres 0.1 m apart
    rows = "".join("  - {urdf: %s, base: free, q0: [0, 0, %.3f, 0, 0, 0, 1]}\n"
                   % (CUBE, 0.05 + 0.1 * k) for k in range(n))
    return ("name: stack_%d\nworld: {gravity: [0, 0, -9.81], ground: {type: plane, height: 0}}\n"
            "robots:\n%scontact: {model: ncp, friction: 0.5, baumgarte: 0}\n%s"
            "integrator: {dt: 1.0e-3, duration: 1.0}\n" % (n, rows, SOLVER))


def chain_urdf(n):
    # n links of 0.1 m along -z (0.02 m square boxes, 0.1 kg), revolute joints about y; link1
    # is the root (free base)
    out = ['<?xml version="1.0"?>', '<robot name="chain%d">' % n]
    for k in range(1, n + 1):
        out.append('  <link name="link%d">\n    <inertial><origin xyz="0 0 -0.05"/><mass value="0.1"/>'
                   '\n      <inertia ixx="8.6667e-05" ixy="0" ixz="0" iyy="8.6667e-05" iyz="0" '
                   'izz="6.6667e-06"/></inertial>\n    <collision><origin xyz="0 0 -0.05"/>'
                   '<geometry><box size="0.02 0.02 0.1"/></geometry></collision>\n  </link>' % k)
        if k > 1:
            out.append('  <joint name="j%d" type="revolute"><parent link="link%d"/><child link="link%d"/>'
                       '\n    <origin xyz="0 0 -0.1"/><axis xyz="0 1 0"/>\n    <limit lower="-3.14" '
                       'upper="3.14" effort="100" velocity="100"/></joint>' % (k, k - 1, k))
    out.append("</robot>")
    return "\n".join(out) + "\n"


def chain_yaml(n, urdf):
    # lying straight along +x on the plane: base rotated -90 deg about y
    q0 = "0, 0, 0.01, 0, -0.7071067811865476, 0, 0.7071067811865476" + ", 0" * (n - 1)
    return ("name: chain_%d\nworld: {gravity: [0, 0, -9.81], ground: {type: plane, height: 0}}\n"
            "robots:\n  - {urdf: %s, base: free, q0: [%s]}\n"
            "contact: {model: ncp, friction: 0.5, baumgarte: 0}\n%s"
            "integrator: {dt: 1.0e-3, duration: 1.0}\n" % (n, urdf, q0, SOLVER))


# every scene is timed and counted over its whole run: the counting runs step each engine once
# (bench_mujoco --batches 0), about 1e8 instructions a second under callgrind here, so the
# largest (grid_1024, 2.8e10 instructions in csim's steps) takes some five minutes. A horizon of
# the first N steps can still be set per scene for a slower machine (the tables then say
# "first N of M"): {"grid_1024": 100}
COUNT_HORIZON = {}
TIME_HORIZON = {}
# the pairs other than the default (the fixed solvers beside it) are counted over the first
# FIXED_COUNT steps of the counted horizon, MuJoCo again over the same steps for their ratios: a
# whole run of ncp/pgs under callgrind on the stacks and long chains (every step at the cap, 500
# sweeps) is some 2e11 instructions, hours on two cores, and its cost per step is stationary
FIXED_COUNT = int(os.environ.get("FIXED_COUNT", "200"))


def fixed_steps(s):
    return min(FIXED_COUNT, s[7])


# the settling window, counted separately (default solver and MuJoCo) where it differs from the
# run: a slide coming to rest, a stack or a robot settling onto its contacts
SETTLE = {"cube_slide": 200, "cube_stack2": 200, "solo12_stand": 100, "talos_stand": 50,
          "stack_2": 60, "stack_4": 60, "stack_8": 60, "stack_16": 60}


def scene(label, fam, size, path, sets, run, eps=True):
    """(label, family, size, path, sets, steps of the whole run, timed steps, counted steps,
    settling steps or None, residual pass)"""
    return (label, fam, size, path, sets, run, min(run, TIME_HORIZON.get(label, run)),
            min(run, COUNT_HORIZON.get(label, run)), SETTLE.get(label), eps)


def scenes(tmp):
    sc = os.path.join(ROOT, "scenarios")
    stack2 = os.path.join(tmp, "cube_stack2.yaml")
    with open(stack2, "w") as f:
        f.write(stack_yaml(2).replace("stack_2", "cube_stack2").replace(
            "max_iterations: 500", "max_iterations: 1000").replace("1.0e-6", "1.0e-8"))
    # whole runs: the scenario's duration / dt (cube_slide.yaml 0.6 s, solo12 and talos 2 s,
    # the generated scenes 1 s)
    out = [scene("cube_rest", "cube", 1, os.path.join(sc, "cube_slide.yaml"),
                 ["name=cube_rest", "robots.0.v0=[0, 0, 0, 0, 0, 0]"], 600),
           scene("cube_slide", "cube", 1, os.path.join(sc, "cube_slide.yaml"), [], 600),
           scene("cube_stack2", "cube", 2, stack2, [], 1000),
           scene("solo12_stand", "robot", 18, os.path.join(sc, "solo12_stand.yaml"), [], 2000),
           scene("talos_stand", "robot", 39, os.path.join(sc, "talos_stand.yaml"), [], 2000)]
    grids = [1, 16, 64] if QUICK else [1, 16, 64, 256, 1024]
    stacks = [2, 4, 8] if QUICK else [2, 4, 8, 16, 32, 64]
    chains = [5, 10, 20] if QUICK else [5, 10, 20, 40]
    for n in grids:
        p = os.path.join(tmp, "grid_%d.yaml" % n)
        with open(p, "w") as f:
            f.write(grid_yaml(n))
        out.append(scene("grid_%d" % n, "grid", n, p, [], 1000, n <= 256))
    for n in stacks:
        p = os.path.join(tmp, "stack_%d.yaml" % n)
        with open(p, "w") as f:
            f.write(stack_yaml(n))
        out.append(scene("stack_%d" % n, "stack", n, p, [], 1000))
    for n in chains:
        u = os.path.join(tmp, "chain_%d.urdf" % n)
        with open(u, "w") as f:
            f.write(chain_urdf(n))
        p = os.path.join(tmp, "chain_%d.yaml" % n)
        with open(p, "w") as f:
            f.write(chain_yaml(n, u))
        out.append(scene("chain_%d" % n, "chain", n, p, [], 1000))
    only = os.environ.get("SCENES")
    if only:
        keep = set(only.split())
        out = [s for s in out if s[0] in keep]
    return out


def sets_args(sets):
    a = []
    for s in sets:
        a += ["--set", s]
    return a


# MuJoCo's model is mirrored from csim's simulation of the scenario (tools/bench/bench_mujoco.c), so a
# scene past csim's contact.memory_budget runs MuJoCo alone with this budget: csim's buffers are
# then only reserved (never touched: csim does not step), the figures are MuJoCo's
MJ_ALONE_BUDGET = "contact.memory_budget=8192"


def timing(s, tmp, alone=False):
    """bench_mujoco's interleaved batches of every csim solver and MuJoCo: {csim pair or "mujoco":
    row dict}, stderr text; alone: MuJoCo only"""
    label, path, sets, steps, eps = s[0], s[3], s[4], s[6], s[9]
    csvp = os.path.join(tmp, label + ".csv")
    if os.path.exists(csvp):
        os.remove(csvp)
    lists = ["--csim", "none", "--mujoco", "newton"] if alone else \
            ["--csim", ",".join(SOLVERS), "--mujoco", "newton"]
    if alone:
        sets = sets + [MJ_ALONE_BUDGET]
    cmd = [BIN, "--scenario", path, "--label", label] + lists + \
          ["--steps", str(steps), "--batches", str(BATCHES), "--csv", csvp] + sets_args(sets)
    if not eps:
        cmd.append("--no-eps")
    r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    rows = {}
    if os.path.exists(csvp):
        with open(csvp) as f:
            for row in csv.DictReader(f):
                rows[row["solver"] if row["engine"] == "csim" else row["engine"]] = row
    return rows, r.stderr


def count(s, engine, tmp, alone=False, steps=None):
    """instructions per step inside sim_step (engine: a csim pair) / mj_step (engine "mujoco")
    (callgrind) over the scene's counted horizon (or the first `steps`), or None"""
    label, path, sets = s[0], s[3], s[4]
    steps = steps or s[7]
    if alone:
        sets = sets + [MJ_ALONE_BUDGET]
    out = os.path.join(tmp, "cg.%s.%s.%d" % (label, engine.replace("/", "_"), steps))
    fn = "mj_step" if engine == "mujoco" else "bench_csim_step*"  # LTO may name it bench_csim_step.lto_priv.0
    lists = ["--csim", engine, "--mujoco", "none"] if engine != "mujoco" else \
            ["--csim", "none", "--mujoco", "newton"]
    cmd = ["valgrind", "--tool=callgrind", "--collect-atstart=no", "--toggle-collect=" + fn,
           "--callgrind-out-file=" + out, BIN, "--scenario", path, "--label", label] + lists + \
          ["--steps", str(steps), "--batches", "0", "--no-eps"] + sets_args(sets)
    r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if r.returncode != 0 or not os.path.exists(out):
        return None
    with open(out) as f:
        m = re.search(r"^totals:\s*(\d+)", f.read(), re.M)
    if m and steps == s[7] and engine in (DEFAULT, "mujoco"):
        PROFILES[(label, engine)] = profile(out)
    # --batches 0: bench_mujoco steps the scene once (its timed loop); a count of nothing means
    # the toggle missed the function (a renamed symbol), not a free step
    return int(m.group(1)) / float(steps) if m and int(m.group(1)) > 0 else None


# where the instructions go: (scene, engine) -> the top functions by self cost, from the
# callgrind run of the counted horizon (the default pair's and MuJoCo's)
PROFILES = {}
PROFILE_TOP = 6


# the step's stages by their entry functions (inclusive instructions), csim's and MuJoCo's: where
# the instructions go before the top functions say which code
STAGES = {"csim": (("collision", "coll_detect"), ("contact build", "contact_build"),
                   ("solve", "solver_solve"), ("apply", "contact_apply")),
          "mujoco": (("collision", "mj_collision"), ("makeConstraint", "mj_makeConstraint"),
                     ("fwdConstraint", "mj_fwdConstraint"))}


def stages(out):
    """each stage's share of the step (inclusive) in a callgrind file, the rest of the step last:
    "collision 4%, contact build 37%, ..., rest 20%", or "" """
    r = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--auto=no", "--threshold=100", out],
                       capture_output=True, text=True)
    share = {}
    for line in r.stdout.splitlines():
        m = re.match(r"^\s*[\d,]+ \(\s*([\d.]+)%\)\s+(\S+)", line)
        if m:
            fn = m.group(2).rsplit(":", 1)[-1].split(".")[0]
            share[fn] = max(share.get(fn, 0.0), float(m.group(1)))
    table = STAGES["mujoco" if "mj_step" in share else "csim"]
    got = [(name, share[fn]) for name, fn in table if fn in share]
    if not got:
        return ""
    rest = max(0.0, 100.0 - sum(v for _, v in got))
    return ", ".join("%s %.0f%%" % (n, v) for n, v in got + [("rest", rest)])


def profile(out):
    """where the instructions go in a callgrind file: the stages' shares (stages()), then the
    PROFILE_TOP functions with the most instructions of their own (inlined callees included, as
    the compiler laid them out): "stages: collision 4%, ...; top: fn 26%; fn2 8%; ...", or "" """
    st = stages(out)
    r = subprocess.run(["callgrind_annotate", "--inclusive=no", "--auto=no", "--threshold=100", out],
                       capture_output=True, text=True)
    own = {}  # one function's parts (its file's copy, a header's inlined code) summed
    for line in r.stdout.splitlines():
        m = re.match(r"^\s*[\d,]+ \(\s*([\d.]+)%\)\s+(\S+)", line)
        if not m or "PROGRAM TOTALS" in line:
            continue
        fn = m.group(2).rsplit(":", 1)[-1].split(".")[0]  # file:function.constprop.0 -> function
        own[fn] = own.get(fn, 0.0) + float(m.group(1))
    top = sorted(own.items(), key=lambda kv: -kv[1])[:PROFILE_TOP]
    if not top:
        return ""
    return ("stages: %s; top: " % st if st else "") + "; ".join("%s %.0f%%" % kv for kv in top)


def num(x):
    try:
        v = float(x)
        return v if math.isfinite(v) else None
    except (TypeError, ValueError):
        return None


def why(stderr, engine):
    """the reason a side failed, from bench_mujoco's stderr (its last word on that side)"""
    pat = "MuJoCo on" if engine == "mujoco" else "csim %s on" % engine
    for line in reversed(stderr.splitlines()):
        if pat in line:
            m = re.search(r"(at the initial state|at step \d+)[^:]*? collision found (\d+) contacts; "
                          r"the contact buffers hold (\d+) \([\d.]+ MiB of ([\d.]+) MiB", line)
            if m:
                return ("%s contacts %s, its buffers hold %s within contact.memory_budget "
                        "%s MiB (exit %s)" % (m.group(2), m.group(1), m.group(3), m.group(4),
                                              2 if "initial" in m.group(1) else 1))
            return line.split(": ", 2)[-1][:300]
    return "failed (no message)"


def slope(pts):
    pts = [(math.log(x), math.log(y)) for x, y in pts if x and y and x > 0 and y > 0]
    if len(pts) < 2:
        return None
    n = len(pts)
    sx = sum(p[0] for p in pts)
    sy = sum(p[1] for p in pts)
    sxx = sum(p[0] * p[0] for p in pts)
    sxy = sum(p[0] * p[1] for p in pts)
    d = n * sxx - sx * sx
    return (n * sxy - sx * sy) / d if d else None


# the CSV's columns that hold text, kept as they are when earlier rows are merged (every other
# column is a number: num() turns text into None, which is how the profiles of every scene but
# the last partial run's were lost, leaving "-" in the "where the instructions go" table)
TEXT_COLUMNS = ("scene", "family", "note", "nv_csim", "nv_mujoco", "best_csim", "csim_solvers",
                "csim_default", "target_ir", "target_us", "target_cap", "profile_csim_default",
                "profile_mujoco")


def merge(results, path):
    """the rows of an earlier CSV with the scenes just run replaced (or appended)"""
    if not os.path.exists(path):
        return results
    new = {r["scene"]: r for r in results}
    out = []
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            if row["scene"] in new:
                out.append(new.pop(row["scene"]))
                continue
            r = dict(row)
            for k in list(r):
                if k not in TEXT_COLUMNS:
                    r[k] = num(r[k])
            r["n"] = int(r["n"] or 0)
            out.append(r)
    return out + [r for r in results if r["scene"] in new]


def horizon(r):
    """the counted and timed horizons of a row: "whole" (the run's every step) or the first N
    steps of the run"""
    run = num(r.get("steps_run"))
    def one(k):
        n = num(r.get(k))
        if n is None:
            return "-"
        return "whole" if run is not None and n >= run else "%d/%s" % (n, "%d" % run if run else "?")
    return "%s, %s" % (one("steps_counted"), one("steps_time"))


def met(ok):
    return "-" if ok is None else "met" if ok else "missed"


def default_and_targets(res, s, tmp, alone, have_vg):
    """the default pair's ratios (ratio_ir_default, ratio_us_default), its ratio over the settling
    window (a second callgrind run of it and of MuJoCo, where the scene has one) and the targets
    met or missed; nothing when the default pair is not among SOLVERS"""
    res["csim_default"] = DEFAULT if DEFAULT in SOLVERS else ""
    for k in ("ratio_ir_default", "ratio_us_default", "eps_csim_default", "cap_csim_default",
              "ir_settle_csim_default", "ir_settle_mujoco", "ratio_ir_settle_default"):
        res[k] = None
    for k in ("target_ir", "target_us", "target_cap"):
        res[k] = "-"
    if not res["csim_default"]:
        return
    k = skey(DEFAULT)
    res["ratio_ir_default"] = res["ratio_ir_" + k]
    res["ratio_us_default"] = res["ratio_us_" + k]
    res["eps_csim_default"] = res["eps_csim_" + k]
    res["cap_csim_default"] = res["cap_csim_" + k]
    settle = s[8]
    if have_vg and settle and settle < s[7] and res["ir_csim_" + k] and res["ir_mujoco"]:
        ic = count(s, DEFAULT, tmp, steps=settle)
        im = count(s, "mujoco", tmp, alone, steps=settle)
        res["ir_settle_csim_default"], res["ir_settle_mujoco"] = ic, im
        res["ratio_ir_settle_default"] = ic / im if ic and im else None
    ri, ru, cap = res["ratio_ir_default"], res["ratio_us_default"], res["cap_csim_default"]
    res["target_ir"] = met(None if ri is None else ri <= TARGET_IR)
    res["target_us"] = met(None if ru is None else ru <= TARGET_US)
    res["target_cap"] = met(None if cap is None else cap == 0)


def fmt(v, f="%.3g"):
    return "-" if v is None else f % v


def write_csv(results):
    """out/bench/mujoco.csv from the scenes measured so far (merged into the file's rows when
    MERGE=1); called after every scene, so a bench stopped part way keeps what it measured
    (rerun the rest with SCENES=... MERGE=1). The rows written"""
    if os.environ.get("MERGE") == "1":
        results = merge(results, os.path.join(ROOT, "out", "bench", "mujoco.csv"))
    keys = ["csim_" + skey(e) for e in SOLVERS] + ["mujoco"]
    cols = ["scene", "family", "n", "nv_csim", "nv_mujoco"]
    for what in ("contacts", "us", "ir", "eps", "iters", "cap"):
        cols += [what + "_" + k for k in keys]
    for what in ("us", "ir"):
        cols += ["ratio_%s_%s" % (what, skey(e)) for e in SOLVERS]
    cols += ["csim_default", "ratio_ir_default", "ratio_us_default", "eps_csim_default",
             "cap_csim_default", "ir_settle_csim_default", "ir_settle_mujoco", "ratio_ir_settle_default",
             "target_ir", "target_us", "target_cap", "profile_csim_default", "profile_mujoco",
             "best_csim", "ir_csim_best", "ratio_ir_best", "csim_solvers", "steps_run", "steps_time",
             "batches", "steps_counted", "steps_counted_fixed", "steps_settle", "note"]
    with open(os.path.join(ROOT, "out", "bench", "mujoco.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(cols)
        for res in results:
            w.writerow(["" if res.get(c) is None else res.get(c) for c in cols])
    return results


def main():
    r = subprocess.run([os.path.join(ROOT, "tools", "bench", "bench_mujoco.sh"), "--build-only"], cwd=ROOT)
    if r.returncode != 0 or not os.path.exists(BIN):
        print("bench_scenes: cannot build build/bench_mujoco", file=sys.stderr)
        return 2
    have_vg = subprocess.run(["sh", "-c", "command -v valgrind"], capture_output=True).returncode == 0
    os.makedirs(os.path.join(ROOT, "out", "bench"), exist_ok=True)
    status = 0
    results = []
    with tempfile.TemporaryDirectory(prefix="csim_scenes.") as tmp:
        for s in scenes(tmp):
            label, fam, size = s[0], s[1], s[2]
            print("bench_scenes: %s" % label, file=sys.stderr, flush=True)
            rows, err = timing(s, tmp)
            alone = False
            if num(rows.get("mujoco", {}).get("us_per_step")) is None and \
                    "contact.memory_budget" in err:
                alone = True  # csim cannot take the scene: MuJoCo alone (see MJ_ALONE_BUDGET)
                rows2, err2 = timing(s, tmp, alone=True)
                rows.update({k: v for k, v in rows2.items() if k == "mujoco"})
                err += err2
            res = {"scene": label, "family": fam, "n": size, "steps_run": s[5], "steps_time": s[6],
                   "steps_counted": s[7], "steps_settle": s[8] or "", "batches": BATCHES}
            notes = []
            res["nv_csim"] = ""
            for eng in SOLVERS + ["mujoco"]:
                row = rows.get(eng, {})
                key = "mujoco" if eng == "mujoco" else "csim_" + skey(eng)
                us = num(row.get("us_per_step"))
                ran = us is not None  # a failed side's statistics are not figures
                if ran and eng == "mujoco":
                    res["nv_mujoco"] = row.get("nv", "")
                elif ran and not res["nv_csim"]:
                    res["nv_csim"] = row.get("nv", "")
                res.setdefault("nv_mujoco", "")
                res["us_" + key] = us
                res["contacts_" + key] = num(row.get("contacts_mean")) if ran else None
                res["eps_" + key] = num(row.get("eps_abs_mean")) if ran else None
                res["iters_" + key] = num(row.get("iterations_mean")) if ran else None
                # csim: steps that ended at the iteration cap over the timed horizon
                res["cap_" + key] = int(row.get("warnings") or 0) if ran and eng != "mujoco" else None
                # the default pair and MuJoCo over the counted horizon; the other pairs over its
                # first FIXED_COUNT steps (fixed_horizon says why), MuJoCo counted there too
                fixed = eng not in (DEFAULT, "mujoco") and fixed_steps(s) < s[7]
                ir = count(s, eng, tmp, alone and eng == "mujoco",
                           steps=fixed_steps(s) if fixed else None) if (have_vg and ran) else None
                res["ir_" + key] = ir
                name = "MuJoCo" if eng == "mujoco" else "csim " + eng
                if not ran:
                    reason = why(err, eng)
                    notes.append("%s cannot run: %s" % (name, reason))
                    # csim failing is the bench failing; MuJoCo past its own documented size
                    # limit (bench_mujoco.c says why) is a property of the peer, noted above
                    if eng != "mujoco" or "cannot size mjData" not in reason:
                        status = 1
                elif int(row.get("warnings") or 0) > 0 and eng != "mujoco":
                    notes.append("%s: %s" % (name, row.get("note", "")))  # unconverged steps
                elif int(row.get("warnings") or 0) > 0:
                    notes.append("%s: %s warnings (%s)" % (name, row.get("warnings"), row.get("note", "")))
                elif have_vg and ir is None:
                    notes.append("%s: callgrind run failed, no Ir" % name)
                    status = 1
            if not have_vg:
                notes.append("valgrind missing: no instruction counts")
            um, im = res["us_mujoco"], res["ir_mujoco"]
            res["steps_counted_fixed"] = min(fixed_steps(s), s[7])
            imf = im
            if have_vg and im and fixed_steps(s) < s[7] and any(e != DEFAULT for e in SOLVERS):
                imf = count(s, "mujoco", tmp, alone, steps=fixed_steps(s))
            for eng in SOLVERS:
                k = skey(eng)
                uc, ic = res["us_csim_" + k], res["ir_csim_" + k]
                if eng != DEFAULT:
                    im = imf
                else:
                    im = res["ir_mujoco"]
                res["ratio_us_" + k] = uc / um if uc and um else None
                res["ratio_ir_" + k] = ic / im if ic and im else None
            # the csim solver with the smallest Ir ratio to MuJoCo on this scene (ratios, since
            # the default and the fixed pairs may be counted over different horizons)
            counted = [(res["ratio_ir_" + skey(e)], e) for e in SOLVERS if res["ratio_ir_" + skey(e)]]
            best = min(counted)[1] if counted else None
            res["best_csim"] = best or ""
            res["ir_csim_best"] = res["ir_csim_" + skey(best)] if best else None
            res["ratio_ir_best"] = res["ratio_ir_" + skey(best)] if best else None
            default_and_targets(res, s, tmp, alone, have_vg)
            res["profile_csim_default"] = PROFILES.get((label, DEFAULT), "")
            res["profile_mujoco"] = PROFILES.get((label, "mujoco"), "")
            res["csim_solvers"] = " ".join(SOLVERS)  # the pairs behind the <what>_csim_<key> columns
            res["note"] = "; ".join(notes)
            results.append(res)
            write_csv(results)
            print("  %-13s %s" % (label, "  ".join(
                "%s: us %s Ir %s ratio Ir %s contacts %s eps %s" % (
                    e, fmt(res["us_" + kk]), fmt(res["ir_" + kk], "%.4g"),
                    fmt(res.get("ratio_ir_" + kk[5:]) if kk != "mujoco" else None),
                    fmt(res["contacts_" + kk]), fmt(res["eps_" + kk], "%.2e"))
                for e, kk in [(e, "csim_" + skey(e)) for e in SOLVERS] + [("mujoco", "mujoco")])
                + ("  best csim %s  %s" % (res["best_csim"] or "-", res["note"]))),
                file=sys.stderr, flush=True)
    results = write_csv(results)
    # slopes per family, engine (each csim solver, MuJoCo), cost measure and abscissa
    fits = []
    engines = [("csim " + e, "csim_" + skey(e), "nv_csim") for e in SOLVERS] + \
              [("mujoco", "mujoco", "nv_mujoco")]
    for fam in ("grid", "stack", "chain"):
        pts = [r for r in results if r["family"] == fam]
        for xname in ("contacts", "dofs"):
            for eng, key, nvk in engines:
                for cost in ("ir", "us"):
                    xy = []
                    for r in pts:
                        x = r.get("contacts_" + key) if xname == "contacts" else num(r.get(nvk))
                        xy.append((x, r.get(cost + "_" + key)))
                    sl = slope(xy)
                    npts = sum(1 for x, y in xy if x and y)
                    fits.append((fam, xname, eng, cost, sl, npts))
    with open(os.path.join(ROOT, "out", "bench", "slopes.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["family", "x", "engine", "cost", "slope", "points"])
        for fam, xname, eng, cost, sl, npts in fits:
            w.writerow([fam, xname, eng, "ir_per_step" if cost == "ir" else "us_per_step",
                        "" if sl is None else "%.3f" % sl, npts])
    # the tables: one row per scene and engine
    hdr = "%-13s %-13s %5s %8s %9s %6s %11s %6s %9s %7s  %s"
    print(hdr % ("scene", "engine", "nv", "contacts", "us/step", "ratio", "Ir/step", "ratio",
                 "eps_abs", "iters", "note"))
    for r in results:
        for e in SOLVERS + ["mujoco"]:
            k = "mujoco" if e == "mujoco" else "csim_" + skey(e)
            rk = None if e == "mujoco" else skey(e)
            print(hdr % (r["scene"], ("csim " + e) if rk else "MuJoCo",
                         r["nv_mujoco" if e == "mujoco" else "nv_csim"] or "-",
                         fmt(r.get("contacts_" + k)), fmt(r.get("us_" + k)),
                         fmt(r.get("ratio_us_" + rk)) if rk else "", fmt(r.get("ir_" + k), "%.4g"),
                         fmt(r.get("ratio_ir_" + rk)) if rk else "", fmt(r.get("eps_" + k), "%.2e"),
                         fmt(r.get("iters_" + k)),
                         ("best csim: %s; %s" % (r.get("best_csim") or "-", r["note"])) if e == "mujoco" else ""))
    print("\ndefault csim pair %s against MuJoCo (targets: Ir ratio <= %g, time ratio <= %g, no step "
          "at the iteration cap):" % (DEFAULT if DEFAULT in SOLVERS else "(not measured)", TARGET_IR, TARGET_US))
    thdr = "%-13s %-17s %8s %-6s %8s %-6s %6s %-6s %9s %9s %8s"
    print(thdr % ("scene", "horizon Ir/time", "ratio Ir", "", "ratio us", "", "at cap", "",
                  "eps csim", "eps MuJoCo", "Ir settle"))
    for r in results:
        print(thdr % (r["scene"], horizon(r), fmt(r.get("ratio_ir_default"), "%.2f"), r.get("target_ir", "-"),
                      fmt(r.get("ratio_us_default"), "%.2f"), r.get("target_us", "-"),
                      fmt(r.get("cap_csim_default"), "%d"), r.get("target_cap", "-"),
                      fmt(r.get("eps_csim_default"), "%.2e"), fmt(r.get("eps_mujoco"), "%.2e"),
                      fmt(r.get("ratio_ir_settle_default"), "%.2f")))
    print("\nlog-log slopes of cost per step (1 = linear):")
    for fam, xname, eng, cost, sl, npts in fits:
        if npts >= 2:
            print("  %-6s vs %-8s %-13s %-3s %6s  (%d points)" % (fam, xname, eng, cost, fmt(sl, "%.2f"), npts))
    print("written: out/bench/mujoco.csv, out/bench/slopes.csv")
    return status


if __name__ == "__main__":
    sys.exit(main())
