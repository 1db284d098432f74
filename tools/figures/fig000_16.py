#!/usr/bin/python3
"""Seed 000 Fig. 16: solver time cold vs warm start on Solo-12 pushed, Talos pushed and a ball
dropped into the Allegro hand, every model/solver pair.

Scenes: scenarios/solo12_push.yaml (20 N on the base for 0.2 s), scenarios/talos_push.yaml
(150 N for 0.2 s), scenarios/allegro_ball.yaml (a ball thrown into the half-curled hand); 0.6 s
each. Every pair runs each scene with solver.warm_start false (cold: every step starts from
zero impulses) and true (warm: the previous step's impulses by contact id), solver.criterion
model (each solver stops when it has solved its own model's problem to 1e-6, the paper's "time
to reach a fixed accuracy"; under the NCP criterion the relaxed models would run to the cap
while sliding), with an iteration cap of CAP = 20000 so that a step stops at the tolerance,
not at a cap (the steps that still reach it are counted). Timings: csim's recorded /timing/solve (wall time of the solve stage per step,
this machine, reported and never asserted: timing_columns); iterations per step are the
deterministic companion. Writes out/figures/fig000_16.png and fig000_16.json.
"""
import os
import shutil
import sys
import time

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import figjson as J  # noqa: E402
import fig_loco as L  # noqa: E402

FID = "000-16"
CAP = 20000  # iterations: high enough that steps stop at the tolerance (time to a fixed accuracy)
SCENES = [("solo12_push", "Solo-12 pushed"), ("talos_push", "Talos pushed"),
          ("allegro_ball", "ball in the Allegro hand")]


