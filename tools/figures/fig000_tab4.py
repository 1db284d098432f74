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
    cold, cruns = S.cb_sweep(F.tmp, scene, TOLS, MODELS)
    warm, _ = S.cb_sweep(F.tmp, scene, TOLS, MODELS, warm=True)
    reltol, _ = S.cb_sweep(F.tmp, scene, TOLS, MODELS, rel_is_tol=True)
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
                         reltol[label][x], old[label][x] if label in old else None])
    F.table("Integral consistency error (m s) against the tolerance-1e-9 run. csim (authors' rules): "
            "ContactBench's cube (examples/cube.py, %.3f s), solver.tolerance_units contactbench, "
            "solver.criterion relative with rel_th_stop 1e-12, cold start, 10000 iterations; then the same "
            "warm-started, the same with rel_th_stop = the tolerance, and the previous study (scenarios/"
            "cube_slide.yaml, %.1f s, force units, NCP criterion, warm start)." % (S.CB_DURATION, S.HORIZON),
            ["solver", "tolerance", "paper", "csim (authors' rules)", "csim / paper", "csim (warm start)",
             "csim (rel_th_stop = tolerance)", "csim (previous: cube_slide, NCP criterion)"], rows,
            rel=0.5, abs_=1e-10)
    F.table("Solo-12 standing under PD control, %.1f s, force units, NCP criterion: integral consistency "
            "error of the base position (m s); the paper prints no robot rows." % S.SOLO_DURATION,
            ["solver", "tolerance", "paper", "csim", "csim / paper"],
            [[l, x, None, solo[l][x], None] for l in solo for x in TOLS], rel=0.5, abs_=1e-10)
    e2 = {l: cold[l][1e-2] for l in S.PAPER_LABELS}
    best = min(e2, key=e2.get)
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
            why=WHY_RANK % dict(best=best, ratio=e2["NCP/PGS"] / 5.3e-6, its=rs_its, res=rs_res), rel=0.5)
    F.claim("RaiSim's error at tolerance 1e-2 is 7.0e-4 m s (Tab. IV).",
            "RaiSim error at 1e-2 under the authors' rules (m s)", e2["RaiSim"],
            J.judge(e2["RaiSim"], 7.0e-4, {"rel": 0.5}),
            "RaiSim at 1e-2: %.1e m s (warm start %.1e, rel_th_stop = tolerance %.1e); while the cube slides "
            "it takes %.1f sweeps per step from the cold start and its residual in the authors' units is "
            "%.2g (median)." % (e2["RaiSim"], warm["RaiSim"][1e-2], reltol["RaiSim"][1e-2], rs_its, rs_res),
            paper=7.0e-4, tol={"rel": 0.5}, reason=reason,
            why=WHY_RS % dict(its=rs_its, res=rs_res), rel=0.5)
    F.claim("CCP/PGS's error at tolerance 1e-2 is 4.8e-2 m s (Tab. IV), the largest.",
            "CCP/PGS error at 1e-2 under the authors' rules (m s)", e2["CCP/PGS"],
            J.judge(e2["CCP/PGS"], 4.8e-2, {"rel": 0.5}),
            "CCP/PGS at 1e-2: %.1e m s (warm start %.1e, rel_th_stop = tolerance %.1e)." % (
                e2["CCP/PGS"], warm["CCP/PGS"][1e-2], reltol["CCP/PGS"][1e-2]),
            paper=4.8e-2, tol={"rel": 0.5}, reason=reason, why=WHY_CCP, rel=0.5)
    F.setup = SETUP % (S.CB_DURATION, S.HORIZON, S.SOLO_DURATION)


WHY_RANK = "the ranking is not the paper's (csim's most robust: %(best)s; NCP/PGS %(ratio).2g times the paper's). See the RaiSim claim"
WHY_RS = "RaiSim sweeps %(its).1f times per sliding step; its residual %(res).2g"
WHY_CCP = "see the analysis"
SETUP = ("%.3f s %.1f s %.1f s")


def main():
    C.check_csim()
    with figjson.Figure("000-tab4", "000", "Tab. IV", "stopping-criterion sensitivity under the authors' rules") as F:
        body(F)


if __name__ == "__main__":
    main()
