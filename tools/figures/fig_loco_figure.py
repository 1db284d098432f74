#!/usr/bin/python3
"""The locomotion experiments: seed 000 Figs. 17 and 18, seed 002 Experiment 3 (Fig. 5).

000-17: flat ground, mu = 0.9, every model/solver pair (scenarios/solo12_trot.yaml).
000-18: bumpy ground (height field), mu = 0.3, every pair (scenarios/solo12_trot_bumpy.yaml).
002-3:  bumpy ground, NCP/PGS, RaiSim and RaiSim+DS with a fixed iteration count (002: "the
        number of iterations is fixed"): tolerance 1e-300, never met, so every solver runs N
        iterations (fewer on steps without contact or with an exact answer).
Each writes out/figures/fig<id>.png (terrain contact points, base forward velocity, eps_abs,
solve time per step) and fig<id>.json (figure convention).
"""
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fig_loco as L  # noqa: E402

FIXED_ITERS = 100   # 002-3: iterations per step for every solver

CFG = {
    "000-17": dict(seed="000", item="Fig. 17", scenario="solo12_trot", pairs=L.PAIRS, sets=[],
                   title="Solo-12 trotting on flat ground (mu = 0.9), every model/solver pair"),
    "000-18": dict(seed="000", item="Fig. 18", scenario="solo12_trot_bumpy", pairs=L.PAIRS, sets=[],
                   title="Solo-12 trotting on bumpy ground (mu = 0.3), every model/solver pair"),
    "002-3": dict(seed="002", item="Experiment 3 (Fig. 5)", scenario="solo12_trot_bumpy",
                  pairs=[p for p in L.PAIRS if p[2] in ("NCP/PGS", "RaiSim", "RaiSim+DS")],
                  sets=[("solver.tolerance", "1e-300"), ("solver.max_iterations", str(FIXED_ITERS))],
                  title="Solo-12 on bumpy slippery ground: RaiSim vs RaiSim+DS at a fixed "
                        "iteration count"),
}


def main(fid):
    c = CFG[fid]
    tmp, t0 = L.start(fid)
    runs, cmds = {}, []
    for model, solver, label in c["pairs"]:
        out = os.path.join(tmp, "%s_%s.h5" % (model, solver))
        sets = [("contact.model", model), ("solver.name", solver)] + c["sets"]
        cmds.append(L.run(c["scenario"], out, sets))
        runs[label] = (L.read(out), out)
    M = {k: L.metrics(r) for k, (r, _) in runs.items()}
    ref = M["NCP/PGS"]

    # figure: the paper's four panels
    fig, ax = plt.subplots(2, 2, figsize=(12, 8.5))
    pts = L.contact_points(runs["NCP/PGS"][1])
    a = ax[0, 0]
    if len(pts):
        sc = a.scatter(pts[::7, 0], pts[::7, 1], c=pts[::7, 2] * 1e3, s=2, cmap="viridis")
        fig.colorbar(sc, ax=a, label="contact point z (mm)")
    for label, (r, _) in runs.items():
        a.plot(r["/state/q"][:, 0], r["/state/q"][:, 1], lw=0.8, label=label)
    a.set_xlabel("x (m)")
    a.set_ylabel("y (m)")
    a.set_title("terrain where the feet touched (NCP/PGS) and base paths")
    a.set_aspect("equal", adjustable="datalim")
    a.legend(fontsize=6, loc="best")
    a = ax[0, 1]
    for label, (r, _) in runs.items():
        # over one gait period (0.5 s at 2 Hz), the trot's own oscillation averaged out
        a.plot(r["/time"], L.smooth(r["/state/v"][:, 0], 500), lw=1, label=label)
    a.set_xlabel("time (s)")
    a.set_ylabel("base forward velocity (m/s), 0.5 s mean")
    a.set_title("base velocity")
    a.legend(fontsize=6)
    a = ax[1, 0]
    for label, (r, _) in runs.items():
        a.semilogy(r["/time"], np.maximum(L.smooth(r["/solver/eps_abs"], 50), 1e-16), lw=0.8,
                   label=label)
    a.set_xlabel("time (s)")
    a.set_ylabel("eps_abs (000 eq. 14), 50-step mean")
    a.set_title("contact complementarity (NCP criterion)")
    a.legend(fontsize=6)
    a = ax[1, 1]
    labels = list(runs)
    a.bar(range(len(labels)), [M[k]["solve_us"] for k in labels], color="C0")
    a.set_xticks(range(len(labels)))
    a.set_xticklabels(labels, rotation=45, ha="right", fontsize=7)
    a.set_ylabel("solve time per step (us, wall, this machine)")
    a.set_title("solver cost (timings: reported, not compared)")
    fig.suptitle("%s %s: %s" % (c["seed"], c["item"], c["title"]))
    fig.tight_layout()
    png = "fig%s.png" % fid.replace("-", "_")
    fig.savefig(os.path.join(L.FIGDIR, png), dpi=110)

    rows = [[k, M[k]["dx"], M[k]["vx"], M[k]["eps_mean"], M[k]["eps_max"], M[k]["it_mean"],
             M[k]["nonconv"], round(M[k]["solve_us"], 1)] for k in labels]
    table = {"caption": "per pair over the %.1f s run: forward distance of the base, its mean "
                        "forward speed over the second half, eps_abs (mean, max), iterations per "
                        "step, steps not converged (of %d), solve wall time per step"
                        % (runs["NCP/PGS"][0]["/time"][-1] + 1e-3, ref["steps"]),
             "columns": ["pair", "dx (m)", "vx (m/s)", "mean eps_abs", "max eps_abs",
                         "iterations/step", "not converged", "solve us/step"],
             "rows": rows, "timing_columns": [7], "tolerance": {"rel": 0.05, "abs": 1e-9}}
    claims = CLAIMS[fid](M)
    setup = SETUP[fid] + " Commands: " + "; ".join(cmds) + "."
    L.write_json(fid, c["seed"], c["item"], c["title"], __import__("time").time() - t0, setup,
                 [png], [table], claims)
    import shutil
    shutil.rmtree(tmp, ignore_errors=True)


