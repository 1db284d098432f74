#!/usr/bin/python3
"""Seed 000 Fig. 6: the friction direction bias of pyramidal cones.

scenarios/cube_slide_oblique.yaml (1 kg cube, 1 m/s, mu = 0.3) launched at angles 0-45 degrees from
a facet direction (the y axis), on pyramids of 4, 8 and 16 facets (LCP, Lemke) and on the exact
cone (NCP/PGS), 20 ms. Bias = mean over the first 10 ms of the angle between the net friction
force -sum f_t (csim's /contacts/force in world coordinates) and the cube's slip velocity (later
the path itself turns towards a facet direction, Fig. 9, and the bias with it).
Usage: make fig-000-6.
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
import figjson as J  # noqa: E402

ANGLES = [0, 5, 10, 15, 20, 25, 30, 35, 40, 45]
WINDOW = 0.01
CONFIGS = [("lcp", "lemke", 4, "LCP 4 facets"), ("lcp", "lemke", 8, "LCP 8 facets"),
           ("lcp", "lemke", 16, "LCP 16 facets"), ("ncp", "pgs", 4, "NCP (exact cone)")]


# mean angle (deg) between -sum f_t and the base's horizontal velocity over the rows of the first
# WINDOW seconds (sliding faster than 5 cm/s)
def bias(r):
    v = C.base_world_velocity(r)
    out = []
    for k in range(len(r.t)):
        if r.t[k] >= WINDOW:
            break
        f = r.world_forces(k)
        if len(f) == 0 or np.linalg.norm(v[k, :2]) < 0.05:
            continue
        ft = -f[:, :2].sum(0)
        if np.linalg.norm(ft) < 1e-6:
            continue
        c = ft @ v[k, :2] / (np.linalg.norm(ft) * np.linalg.norm(v[k, :2]))
        out.append(np.degrees(np.arccos(np.clip(c, -1, 1))))
    return float(np.mean(out)) if out else float("nan")


def body(F):
    res = {}
    for model, solver, facets, label in CONFIGS:
        for a in ANGLES:
            th = np.radians(a)
            out = os.path.join(F.tmp, "%s_%d_%d.h5" % (model, facets, a))
            C.run(os.path.join(C.ROOT, "scenarios", "cube_slide_oblique.yaml"), out,
                  {"contact.model": model, "solver.name": solver, "contact.facets": facets,
                   "integrator.duration": 0.02, "robots.0.v0": "[%r,%r,0,0,0,0]" % (np.sin(th), np.cos(th))})
            res[(label, a)] = bias(C.Run(out))
            os.remove(out)
    fig, ax = plt.subplots(figsize=(8, 5))
    for j, (model, solver, facets, label) in enumerate(CONFIGS):
        ax.plot(ANGLES, [res[(label, a)] for a in ANGLES], "o-", color="C%d" % j, label=label)
    ax.set_xlabel("slip direction, degrees from a facet direction (y axis)")
    ax.set_ylabel("angle between friction and slip (deg)")
    ax.set_title("000 Fig. 6 with csim: friction direction bias of pyramidal cones", fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    F.png(fig, dpi=80)
    F.table("Angle between the friction force and the slip (deg, mean over the first 10 ms) by launch angle "
            "from a facet direction. The paper's Fig. 6 is a sketch without numbers.",
            ["launch (deg)"] + [c[3] for c in CONFIGS],
            [[a] + [res[(c[3], a)] for c in CONFIGS] for a in ANGLES], rel=0.05, abs_=0.05)
    worst = {c[3]: max(res[(c[3], a)] for a in ANGLES) for c in CONFIGS}
    falls = worst["LCP 4 facets"] > worst["LCP 8 facets"] > worst["LCP 16 facets"] > worst["NCP (exact cone)"]
    w4 = worst["LCP 4 facets"] if falls else 0.0
    F.claim("\"Linearizing the friction cone induces a bias on the direction of friction forces. The MDP tends to "
            "push tangential forces toward the corners of the pyramid\"; more facets mitigate it.",
            "largest bias with 4 facets (deg; 0 unless the bias falls 4 > 8 > 16 facets > exact cone)", w4,
            J.judge(w4, J.QUAL, {"lo": 1.0}),
            "The largest bias is %.1f deg with 4 facets, %.1f with 8, %.1f with 16 and %.2g on the exact cone; "
            "at 10 and 30 degrees from a facet the 4-facet friction is %.1f and %.1f deg off the slip (a "
            "friction at the pyramid's corner, 45 deg from the facets, would be 35 and 15 deg off)." % (
                worst["LCP 4 facets"], worst["LCP 8 facets"], worst["LCP 16 facets"], worst["NCP (exact cone)"],
                res[("LCP 4 facets", 10)], res[("LCP 4 facets", 30)]),
            paper=J.QUAL, tol={"lo": 1.0},
            reason="Fig. 6 is a sketch without numbers; the exact cone's bias is below 1e-6 deg (table), so a "
                   "bias of 1 deg or more is the pyramid's and not the solver's",
            why="the bias does not fall with the facet count or stays below 1 deg", rel=0.05)
    F.setup = ("scenarios/cube_slide_oblique.yaml (cube_slide launched off the y axis, which is a facet direction "
               "of csim's pyramids) for 20 ms, launch angle set with robots.0.v0, contact.facets 4/8/16 with "
               "LCP/Lemke, and NCP/PGS; the bias is averaged over the first 10 ms, before the path turns.")


def main():
    C.check_csim()
    with figjson.Figure("000-6", "000", "Fig. 6", "friction direction bias of pyramidal cones") as F:
        body(F)


if __name__ == "__main__":
    main()
