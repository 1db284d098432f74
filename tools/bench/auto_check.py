#!/usr/bin/env python3
"""tools/bench/auto_check.py — issue 26's table test of `solver.name: auto` on the bench scenes.

On the short versions of the bench's matched scenes (tools/bench/bench_scenes.py's QUICK set:
cubes, Solo-12, Talos, grids of 1-64 cubes, stacks of 2-8, chains of 5-20 links; the first
STEPS steps of each), csim's ncp/pgs, ncp/admm and ncp/auto are each counted with callgrind
(instructions inside the step, as the bench counts them) and run once for their steps at the
iteration cap. Every scene must satisfy:
  - auto's instructions per step are within 10 % of the cheaper of pgs and admm (auto adds its
    island bookkeeping and, where PGS stalls, the sweeps it spent before handing over); admm
    counted under solver.criterion natural, the criterion auto holds a coupled step's islands to
    under the default (src/core/solvers/auto.c coupled_criterion), so that both solve the chains
    and stacks to the same rule (under ncp, ncp/admm's first 60 steps of a chain take no
    iteration where natural takes 0.6 a step, and over the whole run 4.6 against 0.6);
  - auto ends no step at the cap where admm ends none.
The expected figures are the fixed solvers' own, never auto's. Instruction counts are
deterministic, so the test does not depend on the machine's load.
  tools/bench/auto_check.py            # prints the table; exit 0 when every row passes
  STEPS=30 SCENES="stack_4 chain_10" tools/bench/auto_check.py
Exit status: 0 pass, 1 a row fails, 2 the tools are missing (valgrind, build/bench_mujoco).
"""
import os
import subprocess
import sys
import tempfile

os.environ["QUICK"] = "1"
os.environ.setdefault("BATCHES", "1")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_scenes as B  # noqa: E402  (tools/bench/bench_scenes.py)

STEPS = int(os.environ.get("STEPS", "60"))
PAIRS = ["ncp/pgs", "ncp/admm", "ncp/auto"]
MARGIN = 1.10  # auto within 10 % of the cheaper fixed solver (issue 26)


def main():
    if subprocess.run(["sh", "-c", "command -v valgrind"], capture_output=True).returncode:
        print("auto_check: valgrind not installed (make deps)", file=sys.stderr)
        return 2
    r = subprocess.run([os.path.join(B.ROOT, "tools", "bench", "bench_mujoco.sh"), "--build-only"],
                       cwd=B.ROOT, capture_output=True, text=True)
    if r.returncode or not os.path.exists(B.BIN):
        print("auto_check: cannot build build/bench_mujoco:\n" + r.stderr, file=sys.stderr)
        return 2
    B.SOLVERS = PAIRS
    status = 0
    print("%-13s %11s %11s %11s %7s  %-17s %s" % ("scene", "Ir pgs", "Ir admm nat", "Ir auto",
                                                  "auto/min", "cap pgs/admm/auto", "verdict"))
    with tempfile.TemporaryDirectory(prefix="csim_autochk.") as tmp:
        for s in B.scenes(tmp):
            s = B.scene(s[0], s[1], s[2], s[3], s[4], STEPS, False)  # the short version
            rows, err = B.timing(s, tmp)
            caps, irs = {}, {}
            for p in PAIRS:
                row = rows.get(p)
                if row is None or B.num(row.get("us_per_step")) is None:
                    print("%-13s %s cannot run: %s" % (s[0], p, B.why(err, p)))
                    status = 1
                    break
                caps[p] = int(row.get("warnings") or 0)
                sn = s if p != "ncp/admm" else \
                    B.scene(s[0], s[1], s[2], s[3], s[4] + ["solver.criterion=natural"], STEPS, False)
                irs[p] = B.count(sn, p, tmp, steps=STEPS)
            if len(irs) < len(PAIRS) or None in irs.values():
                status = 1
                continue
            cheap = min(irs["ncp/pgs"], irs["ncp/admm"])
            ratio = irs["ncp/auto"] / cheap
            bad = []
            if ratio > MARGIN:
                bad.append("auto %.3f x the cheaper" % ratio)
            if caps["ncp/admm"] == 0 and caps["ncp/auto"] > 0:
                bad.append("auto at the cap where admm is not")
            status |= 1 if bad else 0
            print("%-13s %11.4g %11.4g %11.4g %7.3f  %-17s %s" % (
                s[0], irs["ncp/pgs"], irs["ncp/admm"], irs["ncp/auto"], ratio,
                "%d/%d/%d" % (caps["ncp/pgs"], caps["ncp/admm"], caps["ncp/auto"]),
                "; ".join(bad) or "ok"))
    print("auto_check: %s (%d steps per scene, margin %.2f)" % ("pass" if status == 0 else "FAIL",
                                                              STEPS, MARGIN))
    return status


if __name__ == "__main__":
    sys.exit(main())
