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
import figjson as J  # noqa: E402

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
        J.claim_record(
            "On flat, barely slippery ground (mu = 0.9) the choice of simulator hardly affects the base "
            "velocity (000 Sec. IV-D, Fig. 17 top right)",
            "largest relative difference of the 3 s forward distance from NCP/PGS's, over all pairs", spread,
            J.judge(spread, J.QUAL, {"hi": 0.05}, direction={"hi": 0.25}),
            "All nine pairs walk the open-loop trot forward; their distances differ from NCP/PGS's by at most "
            "%.1f%%." % (100 * spread),
            paper=J.QUAL, tol={"hi": 0.05},
            reason="the paper's velocity curves carry no number; 'hardly affects' is read, before measuring, as "
                   "within 5 % of the distance walked (one twentieth), not the earlier 25 %",
            why="the pairs stay within 25 %% but not 5 %% (%.1f %%); csim's trot is open loop, the paper's "
                "MPC tracks a commanded velocity, so a pair's slip is not corrected here; whether a "
                "controller brings the pairs within 5 %% is not tested (the closed-loop issue)" % (
                    100 * spread)),
        J.claim_record(
            "The simulators do not equally respect the contact complementarity criterion (Fig. 17 bottom left)",
            "smallest mean eps_abs among CCP/PGS, CCP/ADMM, RaiSim over the largest among the NCP solvers",
            eps_relax / eps_ncp, J.judge(eps_relax / eps_ncp, J.QUAL, {"lo": 10.0}),
            "The relaxed models' mean eps_abs is at least %.3g times the NCP solvers' even on sticking ground: "
            "the trot's foot touchdowns and lift-offs slide." % (eps_relax / eps_ncp),
            paper=J.QUAL, tol={"lo": 10.0},
            reason="the paper's eps_abs curves are on a log axis without printed values; 'not equally' read as "
                   "an order of magnitude",
            why="the relaxed models' residual is not ten times the NCP solvers'"),
    ]


def claims18(M):
    eps_ncp = max(M[k]["eps_mean"] for k in ("NCP/PGS", "NCP/ADMM", "NCP/Staggered"))
    eps_relax = min(M[k]["eps_mean"] for k in ("CCP/PGS", "CCP/ADMM", "RaiSim"))
    d_relax = max(abs(M[k]["dx"] - M["NCP/PGS"]["dx"]) for k in ("CCP/PGS", "CCP/ADMM", "RaiSim"))
    d_ncp = max(abs(M[k]["dx"] - M["NCP/PGS"]["dx"]) for k in ("NCP/ADMM", "NCP/Staggered"))
    dr = d_relax / max(d_ncp, 1e-12)
    it = M["RaiSim"]["it_mean"] / M["NCP/PGS"]["it_mean"]
    return [
        J.claim_record(
            "On bumpy slippery ground (mu = 0.3) slipping contacts violate the complementarity criterion for "
            "the RaiSim and CCP models (000 Fig. 18 bottom left)",
            "smallest mean eps_abs among CCP/PGS, CCP/ADMM, RaiSim over the largest among NCP/PGS, NCP/ADMM, "
            "NCP/Staggered", eps_relax / eps_ncp, J.judge(eps_relax / eps_ncp, J.QUAL, {"lo": 10.0}),
            "CCP and RaiSim leave eps_abs %.3g times above the NCP solvers' (which converge to 1e-6)." %
            (eps_relax / eps_ncp),
            paper=J.QUAL, tol={"lo": 10.0},
            reason="the paper's eps_abs curves are on a log axis without printed values; a violation read as "
                   "an order of magnitude above the NCP solvers'",
            why="the relaxed models' residual is not ten times the NCP solvers'"),
        J.claim_record(
            "The tracked base velocity quickly differs depending on the simulator (Fig. 18 top right); RaiSim "
            "and CCP deviate from NCP",
            "largest |dx - dx(NCP/PGS)| over CCP/PGS, CCP/ADMM, RaiSim divided by the same over NCP/ADMM, "
            "NCP/Staggered", dr, J.judge(dr, J.QUAL, {"lo": 2.0}),
            "The walked distances differ between simulators (%.3f to %.3f m); the NCP solvers disagree among "
            "themselves by up to %.3f m, CCP and RaiSim by %.3f m." % (
                min(m["dx"] for m in M.values()), max(m["dx"] for m in M.values()), d_ncp, d_relax),
            paper=J.QUAL, tol={"lo": 2.0},
            reason="a deviation of the relaxed models counts when it stands out of the spread among solvers of "
                   "the same model (NCP): at least twice it; the same rule as 002 Fig. 5's trajectories",
            why="without a controller the bumpy trot is chaotic: the NCP solvers, which solve the same model, "
                "already disagree by a comparable distance, so the relaxed models' deviation does not stand out "
                "of solver-to-solver spread"),
        J.claim_record(
            "The complexity of contacts increases solver effort, particularly for RaiSim (Fig. 18 bottom right)",
            "RaiSim mean iterations per step over NCP/PGS's", it, J.judge(it, J.QUAL, {"lo": 2.0}),
            "RaiSim needs %.1f iterations per step against NCP/PGS's %.1f (it cannot meet the NCP criterion "
            "while sliding and runs to the cap)." % (M["RaiSim"]["it_mean"], M["NCP/PGS"]["it_mean"]),
            paper=J.QUAL, tol={"lo": 2.0},
            reason="the paper's iteration bars carry no printed values; 'particularly for RaiSim' read as at least "
                   "twice NCP/PGS's iterations (iteration counts are deterministic)",
            why="RaiSim needs less than twice NCP/PGS's iterations"),
    ]