GAIT = ("Open-loop trot instead of the paper's MPC (docs/scenarios.md, 'Terrain and the trotting gait'): "
        "2 Hz, diagonal pairs in antiphase, hip +-0.3 rad, knee +-0.3 rad a quarter period behind, "
        "joint PD kp 6, kd 0.3, dt 1 ms, 3 s, warm start.")
SOLVER = " Solver tolerance 1e-6 on the NCP criterion, 500 iterations at most."
SETUP = {
    "000-17": "scenarios/solo12_trot.yaml: Solo-12 on the plane, mu = 0.9, Baumgarte 10. " + GAIT + SOLVER,
    "000-18": "scenarios/solo12_trot_bumpy.yaml: Solo-12 on a seeded random height field (6 x 6 m,"
              " 5 cm cells, heights uniform in [0, 2 cm]; the paper's roughness is 10 cm, too much "
              "for an open-loop gait), mu = 0.3. " + GAIT + SOLVER,
    "002-3": "scenarios/solo12_trot_bumpy.yaml (bumpy, mu = 0.3) with NCP/PGS, RaiSim and "
             "RaiSim+DS, every solver held at exactly %d iterations per step (tolerance 1e-300, never met), as 002 "
             "fixes the iteration count. " % FIXED_ITERS + GAIT,
}


def rel_spread(M, keys, ref="NCP/PGS"):
    return max(abs(M[k]["dx"] - M[ref]["dx"]) / abs(M[ref]["dx"]) for k in keys)


def claims17(M):
    spread = rel_spread(M, list(M))
    eps_ncp = max(M[k]["eps_mean"] for k in ("NCP/PGS", "NCP/ADMM", "NCP/Staggered"))
    eps_relax = min(M[k]["eps_mean"] for k in ("CCP/PGS", "CCP/ADMM", "RaiSim"))
    return [
        {"claim": "On flat, barely slippery ground (mu = 0.9) the choice of simulator hardly "
                  "affects the base velocity (000 Sec. IV-D, Fig. 17 top right)",
         "measure": "largest relative difference of the 3 s forward distance from NCP/PGS's, "
                    "over all pairs", "value": spread, "reproduced": bool(spread < 0.25),
         "sentence": "All nine pairs walk the open-loop trot forward; their distances differ from "
                     "NCP/PGS's by at most %.0f%%%s." % (100 * spread,
                     "" if spread < 0.25 else ", more than 'hardly' (the open loop has no "
                     "controller to correct a slip)")},
        {"claim": "The simulators do not equally respect the contact complementarity criterion "
                  "(Fig. 17 bottom left)",
         "measure": "smallest mean eps_abs among CCP/PGS, CCP/ADMM, RaiSim over the largest among "
                    "the NCP solvers", "value": eps_relax / eps_ncp,
         "reproduced": bool(eps_relax > 10 * eps_ncp),
         "sentence": "The relaxed models' mean eps_abs is at least %.3g times the NCP solvers' even "
                     "on sticking ground: the trot's foot touchdowns and lift-offs slide." %
                     (eps_relax / eps_ncp)},
    ]


