#!/usr/bin/python3
"""Seed 001 Sec. VI-A, Figs. 7-8 on the parallel-jaw gripper shaking a 100 g mug (id
001-gripper): `make fig-001-gripper` writes out/figures/fig001_gripper.png and .json.

scenarios/gripper_mug.yaml (h = 3 ms, 5 s): tamsi and implicit_euler with integrator.line_search
tals, backtracking (no TALS, backtracking kept) and none (plain Newton), 3 repetitions each (the
machine is shared; the fastest is plotted), plus TAMSI's convergence in h over 1.2 s against a
TAMSI h = 5 us reference. Panels: (a) mug slip relative to the fingers vs time, (b) simulated vs
wall-clock time (001 Fig. 7; /timing/step), (c) Newton iterations per step, (d) TAMSI
convergence in h nondimensionalized by the period T and amplitude A as 001 Fig. 8.
Prints the headline numbers. (001-7 and 001-8 are the paper's Figs. 7 and 8 on their own.)"""
import os
import sys

import matplotlib
import numpy as np

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import figjson as J  # noqa: E402
import fig001_common as C  # noqa: E402

T, A = 0.5, 0.15
HS = ["6e-3", "3e-3", "1.5e-3", "1e-3", "5e-4", "2e-4", "1e-4", "5e-5", "2e-5", "1e-5"]
# run name -> (scheme, line search)
SETS = {"tamsi": ("tamsi", "tals"), "tamsi_notals": ("tamsi", "none"),
        "ie": ("implicit_euler", "tals"), "ie_notals": ("implicit_euler", "backtracking"),
        "ie_plain": ("implicit_euler", "none")}
RUNS = [("tamsi", "tamsi + TALS", "b"), ("ie", "implicit_euler + TALS (+backtracking)", "g"),
        ("ie_notals", "implicit_euler, no TALS (backtracking kept)", "orange"),
        ("ie_plain", "implicit_euler, plain Newton (no TALS, no backtracking)", "r"),
        ("tamsi_notals", "tamsi, no TALS, no backtracking", "m")]


# the per-step columns the plots use, from a csim output file recorded at every step
def steps(f):
    q = f["/state/q"][:]
    return {"t": f["/time"][:], "q0": q[:, 0], "q5": q[:, 5], "wall": f["/timing/step"][:],
            "iterations": f["/compliant/newton_iterations"][:],
            "converged": f["/compliant/newton_converged"][:],
            "substeps": f["/compliant/substeps"][:]}


