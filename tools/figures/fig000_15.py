#!/usr/bin/python3
"""Seed 000 Fig. 15: mechanical energy of the sliding cube against the stopping tolerance.

cube_slide for 1 s, dt = 1 ms, tolerance 1e-2 ... 1e-8 in force units (solver.tolerance_units:
force) with solver.criterion ncp: every solver stops on the NCP residual eps_abs of 000 eq. 14
(not on its own model's residual). Usage: make fig-000-15.
"""
import os
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fig000_common as C  # noqa: E402
import fig000_selfcons as S  # noqa: E402
import figjson  # noqa: E402
import figjson as J  # noqa: E402

DURATION = 1.0
TOLS = [1e-2, 1e-4, 1e-6, 1e-8]


def body(F):
    models = S.MODELS[:4]
    gap, left = {}, {}
    rgap, rleft, lift = {}, {}, {}  # ContactBench's rule (solver.criterion relative); CCP's lift-off
    fig, axs = plt.subplots(1, 4, figsize=(18, 4.5), sharey=True)
    cmap = plt.cm.viridis
    e0, e_end = S.e_analytic(np.array(0.0)), S.e_analytic(np.array(DURATION))
    for a, (model, solver, label) in zip(axs, models):
        tt = np.linspace(0, DURATION, 500)
        a.plot(tt, S.e_analytic(tt), "k-", lw=3, alpha=0.3, label="analytic")
        gap[label], left[label] = {}, {}
        for i, tol in enumerate(TOLS):
            r = S.one(F.tmp, "cube_slide", model, solver, 1e-3, tol, DURATION, "force")
            gap[label][tol] = float(np.abs(r.e - S.e_analytic(r.t)).max())
            left[label][tol] = float((e0 - r.e[-1]) / (e0 - e_end))  # fraction of the analytic dissipation
            a.plot(r.t, r.e, color=cmap(i / (len(TOLS) - 1)), lw=1, label="tol = %g N" % tol)
            if label == "CCP/PGS":  # the CCP's normal velocity mu |v_T| lifts the cube (000 Sec. II)
                k = int(np.argmax(np.abs(r.e - S.e_analytic(r.t))))  # the largest gap: its state
                lift[tol] = (float(r.q[:, 2].max() - S.H), float(r.t[k]), float(r.v[k, 1]), float(r.v[k, 2]),
                             float(max(S.V0 - S.MU * S.G * r.t[k], 0.0)))
            # the authors' rule (ContactBench solvers.hxx): absolute OR relative change below tol
            rr = S.one(F.tmp, "cube_slide", model, solver, 1e-3, tol, DURATION, "force",
                       {"solver.criterion": "relative"})
            rgap.setdefault(label, {})[tol] = float(np.abs(rr.e - S.e_analytic(rr.t)).max())
            rleft.setdefault(label, {})[tol] = float((e0 - rr.e[-1]) / (e0 - e_end))
            if tol == TOLS[0]:
                a.plot(rr.t, rr.e, "r:", lw=1.5, label="tol = %g N, ContactBench rule" % tol)
        a.set_title(label, fontsize=10)
        a.set_xlabel("t (s)")
    axs[0].set_ylabel("mechanical energy (J)")
    axs[0].legend(fontsize=7)
    fig.suptitle("000 Fig. 15 with csim: cube_slide energy against the stopping tolerance (force units; every "
                 "solver stops on the NCP residual eps_abs, solver.criterion ncp)", fontsize=10)
    fig.tight_layout()
    F.png(fig, dpi=80)
    F.table("Largest gap to the analytic mechanical energy over 1 s (J), tolerance in force units. The paper "
            "shows curves only.", ["solver"] + ["tol = %g" % t for t in TOLS],
            [[l] + [gap[l][t] for t in TOLS] for _, _, l in models], rel=0.3, abs_=1e-6)
    F.table("Energy dissipated by 1 s as a fraction of the analytic dissipation (1: as the MDP says).",
            ["solver"] + ["tol = %g" % t for t in TOLS],
            [[l] + [left[l][t] for t in TOLS] for _, _, l in models], rel=0.05, abs_=1e-4)
    F.table("The same with ContactBench's stopping rule (solver.criterion relative: the NCP residual below the "
            "tolerance OR the relative change of successive iterates, per island, below it): largest energy gap (J) "
            "and fraction of the analytic dissipation by 1 s.",
            ["solver"] + ["gap, tol = %g" % t for t in TOLS] + ["dissipated, tol = %g" % t for t in TOLS],
            [[l] + [rgap[l][t] for t in TOLS] + [rleft[l][t] for t in TOLS] for _, _, l in models],
            rel=0.3, abs_=1e-6)
    g2 = gap["NCP/PGS"][1e-2]
    F.claim("\"Dropping the solver accuracy hardly affect[s] the energy evolution when using NCP/PGS\".",
            "NCP/PGS largest energy gap at tolerance 1e-2 (J)", g2, J.judge(g2, J.QUAL, {"hi": 1e-3}),
            "At 1e-2 N NCP/PGS stays within %.1e J of the analytic energy (1e-8: %.1e J)." % (
                g2, gap["NCP/PGS"][1e-8]),
            paper=J.QUAL, tol={"hi": 1e-3},
            reason="Fig. 15 gives curves of the cube's energy, which starts at 0.5 J; 'hardly affects' read as a "
                   "gap below 0.2 % of it (1e-3 J), under a line width on such a plot",
            why="NCP/PGS's energy departs by 1e-3 J or more at the loose tolerance", rel=0.5)
    # the authors' rule from a cold start (each step from lambda = 0), the other way RaiSim could stop early
    cold = S.one(F.tmp, "cube_slide", "raisim", "bisection", 1e-3, 1e-2, DURATION, "force",
                 {"solver.criterion": "relative", "solver.warm_start": "false"})
    cold_left = float((e0 - cold.e[-1]) / (e0 - e_end))
    slide = cold.t < 0.3
    lr = left["RaiSim"][1e-2]
    lmin = min(lr, rleft["RaiSim"][1e-2], cold_left)
    F.claim("\"As the accuracy of RaiSim is relaxed ... the error on the MDP becomes completely uncontained leading "
            "to almost no energy dissipation for low accuracies (eps_abs = 1e-2)\".",
            "RaiSim's dissipation at tolerance 1e-2 as a fraction of the analytic, the smallest under the NCP "
            "criterion, ContactBench's rule and that rule from a cold start", lmin,
            J.judge(lmin, J.QUAL, {"hi": 0.2}),
            "RaiSim dissipates %.3f of the analytic energy loss at 1e-2 N under the NCP criterion, %.3f with "
            "ContactBench's rule (absolute OR relative change of successive iterates below the tolerance, "
            "solvers.hxx), and %.3f with that rule from a cold start (%.1f sweeps per sliding step, eps_abs %.1e N "
            "median)." % (lr, rleft["RaiSim"][1e-2], cold_left, float(cold.iters[slide].mean()),
                          float(np.median(cold.eps[slide])) / cold.dt),
            paper=J.QUAL, tol={"hi": 0.2},
            reason="Fig. 15 gives curves only; 'almost no energy dissipation' read as at most a fifth of the "
                   "analytic loss, under any of the three stopping rules",
            why="the rule cannot produce the paper's loss of dissipation in csim: RaiSim's answer after its first "
                "sweeps already has an NCP residual below the 1e-2 N tolerance, i.e. csim's RaiSim fixed point "
                "nearly satisfies the MDP on this scene, so an early stop changes nothing. The paper's curve needs "
                "an iterate far from the MDP at the stop, which csim's RaiSim (000 Alg. 4 with per-contact "
                "bisection to a tenth of the tolerance) never hands back here; what in the authors' RaiSim "
                "produces it (their bisection threshold th = 1e-6 absolute, alpha schedule or problem scaling) is "
                "not determined", rel=0.05)
    cg = gap["CCP/PGS"][1e-2] / gap["CCP/PGS"][1e-8]
    F.claim("CCP/PGS's energy is \"spectacularly impacted\" (Fig. 15, CCP panel).",
            "CCP/PGS largest energy gap at 1e-2 over that at 1e-8", cg, J.judge(cg, J.QUAL, {"lo": 10.0}),
            "csim's CCP/PGS is %.2f J off the analytic energy at every tolerance (1e-2: %.3f J, 1e-8: %.3f J; "
            "ContactBench rule at 1e-2: %.3f J)." % (
                gap["CCP/PGS"][1e-8], gap["CCP/PGS"][1e-2], gap["CCP/PGS"][1e-8], rgap["CCP/PGS"][1e-2]),
            paper=J.QUAL, tol={"lo": 10.0},
            reason="Fig. 15 gives curves only; 'spectacularly impacted' by the tolerance read as the loose "
                   "tolerance's gap at least ten times the tight one's",
            why="the error is the CCP model's, not the stopping criterion's: its fixed point gives a separating "
                "normal velocity mu |v_T| while sliding (000 Sec. II, the CCP relaxation), so the cube hops (up to "
                "%.1f mm) and no friction acts while it is airborne: at the largest gap (t = %.3f s) it moves at "
                "%.3f m/s along the slide instead of the analytic %.3f and at %.3f m/s vertically, kinetic energy "
                "the MDP would have dissipated; the cube still stops where the analytic one does. The tolerance "
                "changes none of it, whereas the paper's CCP energy changes with the tolerance" % (
                    1e3 * lift[1e-2][0], lift[1e-2][1], lift[1e-2][2], lift[1e-2][4], lift[1e-2][3]), rel=0.3)
    F.setup = ("scenarios/cube_slide.yaml for %.1f s, dt = 1 ms, cap 2000 iterations, warm start, "
               "solver.tolerance_units: force and solver.criterion: ncp (so the title's criterion is the NCP "
               "residual eps_abs for every model), tolerances 1e-2 ... 1e-8 N." % DURATION)


def main():
    C.check_csim()
    with figjson.Figure("000-15", "000", "Fig. 15", "energy of the sliding cube against the stopping tolerance") as F:
        body(F)


if __name__ == "__main__":
    main()
