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

DURATION = 1.0
TOLS = [1e-2, 1e-4, 1e-6, 1e-8]


def body(F):
    models = S.MODELS[:4]
    gap, left = {}, {}
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
    F.claim("\"Dropping the solver accuracy hardly affect[s] the energy evolution when using NCP/PGS\".",
            "NCP/PGS largest energy gap at tolerance 1e-2 (J)", gap["NCP/PGS"][1e-2], gap["NCP/PGS"][1e-2] < 1e-2,
            "%s: at 1e-2 N NCP/PGS stays within %.1e J of the analytic energy (1e-8: %.1e J)." % (
                "Reproduced" if gap["NCP/PGS"][1e-2] < 1e-2 else "Not reproduced", gap["NCP/PGS"][1e-2],
                gap["NCP/PGS"][1e-8]), rel=0.5)
    ok = left["RaiSim"][1e-2] < 0.5
    F.claim("\"As the accuracy of RaiSim is relaxed ... the error on the MDP becomes completely uncontained leading "
            "to almost no energy dissipation for low accuracies (eps_abs = 1e-2)\".",
            "RaiSim's dissipation at tolerance 1e-2 as a fraction of the analytic", left["RaiSim"][1e-2], ok,
            "%s: RaiSim dissipates %.3f of the analytic energy loss at 1e-2 N; csim's RaiSim stays converged far "
            "beyond the tolerance under the NCP criterion and under its own fixed-point criterion alike (000-tab4), "
            "so the paper's loss of dissipation does not appear; the cause is not analysed here." % (
                "Reproduced" if ok else "Not reproduced", left["RaiSim"][1e-2]), rel=0.05)
    F.setup = ("scenarios/cube_slide.yaml for %.1f s, dt = 1 ms, cap 2000 iterations, warm start, "
               "solver.tolerance_units: force and solver.criterion: ncp (so the title's criterion is the NCP "
               "residual eps_abs for every model), tolerances 1e-2 ... 1e-8 N." % DURATION)


def main():
    C.check_csim()
    with figjson.Figure("000-15", "000", "Fig. 15", "energy of the sliding cube against the stopping tolerance") as F:
        body(F)


if __name__ == "__main__":
    main()
