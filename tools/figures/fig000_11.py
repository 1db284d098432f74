#!/usr/bin/python3
"""Seed 000 Fig. 11: a 1 kg cube on a plane pushed by a horizontal force growing at 10 N/s.

Runs scenarios/cube_push_ramp.yaml (mu = 0.5, dt = 1 ms, 1 s) with every model/solver pair of
csim and plots (left) the cube's velocity along the push and the net friction force against the
analytic answer (stick while 10 t < mu m g, then v = 5 (t - t_s)^2 / m), (right) the tangential
force of each of the 4 contacts, along the push (x, solid) and across it (y, dashed): the
across-push forces sum to zero, so any non-zero one is an internal force. Writes
out/figures/fig000_11.png and prints the numbers quoted in docs/figures.md.
Usage: make fig-000-11 (writes out/figures/fig000_11.json too, tools/figures/figjson.py)
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

MU, MASS, G, RATE = 0.5, 1.0, 9.81, 10.0
T_SLIP = MU * MASS * G / RATE  # 0.4905 s: the push reaches mu m g
STICK = (0.05, 0.45)   # window of stiction (before T_SLIP) for internal-force measures
SLIDE = (0.60, 1.00)   # window of sliding
# slip is detected when the velocity exceeds V_SLIP (stiction creeps at up to ~4e-5 m/s with
# tolerance 1e-8, see docs/figures.md); analytically that happens at T_SLIP + sqrt(2 m V_SLIP / RATE)
V_SLIP = 1e-3
T_V_SLIP = T_SLIP + np.sqrt(2 * MASS * V_SLIP / RATE)


# analytic velocity along the push: 0 while sticking, (RATE/2)(t - T_SLIP)^2 / m afterwards
def v_analytic(t):
    return np.where(t > T_SLIP, 0.5 * RATE * (t - T_SLIP) ** 2 / MASS, 0.0)


# internal tangential force of one row: sum_i |f_t,i| - |sum_i f_t,i| (N), zero iff every
# contact's friction force points the same way (no pair of contacts pulls against another)
def internal(f):
    return float(np.linalg.norm(f[:, :2], axis=1).sum() - np.linalg.norm(f[:, :2].sum(0)))


# per-contact measures of one run: internal forces at stiction and while sliding, MDP angle
def measures(r, vx):
    lat_stick, spread_stick, lat_slide, angle = 0.0, 0.0, 0.0, 0.0
    fx = np.full((len(r.t), 4), np.nan)
    fy = np.full((len(r.t), 4), np.nan)
    net = np.zeros(len(r.t))
    for k in range(len(r.t)):
        f = r.world_forces(k)
        if len(f) == 0:
            continue
        # order the contacts by corner (sign of x, sign of y) so each curve is one corner
        p = r.points(k)
        order = np.argsort(np.round(p[:, 0], 3) * 10 + np.round(p[:, 1], 3))
        f = f[order]
        n = min(4, len(f))
        fx[k, :n], fy[k, :n] = f[:n, 0], f[:n, 1]
        net[k] = f[:, 0].sum()
        t = r.t[k]
        if STICK[0] <= t <= STICK[1]:
            lat_stick = max(lat_stick, np.abs(f[:, 1]).max())
            spread_stick = max(spread_stick, internal(f))
        if SLIDE[0] <= t <= SLIDE[1]:
            lat_slide = max(lat_slide, internal(f))
            # maximum dissipation: the friction force is opposite to the slip velocity
            vel = r.world_velocities(k)[order]
            for i in range(len(f)):
                vt, ft = vel[i, :2], f[i, :2]
                if np.linalg.norm(vt) > 1e-3 and np.linalg.norm(ft) > 1e-9:
                    c = -vt @ ft / (np.linalg.norm(vt) * np.linalg.norm(ft))
                    angle = max(angle, np.degrees(np.arccos(np.clip(c, -1, 1))))
    moving = np.nonzero(np.abs(vx) > V_SLIP)[0]
    t_slip = r.t[moving[0]] if len(moving) else np.nan
    return dict(fx=fx, fy=fy, net=net, lat_stick=lat_stick, spread_stick=spread_stick,
                lat_slide=lat_slide, angle=angle, t_slip=t_slip, v_end=vx[-1])


# run every pair, plot, print the table
def main():
    C.check_csim()
    with figjson.Figure("000-11", "000", "Fig. 11", "cube pushed by a ramp force: internal forces") as F:
        body(F)


# the runs, the figure and the record
def body(F):
    res = {}
    tmp = F.tmp
    for model, solver, label in C.PAIRS:
        out = os.path.join(tmp, "%s_%s.h5" % (model, solver))
        C.run("cube_push_ramp", out, {"contact.model": model, "solver.name": solver})
        r = C.Run(out)
        vx = C.base_world_velocity(r)[:, 0]
        res[label] = (r, vx, measures(r, vx))

    t = next(iter(res.values()))[0].t
    fig = plt.figure(figsize=(19, 11))
    gs = fig.add_gridspec(3, 5, hspace=0.5, wspace=0.4)
    axv = fig.add_subplot(gs[0, 0:2])
    axd = fig.add_subplot(gs[1, 0:2])
    axf = fig.add_subplot(gs[2, 0:2])
    colors = plt.cm.tab10(np.arange(len(C.PAIRS)))
    # left: velocity and net friction force
    axv.plot(t, v_analytic(t), "k-", lw=3, alpha=0.3, label="analytic (stick until $\\mu m g$)")
    for (label, (r, vx, m)), c in zip(res.items(), colors):
        axv.plot(r.t, vx, color=c, lw=1.2, label="%s  (v>1mm/s at %.3f s, v(1 s) = %.3f)" % (label, m["t_slip"], m["v_end"]))
        axf.plot(r.t, -m["net"], color=c, lw=1)
        axd.plot(r.t, vx - v_analytic(r.t), color=c, lw=1.2, label=label)
    axv.axvline(T_SLIP, color="k", ls=":", lw=0.8)
    axv.set_xlabel("t (s)")
    axv.set_ylabel("cube velocity along the push (m/s)")
    axv.legend(fontsize=6.5, loc="upper left")
    axd.set_xlabel("t (s)")
    axd.set_ylabel("v - v_analytic (m/s)")
    axd.set_title("velocity error against the analytic answer", fontsize=9)
    axd.axvline(T_SLIP, color="k", ls=":", lw=0.8)
    axv.set_title("stick, then slip once the push reaches $\\mu m g$ = %.3f N" % (MU * MASS * G), fontsize=9)
    C.textbox(axd, "paper: stiction, then sliding \"after approximately 0.25 s\"\n"
              "(its force rate / mu are not given); RaiSim slides faster than NCP;\n"
              "CCP \"bumps\".\n"
              "csim (mu=0.5, 10 N/s): analytic slip at %.4f s (v > 1 mm/s at %.4f s),\n"
              "v(1 s) = %.3f m/s; NCP/PGS v > 1 mm/s at %.3f s, v(1 s) = %.3f; RaiSim v(1 s) = %.3f"
              % (T_SLIP, T_V_SLIP, v_analytic(np.array(t[-1]))[()], res["NCP/PGS"][2]["t_slip"],
                 res["NCP/PGS"][2]["v_end"], res["RaiSim"][2]["v_end"]))
    axf.plot(t, np.minimum(RATE * t, MU * MASS * G), "k-", lw=3, alpha=0.3)
    axf.set_xlabel("t (s)")
    axf.set_ylabel("net friction (N)")
    axf.set_title("net friction force $-\\sum_i f_{x,i}$ (grey: min(10 t, $\\mu m g$))", fontsize=9)
    # right: per-contact tangential forces, one panel per pair
    for j, (label, (r, vx, m)) in enumerate(res.items()):
        ax = fig.add_subplot(gs[j // 3, 2 + j % 3])
        for i in range(4):
            ax.plot(r.t, m["fx"][:, i], color="C%d" % i, lw=1)
            ax.plot(r.t, m["fy"][:, i], color="C%d" % i, lw=1, ls="--")
        ax.axvline(T_SLIP, color="k", ls=":", lw=0.8)
        ax.set_ylim(-2.5, 2.5)
        ax.set_title("%s\nstick: max|f_y| %.2f N, internal %.2f N\nslide: internal %.2f N, MDP angle %.1f deg"
                     % (label, m["lat_stick"], m["spread_stick"], m["lat_slide"], m["angle"]), fontsize=7.5)
        ax.tick_params(labelsize=7)
        if j // 3 == 2:
            ax.set_xlabel("t (s)", fontsize=8)
        if j % 3 == 0:
            ax.set_ylabel("contact force (N)\nx solid, y dashed", fontsize=8)
    fig.suptitle("000 Fig. 11 with csim (cube_push_ramp). Paper (right): per-contact methods (PGS, RaiSim) show "
                 "internal forces at stiction; RaiSim keeps them while sliding; ADMM injects none.\n"
                 "Right: the 4 contacts' tangential forces in world x (along the push, solid) and y (dashed; equal curves overlap); "
                 "internal = max over the window of sum|f_t,i| - |sum f_t,i|; MDP angle = max angle between -f_t and the slip velocity.",
                 fontsize=10)
    F.png(fig, dpi=80)
    print("%-14s %8s %9s %10s %10s %10s %9s" % ("pair", "t_slip", "v(1s)", "|fy|stick", "int_stick",
                                                "int_slide", "MDP_deg"))
    for label, (r, vx, m) in res.items():
        print("%-14s %8.3f %9.4f %10.3f %10.3f %10.3f %9.2f" % (label, m["t_slip"], m["v_end"], m["lat_stick"],
                                                               m["spread_stick"], m["lat_slide"], m["angle"]))
    print("analytic       %8.4f %9.4f   (t_slip: v > 1 mm/s; the push reaches mu m g at %.4f s)" % (T_V_SLIP, v_analytic(np.array(t[-1]))[()], T_SLIP))
    v_an = float(v_analytic(np.array(t[-1]))[()])
    rows = [["analytic", T_V_SLIP, v_an, 0.0, 0.0, 0.0, 0.0]]
    for label, (r, vx, m) in res.items():
        rows.append([label, m["t_slip"], m["v_end"], m["lat_stick"], m["spread_stick"], m["lat_slide"],
                     m["angle"]])
    F.table("Slip onset (first v > 1 mm/s; the paper's 'approximately 0.25 s' is for its unstated force rate "
            "and mu), velocity at 1 s, the largest force across the push at stiction, internal forces "
            "(max over the window of sum |f_t,i| - |sum f_t,i|, N) at stiction and while sliding, and the "
            "largest angle between -f_t and the slip (deg).",
            ["pair", "slip (s)", "v(1 s) (m/s)", "stick max abs(f_y) (N)",
             "stick internal (N)", "slide internal (N)", "slide max angle (deg)"], rows, rel=0.1, abs_=0.02)
    per = [l for l in res if "PGS" in l or "RaiSim" in l]
    glob = [l for l in res if "ADMM" in l or "Staggered" in l or "Lemke" in l]
    mn = min(res[l][2]["spread_stick"] for l in per)
    mx = max(res[l][2]["spread_stick"] for l in glob)
    F.claim("Per-contact methods (PGS, RaiSim) show spurious internal forces at stiction; \"ADMM avoids "
            "injecting spurious internal forces even at stiction\".",
            "smallest stiction internal force of the per-contact methods (N)", mn,
            J.judge(mn, J.QUAL, {"lo": 0.5}) if mx < 1e-2 else "partly",
            "Every per-contact method leaves %.2f N or more of internal force at stiction, the global methods "
            "(ADMM, Staggered, Lemke) at most %.3g N." % (mn, mx),
            paper=J.QUAL, tol={"lo": 0.5},
            reason="Fig. 11 gives curves only; the global methods leave below 1e-2 N and the cube weighs 9.81 N, "
                   "so 0.5 N (5 % of the weight) is an internal force, not a solver residue",
            why="a per-contact method leaves less than 0.5 N, or a global one 1e-2 N or more")
    rs = res["RaiSim"][2]
    vr = rs["v_end"] / res["NCP/PGS"][2]["v_end"]
    F.claim("RaiSim \"violates the MDP leading to contact points sliding faster than in the case of NCP\" "
            "and internal forces persist while sliding.",
            "RaiSim v(1 s) / NCP/PGS v(1 s)", vr,
            J.judge(vr, J.QUAL, {"lo": 1.01}) if rs["lat_slide"] > 0.01 else "partly",
            "RaiSim reaches %.3f m/s at 1 s against NCP/PGS's %.3f m/s (analytic %.3f), with "
            "%.2f N of internal force and friction up to %.1f deg off the slip while sliding." % (
                rs["v_end"], res["NCP/PGS"][2]["v_end"], v_an, rs["lat_slide"], rs["angle"]),
            paper=J.QUAL, tol={"lo": 1.01},
            reason="Fig. 11 gives curves only; the MDP-satisfying pairs agree on v(1 s) to 0.1 % (table), so 1 % "
                   "faster is RaiSim's; its internal force while sliding must exceed 0.01 N",
            why="RaiSim is not 1 % faster than NCP/PGS, or keeps no internal force while sliding")
    authors_scene(F)
    F.setup = ("scenarios/cube_push_ramp.yaml: a 1 kg, 10 cm cube, mu = 0.5, a horizontal force 10 t N at the "
               "centre of mass, dt = 1 ms, tolerance 1e-8, 1 s, run with all nine model/solver pairs. The "
               "paper's rate, mass and mu are not published; these are chosen so the slip comes at 0.49 s. "
               "Second part (the second image): the authors' own dragged-cube scene as their ContactBench "
               "script sets it up (see AUTHORS below), with CCP/PGS, CCP/ADMM, NCP/PGS and RaiSim.")


# The authors' dragged cube, inferred from ContactBench's script (the repository's cube-drag
# example: a = 0.2 m, m = 1 kg, dt = 1 ms, 1.098 s, cold start, th = 1e-9, force along y
# min(0.9 * 9.81 * 2, 4 * 9.81 t) N): the cap is 2 mu m g at mu = 0.9, which slips at
# 0.9 g / (4 g) = 0.225 s, the paper's "approximately 0.25 s"; the script's own mu line reads 0.4
# (slip at 0.10 s), so mu = 0.9 is inferred from the cap and the printed slip time. Its Baumgarte
# term (Kb = 1e-4) is left out (csim's scene has none).
AUTHORS = {"side": 0.2, "mu": 0.9, "rate": 4 * 9.81, "cap": 0.9 * 9.81 * 2, "duration": 1.098}
A_PAIRS = [("ccp", "pgs", "CCP/PGS"), ("ccp", "admm", "CCP/ADMM"), ("ncp", "pgs", "NCP/PGS"),
           ("raisim", "bisection", "RaiSim")]


def authors_yaml(tmp):
    a = AUTHORS["side"]
    with open(os.path.join(tmp, "cube20.urdf"), "w") as f:
        f.write("<robot name='cube'><link name='cube'><inertial><mass value='1'/><inertia ixx='%.17g' "
                "ixy='0' ixz='0' iyy='%.17g' iyz='0' izz='%.17g'/></inertial><collision><geometry>"
                "<box size='%g %g %g'/></geometry></collision></link></robot>\n" % ((a * a / 6,) * 3 + (a,) * 3))
    path = os.path.join(tmp, "drag.yaml")
    with open(path, "w") as f:
        f.write("name: cube_drag_authors\nworld: {gravity: [0, 0, -9.81], ground: {type: plane, height: 0}}\n"
                "robots:\n  - {urdf: cube20.urdf, base: free, q0: [0, -1.0, %g, 0, 0, 0, 1]}\n"
                "contact: {model: ncp, friction: %g, baumgarte: 0}\n"
                "solver: {name: pgs, tolerance: 1.0e-9, max_iterations: 10000, warm_start: false}\n"
                "integrator: {dt: 1.0e-3, duration: %g}\n"
                "actions:\n"
                "  - {type: force, body: cube, direction: [0, 1, 0], profile: ramp, rate: %.17g, stop: %.17g}\n"
                "  - {type: force, body: cube, direction: [0, 1, 0], magnitude: %.17g, start: %.17g}\n"
                "output: {every: 1}\n" % (a / 2, AUTHORS["mu"], AUTHORS["duration"], AUTHORS["rate"],
                                          AUTHORS["cap"] / AUTHORS["rate"], AUTHORS["cap"],
                                          AUTHORS["cap"] / AUTHORS["rate"]))
    return path


# slip onset (v_y > V_SLIP), flight phases after it (maximal runs of rows without contact force)
# and the largest lift of the cube's centre
def drag_measures(r):
    vy = r.v[:, 1]
    k0 = int(np.argmax(vy > V_SLIP))
    fn = np.array([r.world_forces(k)[:, 2].sum() if r.count[k] else 0.0 for k in range(len(r.t))])
    air = fn[k0:] <= 0
    flights = int(np.sum(air[1:] & ~air[:-1]) + air[0])
    return {"t_slip": float(r.t[k0]), "flights": flights, "lift": float(np.max(r.q[:, 2] - r.q[0, 2])),
            "vy": vy}


def authors_scene(F):
    path = authors_yaml(F.tmp)
    res = {}
    for model, solver, label in A_PAIRS:
        out = os.path.join(F.tmp, "drag_%s_%s.h5" % (model, solver))
        C.run(path, out, {"contact.model": model, "solver.name": solver})
        r = C.Run(out)
        res[label] = (r, drag_measures(r))
    fig, axs = plt.subplots(1, 2, figsize=(13, 4.5))
    for j, (_, _, label) in enumerate(A_PAIRS):
        r, m = res[label]
        axs[0].plot(r.t, m["vy"], color="C%d" % j, lw=1,
                    label="%s: slips at %.3f s" % (label, m["t_slip"]))
        axs[1].plot(r.t, (r.q[:, 2] - r.q[0, 2]) * 1e3, color="C%d" % j, lw=1,
                    label="%s: %d flight phases, lift %.2g mm" % (label, m["flights"], m["lift"] * 1e3))
    axs[0].set_ylabel("velocity along the push (m/s)")
    axs[1].set_ylabel("cube height z - z0 (mm)")
    for a in axs:
        a.set_xlabel("t (s)")
        a.legend(fontsize=8)
    fig.suptitle("000 Fig. 11, the authors' scene (0.2 m, 1 kg cube, mu 0.9, force min(2 mu m g, 4 g t) N)")
    fig.tight_layout()
    F.png(fig, suffix="_authors", dpi=80)
    F.table("The authors' dragged cube (inferred from ContactBench's script): slip onset (first v > 1 mm/s, "
            "s), flight phases while sliding (rows with no contact force), the cube's largest lift (mm)",
            ["pair", "slip onset (s)", "flight phases", "lift (mm)"],
            [[lab, res[lab][1]["t_slip"], res[lab][1]["flights"], res[lab][1]["lift"] * 1e3]
             for _, _, lab in A_PAIRS], rel=0.1, abs_=1e-6)
    ts = res["NCP/PGS"][1]["t_slip"]
    F.claim("The cube sticks \"before it starts sliding after approximately 0.25 s\" (the authors' scene).",
            "NCP/PGS slip onset on the authors' scene (s)", ts, J.judge(ts, 0.25, {"abs": 0.05}),
            "On the scene inferred from the authors' script (rate 4 g N/s, cap 2 mu m g with mu = 0.9) csim "
            "slips at %.3f s (analytic mu g / 4 g = 0.225 s; the 1 mm/s threshold adds about 7 ms); every "
            "pair between %.3f and %.3f s. The rate comes from the script; mu = 0.9 from its cap, not from "
            "the slip time (its mu line reads 0.4)." % (ts, min(v[1]["t_slip"] for v in res.values()),
                                                       max(v[1]["t_slip"] for v in res.values())),
            paper=0.25, tol={"abs": 0.05},
            reason="'approximately 0.25 s' as printed: one digit after the point, +-0.05 s",
            why="the onset on the authors' scene is not within 0.05 s of 0.25 s")
    nf = res["CCP/PGS"][1]["flights"]
    F.claim("\"CCP induces some bumps which occasionally dissipate energy during impacts\" (Fig. 11 left).",
            "flight phases of the cube under CCP/PGS while it slides (authors' scene)", nf,
            J.judge(nf, J.QUAL, {"lo": 2}) if res["NCP/PGS"][1]["flights"] == 0 else "partly",
            "While sliding, the cube leaves the ground %d times under CCP/PGS (lift up to %.2g mm) and %d "
            "under CCP/ADMM; NCP/PGS %d, RaiSim %d." % (
                nf, res["CCP/PGS"][1]["lift"] * 1e3, res["CCP/ADMM"][1]["flights"],
                res["NCP/PGS"][1]["flights"], res["RaiSim"][1]["flights"]),
            paper=J.QUAL, tol={"lo": 2},
            reason="Fig. 11 gives curves only; a bump is a flight phase (no contact force) ended by an impact, "
                   "which NCP (Signorini) never has; 'some bumps' is two or more",
            why="CCP/PGS's cube does not leave the ground twice while sliding, or NCP/PGS's does too")


if __name__ == "__main__":
    main()