def claims002(M):
    r, ds, ncp = M["RaiSim"], M["RaiSim+DS"], M["NCP/PGS"]
    er = r["eps_mean"] / ds["eps_mean"]
    d_mdp = abs(ds["dx"] - ncp["dx"])               # the two MDP models among themselves
    d_r = min(abs(r["dx"] - ds["dx"]), abs(r["dx"] - ncp["dx"]))
    dr = d_r / max(d_mdp, 1e-12)
    tr = ds["solve_us"] / r["solve_us"]
    return [
        J.claim_record(
            "With de Saxce's correction the contact complementarity error eps_abs is kept lower than with the "
            "original RaiSim solver (002 Fig. 5 left)",
            "mean eps_abs RaiSim over RaiSim+DS at %d iterations per step" % FIXED_ITERS, er,
            J.judge(er, J.QUAL, {"lo": 1.0}),
            "RaiSim's mean eps_abs is %.3g, RaiSim+DS's %.3g (NCP/PGS %.3g), %.1f times lower." % (
                r["eps_mean"], ds["eps_mean"], ncp["eps_mean"], er),
            paper=J.QUAL, tol={"lo": 1.0},
            reason="002 Fig. 5 gives curves on a log axis only; at a fixed iteration count the runs are "
                   "deterministic, so any ratio above 1 is 'lower'",
            why="RaiSim+DS's residual is not lower than RaiSim's"),
        J.claim_record(
            "The correction leads to very different trajectories (002 Fig. 5 center)",
            "|dx(RaiSim) - dx of the nearer MDP model (RaiSim+DS, NCP/PGS)| over |dx(RaiSim+DS) - dx(NCP/PGS)|",
            dr, J.judge(dr, J.QUAL, {"lo": 2.0}, direction={"lo": 1.0}),
            "The base walks %.3f m with RaiSim, %.3f m with RaiSim+DS and %.3f m with NCP/PGS." % (
                r["dx"], ds["dx"], ncp["dx"]),
            paper=J.QUAL, tol={"lo": 2.0},
            reason="a trajectory difference counts when it stands out of the spread between two solvers of the "
                   "same physics (here RaiSim+DS and NCP/PGS, both on the MDP): at least twice it, the rule "
                   "000 Fig. 18 applies (the earlier 2 cm threshold ignored that spread)",
            why="the two MDP models already differ by %.3f m over 3 s of the open-loop bumpy trot (chaotic, as "
                "000 Fig. 18 shows), and RaiSim's nearer MDP model is %.3f m away, %.1f times that spread: "
                "RaiSim differs, but not beyond the chaos the same physics shows" % (d_mdp, d_r, dr)),
        J.claim_record(
            "The additional computational burden of the correction remains limited (002 Fig. 5 right)",
            "solve wall time per step RaiSim+DS over RaiSim", tr, J.judge(tr, J.QUAL, {"hi": 2.0}, noise=2),
            "At the same iteration count a RaiSim+DS step costs %.2f times a RaiSim step." % tr,
            paper=J.QUAL, tol={"hi": 2.0},
            reason="002 Fig. 5 gives timing curves only; 'limited' read as less than twice RaiSim's time over the "
                   "whole noise band; the noise band a factor 2 (0.93 to 1.63 in this page's history, 1.30 on "
                   "the CI machine)",
            why="the ratio's noise band straddles 2, so this run cannot decide it",
            noise=2),
    ]


CLAIMS = {"000-17": claims17, "000-18": claims18, "002-3": claims002}

if __name__ == "__main__":
    main(sys.argv[1])
