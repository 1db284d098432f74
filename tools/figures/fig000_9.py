#!/usr/bin/python3
"""Seed 000 Fig. 9: the LCP's friction bias deviates a sliding cube from its straight path.

scenarios/cube_slide_oblique.yaml launched 0, 10 and 30 degrees off the y axis (a facet direction
of the pyramid), 0.6 s, on the 4-facet pyramid (LCP/Lemke) and the exact cone (NCP/PGS). Turn =
angle between the cube's final displacement (csim's /state/q) and the launch direction.
Then the same cube in the real engines seed 000 analyses (build/bench_ode, build/bench_bullet,
tools/bench/bench_ode.c and bench_bullet.cpp; built by `make peers` when libode-dev / libbullet-dev
are present): ODE 0.16 with its friction pyramid dContactApprox1 (dWorldStep's Dantzig LCP, and
dWorldQuickStep's PGS at its default 20 sweeps) and Bullet 3.24 with two fixed friction rows
(`pyramid`) and with its default single row along the sliding velocity, beside csim's lcp/pgs:
a row per engine with the measured turn.
Usage: make fig-000-9.
"""
import os
import subprocess
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fig000_common as C  # noqa: E402
import figjson  # noqa: E402
import figjson as J  # noqa: E402

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
    turn = min(abs(l10), abs(l30)) if n < 0.5 else 0.0
    F.claim("\"The bias of friction forces (Fig. 6) introduces a tangential velocity along the x-axis, which "
            "deviates the cube from the expected straight-line trajectory\".",
            "smaller turn of the 4-facet LCP path launched 10 or 30 deg off a facet (deg; 0 when the NCP path "
            "turns 0.5 deg or more)", turn, J.judge(turn, J.QUAL, {"lo": 1.0}),
            "Off axis the 4-facet LCP path turns %.1f deg (launch 10 deg) and %.1f deg (30 deg), the NCP "
            "path at most %.2f deg; launched along a facet (0 deg) the LCP path turns %.2f deg, which is why the "
            "shipped cube_slide shows no drift." % (l10, l30, n, res[("LCP 4 facets", 0)][0]),
            paper=J.QUAL, tol={"lo": 1.0},
            reason="Fig. 9 shows the deviated path without a number; the exact-cone (NCP) path turns less than "
                   "0.5 deg, so a turn of 1 deg or more is the pyramid's",
            why="the LCP path does not turn by 1 deg more than the NCP one", rel=0.05)
    F.setup = ("scenarios/cube_slide_oblique.yaml (1 kg cube, 1 m/s, mu = 0.3, dt = 1 ms, 0.6 s), launch direction "
               "set with robots.0.v0 at 0, 10 and 30 degrees from the y axis; the paper launches along y with an "
               "unstated pyramid orientation, so csim's launch along a facet would show no drift at all.")


# the real engines (harness, solver, label): ODE's pyramid by Dantzig pivoting and by its PGS,
# Bullet with fixed friction axes (the 4-facet pyramid) and with its default friction row
PEERS = [("ode", "dantzig", "ODE 0.16 dWorldStep (Dantzig), dContactApprox1"),
         ("ode", "quick", "ODE 0.16 dWorldQuickStep (PGS, 20 sweeps), dContactApprox1"),
         ("bullet", "pyramid", "Bullet 3.24 two fixed friction rows (pyramid)"),
         ("bullet", "default", "Bullet 3.24 default (one friction row along the sliding velocity)")]


def peer_turns():
    """{(engine, solver, angle): (turn deg, distance m)} of the peers that are built; a missing
    peer is left out (its package is not installed: make deps)"""
    subprocess.run(["make", "--no-print-directory", "-s", "peers"], cwd=C.ROOT, capture_output=True)
    out = {}
    for eng, sv, _ in PEERS:
        b = os.path.join(C.ROOT, "build", "bench_" + eng)
        if not os.access(b, os.X_OK):
            continue
        for a in ANGLES:
            r = subprocess.run([b, "--scene", "cube_oblique", "--angle", str(a), "--solver", sv,
                                "--batches", "1", "--no-eps"], capture_output=True, text=True, check=True)
            f = r.stdout.strip().split(",")
            out[(eng, sv, a)] = (float(f[13]), float(f[14]))
    return out


