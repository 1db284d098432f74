#!/usr/bin/python3
"""Seed 000 Tab. IV: integral consistency error against the solver's stopping tolerance, with the
tolerance in force units (solver.tolerance_units: force, as the authors' code measures eps_abs on
lambda / dt, 002 Sec. II). cube_slide for 3.5 s, dt = 1 ms, tolerance 1e-2 ... 1e-8 against
1e-9; the same with impulse units for comparison; and Solo-12 standing (force units), 1 s.
Usage: make fig-000-tab4.
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


def body(F):
    force, _, _ = S.sweep_tol(F.tmp, "cube_slide", TOLS, S.HORIZON, "force")
    imp, _, _ = S.sweep_tol(F.tmp, "cube_slide", TOLS, S.HORIZON, "impulse", S.MODELS[:3])
    own, _, _ = S.sweep_tol(F.tmp, "cube_slide", TOLS, S.HORIZON, "force", S.MODELS[:3], "model")
    # ContactBench's rule (solvers.hxx): absolute residual below th_stop_ OR relative change of
    # successive iterates below rel_th_stop_, both set to the tolerance (relative change unitless)
    rel, relruns, _ = S.sweep_tol(F.tmp, "cube_slide", TOLS, S.HORIZON, "force", S.MODELS[:4], "relative")
    solo, _, _ = S.sweep_tol(F.tmp, "solo12_stand", TOLS, S.SOLO_DURATION, "force", S.MODELS[:3])
    fig, axs = plt.subplots(1, 2, figsize=(13, 5))
    for j, (model, solver, label) in enumerate(S.MODELS):
        axs[0].loglog(TOLS, [max(force[label][t], 1e-16) for t in TOLS], "o-", color="C%d" % j, label="csim " + label)
        if label in rel:
            axs[0].loglog(TOLS, [max(rel[label][t], 1e-16) for t in TOLS], "x:", color="C%d" % j,
                          label="csim " + label + " (ContactBench rule)")
        if label in S.PAPER4:
            px = sorted(S.PAPER4[label])
            axs[0].loglog(px, [S.PAPER4[label][x] for x in px], "s--", color="C%d" % j, mfc="none", ms=8,
                          label="paper " + label)
        if label in solo:
            axs[1].loglog(TOLS, [max(solo[label][t], 1e-16) for t in TOLS], "o-", color="C%d" % j, label=label)
    axs[0].set_title("cube_slide, %.1f s, force units, reference 1e-9" % S.HORIZON, fontsize=10)
    axs[1].set_title("Solo-12 standing (PD), %.1f s, force units" % S.SOLO_DURATION, fontsize=10)
    for a in axs:
        a.set_xlabel("solver.tolerance (force units, N)")
        a.set_ylabel("integral consistency error (m s)")
        a.legend(fontsize=7)
    fig.suptitle("000 Tab. IV with csim: stopping-criterion sensitivity (solver.criterion ncp)", fontsize=11)
    fig.tight_layout()
    F.png(fig, dpi=80)
    rows = []
    for model, solver, label in S.MODELS:
        for t in TOLS:
            p = S.PAPER4.get(label, {}).get(t)
            rows.append([label, t, p, force[label][t], figjson.ratio(p, force[label][t]),
                         imp[label][t] if label in imp else None, own[label][t] if label in own else None,
                         rel[label][t] if label in rel else None])
    F.table("cube_slide over %.1f s, dt = 1 ms: integral consistency error (m s) against the tolerance-1e-9 run, "
            "tolerance in force units (the paper's) with every solver stopping on the NCP residual "
            "(solver.criterion ncp); then the same in impulse units, and in force units with each solver "
            "stopping on its own model's residual (solver.criterion model), and in force units with ContactBench's rule (solver.criterion relative: "
            "the NCP residual below the tolerance or the relative change of successive iterates below it; "
            "NCP/ADMM has no such option)." % S.HORIZON,
            ["solver", "tolerance", "paper", "csim (force)", "csim / paper", "csim (impulse)",
             "csim (force, own criterion)", "csim (force, ContactBench rule)"], rows,
            rel=0.5, abs_=1e-10)
    F.table("Solo-12 standing under PD control, %.1f s, force units: integral consistency error of the base "
            "position (m s); the paper prints no robot rows." % S.SOLO_DURATION,
            ["solver", "tolerance", "paper", "csim", "csim / paper"],
            [[l, t, None, solo[l][t], None] for l in solo for t in TOLS], rel=0.5, abs_=1e-10)
    e2 = {l: force[l][1e-2] for l in S.PAPER_LABELS}
    best = min(e2, key=e2.get)
    F.claim("\"Trajectories generated via the RaiSim and CCP contact models are significantly modified when "
            "eps_abs is increased\"; NCP/PGS is the most robust (Tab. IV at 1e-2: NCP 5.3e-6, RaiSim 7.0e-4, "
            "CCP 4.8e-2).", "NCP/PGS error at tolerance 1e-2, force units (m s)", e2["NCP/PGS"],
            J.judge(e2["NCP/PGS"], 5.3e-6, {"rel": 0.5}) if best == "NCP/PGS" else "not reproduced",
            "In force units at 1e-2 the errors are CCP/PGS %.1e, RaiSim %.1e, NCP/PGS %.1e m s (impulse units: "
            "%.1e, %.1e, %.1e: the force-unit tolerance is dt = 1e-3 times the impulse one, 002 Sec. II); the most "
            "robust is %s. RaiSim stays at %.1e m s at 1e-2 also when it stops on its own fixed-point change "
            "(solver.criterion model)." % (
                e2["CCP/PGS"], e2["RaiSim"], e2["NCP/PGS"], imp["CCP/PGS"][1e-2], imp["RaiSim"][1e-2],
                imp["NCP/PGS"][1e-2], best, own["RaiSim"][1e-2]),
            paper=5.3e-6, tol={"rel": 0.5},
            reason="the paper does not print its horizon: at the 3.5 s that Tab. III's levels were fitted to, "
                   "csim's cells are 0.50-1.03 of the paper's, so +-50 %; the ranking must be the paper's",
            why="the ranking is %s: csim's most robust is %s and its NCP/PGS error is %.0f times the paper's. One "
                "warm sweep of RaiSim's per-contact solves, each bisected to a tenth of the tolerance, already "
                "leaves eps_abs below the tolerance (next claim), so a loose tolerance does not stop RaiSim early; "
                "why csim's NCP/PGS drifts more than the paper's at 1e-2 was not analysed" % (
                    "the paper's" if best == "NCP/PGS" else "not the paper's", best, e2["NCP/PGS"] / 5.3e-6),
            rel=0.5)
    rel2 = {l: rel[l][1e-2] for l in S.PAPER_LABELS}
    rbest = min(rel2, key=rel2.get)
    rs = relruns["RaiSim"][1e-2]
    slide = rs.t < 0.3  # the cube slides until 0.34 s
    its, epsf = float(rs.iters[slide].mean()), float(np.median(rs.eps[slide])) / rs.dt
    F.claim("With the authors' own stopping rule (ContactBench solvers.hxx: every solver stops when its absolute "
            "residual < th_stop_ or ||lambda_k - lambda_k-1|| / ||lambda_k-1|| < rel_th_stop_; seed 002: RaiSim "
            "has only the relative one that matters) RaiSim's error at 1e-2 is 7.0e-4 m s (Tab. IV).",
            "RaiSim error at 1e-2 with ContactBench's rule (m s)", rel2["RaiSim"],
            J.judge(rel2["RaiSim"], 7.0e-4, {"rel": 0.5}),
            "With solver.criterion relative at 1e-2 the errors are CCP/PGS %.1e, RaiSim %.1e, NCP/PGS %.1e m s "
            "(most robust: %s)." % (rel2["CCP/PGS"], rel2["RaiSim"], rel2["NCP/PGS"], rbest),
            paper=7.0e-4, tol={"rel": 0.5},
            reason="as the previous claim: +-50 % for the unprinted horizon",
            why="the rule cannot make csim's RaiSim stop early: while the cube slides it takes %.1f sweeps per "
                "step on average from the warm start, and its eps_abs after them is %.1e N (median), already "
                "below the 1e-2 N tolerance, so neither the absolute nor the relative test ever decides against a "
                "converged iterate; csim's RaiSim fixed point on this scene nearly satisfies the MDP (eps_abs "
                "%.1e N against about 2.45 N normal force per corner), so the paper's uncontained RaiSim error is "
                "not a matter of the stopping rule here" % (its, epsf, epsf), rel=0.5)
    F.setup = ("scenarios/cube_slide.yaml for %.1f s (as Tab. III), dt = 1 ms, solver.criterion ncp (every solver "
               "stops on the NCP residual of 000 eq. 14), cap 2000 iterations, warm start, "
               "solver.tolerance_units: force (the solver stops at eps_abs <= tolerance x dt: primal and "
               "complementarity terms on forces as the authors measure them; the velocity term is held to "
               "tolerance x dt too, stricter than the authors'). Reference: tolerance 1e-9. ContactBench rule "
               "(solver.criterion relative): ContactBench's solvers (include/contactbench/solvers.hxx: NCPPGSSolver::solve, "
               "CCPPGSSolver::solve, CCPADMMSolver::_solve_impl, RaisimSolver::solve) all stop when stop_ < th_stop_ or "
               "rel_stop_ < rel_th_stop_, rel_stop_ = ||lambda_k - lambda_k-1||_2 / ||lambda_k-1||_2 after a full sweep; "
               "csim applies it per island with both thresholds the tolerance (the relative one unitless); "
               "ContactSolverSettings defaults rel_th_stop_ to 1e-6, which a run varying th_stop_ alone keeps. Solo-12 rows: "
               "scenarios/solo12_stand.yaml, %.1f s." % (S.HORIZON, S.SOLO_DURATION))


def main():
    C.check_csim()
    with figjson.Figure("000-tab4", "000", "Tab. IV", "stopping-criterion sensitivity, tolerance on forces") as F:
        body(F)


if __name__ == "__main__":
    main()