def claims18(M):
    eps_ncp = max(M[k]["eps_mean"] for k in ("NCP/PGS", "NCP/ADMM", "NCP/Staggered"))
    eps_relax = min(M[k]["eps_mean"] for k in ("CCP/PGS", "CCP/ADMM", "RaiSim"))
    d_relax = max(abs(M[k]["dx"] - M["NCP/PGS"]["dx"]) for k in ("CCP/PGS", "CCP/ADMM", "RaiSim"))
    d_ncp = max(abs(M[k]["dx"] - M["NCP/PGS"]["dx"]) for k in ("NCP/ADMM", "NCP/Staggered"))
    return [
        {"claim": "On bumpy slippery ground (mu = 0.3) slipping contacts violate the complementarity "
                  "criterion for the RaiSim and CCP models (000 Fig. 18 bottom left)",
         "measure": "smallest mean eps_abs among CCP/PGS, CCP/ADMM, RaiSim over the largest among "
                    "NCP/PGS, NCP/ADMM, NCP/Staggered", "value": eps_relax / eps_ncp,
         "reproduced": bool(eps_relax > 10 * eps_ncp),
         "sentence": "Reproduced: CCP and RaiSim leave eps_abs %.3g times above the NCP solvers' "
                     "(which converge to 1e-6)." % (eps_relax / eps_ncp)},
        {"claim": "The tracked base velocity quickly differs depending on the simulator (Fig. 18 "
                  "top right); RaiSim and CCP deviate from NCP",
         "measure": "largest |dx - dx(NCP/PGS)| over CCP/PGS, CCP/ADMM, RaiSim divided by the same "
                    "over NCP/ADMM, NCP/Staggered", "value": d_relax / max(d_ncp, 1e-12),
         "reproduced": bool(d_relax > 2 * d_ncp),
         "sentence": "%s: the walked distances differ between simulators (%.3f to %.3f m), but "
                     "the NCP solvers also disagree among themselves by up to %.3f m against %.3f m "
                     "for CCP and RaiSim: without a controller the bumpy trot is chaotic, so the "
                     "relaxed models' deviation does not stand out from solver-to-solver spread." %
                     ("Reproduced" if d_relax > 2 * d_ncp else "Not reproduced",
                      min(m["dx"] for m in M.values()), max(m["dx"] for m in M.values()), d_ncp,
                      d_relax)},
        {"claim": "The complexity of contacts increases solver effort, particularly for RaiSim "
                  "(Fig. 18 bottom right)",
         "measure": "RaiSim mean iterations per step over NCP/PGS's", "value":
             M["RaiSim"]["it_mean"] / M["NCP/PGS"]["it_mean"],
         "reproduced": bool(M["RaiSim"]["it_mean"] > 2 * M["NCP/PGS"]["it_mean"]),
         "sentence": "RaiSim needs %.1f iterations per step against NCP/PGS's %.1f (it cannot meet "
                     "the NCP criterion while sliding and runs to the cap)." %
                     (M["RaiSim"]["it_mean"], M["NCP/PGS"]["it_mean"])},
    ]


def claims002(M):
    r, ds = M["RaiSim"], M["RaiSim+DS"]
    return [
        {"claim": "With de Saxce's correction the contact complementarity error eps_abs is kept "
                  "lower than with the original RaiSim solver (002 Fig. 5 left)",
         "measure": "mean eps_abs RaiSim over RaiSim+DS at %d iterations per step" % FIXED_ITERS,
         "value": r["eps_mean"] / ds["eps_mean"], "reproduced": bool(r["eps_mean"] > ds["eps_mean"]),
         "sentence": "%s: RaiSim's mean eps_abs is %.3g, RaiSim+DS's %.3g (NCP/PGS %.3g), %.1f "
                     "times lower." % ("Reproduced" if r["eps_mean"] > ds["eps_mean"] else
                                       "Not reproduced", r["eps_mean"], ds["eps_mean"],
                                       M["NCP/PGS"]["eps_mean"], r["eps_mean"] / ds["eps_mean"])},
        {"claim": "The correction leads to very different trajectories (002 Fig. 5 center)",
         "measure": "|dx(RaiSim) - dx(RaiSim+DS)| over 3 s (m)",
         "value": abs(r["dx"] - ds["dx"]), "reproduced": bool(abs(r["dx"] - ds["dx"]) > 0.02),
         "sentence": "The base walks %.3f m with RaiSim and %.3f m with RaiSim+DS (NCP/PGS: %.3f m)."
                     % (r["dx"], ds["dx"], M["NCP/PGS"]["dx"])},
        {"claim": "The additional computational burden of the correction remains limited (002 "
                  "Fig. 5 right)",
         "measure": "solve wall time per step RaiSim+DS over RaiSim (timing: this machine, "
                    "reported, not compared)", "value": ds["solve_us"] / r["solve_us"],
         "reproduced": bool(ds["solve_us"] < 2 * r["solve_us"]),
         "sentence": "At the same iteration count a RaiSim+DS step costs %.2f times a RaiSim step."
                     % (ds["solve_us"] / r["solve_us"]), "timing": True},
    ]


CLAIMS = {"000-17": claims17, "000-18": claims18, "002-3": claims002}

if __name__ == "__main__":
    main(sys.argv[1])
