#!/usr/bin/python3
"""The locomotion experiments, closed loop: seed 000 Figs. 17 and 18, seed 002 Exp. 3 (Fig. 5).

000-17: flat ground, mu = 0.9 (scenarios/solo12_walk.yaml), every model/solver pair.
000-18: the 10 cm bumps, mu = 0.3 (scenarios/solo12_walk_bumpy.yaml), every model/solver pair.
002-3:  the same bumpy runs (shared with 000-18 through tools/figures/fig_walk.py's cache):
        NCP/PGS, RaiSim and RaiSim+DS.
Solo-12 walks under csim's quadruped_walk controller (the structure of Léziart et al.'s reactive
walking controller, seed 000 ref. [69]) tracking 0.3 m/s for fig_walk.DURATIONS s (5 flat, 10 bumps: the issue's 10 s walk), over
fig_walk.NSEEDS seeds (terrain and initial perturbation); per pair the mean and a 95 % t-interval
of each quantity, and paired differences against NCP/PGS (fig_walk.py). Writes
out/figures/fig<id>.png and fig<id>.json (figure convention).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fig_walk as W  # noqa: E402
import figjson as J  # noqa: E402
from fig000_common import PAIRS  # noqa: E402

# the bumps: every pair. Staggered and Lemke were left out while a bumpy walk cost ~31 s of CPU;
# since the MPC's proximal term one 10 s walk of seed 1 costs 4.9 s (NCP/Staggered) and 4.4 s
# (LCP/Lemke) of CPU against NCP/PGS's 4.3 s, so the 20 runs add ~2 minutes to 000-18
BUMPY_PAIRS = PAIRS
RELAXED = ("CCP/PGS", "CCP/ADMM", "RaiSim")

CFG = {
    "000-17": dict(seed="000", item="Fig. 17", scenario="solo12_walk", pairs=PAIRS,
                   title="Solo-12 walking closed loop on flat ground (mu = 0.9), every "
                         "model/solver pair, %d seeds" % W.NSEEDS),
    "000-18": dict(seed="000", item="Fig. 18", scenario="solo12_walk_bumpy", pairs=BUMPY_PAIRS,
                   title="Solo-12 walking closed loop on 10 cm bumps (mu = 0.3), every "
                         "model/solver pair, %d seeds" % W.NSEEDS),
    "002-3": dict(seed="002", item="Experiment 3 (Fig. 5)", scenario="solo12_walk_bumpy",
                  pairs=[p for p in BUMPY_PAIRS if p[2] in ("NCP/PGS", "RaiSim", "RaiSim+DS")],
                  title="Solo-12 walking closed loop on 10 cm bumps: RaiSim vs RaiSim+DS vs NCP, "
                        "%d seeds" % W.NSEEDS),
}

SETUP = (
    "Solo-12 under csim's quadruped_walk controller (trot 0.32 s, Raibert footholds, convex MPC on "
    "the single rigid body over one gait period solved by csim's own CCP/ADMM, Jacobian-transpose "
    "legs; docs/controllers.md) tracking 0.3 m/s forward for %g s, %s. Seeds 1-%d: %s the "
    "base's initial roll and pitch uniform in +-0.05 rad, yaw +-0.1 rad, x and y +-2 cm "
    "(tools/figures/fig_walk.py). Contact solver tolerance 1e-6 on the NCP criterion, 500 "
    "iterations at most, dt 1 ms. Per pair: mean and 95 %% Student-t interval over the seeds; a "
    "pair differs from NCP/PGS only where the t-interval of the paired per-seed difference "
    "excludes 0. Tracking error: RMS of the measured minus the commanded forward velocity over "
    "the second half of the run. A fall: the base tilted beyond %g degrees or its origin below "
    "%g m at any instant.")


def main(fid):
    c = CFG[fid]
    with J.Figure(fid, c["seed"], c["item"], c["title"]) as F:
        M, cmds = W.run_all(c["scenario"], c["pairs"])
        W.plot(M, "%s %s: %s" % (c["seed"], c["item"], c["title"]),
               os.path.join(J.FIGDIR, F.base + ".png"))
        F.images.append(F.base + ".png")
        cols, rows = W.table(M)
        F.table("per pair over %d seeds of %g s: mean [95 %% t-interval]; paired differences "
                "against NCP/PGS with 'differs' where their interval excludes 0"
                % (W.NSEEDS, W.DURATIONS[c["scenario"]]), cols, rows, timing_columns=[6], rel=0.05)
        ground = ("flat ground (scenarios/solo12_walk.yaml, mu 0.9)" if c["scenario"] == "solo12_walk"
                  else "the 10 cm bumps (scenarios/solo12_walk_bumpy.yaml: a seeded height field, "
                       "25 cm cells, heights uniform in [0, 10 cm], mu 0.3)")
        F.setup = (SETUP % (W.DURATIONS[c["scenario"]], ground, W.NSEEDS,
                            "the terrain seed (world.ground.seed) and" if "bumpy" in c["scenario"]
                            else "", W.FALL_TILT, W.FALL_Z)
                   + (" 002 fixes the iteration count; here the runs are 000-18's (the same "
                      "solver settings), shared to keep the bumpy runs within CI time."
                      if fid == "002-3" else "")
                   + " Commands (seed 1 of each pair): " + "; ".join(cmds) + ".")
        for claim in CLAIMS[fid](M):
            F.claims.append(claim)


def _track_spread(M):
    """the largest |bound| of the paired 95 % intervals of tracking error against NCP/PGS"""
    return max(max(abs(d[1]), abs(d[2])) for d in
               (W.paired(M, k, "NCP/PGS", "track") for k in M if k != "NCP/PGS"))


def _eps_claim(M, where, fig):
    lows = {k: W.paired(M, k, "NCP/PGS", "logeps")[1] for k in RELAXED}
    low = min(lows.values())
    return J.claim_record(
        "The simulators do not equally respect the contact complementarity criterion: the relaxed "
        "models (CCP, RaiSim) violate it (%s)" % fig,
        "smallest lower bound, over CCP/PGS, CCP/ADMM and RaiSim, of the 95 %% t-interval of the "
        "paired difference log10 eps_abs(pair) - log10 eps_abs(NCP/PGS) (%s)" % where, low,
        J.judge(low, J.QUAL, {"lo": 1.0}, direction={"lo": 0.0}),
        "Lower bounds of the paired log10 eps_abs differences: %s." % ", ".join(
            "%s %+.2f" % kv for kv in lows.items()),
        paper=J.QUAL, tol={"lo": 1.0},
        reason="the paper's eps_abs curves are on a log axis without printed values; 'violate' read, "
               "before measuring, as an order of magnitude above NCP's with 95 % confidence (the "
               "interval's lower bound above 1 decade)",
        why="the relaxed models' residual is above NCP's with 95 % confidence but not by a decade "
            "on every relaxed pair" if low > 0 else
            "on some relaxed pair the interval does not exclude an eps_abs at or below NCP's")


def claims17(M):
    spread = _track_spread(M)
    return [
        J.claim_record(
            "On flat, barely slippery ground (mu = 0.9) the choice of simulator hardly affects the "
            "tracked base velocity (000 Sec. IV-D, Fig. 17 top right)",
            "largest |bound| of the 95 % t-intervals of the paired tracking-error difference "
            "(pair - NCP/PGS), over all pairs, m/s", spread,
            J.judge(spread, J.QUAL, {"hi": 0.03}),
            "With 95 %% confidence no pair's tracking error differs from NCP/PGS's by more than "
            "%.3f m/s; %d of %d pairs differ at all (interval excluding 0)." % (
                spread, sum(W.differs(W.paired(M, k, "NCP/PGS", "track")) for k in M
                            if k != "NCP/PGS"), len(M) - 1),
            paper=J.QUAL, tol={"hi": 0.03},
            reason="'hardly affects' read, before measuring, as the tracking test's own tolerance "
                   "(10 % of the 0.3 m/s command, tests/test_control.c solo12_walks), to be met "
                   "by the whole 95 % interval",
            why="some pair's interval reaches beyond 0.03 m/s of NCP/PGS's tracking error"),
        _eps_claim(M, "flat ground", "000 Fig. 17 bottom left"),
    ]


def claims18(M):
    diff = [k for k in RELAXED if W.differs(W.paired(M, k, "NCP/PGS", "dist"))]
    its = W.interval([r["iters"] / max(n["iters"], 1e-12)
                      for r, n in zip(M["RaiSim"], M["NCP/PGS"])])
    return [
        _eps_claim(M, "10 cm bumps", "000 Fig. 18 bottom left"),
        J.claim_record(
            "The tracked base velocity differs depending on the simulator; RaiSim and CCP deviate "
            "from NCP (000 Fig. 18 top right)",
            "number of CCP/PGS, CCP/ADMM, RaiSim whose 95 % t-interval of the paired distance "
            "difference to NCP/PGS excludes 0", len(diff),
            J.judge(len(diff), J.QUAL, {"lo": 3}, direction={"lo": 1}),
            "Pairs whose distance differs from NCP/PGS's: %s (distance means: %s)." % (
                ", ".join(diff) or "none", ", ".join(
                    "%s %.2f m" % (k, W.interval([r["dist"] for r in M[k]])[0]) for k in M)),
            paper=J.QUAL, tol={"lo": 3},
            reason="a deviation counts only where the paired 95 % interval excludes 0 (issue 23): "
                   "all three relaxed pairs must deviate",
            why="only %d of the three relaxed pairs deviate from NCP/PGS beyond the seed-to-seed "
                "spread" % len(diff)),
        J.claim_record(
            "The complexity of contacts increases solver effort, particularly for RaiSim (000 Fig. "
            "18 bottom right)",
            "lower bound of the 95 % t-interval of RaiSim's mean iterations per step over "
            "NCP/PGS's (per seed)", its[1], J.judge(its[1], J.QUAL, {"lo": 2.0}, direction={"lo": 1.0}),
            "RaiSim needs %.2f [%.2f, %.2f] times NCP/PGS's iterations per step." % its,
            paper=J.QUAL, tol={"lo": 2.0},
            reason="the paper's iteration bars carry no printed values; 'particularly for RaiSim' "
                   "read as at least twice NCP/PGS's iterations, for the whole 95 % interval",
            why="RaiSim needs more iterations than NCP/PGS but not twice as many with 95 % "
                "confidence" if its[1] > 1 else "RaiSim does not need more iterations than NCP/PGS"),
    ]


def claims002(M):
    e = W.paired(M, "RaiSim", "RaiSim+DS", "logeps")
    d_r = [k for k in ("RaiSim+DS", "NCP/PGS") if W.differs(W.paired(M, "RaiSim", k, "dist"))]
    d_mdp = W.differs(W.paired(M, "RaiSim+DS", "NCP/PGS", "dist"))
    nd = len(d_r) - (1 if d_mdp else 0)
    tr = W.interval([a["solve_us"] / b["solve_us"] for a, b in zip(M["RaiSim+DS"], M["RaiSim"])])
    return [
        J.claim_record(
            "With de Saxce's correction the contact complementarity error eps_abs is kept lower than "
            "with the original RaiSim solver (002 Fig. 5 left)",
            "lower bound of the 95 % t-interval of the paired log10 eps_abs(RaiSim) - "
            "log10 eps_abs(RaiSim+DS)", e[1], J.judge(e[1], J.QUAL, {"lo": 0.0}),
            "log10 eps_abs RaiSim - RaiSim+DS: %+.2f [%+.2f, %+.2f]." % e,
            paper=J.QUAL, tol={"lo": 0.0},
            reason="'lower' with 95 % confidence: the paired interval above 0 (issue 23)",
            why="the interval does not exclude RaiSim+DS's residual being at or above RaiSim's"),
        J.claim_record(
            "The correction leads to very different trajectories (002 Fig. 5 center)",
            "number of RaiSim+DS, NCP/PGS from which RaiSim's distance differs (paired 95 % "
            "t-interval excluding 0), less 1 if RaiSim+DS and NCP/PGS (both on the MDP) differ "
            "from each other", nd, J.judge(nd, J.QUAL, {"lo": 2}, direction={"lo": 1}),
            "RaiSim differs from %s; RaiSim+DS and NCP/PGS %s." % (
                ", ".join(d_r) or "neither", "differ" if d_mdp else "do not differ"),
            paper=J.QUAL, tol={"lo": 2},
            reason="a trajectory difference counts only where the paired interval excludes 0, and "
                   "must stand out of the difference between two solvers of the same (MDP) physics",
            why="RaiSim's walks do not differ from both MDP models' beyond the seed-to-seed spread"),
        J.claim_record(
            "The additional computational burden of the correction remains limited (002 Fig. 5 "
            "right)",
            "mean over seeds of RaiSim+DS's solve wall time per step over RaiSim's", tr[0],
            J.judge(tr[0], J.QUAL, {"hi": 2.0}, noise=2),
            "A RaiSim+DS step costs %.2f [%.2f, %.2f] times a RaiSim step." % tr,
            paper=J.QUAL, tol={"hi": 2.0},
            reason="002 Fig. 5 gives timing curves only; 'limited' read as less than twice RaiSim's "
                   "time over the whole noise band (a factor 2, this page's history)",
            why="the ratio's noise band straddles 2, so this run cannot decide it", noise=2),
    ]


CLAIMS = {"000-17": claims17, "000-18": claims18, "002-3": claims002}

if __name__ == "__main__":
    main(sys.argv[1])
