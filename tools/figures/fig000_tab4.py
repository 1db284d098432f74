#!/usr/bin/python3
"""Seed 000 Tab. IV: integral consistency error against the solver's stopping tolerance, run as the
authors' code runs it. ContactBench (the paper's code) gives the scene and the rules:
examples/cube.py --slide (a 0.2 m, 1 kg cube on 8 corner spheres, mu 0.4, 1 m/s, dt 1 ms, 1.098 s,
reference th = 1e-9, rel_th_stop 1e-12, 10000 iterations, cold start) and solvers.hxx (every
solver stops when its absolute residual < th_stop_ OR the relative change of successive iterates
< rel_th_stop_; the residual in the units of simulators.py's problem (G, g / dt): forces lambda / dt
and velocities c / dt). csim: solver.tolerance_units contactbench, solver.criterion relative,
solver.rel_tolerance 1e-12, warm_start false. Also: warm start, rel_th_stop = the tolerance, and
the previous study (cube_slide, force units, NCP criterion); Solo-12 standing.
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
MODELS = S.MODELS[:4]  # CCP/PGS, RaiSim, NCP/PGS, RaiSim+DS: the per-contact families


# the authors' absolute stop of a run's rows (solvers.hxx stoppingCriteria in simulators.py's
# units): max(eps_p / dt, eps_d / dt, eps_c / dt^2) from csim's impulse-unit residuals
def residual_cb(h5path):
    import h5py
    with h5py.File(h5path, "r") as f:
        dt = float(f.attrs["dt"])
        p, d, c = f["/solver/primal"][:], f["/solver/dual"][:], f["/solver/complementarity"][:]
        t = f["/time"][:]
    return t, np.maximum(np.maximum(p, d) / dt, c / dt ** 2)


def body(F):
    scene = S.cb_scene(F.tmp)
    cold, cruns, crefs = S.cb_sweep(F.tmp, scene, TOLS, MODELS)
    warm, _, _ = S.cb_sweep(F.tmp, scene, TOLS, MODELS, warm=True)
    reltol, _, _ = S.cb_sweep(F.tmp, scene, TOLS, MODELS, rel_is_tol=True)
    # ContactBench's library defaults: SimulatorBase warm_start True, step maxIter 100,
    # ContactSolverSettings rel_th_stop_ 1e-6 (simulators.py, solvers.hpp)
    dflt, _, _ = S.cb_sweep(F.tmp, scene, TOLS, MODELS, warm=True, rel=1e-6, maxit=100)
    old, _, _ = S.sweep_tol(F.tmp, "cube_slide", TOLS, S.HORIZON, "force", S.MODELS[:3])
    solo, _, _ = S.sweep_tol(F.tmp, "solo12_stand", TOLS, S.SOLO_DURATION, "force", S.MODELS[:3])
    # RaiSim's stop in the authors' units while the cube slides (t < 0.25 s; it stops at 0.255 s)
    out = os.path.join(F.tmp, "rs.h5")
    C.run(scene, out, dict({"contact.model": "raisim", "solver.name": "bisection"}, **S.cb_sets(1e-2)))
    t, rcb = residual_cb(out)
    rr = C.Run(out)
    os.remove(out)
    slide = t < 0.25
    rs_its, rs_res = float(rr.iters[slide].mean()), float(np.median(rcb[slide]))
    # the skew of RaiSim's friction from -c_T at the corners (000 eq. 21), largest over the contacts
    skew = []
    for k in np.nonzero(slide)[0]:
        f, v = rr.world_forces(k), rr.world_velocities(k)
        a = [np.degrees(np.arccos(np.clip(-f[i, :2] @ v[i, :2] / (np.linalg.norm(f[i, :2]) * np.linalg.norm(v[i, :2])),
                                          -1, 1))) for i in range(len(f)) if np.linalg.norm(v[i, :2]) > 1e-3
             and np.linalg.norm(f[i, :2]) > 0]
        if a:
            skew.append(max(a))
    rs_skew = float(np.median(skew))
    # the same cube's G_NT / G_NN at a bottom corner (G = J M^-1 J', corner at (a/2, a/2, -(a/2 + r)))
    lv = np.array([S.CB_A / 2, S.CB_A / 2, -(S.CB_A / 2 + S.CB_R)])
    kx = np.array([[0, -lv[2], lv[1]], [lv[2], 0, -lv[0]], [-lv[1], lv[0], 0]])
    Gc = np.eye(3) / S.CB_M + kx @ kx.T / (S.CB_M * S.CB_A ** 2 / 6)
    gnt = float(abs(Gc[2, 0]) / Gc[2, 2])
    # RaiSim's error at 1e-2 while the cube slides (t < 0.25 s) and after it stopped
    rc, rf = cruns["RaiSim"][1e-2], crefs["RaiSim"]
    sl = rc.t < 0.25
    pr = np.stack([np.interp(rc.t, rf.t, rf.q[:, j]) for j in range(3)], 1)
    en = np.linalg.norm(rc.q[:, :3] - pr, axis=1) * rc.dt
    rs_slide, rs_rest = float(en[sl].sum()), float(en[~sl].sum())
    fig, axs = plt.subplots(1, 2, figsize=(13, 5))
    for j, (model, solver, label) in enumerate(MODELS):
        axs[0].loglog(TOLS, [max(cold[label][x], 1e-16) for x in TOLS], "o-", color="C%d" % j,
                      label="csim " + label + " (authors' rules)")
        axs[0].loglog(TOLS, [max(warm[label][x], 1e-16) for x in TOLS], "x:", color="C%d" % j,
                      label="csim " + label + " (warm start)")
        if label in S.PAPER4:
            px = sorted(S.PAPER4[label])
            axs[0].loglog(px, [S.PAPER4[label][x] for x in px], "s--", color="C%d" % j, mfc="none", ms=8,
                          label="paper " + label)
        if label in solo:
            axs[1].loglog(TOLS, [max(solo[label][x], 1e-16) for x in TOLS], "o-", color="C%d" % j, label=label)
    axs[0].set_title("ContactBench's cube (examples/cube.py), %.3f s, their units and rule" % S.CB_DURATION,
                     fontsize=10)
    axs[1].set_title("Solo-12 standing (PD), %.1f s, force units, NCP criterion" % S.SOLO_DURATION, fontsize=10)
    for a in axs:
        a.set_xlabel("solver.tolerance (the authors' th_stop_)")
        a.set_ylabel("integral consistency error (m s)")
        a.legend(fontsize=6)
    fig.suptitle("000 Tab. IV with csim: stopping-criterion sensitivity under ContactBench's stopping rules",
                 fontsize=11)
    fig.tight_layout()
    F.png(fig, dpi=80)
    rows = []
    for model, solver, label in MODELS:
        for x in TOLS:
            p = S.PAPER4.get(label, {}).get(x)
            rows.append([label, x, p, cold[label][x], figjson.ratio(p, cold[label][x]), warm[label][x],
                         reltol[label][x], dflt[label][x], old[label][x] if label in old else None])
    F.table("Integral consistency error (m s) against the tolerance-1e-9 run. csim (authors' rules): "
            "ContactBench's cube (examples/cube.py, %.3f s), solver.tolerance_units contactbench, "
            "solver.criterion relative with rel_th_stop 1e-12, cold start, 10000 iterations; then the same "
            "warm-started, the same with rel_th_stop = the tolerance, with ContactBench's library defaults "
            "(warm start, rel_th_stop 1e-6, 100 iterations), and the previous study (scenarios/"
            "cube_slide.yaml, %.1f s, force units, NCP criterion, warm start)." % (S.CB_DURATION, S.HORIZON),
            ["solver", "tolerance", "paper", "csim (authors' rules)", "csim / paper", "csim (warm start)",
             "csim (rel_th_stop = tolerance)", "csim (library defaults)",
             "csim (previous: cube_slide, NCP criterion)"], rows,
            rel=0.5, abs_=1e-10)
    F.table("Solo-12 standing under PD control, %.1f s, force units, NCP criterion: integral consistency "
            "error of the base position (m s); the paper prints no robot rows." % S.SOLO_DURATION,
            ["solver", "tolerance", "paper", "csim", "csim / paper"],
            [[l, x, None, solo[l][x], None] for l in solo for x in TOLS], rel=0.5, abs_=1e-10)
    e2 = {l: cold[l][1e-2] for l in S.PAPER_LABELS}
    best = min(e2, key=e2.get)
    alt = {l: max(warm[l][1e-2], reltol[l][1e-2], dflt[l][1e-2]) for l in S.PAPER_LABELS}
    v = dict(best=best, its=rs_its, res=rs_res, skew=rs_skew, gnt=gnt, slide=rs_slide, rest=rs_rest,
             n2=e2["NCP/PGS"] / 5.3e-6, n4=cold["NCP/PGS"][1e-4] / 9.9e-8, n6=cold["NCP/PGS"][1e-6] / 6.0e-10,
             rs_alt=alt["RaiSim"], ccp_alt=alt["CCP/PGS"], rs=e2["RaiSim"], ccp=e2["CCP/PGS"],
             rs_f=7.0e-4 / max(alt["RaiSim"], e2["RaiSim"]), ccp_f=4.8e-2 / max(alt["CCP/PGS"], e2["CCP/PGS"]))
    reason = ("the paper prints two digits and not its run's horizon, warm start or rel_th_stop_; they are "
              "taken from ContactBench's examples/cube.py (1.098 s, cold start, 1e-12), the only public "
              "script of this cube, so +-50 %")
    F.claim("\"Trajectories generated via the RaiSim and CCP contact models are significantly modified when "
            "eps_abs is increased\"; NCP/PGS is the most robust (Tab. IV at 1e-2: NCP 5.3e-6, RaiSim 7.0e-4, "
            "CCP 4.8e-2).", "NCP/PGS error at tolerance 1e-2 under the authors' rules (m s)", e2["NCP/PGS"],
            J.judge(e2["NCP/PGS"], 5.3e-6, {"rel": 0.5}) if best == "NCP/PGS" else "not reproduced",
            "Under the authors' rules at 1e-2 the errors are CCP/PGS %.1e, RaiSim %.1e, NCP/PGS %.1e m s "
            "(most robust: %s); warm-started %.1e, %.1e, %.1e; previous study (cube_slide, NCP criterion) "
            "%.1e, %.1e, %.1e." % (e2["CCP/PGS"], e2["RaiSim"], e2["NCP/PGS"], best, warm["CCP/PGS"][1e-2],
                                    warm["RaiSim"][1e-2], warm["NCP/PGS"][1e-2], old["CCP/PGS"][1e-2],
                                    old["RaiSim"][1e-2], old["NCP/PGS"][1e-2]),
            paper=5.3e-6, tol={"rel": 0.5}, reason=reason + "; the ranking must be the paper's",
            why=WHY_RANK % v, rel=0.5)
    F.claim("RaiSim's error at tolerance 1e-2 is 7.0e-4 m s (Tab. IV).",
            "RaiSim error at 1e-2 under the authors' rules (m s)", e2["RaiSim"],
            J.judge(e2["RaiSim"], 7.0e-4, {"rel": 0.5}),
            "RaiSim at 1e-2: %.1e m s (warm start %.1e, rel_th_stop = tolerance %.1e); while the cube slides "
            "it takes %.1f sweeps per step from the cold start and its residual in the authors' units is "
            "%.2g (median)." % (e2["RaiSim"], warm["RaiSim"][1e-2], reltol["RaiSim"][1e-2], rs_its, rs_res),
            paper=7.0e-4, tol={"rel": 0.5}, reason=reason,
            why=WHY_RS % v, rel=0.5)
    F.claim("CCP/PGS's error at tolerance 1e-2 is 4.8e-2 m s (Tab. IV), the largest.",
            "CCP/PGS error at 1e-2 under the authors' rules (m s)", e2["CCP/PGS"],
            J.judge(e2["CCP/PGS"], 4.8e-2, {"rel": 0.5}),
            "CCP/PGS at 1e-2: %.1e m s (warm start %.1e, rel_th_stop = tolerance %.1e)." % (
                e2["CCP/PGS"], warm["CCP/PGS"][1e-2], reltol["CCP/PGS"][1e-2]),
            paper=4.8e-2, tol={"rel": 0.5}, reason=reason, why=WHY_CCP % v, rel=0.5)
    F.setup = SETUP % (S.CB_DURATION, S.HORIZON, S.SOLO_DURATION)


# the analysis (traced to ContactBench's definitions; the numbers are this run's)
WHY_RANK = (
    "the ranking is not the paper's: under the authors' rules csim's most robust is %(best)s and NCP/PGS is "
    "the least. Each solver's row follows from what solvers.hxx stops it on, in the units of simulators.py "
    "(max(eps_p / dt, eps_d / dt, eps_c / dt^2)): RaiSim on the NCP residual, which its fixed point cannot "
    "meet while the cube slides (next claim), so it stops on the relative test and, at cube.py's 1e-12, "
    "converges to the same fixed point at every tolerance; CCP/PGS on its own (CCP) residual, which its "
    "fixed point meets, so at 1e-2 it stops next to it; NCP/PGS on the NCP residual, which it meets early "
    "at a loose tolerance. NCP/PGS's rows are %(n2).2f, %(n4).2f and %(n6).2f of the paper's at 1e-2, 1e-4, "
    "1e-6 (same order and slope); RaiSim's and CCP's are at least %(rs_f).0f and %(ccp_f).0f times below the "
    "paper's at 1e-2 under every reading tried (warm start, rel_th_stop = tolerance, the library defaults)")
WHY_RS = (
    "RaiSim's fixed point violates the MDP (000 eq. 21): its friction is skewed by %(skew).1f deg from -c_T at "
    "the corners (G_NT / G_NN = %(gnt).2f on this cube), so eps_c / dt^2 = mu lambda_N |c_T| (1 - cos) / dt^2 "
    "stays at %(res).2g (median while sliding) however long it iterates, above any th_stop <= 1e-2: "
    "RaisimSolver::solve never stops on its absolute test while sliding and, with rel_th_stop 1e-12, runs "
    "%(its).1f sweeps per step to its fixed point whatever the tolerance; its error at 1e-2 is %(slide).1e m s "
    "while sliding and %(rest).1e m s after the cube stopped (where its fixed point is the NCP's and the "
    "absolute test applies). The paper's 7.0e-4 needs RaiSim stopped far from its fixed point while "
    "sliding; the relative test does that only with a loose rel_th_stop, and even rel_th_stop = 1e-2 "
    "gives at most %(rs_alt).1e m s. What the paper's run did differently is not in the public code "
    "(its Tab. IV script is not published)")
WHY_CCP = (
    "CCPPGSSolver stops on the CCP's own residual in the authors' units (eps_c held to th dt^2), which the "
    "CCP fixed point meets: at 1e-2 the answer is within the tolerance of that fixed point, %(ccp).1e m s "
    "(at most %(ccp_alt).1e m s under the other readings), not the paper's 4.8e-2 (a 4 cm mean offset over "
    "the run, %(ccp_f).0f times csim's largest). CCP's hops (Fig. 14-15) are the model's and the same at "
    "every tolerance here")
SETUP = (
    "The authors' code is public (github.com/Simple-Robotics/ContactBench); its Tab. IV script is not. Scene "
    "from examples/cube.py --slide, the only public script of the sliding cube: a 0.2 m, 1 kg cube colliding "
    "through 8 spheres of radius a/50 at its corners (examples/utils/models.py create_cubes), mu 0.4, v0 1 "
    "m/s along y, dt 1 ms, %.3f s, reference th = 1e-9 (Tab. IV's eps_abs = 1e-9), rel_th_stop 1e-12, "
    "maxIter 10000, warm_start False. Stopping rules (include/contactbench/solvers.hxx): NCPPGSSolver, "
    "RaisimSolver and CCPPGSSolver::solve stop after a sweep when stop_ < th_stop_ or ||lambda_k - "
    "lambda_k-1|| / ||lambda_k-1|| < rel_th_stop_; stop_ is the NCP residual for NCP/PGS (complementarity "
    "and dual terms, on the velocities of the sweep) and RaiSim (with the primal term), the CCP's own for "
    "CCP/PGS (no de Saxce term). Units (bindings/pycontact/simulators.py DualSolverSimulator: "
    "ContactProblem(Del, g / dt)): lambda is a force and every velocity c / dt, so csim's "
    "solver.tolerance_units contactbench holds eps_p and eps_d to tolerance dt and eps_c to tolerance dt^2 "
    "(the previous study's force units held eps_c to tolerance dt: 1/dt = 1000 times looser). RaiSim's "
    "parameters are the authors' defaults (solvers.hpp: alpha 1, alpha_min 0.1, gamma 0.99, per sweep); "
    "csim bisects each contact's angle to a tenth of the tolerance where theirs stops at 1e-6 N (both "
    "converge the per-contact problem; the stop decides). Not reproduced: the stale velocities of "
    "NCPPGSSolver's stop (computed mid-sweep). Integral consistency error: sum over steps of |p - p_ref| dt "
    "of the base position. Previous study column: scenarios/cube_slide.yaml (10 cm, mu 0.3), %.1f s, "
    "force units, solver.criterion ncp, warm start. Solo-12 rows: scenarios/solo12_stand.yaml, %.1f s.")


def main():
    C.check_csim()
    with figjson.Figure("000-tab4", "000", "Tab. IV", "stopping-criterion sensitivity under the authors' rules") as F:
        body(F)


if __name__ == "__main__":
    main()
