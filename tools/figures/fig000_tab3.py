#!/usr/bin/python3
"""Seed 000 Tab. III: integral consistency error against the time step, over the paper's horizon.

cube_slide (1 kg cube, v0 = 1 m/s, mu = 0.3) for 3.5 s, dt in {1, 2, 5, 10, 100} ms against a
dt = 0.1 ms reference, tolerance 1e-8; and the same table on Solo-12 standing under PD control
(the paper's robot systems), 1 s, dt in {1, 2, 5, 10} ms. Usage: make fig-000-tab3.
"""
import math
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


def body(F):
    errs, runs, refs = S.sweep_dt(F.tmp, "cube_slide", S.DTS, S.HORIZON)
    # where the 10 ms error comes from: the rest position's offset from the reference's, held for the
    # time after the stop (implicit Euler's discrete Coulomb deceleration stops v0 h / 2 short, the
    # closed form of h sum_k (v0 - k mu g h)), and, for CCP, the share of steps without contact
    # (its separating normal velocity mu |v_T| lifts the cube: no friction in flight)
    y_end = {l: float(runs[l][1e-2].q[-1, 1]) for l in S.PAPER_LABELS}
    short = {l: 1e3 * (float(refs[l].q[-1, 1]) - y_end[l]) for l in S.PAPER_LABELS}  # mm
    t_stop = S.V0 / (S.MU * S.G)
    air = {l: tuple(float(np.mean(r.count[r.t < t_stop] == 0)) for r in (runs[l][1e-2], refs[l]))
           for l in S.PAPER_LABELS}
    more = (1e3 * (y_end["CCP/PGS"] - y_end["NCP/PGS"]),
            1e3 * float(refs["CCP/PGS"].q[-1, 1] - refs["NCP/PGS"].q[-1, 1]))  # mm
    t_rest = S.HORIZON - t_stop
    solo, _, _ = S.sweep_dt(F.tmp, "solo12_stand", S.SOLO_DTS, S.SOLO_DURATION, S.MODELS[:3])
    fig, axs = plt.subplots(1, 2, figsize=(13, 5))
    for j, (model, solver, label) in enumerate(S.MODELS):
        axs[0].loglog(S.DTS, [errs[label][d] for d in S.DTS], "o-", color="C%d" % j, label="csim " + label)
        if label in S.PAPER3:
            px = sorted(S.PAPER3[label])
            axs[0].loglog(px, [S.PAPER3[label][x] for x in px], "s--", color="C%d" % j, mfc="none", ms=8,
                          label="paper " + label)
        if label in solo:
            axs[1].loglog(S.SOLO_DTS, [solo[label][d] for d in S.SOLO_DTS], "o-", color="C%d" % j, label=label)
    axs[0].set_title("cube_slide, %.1f s, reference dt = 0.1 ms" % S.HORIZON, fontsize=10)
    axs[1].set_title("Solo-12 standing (PD), %.1f s, reference dt = 0.1 ms" % S.SOLO_DURATION, fontsize=10)
    for a in axs:
        a.set_xlabel("time step dt (s)")
        a.set_ylabel("integral consistency error (m s)")
        a.legend(fontsize=7)
    fig.suptitle("000 Tab. III with csim: time-step sensitivity", fontsize=11)
    fig.tight_layout()
    F.png(fig, dpi=80)
    rows = []
    for model, solver, label in S.MODELS:
        for dt in S.DTS:
            p = S.PAPER3.get(label, {}).get(dt)
            rows.append([label, dt * 1e3, p, errs[label][dt], figjson.ratio(p, errs[label][dt])])
    F.table("cube_slide over %.1f s: integral consistency error (m s) against dt = 0.1 ms." % S.HORIZON,
            ["solver", "dt (ms)", "paper", "csim", "csim / paper"], rows, rel=0.05, abs_=1e-9)
    rows = [[label, dt * 1e3, None, solo[label][dt], None] for label in solo for dt in S.SOLO_DTS]
    F.table("Solo-12 standing under PD control, %.1f s: integral consistency error of the base position (m s) "
            "against dt = 0.1 ms (the paper prints no robot rows)." % S.SOLO_DURATION,
            ["solver", "dt (ms)", "paper", "csim", "csim / paper"], rows, rel=0.05, abs_=1e-9)
    rat = [errs[l][d] / S.PAPER3[l][d] for l in S.PAPER_LABELS for d in S.PAPER3[l]]
    e10 = [errs[l][1e-2] for l in S.PAPER_LABELS]
    spread = max(e10) / min(e10)
    p10 = [S.PAPER3[l][1e-2] for l in S.PAPER_LABELS]
    rn = [errs[l][d] / S.PAPER3[l][d] for l in ("RaiSim", "NCP/PGS") for d in S.PAPER3[l]]
    # in part: the rigid models (RaiSim, NCP/PGS) alone within the tolerance of each other
    rn_ok = J.within(max(e10[1:]) / min(e10[1:]), max(p10[1:]) / min(p10[1:]), {"abs": 0.07}) and not J.within(
        spread, max(p10) / min(p10), {"abs": 0.07})
    F.claim("\"The sensitivities with respect to the time-step are similar for the various solvers\" "
            "(Tab. III at 10 ms: CCP/PGS 1.7e-2, RaiSim 1.6e-2, NCP/PGS 1.6e-2).",
            "largest / smallest error across CCP/PGS, RaiSim, NCP/PGS at dt = 10 ms", spread,
            J.judge(spread, max(p10) / min(p10), {"abs": 0.07}) if not rn_ok else "partly",
            "At 10 ms csim's errors are CCP/PGS %.2g, RaiSim %.2g, NCP/PGS %.2g m s. The horizon (%.1f s; the paper "
            "prints none) was chosen so that csim's levels meet the paper's: the absolute cells are fitted, not "
            "reproduced, and over the nine printed cells csim / paper is %.2f to %.2f." % (
                e10[0], e10[1], e10[2], S.HORIZON, min(rat), max(rat)),
            paper=max(p10) / min(p10), tol={"abs": 0.07},
            reason="the cells are printed to 2 significant digits, so the paper's 1.7/1.6 lies between 1.65/1.65 "
                   "and 1.75/1.55: 1.00 to 1.13",
            why="csim's RaiSim and NCP/PGS errors match each other (and, at the fitted horizon, the paper's cells "
                "to %.2f-%.2f) but its CCP/PGS error is %.2f of theirs at 10 ms. Analysed: each error is mostly "
                "the rest position's offset held for the %.2f s after the stop. NCP/PGS and RaiSim stop %.2f and "
                "%.2f mm short of their 0.1 ms runs, implicit Euler's discrete Coulomb deceleration, whose closed "
                "form is v0 h / 2 = %.2f mm; CCP/PGS stops only %.2f mm short: its cube hops (CCP's separating normal "
                "velocity mu |v_T|, 000 Sec. II; Figs. 10 and 14), off the ground in %.0f %% of the sliding steps at "
                "10 ms against %.0f %% at 0.1 ms, and with no friction in flight it covers %.2f mm more than "
                "NCP/PGS at 10 ms against %.3f mm more at 0.1 ms, which offsets about half of the same deficit. The "
                "paper's CCP cell, as large as its NCP's, says its CCP cube did not gain that distance at 10 ms; "
                "the paper prints no trajectory to tell why" % (
                    min(rn), max(rn), e10[0] / min(e10[1:]), t_rest, short["NCP/PGS"], short["RaiSim"],
                    1e3 * S.V0 * 1e-2 / 2, short["CCP/PGS"], 100 * air["CCP/PGS"][0], 100 * air["CCP/PGS"][1],
                    more[0], more[1]))
    sl = math.log10(errs["NCP/PGS"][1e-2] / errs["NCP/PGS"][1e-3])
    psl = math.log10(S.PAPER3["NCP/PGS"][1e-2] / S.PAPER3["NCP/PGS"][1e-3])
    F.claim("The error grows about tenfold per tenfold dt (first order; Tab. III, NCP/PGS: 1.5e-3 at 1 ms, "
            "1.6e-2 at 10 ms).",
            "log10 of NCP/PGS's error at 10 ms over that at 1 ms (the slope over one decade)", sl,
            J.judge(sl, psl, {"abs": 0.03}),
            "The slope is %.2f on the cube (%.2f fitted over 1, 2, 5 and 10 ms) and %.2f on Solo-12 (NCP/PGS); "
            "a ratio of errors at the same horizon does not depend on the horizon chosen." % (
                sl, S.loglog_slope(S.DTS[:4], [errs["NCP/PGS"][d] for d in S.DTS[:4]]),
                S.loglog_slope(S.SOLO_DTS, [solo["NCP/PGS"][d] for d in S.SOLO_DTS])),
            paper=psl, tol={"abs": 0.03},
            reason="the cells are printed to 2 significant digits: log10(1.6e-2 / 1.5e-3) = 1.03 is known to "
                   "+-0.03",
            why="csim's error does not grow as the paper's over the decade")
    F.setup = ("scenarios/cube_slide.yaml with integrator.duration = %.1f s: the paper does not print its horizon, "
               "and at %.1f s csim's errors meet the paper's at every dt (the shipped 0.6 s gives errors 7-9 times "
               "smaller, since the error keeps accumulating after the cube stops at 0.34 s). Tolerance 1e-8 "
               "(impulse units), cap 2000 iterations, warm start. The Solo-12 rows use "
               "scenarios/solo12_stand.yaml for %.1f s without the 100 ms column (its PD loop is unstable "
               "there)." % (S.HORIZON, S.HORIZON, S.SOLO_DURATION))


def main():
    C.check_csim()
    with figjson.Figure("000-tab3", "000", "Tab. III", "time-step sensitivity over the paper's horizon") as F:
        body(F)


if __name__ == "__main__":
    main()
