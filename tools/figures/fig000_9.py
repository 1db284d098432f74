#!/usr/bin/python3
"""Seed 000 Fig. 9: the LCP's friction bias deviates a sliding cube from its straight path.

scenarios/cube_slide_oblique.yaml launched 0, 10 and 30 degrees off the y axis (a facet direction
of the pyramid), 0.6 s, on the 4-facet pyramid (LCP/Lemke) and the exact cone (NCP/PGS). Turn =
angle between the cube's final displacement (csim's /state/q) and the launch direction.
Usage: make fig-000-9.
"""
import os
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fig000_common as C  # noqa: E402
import figjson  # noqa: E402

ANGLES = [0, 10, 30]
CONFIGS = [("lcp", "lemke", 4, "LCP 4 facets"), ("lcp", "lemke", 8, "LCP 8 facets"),
           ("ncp", "pgs", 4, "NCP")]


def body(F):
    res, paths = {}, {}
    for model, solver, facets, label in CONFIGS:
        for a in ANGLES:
            th = np.radians(a)
            out = os.path.join(F.tmp, "%s_%d_%d.h5" % (model, facets, a))
            C.run(os.path.join(C.ROOT, "scenarios", "cube_slide_oblique.yaml"), out,
                  {"contact.model": model, "solver.name": solver, "contact.facets": facets,
                   "robots.0.v0": "[%r,%r,0,0,0,0]" % (np.sin(th), np.cos(th))})
            r = C.Run(out)
            d = r.q[-1, :2] - r.q[0, :2]
            res[(label, a)] = (a - np.degrees(np.arctan2(d[0], d[1])), float(np.linalg.norm(d)))
            paths[(label, a)] = r.q[:, :2].copy()
            os.remove(out)
    fig, ax = plt.subplots(figsize=(7, 6))
    for j, (model, solver, facets, label) in enumerate(CONFIGS):
        for a, ls in zip(ANGLES, ("-", "--", ":")):
            p = paths[(label, a)]
            ax.plot(p[:, 0] * 1e3, p[:, 1] * 1e3, ls, color="C%d" % j,
                    label="%s, launch %d deg: turns %.1f deg" % (label, a, res[(label, a)][0]))
    ax.set_xlabel("x (mm)")
    ax.set_ylabel("y (mm)")
    ax.set_aspect("equal")
    ax.set_title("000 Fig. 9 with csim: paths of the sliding cube", fontsize=10)
    ax.legend(fontsize=7)
    fig.tight_layout()
    F.png(fig, dpi=80)
    F.table("Turn of the path (deg: launch direction minus final displacement direction) and distance slid (m).",
            ["model", "launch (deg)", "turn (deg)", "distance (m)"],
            [[c[3], a, res[(c[3], a)][0], res[(c[3], a)][1]] for c in CONFIGS for a in ANGLES], rel=0.05, abs_=0.05)
    l10, l30 = res[("LCP 4 facets", 10)][0], res[("LCP 4 facets", 30)][0]
    n = max(abs(res[("NCP", a)][0]) for a in ANGLES)
    F.claim("\"The bias of friction forces (Fig. 6) introduces a tangential velocity along the x-axis, which "
            "deviates the cube from the expected straight-line trajectory\".",
            "turn of the 4-facet LCP path launched 10 deg off a facet (deg)", l10,
            min(abs(l10), abs(l30)) > 5 and n < 0.5,
            "Reproduced off axis: the 4-facet LCP path turns %.1f deg (launch 10 deg) and %.1f deg (30 deg), the NCP "
            "path at most %.2f deg; launched along a facet (0 deg) the LCP path turns %.2f deg, which is why the "
            "shipped cube_slide shows no drift." % (l10, l30, n, res[("LCP 4 facets", 0)][0]), rel=0.05)
    F.setup = ("scenarios/cube_slide_oblique.yaml (1 kg cube, 1 m/s, mu = 0.3, dt = 1 ms, 0.6 s), launch direction "
               "set with robots.0.v0 at 0, 10 and 30 degrees from the y axis; the paper launches along y with an "
               "unstated pyramid orientation, so csim's launch along a facet would show no drift at all.")


def main():
    C.check_csim()
    with figjson.Figure("000-9", "000", "Fig. 9", "LCP drift of a sliding cube") as F:
        body(F)


if __name__ == "__main__":
    main()
