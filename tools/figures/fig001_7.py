#!/usr/bin/python3
"""Seed 001 Fig. 7 (id 001-7): simulated time vs wall-clock time on the parallel-jaw gripper
shaking a mug (scenarios/gripper_mug.yaml, h = 3 ms, 5 s) for TAMSI, implicit Euler with TALS
and implicit Euler without TALS (plain Newton), plus implicit Euler with residual backtracking
but no TALS. `make fig-001-7` writes out/figures/fig001_7.png and fig001_7.json.

Wall-clock time is csim's /timing/step summed over the steps (the stepping only) of the fastest
of 3 repetitions (the machine is shared), and the whole `csim run` process time of that run.
Timings are reported, never asserted (timing_columns)."""
import os
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import figjson as J  # noqa: E402
import fig001_common as C  # noqa: E402

REPS = 3
TSIM = 5.0
# (name, label, scheme, line search, colour, paper wall time relative to TAMSI)
RUNS = [("tamsi", "TAMSI", "tamsi", "tals", "b", 1.0),
        ("ie_tals", "IE + TALS", "implicit_euler", "tals", "g", 25.0),
        ("ie_none", "IE without TALS (plain Newton)", "implicit_euler", "none", "r", 55.0),
        ("ie_bt", "IE, no TALS, residual backtracking", "implicit_euler", "backtracking",
         "orange", None)]
PAPER_TAMSI_MS = 123.0  # 001 Sec. VI-A: 5 s in 123 ms on an i7-6900K 3.2 GHz, single thread