def engines(F):
    """csim's lcp/pgs beside the real ODE and Bullet on the oblique slide"""
    csim = {}
    for a in ANGLES:
        th = np.radians(a)
        out = os.path.join(F.tmp, "lcp_pgs_%d.h5" % a)
        C.run(os.path.join(C.ROOT, "scenarios", "cube_slide_oblique.yaml"), out,
              {"contact.model": "lcp", "solver.name": "pgs", "contact.facets": 4,
               "robots.0.v0": "[%r,%r,0,0,0,0]" % (np.sin(th), np.cos(th))})
        r = C.Run(out)
        d = r.q[-1, :2] - r.q[0, :2]
        csim[a] = (a - np.degrees(np.arctan2(d[0], d[1])), float(np.linalg.norm(d)))
        os.remove(out)
    peers = peer_turns()
    rows = [["csim lcp/pgs, 4 facets", a, csim[a][0], csim[a][1]] for a in ANGLES]
    for eng, sv, label in PEERS:
        rows += [[label, a, peers[(eng, sv, a)][0], peers[(eng, sv, a)][1]]
                 for a in ANGLES if (eng, sv, a) in peers]
    F.table("The same cube in csim's lcp/pgs and in the real engines: turn of the path (deg) and distance "
            "slid (m), 1 m/s, mu = 0.3, dt = 1 ms, 0.6 s.",
            ["engine", "launch (deg)", "turn (deg)", "distance (m)"], rows, rel=0.05, abs_=0.05)
    pyr = [(eng, sv) for eng, sv in (("ode", "dantzig"), ("bullet", "pyramid"))
           if all((eng, sv, a) in peers for a in ANGLES)]
    if not pyr:
        return
    dev = max(abs(peers[(e, v, a)][0] - csim[a][0]) / max(abs(csim[a][0]), 1.0)
              for e, v in pyr for a in ANGLES if a)
    same = all(np.sign(peers[(e, v, a)][0]) == np.sign(csim[a][0]) for e, v in pyr for a in ANGLES if a)
    bd = [peers[("bullet", "default", a)][0] for a in ANGLES if ("bullet", "default", a) in peers]
    ok = same and dev <= 0.01
    F.claim("csim's lcp/pgs models the PGS/pyramid friction of Bullet and ODE (seed 000 Sec. II-C: \"the PGS "
            "algorithm ... was widely adopted by modern physics engines, such as in Bullet [30], ..., ODE [29]\"): "
            "the real engines must drift the way csim's lcp/pgs does.",
            "largest turn difference, real pyramid engines vs csim lcp/pgs, relative to the turn", dev,
            "qualitative" if ok else "not reproduced",
            "At 10 and 30 deg csim's lcp/pgs turns %.3f and %.3f deg; ODE (Dantzig) %s; Bullet with fixed "
            "friction rows %s; largest relative difference %.2g. "
            "Bullet's default friction row follows the sliding velocity, so it turns at most %.2f deg: the drift "
            "is a property of fixed pyramid axes, not of Bullet as shipped." % (
                csim[10][0], csim[30][0],
                " and ".join("%.3f" % peers[("ode", "dantzig", a)][0] for a in (10, 30))
                if ("ode", "dantzig", 30) in peers else "not built",
                " and ".join("%.3f" % peers[("bullet", "pyramid", a)][0] for a in (10, 30))
                if ("bullet", "pyramid", 30) in peers else "not built",
                dev, max(abs(t) for t in bd) if bd else float("nan")),
            paper=J.QUAL, tol={"hi": 0.01},
            reason="the engines solve the same 4-facet LCP, ODE exactly and Bullet with 10 unconverged sweeps, so "
                   "only their stopping differs: 1 % of the turn",
            why="a real engine turns the other way or more than 1 % differently from csim's lcp/pgs",
            rel=0.05, abs_=0.05)


def main():
    C.check_csim()
    with figjson.Figure("000-9", "000", "Fig. 9", "LCP drift of a sliding cube") as F:
        body(F)
        engines(F)


if __name__ == "__main__":
    main()