def main():
    tmp, t0 = L.start(FID)
    res, cmds = {}, []
    for scene, _ in SCENES:
        for model, solver, label in L.PAIRS:
            for warm in ("false", "true"):
                out = os.path.join(tmp, "%s_%s_%s_%s.h5" % (scene, model, solver, warm))
                sets = [("contact.model", model), ("solver.name", solver),
                        ("solver.warm_start", warm), ("solver.criterion", "model"),
                        ("solver.max_iterations", str(CAP))]
                cmds.append(L.run(scene, out, sets))
                r = L.read(out)
                res[(scene, label, warm)] = {
                    "it": float(r["/solver/iterations"].mean()),
                    "us": float(1e6 * r["/timing/solve"].mean()),
                    "nonconv": int((r["/solver/converged"] == 0).sum())}
    labels = [p[2] for p in L.PAIRS]
    fig, ax = plt.subplots(len(SCENES), 2, figsize=(12, 10), sharey="row")
    for i, (scene, title) in enumerate(SCENES):
        # the row's log axis spans every bar of both panels (none clipped), values printed on them
        vals = [res[(scene, k, w)]["us"] for k in labels for w in ("false", "true")]
        lo, hi = min(v for v in vals if v > 0), max(vals)
        for j, warm in enumerate(("false", "true")):
            a = ax[i, j]
            y = [res[(scene, k, warm)]["us"] for k in labels]
            a.bar(range(len(labels)), y, color="C0" if warm == "false" else "C2")
            a.set_yscale("log")
            a.set_ylim(lo / 3, hi * 3)
            for x, v in enumerate(y):
                a.text(x, v * 1.1, "%.3g" % v, ha="center", va="bottom", fontsize=6, rotation=90)
            a.set_xticks(range(len(labels)))
            a.set_xticklabels(labels if i == len(SCENES) - 1 else [], rotation=45, ha="right",
                              fontsize=7)
            a.set_title("%s, %s start" % (title, "cold" if warm == "false" else "warm"), fontsize=9)
            if j == 0:
                a.set_ylabel("solve us/step (wall)")
    fig.suptitle("000 Fig. 16: solver time per step, cold vs warm start (timings of this machine)")
    fig.tight_layout()
    fig.savefig(os.path.join(L.FIGDIR, "fig000_16.png"), dpi=100)

    rows = []
    for scene, title in SCENES:
        for k in labels:
            c, w = res[(scene, k, "false")], res[(scene, k, "true")]
            rows.append([title, k, c["it"], w["it"], w["it"] / c["it"] if c["it"] else None,
                         c["nonconv"], w["nonconv"], round(c["us"], 1), round(w["us"], 1)])
    table = {"caption": "mean iterations per step cold and warm and their ratio, steps not "
                        "converged (of 600: stopped at the %d-iteration cap) cold and warm, mean "
                        "solve wall time per step (us) cold and warm" % CAP,
             "columns": ["scene", "pair", "iterations cold", "iterations warm", "warm/cold",
                         "not converged cold", "not converged warm", "solve us cold",
                         "solve us warm"],
             "rows": rows, "timing_columns": [7, 8], "tolerance": {"rel": 0.05, "abs": 1e-9}}

    def us(scene, k, warm):
        return res[(scene, k, warm)]["us"]

    gap_cold = [us(s, "NCP/ADMM", "false") / us(s, "NCP/PGS", "false") for s, _ in SCENES]
    gap_warm = [us(s, "NCP/ADMM", "true") / us(s, "NCP/PGS", "true") for s, _ in SCENES]
    it_ratio = [r[4] for r in rows if r[4] is not None]
    t_ratio = [r[8] / r[7] for r in rows if r[7] > 0]
    NOISE = "the noise band a factor 6: the solve times come from separate runs on shared cores, and the same ratios moved by up to 5.5x between this machine and the CI machine (cold ADMM/PGS 1.61 vs 6.44, warm/cold 4.38 vs 0.79)"
    gc, itr = float(np.median(gap_cold)), float(np.median(it_ratio))
    gw = float(np.median(np.array(gap_warm) / np.array(gap_cold)))
    claims = [
        J.claim_record(
            "Cold started, second-order methods like ADMM are less efficient than PGS and its cheap "
            "per-contact iterations (000 Fig. 16 left)",
            "NCP/ADMM over NCP/PGS solve time per step, cold, median over the 3 scenes", gc,
            J.judge(gc, J.QUAL, {"lo": 1.0}, noise=6),
            "Cold, NCP/ADMM takes %s times NCP/PGS's solve time (Solo-12, Talos, Allegro)." %
            ", ".join("%.1f" % g for g in gap_cold),
            paper=J.QUAL, tol={"lo": 1.0},
            reason="Fig. 16 is a bar chart without printed numbers; 'less efficient' is a ratio above 1 over the "
                   "whole noise band; " + NOISE,
            why="the ratio's noise band straddles 1, so this run cannot decide it",
            noise=6),
        J.claim_record(
            "Warm starting with the previous step's solution leads to significant improvements in the "
            "computational timings (Fig. 16 right)",
            "median over scenes and pairs of warm/cold mean iterations per step (deterministic; the "
            "wall-time median is in the sentence)", itr, J.judge(itr, J.QUAL, {"hi": 0.8}),
            "Warm start needs a median %.2f of the cold iterations per step (%.2f of the solve time on this "
            "machine)." % (itr, np.median(t_ratio)),
            paper=J.QUAL, tol={"hi": 0.8},
            reason="Fig. 16 is a bar chart without printed numbers; 'significant improvements' read as at least "
                   "a fifth fewer iterations (iteration counts are deterministic: no noise band)",
            why="warm start saves less than a fifth of the iterations"),
        J.claim_record(
            "Warm starting reduces the gap between ADMM and PGS (Fig. 16)",
            "median over the 3 scenes of the NCP/ADMM over NCP/PGS time ratio, warm divided by cold", gw,
            J.judge(gw, J.QUAL, {"hi": 1.0}, noise=6),
            "NCP/ADMM over NCP/PGS goes from %s cold to %s warm." % (
                "/".join("%.1f" % g for g in gap_cold), "/".join("%.1f" % g for g in gap_warm)),
            paper=J.QUAL, tol={"hi": 1.0},
            reason="Fig. 16 is a bar chart without printed numbers; 'reduces the gap' is a ratio below 1 over "
                   "the whole noise band; " + NOISE,
            why="the ratio of two ratios of wall times from four runs has a noise band that straddles 1 here, "
                "so this run cannot decide it; the iteration counts (table) are deterministic but the paper's "
                "claim is on time to a fixed accuracy",
            noise=6),
    ]
    setup = ("Scenes scenarios/solo12_push.yaml, talos_push.yaml, allegro_ball.yaml (0.6 s, dt 1 ms), "
             "every model/solver pair, solver.warm_start false and true, solver.criterion model, "
             "tolerance 1e-6, %d iterations at most (time to a fixed accuracy: the steps that reach the cap are "
             "counted in the table). Times are csim's recorded solve-stage wall "
             "times on this machine (not compared by the drift test); iterations are "
             "deterministic. Commands: csim run scenarios/<scene>.yaml --set contact.model=M "
             "--set solver.name=S --set solver.warm_start=W --set solver.criterion=model "
             "--set solver.max_iterations=%d (%d runs)." % (CAP, CAP, len(cmds)))
    L.write_json(FID, "000", "Fig. 16", "Solver time cold vs warm start: Solo-12, Talos, Allegro",
                 time.time() - t0, setup, ["fig000_16.png"], [table], claims)
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