def main():
    F = C.Figure("001-7")
    res = {}
    for name, _, sch, ls, _, _ in RUNS:
        best = None
        for r in range(REPS):
            f, _, wall = F.run(C.GRIPPER, "%s_%d" % (name, r), [("integrator.scheme", sch),
                                                                ("integrator.line_search", ls)])
            step = f["/timing/step"][:]
            if best is None or step.sum() < best["step"].sum():
                best = dict(step=step, wall=wall, t=f["/time"][:] + f.attrs["dt"],
                            it=f["/compliant/newton_iterations"][:],
                            sub=f["/compliant/substeps"][:],
                            conv=f["/compliant/newton_converged"][:])
        res[name] = best
    base = res["tamsi"]["step"].sum()

    fig, ax = plt.subplots(1, 2, figsize=(15, 5.5))
    a = ax[0]
    for name, lab, _, _, col, _ in RUNS:
        r = res[name]
        w = np.cumsum(r["step"])
        a.plot(1e3 * w, r["t"], color=col, lw=1.5,
               label="%s: %.0f ms, %.1fx real time, %.1fx TAMSI" %
               (lab, 1e3 * w[-1], TSIM / w[-1], w[-1] / base))
    a.set_xscale("log")
    a.set_xlabel("wall-clock time, sum of /timing/step [ms] (log)")
    a.set_ylabel("simulated time [s]")
    a.set_title("001 Fig. 7: simulated vs wall-clock time, gripper_mug, h = 3 ms", fontsize=10)
    a.text(0.02, 0.62, "paper (i7-6900K 3.2 GHz): TAMSI 5 s in 123 ms = 40x real time;\n"
           "IE+FN with TALS 25x slower, IE+FN without TALS 55x slower than TAMSI",
           transform=a.transAxes, fontsize=8, bbox=dict(fc="w", ec="0.6"))
    a.legend(fontsize=8, loc="lower right")
    a = ax[1]
    for name, lab, _, _, col, _ in RUNS:
        r = res[name]
        a.semilogy(r["t"], np.maximum(r["it"], 0.8), ".", ms=2.5, color=col,
                   label="%s: %d iterations, %d steps substepped, %d failed" %
                   (lab, r["it"].sum(), (r["sub"] > 1).sum(), (r["conv"] == 0).sum()))
    a.set_xlabel("t [s]")
    a.set_ylabel("Newton iterations per 3 ms step (all substeps)")
    a.set_title("where the time goes: Newton iterations per step", fontsize=10)
    a.set_ylim(0.7, 1e5)
    a.legend(fontsize=8, loc="upper right")
    fig.tight_layout()

    rows = []
    for name, lab, _, _, _, rel in RUNS:
        r = res[name]
        s = r["step"].sum()
        rows.append([lab, PAPER_TAMSI_MS * rel if rel else None, 1e3 * s, rel, s / base,
                     TSIM / (PAPER_TAMSI_MS * rel * 1e-3) if rel else None, TSIM / s,
                     1e3 * r["wall"], int(r["it"].sum()), int((r["sub"] > 1).sum()),
                     int((r["conv"] == 0).sum())])
    tables = [{"caption": "5 s of gripper_mug at h = 3 ms (fastest of %d runs; csim on a shared "
                          "2-core VM, the paper on an i7-6900K 3.2 GHz)" % REPS,
               "columns": ["integrator", "paper wall [ms]", "csim step time [ms]",
                           "paper x TAMSI", "csim x TAMSI", "paper x real time",
                           "csim x real time", "csim process wall [ms]",
                           "csim Newton iterations", "csim steps substepped",
                           "csim steps failed"],
               "rows": rows, "timing_columns": [2, 4, 6, 7],
               "tolerance": {"rel": 0.05, "abs": 1e-9}}]
    rt, rn, ri = (res[k]["step"].sum() for k in ("tamsi", "ie_none", "ie_tals"))
    sub_n, sub_t = (int((res[k]["sub"] > 1).sum()) for k in ("ie_none", "ie_tals"))
    rtf, xi, xn = TSIM / rt, ri / rt, rn / rt
    claims = [
        J.claim_record(
            "TAMSI is the fastest (Fig. 7); 5 s in 123 ms, 40x real time",
            "csim TAMSI real-time rate (5 s / summed step time)", rtf,
            J.judge(rtf, 40, {"rel": 0.5}, noise=10) if rt < min(rn, ri) else "not reproduced",
            "csim's TAMSI takes %.0f ms (%.0fx real time), %s of the runs." % (
                1e3 * rt, rtf, "the fastest" if rt < min(rn, ri) else "not the fastest"),
            paper=40, tol={"rel": 0.5},
            reason="an absolute rate compares only on like CPUs: +-50 %; the noise band a factor 10 (37x real "
                   "time on this loaded machine, 226x on the CI machine)",
            why="an absolute wall time on another CPU (the paper's i7-6900K) and a loaded shared one: the band "
                "of csim's rate covers the paper's 40x, so only the ordering (TAMSI fastest) is measured",
            noise=10),
        J.claim_record(
            "IE+FN with TALS is 25x slower than TAMSI",
            "csim implicit_euler + TALS step time / TAMSI step time", xi,
            J.judge(xi, 25, {"rel": 0.5}, direction={"lo": 1.0}, noise=3),
            "csim's implicit Euler with TALS is %.1fx slower than TAMSI." % xi,
            paper=25, tol={"rel": 0.5},
            reason="a ratio of two implementations' step costs (Drake's and csim's) on different CPUs: +-50 %; "
                   "the noise band a factor 3: these ratios of separate runs' wall times moved by up to 2.1x "
                   "between runs (without TALS 65x on the CI machine, 78x and 135x on this loaded one)",
            why="the ratio's noise band reaches outside +-50 %% of the paper's 25x (csim %.1fx); a step's cost "
                "ratio depends on each implementation's cost per Newton iteration as well as on the iterations "
                "(table), and csim's implicit Euler is fixed-step with convergence-control substeps, not "
                "Drake's error-controlled one" % xi,
            noise=3),
        J.claim_record(
            "IE+FN without TALS is 55x slower than TAMSI; without TALS the integrator slows down since it takes "
            "smaller step sizes for convergence control (plateaus in Fig. 7)",
            "csim implicit_euler without TALS step time / TAMSI step time", xn,
            J.judge(xn, 55, {"rel": 0.5}, direction={"lo": 1.0}, noise=3) if rn > ri and sub_n > sub_t
            else "not reproduced",
            "Without TALS csim's implicit Euler is %.1fx slower than TAMSI (%.1fx slower than with TALS) and "
            "retakes %d steps in substeps against %d with TALS." % (xn, rn / ri, sub_n, sub_t),
            paper=55, tol={"rel": 0.5},
            reason="as the previous claim: +-50 %, the noise band a factor 3",
            why="the ratio's noise band reaches outside +-50 %% of the paper's 55x (csim %.1fx), for the "
                "reasons of the previous claim; the direction (slower without TALS, more substeps) holds" % xn,
            noise=3),
    ]
    setup = ("scenarios/gripper_mug.yaml (a parallel-jaw gripper holds a 100 g mug with mu = 0.1 "
             "and 10 N per finger while shaken +-15 cm at 2 Hz, hunt_crossley k = 1e4 N/m, "
             "v_s = 1e-4 m/s, h = 3 ms, 5 s), run with integrator.scheme tamsi and "
             "implicit_euler and integrator.line_search tals, none (the paper's 'without "
             "TALS') and backtracking (csim's safeguard without TALS), %d repetitions each; "
             "wall time is the sum of /timing/step of the fastest repetition (the stepping "
             "only; the process time, parse and HDF5 included, is a separate column). The "
             "paper's times are on other hardware and software: compare ratios, not "
             "milliseconds." % REPS)
    F.finish(fig, "Fig. 7", "Simulated vs wall-clock time, gripper shaking a mug", setup,
             tables, claims)
    for row in rows:
        print("  %-36s step %8.1f ms  %6.1fx real time  %5.1fx TAMSI  iterations %6d  "
              "substepped %4d  failed %d" % (row[0], row[2], row[6], row[4], row[8], row[9],
                                             row[10]))


if __name__ == "__main__":
    main()
