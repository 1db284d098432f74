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
            if label == "CCP/PGS" and tol == TOLS[0]:  # CCP's lift-off (000 Sec. II) on this scene
                kc = int(np.argmax(np.abs(r.e - S.cb_e_analytic(r.t))))
                lift_cb = (float(r.q[:, 2].max() - S.CB_Z0), float(r.t[kc]), float(r.v[kc, 1]),
                           float(r.v[kc, 2]), float(max(S.CB_V0 - S.CB_MU * S.CB_G * r.t[kc], 0.0)))
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
            why=WHY_RS % dict(gap=gap["RaiSim"][1e-2], g8=gap["RaiSim"][1e-8]), rel=0.05)
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
            why=WHY_CCP % dict(lift=1e3 * lift_cb[0], t=lift_cb[1], vy=lift_cb[2], van=lift_cb[4], vz=lift_cb[3],
                               olift=1e3 * lift[0], ot=lift[1], ovy=lift[2], ovan=lift[4], ovz=lift[3],
                               gcb=gap["CCP/PGS"][1e-2], gold=og[1e-2]), rel=0.3)
    F.setup = SETUP % S.CB_DURATION


# the analysis (traced to ContactBench's definitions; the numbers are this run's)
WHY_RS = (
    "under the authors' rules RaiSim cannot stop far from its fixed point while the cube slides: its "
    "absolute test (the NCP residual in the units of their code) is never met there, because its fixed "
    "point skews the friction by about 9 deg (000 eq. 21; Tab. IV's RaiSim claim), so it stops on the "
    "relative test, at its fixed point (rel_th_stop 1e-12) or within about 1 %% of it (rel_th_stop = 1e-2). "
    "Every sliding update puts a contact's impulse on the cone's edge, |lambda_T| = mu lambda_N, with "
    "lambda_N holding the weight (c_N = 0, 000 eq. 20), so every iterate dissipates mu m g |v| cos(skew): "
    "the energy gap is RaiSim's MDP violation, %(gap).1e J at 1e-2 and %(g8).1e J at 1e-8, the same at "
    "every tolerance. Almost no dissipation needs lambda_T near 0 or perpendicular to c_T while the cube "
    "slides, which no stop of solvers.hxx's RaisimSolver loop hands back on this scene; what the paper's "
    "run did differently is not in the public code (its Fig. 15 script is not published)")
WHY_CCP = (
    "the error is the CCP model's, not the stopping criterion's: CCPPGSSolver stops on the CCP's own "
    "residual, which its fixed point meets, and that fixed point gives a separating normal velocity "
    "mu |c_T| while sliding (000 Sec. II, the CCP relaxation), so the cube hops (up to %(lift).1f mm on this "
    "scene) and no friction acts while it is airborne: at the largest gap (t = %(t).3f s) it moves at "
    "%(vy).3f m/s along the slide instead of the analytic %(van).3f and at %(vz).3f m/s vertically, kinetic "
    "energy the MDP would have dissipated (%(gcb).3f J). The previous scene (cube_slide, 10 cm, mu 0.3, "
    "NCP criterion) shows the same at every tolerance: %(gold).3f J, hops up to %(olift).1f mm, at t = "
    "%(ot).3f s %(ovy).3f m/s instead of %(ovan).3f and %(ovz).3f m/s vertically. The tolerance changes "
    "none of it, whereas the paper's CCP energy changes with the tolerance")
SETUP = (
    "ContactBench's examples/cube.py --slide scene (the authors' public code; see 000 Tab. IV): a 0.2 m, "
    "1 kg cube on 8 corner spheres of radius a/50, mu 0.4, 1 m/s along y, dt 1 ms, %.3f s; "
    "solver.tolerance_units contactbench (the residual in their code's units: eps_p, eps_d held to "
    "tolerance dt, eps_c to tolerance dt^2), solver.criterion relative (ContactBench's rule: each solver's "
    "own absolute residual, the NCP's for NCP/PGS and RaiSim, the CCP's for CCP/PGS, OR the relative "
    "change of successive iterates) with rel_th_stop 1e-12 as cube.py, cold start (cube.py's "
    "warm_start = False), 10000 iterations; tolerances 1e-2 ... 1e-8. Also warm-started and with "
    "rel_th_stop = the tolerance. Analytic energy: 1/2 m max(v0 - mu g t, 0)^2 + m g (a/2 + a/50).")


def main():
    C.check_csim()
    with figjson.Figure("000-15", "000", "Fig. 15", "energy of the sliding cube against the stopping tolerance") as F:
        body(F)


if __name__ == "__main__":
    main()
