#!/usr/bin/python3
"""Seed 000 Fig. 15: mechanical energy of the sliding cube against the stopping tolerance, run as the
authors' code runs it (see fig000_tab4.py): ContactBench's examples/cube.py scene (0.2 m, 1 kg,
mu 0.4, 1 m/s, 8 corner spheres), solver.tolerance_units contactbench, solver.criterion relative
(rel_th_stop 1e-12), cold start, 10000 iterations, tolerances 1e-2 ... 1e-8; also warm-started, with
rel_th_stop = the tolerance, and the previous study's scene (cube_slide) for CCP's energy error.
Usage: make fig-000-15.
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

TOLS = [1e-2, 1e-4, 1e-6, 1e-8]
MODELS = S.MODELS[:4]


# largest gap to the analytic energy (J) and the fraction of the analytic loss dissipated by the end
def energy_stats(r):
    e0, e_end = S.cb_e_analytic(np.array(0.0)), S.cb_e_analytic(np.array(r.t[-1]))
    gap = float(np.abs(r.e - S.cb_e_analytic(r.t)).max())
    return gap, float((e0 - r.e[-1]) / (e0 - e_end))


def body(F):
    scene = S.cb_scene(F.tmp)
    gap, left, wgap, wleft, rgap, rleft = {}, {}, {}, {}, {}, {}
    fig, axs = plt.subplots(1, 4, figsize=(18, 4.5), sharey=True)
    cmap = plt.cm.viridis
    for a, (model, solver, label) in zip(axs, MODELS):
        tt = np.linspace(0, S.CB_DURATION, 500)
        a.plot(tt, S.cb_e_analytic(tt), "k-", lw=3, alpha=0.3, label="analytic")
        for d in (gap, left, wgap, wleft, rgap, rleft):
            d[label] = {}
        for i, tol in enumerate(TOLS):
            r = S.cb_one(F.tmp, scene, model, solver, S.cb_sets(tol))
            gap[label][tol], left[label][tol] = energy_stats(r)
            a.plot(r.t, r.e, color=cmap(i / (len(TOLS) - 1)), lw=1, label="tol = %g" % tol)
            w = S.cb_one(F.tmp, scene, model, solver, S.cb_sets(tol, warm=True))
            wgap[label][tol], wleft[label][tol] = energy_stats(w)
            q = S.cb_one(F.tmp, scene, model, solver, S.cb_sets(tol, rel=tol))
            rgap[label][tol], rleft[label][tol] = energy_stats(q)
        a.set_title(label, fontsize=10)
        a.set_xlabel("t (s)")
    axs[0].set_ylabel("mechanical energy (J)")
    axs[0].legend(fontsize=7)
    fig.suptitle("000 Fig. 15 with csim: ContactBench's cube (examples/cube.py) under the authors' stopping "
                 "rules (their units, absolute OR relative test, cold start)", fontsize=10)
    fig.tight_layout()
    F.png(fig, dpi=80)
    F.table("Largest gap to the analytic mechanical energy over %.3f s (J) under the authors' rules (cold "
            "start, rel_th_stop 1e-12), warm-started, and with rel_th_stop = the tolerance. The paper shows "
            "curves only." % S.CB_DURATION,
            ["solver"] + ["tol = %g" % x for x in TOLS] + ["warm, tol = %g" % x for x in TOLS]
            + ["rel = tol, tol = %g" % x for x in TOLS],
            [[l] + [gap[l][x] for x in TOLS] + [wgap[l][x] for x in TOLS] + [rgap[l][x] for x in TOLS]
             for _, _, l in MODELS], rel=0.3, abs_=1e-6)
    F.table("Energy dissipated by the end as a fraction of the analytic dissipation (1: as the MDP says), "
            "the same three rules.", ["solver"] + ["tol = %g" % x for x in TOLS]
            + ["warm, tol = %g" % x for x in TOLS] + ["rel = tol, tol = %g" % x for x in TOLS],
            [[l] + [left[l][x] for x in TOLS] + [wleft[l][x] for x in TOLS] + [rleft[l][x] for x in TOLS]
             for _, _, l in MODELS], rel=0.05, abs_=1e-4)
    # CCP's energy error on the previous study's scene (cube_slide: 10 cm cube, mu 0.3), as before
    ccp_old = {x: S.one(F.tmp, "cube_slide", "ccp", "pgs", 1e-3, x, 1.0, "force") for x in (1e-2, 1e-8)}
    og = {x: float(np.abs(r.e - S.e_analytic(r.t)).max()) for x, r in ccp_old.items()}
    r = ccp_old[1e-2]
    k = int(np.argmax(np.abs(r.e - S.e_analytic(r.t))))
    lift = (float(r.q[:, 2].max() - S.H), float(r.t[k]), float(r.v[k, 1]), float(r.v[k, 2]),
            float(max(S.V0 - S.MU * S.G * r.t[k], 0.0)))
    g2 = gap["NCP/PGS"][1e-2]
    F.claim("\"Dropping the solver accuracy hardly affect[s] the energy evolution when using NCP/PGS\".",
            "NCP/PGS largest energy gap at tolerance 1e-2 under the authors' rules (J)", g2,
            J.judge(g2, J.QUAL, {"hi": 1e-3}),
            "At 1e-2 NCP/PGS stays within %.1e J of the analytic energy (1e-8: %.1e J; warm-started %.1e J)." % (
                g2, gap["NCP/PGS"][1e-8], wgap["NCP/PGS"][1e-2]),
            paper=J.QUAL, tol={"hi": 1e-3},
            reason="Fig. 15 gives curves of the cube's energy, whose kinetic part starts at 0.5 J; 'hardly "
                   "affects' read as a gap below 0.2 % of it (1e-3 J), under a line width on such a plot",
            why="NCP/PGS's energy departs by 1e-3 J or more at the loose tolerance", rel=0.5)
    lr = {"cold": left["RaiSim"][1e-2], "warm": wleft["RaiSim"][1e-2], "rel = tol": rleft["RaiSim"][1e-2]}
    lmin = min(lr.values())
    F.claim("\"As the accuracy of RaiSim is relaxed ... the error on the MDP becomes completely uncontained leading "
            "to almost no energy dissipation for low accuracies (eps_abs = 1e-2)\".",
            "RaiSim's dissipation at tolerance 1e-2 as a fraction of the analytic, the smallest under the "
            "authors' rules cold, warm-started and with rel_th_stop = the tolerance", lmin,
            J.judge(lmin, J.QUAL, {"hi": 0.2}),
            "RaiSim dissipates %.3f of the analytic energy loss at 1e-2 under the authors' rules, %.3f "
            "warm-started, %.3f with rel_th_stop = the tolerance; its largest energy gap is %.1e J (1e-8: "
            "%.1e J)." % (lr["cold"], lr["warm"], lr["rel = tol"], gap["RaiSim"][1e-2], gap["RaiSim"][1e-8]),
            paper=J.QUAL, tol={"hi": 0.2},
            reason="Fig. 15 gives curves only; 'almost no energy dissipation' read as at most a fifth of the "
                   "analytic loss, under any of the three readings of the authors' rules",
            why=WHY_RS, rel=0.05)
    cg = gap["CCP/PGS"][1e-2] / gap["CCP/PGS"][1e-8]
    F.claim("CCP/PGS's energy is \"spectacularly impacted\" (Fig. 15, CCP panel).",
            "CCP/PGS largest energy gap at 1e-2 over that at 1e-8 under the authors' rules", cg,
            J.judge(cg, J.QUAL, {"lo": 10.0}),
            "Under the authors' rules CCP/PGS is %.3f J off the analytic energy at 1e-2 and %.3f J at 1e-8 "
            "(warm-started %.3f, %.3f J). On the previous scene (cube_slide, NCP criterion) it is %.3f J off "
            "at 1e-2 and %.3f J at 1e-8." % (gap["CCP/PGS"][1e-2], gap["CCP/PGS"][1e-8], wgap["CCP/PGS"][1e-2],
                                            wgap["CCP/PGS"][1e-8], og[1e-2], og[1e-8]),
            paper=J.QUAL, tol={"lo": 10.0},
            reason="Fig. 15 gives curves only; 'spectacularly impacted' by the tolerance read as the loose "
                   "tolerance's gap at least ten times the tight one's",
            why=WHY_CCP % dict(lift=1e3 * lift[0], t=lift[1], vy=lift[2], van=lift[4], vz=lift[3]), rel=0.3)
    F.setup = SETUP % S.CB_DURATION


WHY_RS = "see the analysis"
WHY_CCP = "lift %(lift).1f mm t %(t).3f vy %(vy).3f van %(van).3f vz %(vz).3f"
SETUP = "%.3f s"


def main():
    C.check_csim()
    with figjson.Figure("000-15", "000", "Fig. 15", "energy of the sliding cube against the stopping tolerance") as F:
        body(F)


if __name__ == "__main__":
    main()