def main():
    F = C.Figure("001-gripper")
    S = C.GRIPPER
    c, wall = {}, {}
    for k, _, _ in RUNS:  # the fastest of the 3 repetitions (identical states, different timing)
        reps = []
        for r in (1, 2, 3):
            f, _, w = F.run(S, "%s.%d" % (k, r), [("integrator.scheme", SETS[k][0]),
                                                  ("integrator.line_search", SETS[k][1])])
            reps.append((steps(f), w))
        c[k] = min(reps, key=lambda x: x[0]["wall"].sum())[0]
        # whole `csim run` process wall time (parse, model, HDF5 output included), best of 3
        if k in ("tamsi", "ie"):
            wall["tamsi" if k == "tamsi" else "implicit_euler"] = min(w for _, w in reps)
    conv = {}
    for h in HS + ["5e-6"]:  # convergence over 1.2 s, all runs recorded on a 30 ms grid
        conv[h] = F.run(S, "conv_" + h, [("integrator.dt", h), ("integrator.duration", 1.2),
                                         ("output.every", round(0.03 / float(h)))])[0]
    tsim = 5.0
    steptime = {k: c[k]["wall"].sum() for k, _, _ in RUNS}

    fig, ax = plt.subplots(2, 2, figsize=(15, 10))
    # (a) slip: q0 = lift (finger pads move with it), q5 = mug z (fingers start level with it)
    a = ax[0, 0]
    for k, lab, col in RUNS[:4]:
        a.plot(c[k]["t"], 1e3 * (c[k]["q5"] - c[k]["q0"]), color=col, lw=1, label=lab)
    a2 = a.twinx()
    a2.plot(c["tamsi"]["t"], 1e2 * c["tamsi"]["q0"], "0.7", lw=0.8)
    a2.set_ylabel("gripper lift [cm] (grey)", color="0.5")
    slip = 1e3 * (c["tamsi"]["q5"] - c["tamsi"]["q0"])
    a.set_xlabel("t [s]")
    a.set_ylabel("mug slip z_mug - z_fingers [mm]")
    a.set_title("(a) mug slip, h = 3 ms: tamsi range [%.2f, %.2f] mm, mug stays in the grasp"
                % (slip.min(), slip.max()), fontsize=10)
    a.text(0.02, 0.03, "paper: mu=0.1, 10 N grip, T=0.5 s, A=15 cm, no gravity; friction holds\n"
           "2 mu 10 N = 2 N < m A (2pi/T)^2 = 2.37 N -> slip-stick at each reversal",
           transform=a.transAxes, fontsize=8, bbox=dict(fc="w", ec="0.6"))
    a.set_ylim(-17, 17)
    a.legend(fontsize=7.5, loc="upper center", ncol=2)

    # (b) simulated vs wall-clock (001 Fig. 7)
    a = ax[0, 1]
    for k, lab, col in RUNS:
        w = np.cumsum(c[k]["wall"])
        a.plot(1e3 * w, c[k]["t"] + 0.003, color=col,
               label="%s: %.0f ms, %.0fx real time, %.1fx TAMSI"
               % (lab, 1e3 * w[-1], tsim / w[-1], w[-1] / steptime["tamsi"]))
    a.set_xscale("log")
    a.set_xlabel("wall-clock time, sum of step times [ms] (log)")
    a.set_ylabel("simulated time [s]")
    a.set_title("(b) simulated vs wall-clock time, h = 3 ms (001 Fig. 7)")
    rt = wall["tamsi"]
    a.text(0.02, 0.60, "paper (i7-6900K 3.2 GHz): TAMSI 5 s in 123 ms = 40x real time;\n"
           "IE+FN with TALS 25x slower, IE+FN without TALS 55x slower\n"
           "csim whole `csim run` process (parse, build, HDF5), best of 3:\n"
           "  tamsi %.0f ms = %.0fx real time; implicit_euler %.0f ms = %.1fx slower"
           % (1e3 * rt, tsim / rt, 1e3 * wall["implicit_euler"], wall["implicit_euler"] / rt),
           transform=a.transAxes, fontsize=8, bbox=dict(fc="w", ec="0.6"))
    a.legend(fontsize=7, loc="lower right")

    # (c) Newton iterations
    a = ax[1, 0]
    for k, lab, col in RUNS:
        it = c[k]["iterations"]
        a.semilogy(c[k]["t"], np.maximum(it, 0.8), ".", ms=2.5, color=col,
                   label="%s: mean %.2f, max %d, substepped %d, failed %d"
                   % (lab, it.mean(), it.max(), (c[k]["substeps"] > 1).sum(),
                      (c[k]["converged"] == 0).sum()))
    a.set_ylim(0.7, 1e5)
    a.set_xlabel("t [s]")
    a.set_ylabel("Newton iterations per 3 ms step (all substeps)")
    a.set_title("(c) Newton iterations per step")
    a.legend(fontsize=7, loc="upper right")

    # (d) convergence (001 Fig. 8)
    a = ax[1, 1]
    fr = conv["5e-6"]
    vref = fr["/state/v"][:]
    hs, et, er, eg = [], [], [], []
    for h in HS:
        v = conv[h]["/state/v"][:]
        n = min(len(v), len(vref))
        dv = v[:n] - vref[:n]
        hs.append(float(h))
        et.append(np.sqrt(np.mean(np.sum(dv[:, 3:6] ** 2, axis=1))))   # mug translation
        er.append(np.sqrt(np.mean(np.sum(dv[:, 6:9] ** 2, axis=1))))   # mug rotation
        eg.append(np.sqrt(np.mean(dv[:, 0] ** 2)))                    # gripper lift
    hs, et, er, eg = map(np.array, (hs, et, er, eg))
    x = hs / T
    sl = np.polyfit(np.log(x), np.log(et), 1)[0]
    slg = np.polyfit(np.log(x), np.log(eg), 1)[0]
    a.loglog(x, et * T / A, "bo-", label="mug translational v (slope %.2f)" % sl)
    a.loglog(x, eg * T / A, "gs-", label="gripper lift v (slope %.2f)" % slg)
    if er.max() > 1e-9:  # the mug does not rotate in this scenario (errors ~1e-15 rad/s)
        a.loglog(x, er * T, "r^-", label="mug angular v x T (max %.1e rad/s)" % er.max())
    a.loglog(x, et[0] * T / A * x / x[0], "k--", lw=0.6, label="slope 1")
    a.set_xlabel("h / T")
    a.set_ylabel("RMS velocity error x T / A (30 ms grid, 1.2 s)")
    a.set_title("(d) TAMSI convergence vs TAMSI h = 5 us (001 Fig. 8)")
    a.text(0.35, 0.04, "paper Fig. 8 (reference TAMSI h=1e-7 s): 'TAMSI exhibits first order\n"
           "convergence'; csim: slope %.2f (mug), %.2f (lift);\nmug angular velocity error %.0e rad/s "
           "(it does not rotate)" % (sl, slg, er.max()),
           transform=a.transAxes, fontsize=8, bbox=dict(fc="w", ec="0.6"))
    a.legend(fontsize=8, loc="upper left")
    fig.suptitle("001 Sec. VI-A parallel-jaw gripper shaking a mug — csim hunt_crossley "
                 "k=1e4, mu=0.1, v_s=1e-4 m/s, h = 3 ms", fontsize=12)
    fig.tight_layout()

    paper_x = {"tamsi": 1.0, "ie": 25.0, "ie_plain": 55.0}  # 001 Sec. VI-A, x TAMSI's time
    tables = [
        {"caption": "5 s at h = 3 ms, fastest of 3 runs (step time = sum of /timing/step); the "
                    "paper: TAMSI 123 ms on an i7-6900K 3.2 GHz, IE+FN with TALS 25x and without "
                    "TALS 55x slower",
         "columns": ["run", "paper x TAMSI", "csim step time [ms]", "csim x TAMSI",
                     "csim x real time", "csim mean iterations", "csim max iterations",
                     "csim steps substepped", "csim steps failed"],
         "rows": [[lab, paper_x.get(k), 1e3 * steptime[k], steptime[k] / steptime["tamsi"],
                   tsim / steptime[k], c[k]["iterations"].mean(), int(c[k]["iterations"].max()),
                   int((c[k]["substeps"] > 1).sum()), int((c[k]["converged"] == 0).sum())]
                  for k, lab, _ in RUNS],
         "timing_columns": [2, 3, 4], "tolerance": {"rel": 0.02, "abs": 1e-9}},
        {"caption": "TAMSI convergence over 1.2 s against TAMSI at h = 5 us (RMS on a 30 ms "
                    "grid, x T / A)",
         "columns": ["h [s]", "mug translation", "gripper lift"],
         "rows": [[h, e1 * T / A, e2 * T / A] for h, e1, e2 in zip(hs, et, eg)],
         "timing_columns": [], "tolerance": {"rel": 0.02, "abs": 1e-12}},
    ]
    smax = float(np.abs(slip).max())
    claims = [
        J.claim_record(
            "the gripper holds the mug while shaking it (Sec. VI-A: friction alone cannot hold it at the "
            "reversals, so it slips and sticks)",
            "largest |mug z - finger z| over 5 s with TAMSI at 3 ms [mm]", smax,
            J.judge(smax, J.QUAL, {"hi": 40.0}),
            "The mug slips between %.2f and %.2f mm relative to the fingers and stays in the grasp." % (
                slip.min(), slip.max()),
            paper=J.QUAL, tol={"hi": 40.0},
            reason="the paper gives no slip; the finger pads are 80 mm tall (robots/gripper.urdf), so a mug "
                   "within 40 mm of the fingers' centre still sits between them",
            why="the mug slid out of the pads"),
        J.claim_record(
            "TAMSI exhibits first order convergence with step size (Fig. 8)",
            "fitted slope of the mug's translational velocity error", float(sl), J.judge(sl, 1, {"abs": 0.2}),
            "Slope %.2f for the mug, %.2f for the gripper lift." % (sl, slg),
            paper=1, tol={"abs": 0.2}, reason="'first order' is the integer 1; a fitted slope within 0.2 of it tells it from half order (0.5) "
                   "and second order (2), the band test_tals asserts on a short run",
            why="TAMSI's fitted order is not 1"),
    ]
    setup = ("scenarios/gripper_mug.yaml (100 g mug, mu = 0.1, 10 N per finger, shaken with "
             "A = 15 cm at T = 0.5 s, hunt_crossley k = 1e4 N/m, v_s = 1e-4 m/s, no gravity), "
             "h = 3 ms, 5 s: tamsi and implicit_euler with integrator.line_search tals, "
             "backtracking and none, 3 repetitions each; TAMSI at h = 6 ms .. 10 us over 1.2 s "
             "against TAMSI at 5 us, all recorded every 30 ms.")
    F.finish(fig, "Figs. 7, 8 (Sec. VI-A)", "Gripper shaking a mug: slip, speed, Newton "
             "iterations, convergence", setup, tables, claims)
    print("  slip range (tamsi, h=3 ms): %.3f .. %.3f mm" % (slip.min(), slip.max()))
    for k, lab, _ in RUNS:
        print("  %-58s step time %7.1f ms  %6.1fx real time  %5.1fx tamsi  iterations mean %.2f"
              " max %d substepped %d failed %d"
              % (lab, 1e3 * steptime[k], tsim / steptime[k], steptime[k] / steptime["tamsi"],
                 c[k]["iterations"].mean(), c[k]["iterations"].max(),
                 (c[k]["substeps"] > 1).sum(), (c[k]["converged"] == 0).sum()))
    print("  csim run process wall: tamsi %.1f ms (%.0fx real time), implicit_euler %.1f ms (%.1fx)"
          % (1e3 * rt, tsim / rt, 1e3 * wall["implicit_euler"], wall["implicit_euler"] / rt))
    print("  convergence slopes: mug %.3f lift %.3f; mug errors %s"
          % (sl, slg, " ".join("%.2e" % e for e in et)))
    print("  mug angular velocity error max %.2e rad/s" % er.max())


if __name__ == "__main__":
    main()
