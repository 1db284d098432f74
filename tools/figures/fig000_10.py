#!/usr/bin/python3
"""Seed 000 Fig. 10 and Sec. III-D: CCP's bumps and RaiSim's violation of maximum dissipation (MDP).

For each sliding contact, the power dissipated by friction is P = -f_t . v_t; the maximum
dissipation principle makes it P_max = mu f_n |v_t| (friction exactly opposite to the slip). We
plot the ratio sum P / sum P_max (1 when the MDP holds) and the largest angle between -f_t and
v_t, for RaiSim, RaiSim+DS (de Saxce correction, seed 002) and NCP/PGS, on two scenarios:
cube_slide (1 m/s, mu = 0.3) and cube_push_ramp (10 N/s ramp, mu = 0.5), plus the energy of
cube_slide against the analytic curve (the paper's Fig. 10 right) and the cube's height (its
left: CCP's relaxed Signorini condition lifts a sliding cube, which bounces). Only contacts with
|v_t| > 1 mm/s count. Writes out/figures/fig000_10.png and prints the numbers.
Usage: make fig-000-10 (writes out/figures/fig000_10.json too, tools/figures/figjson.py)
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

PAIRS = [("raisim", "bisection", "RaiSim"), ("raisim_ds", "bisection", "RaiSim+DS"),
         ("ncp", "pgs", "NCP/PGS"), ("ccp", "pgs", "CCP/PGS")]
SCEN = [("cube_slide", 0.3, {}), ("cube_push_ramp", 0.5, {})]


# per-row dissipation ratio and worst friction angle over sliding contacts (nan if none)
def mdp(r, mu):
    ratio = np.full(len(r.t), np.nan)
    angle = np.full(len(r.t), np.nan)
    for k in range(len(r.t)):
        f, v = r.world_forces(k), r.world_velocities(k)
        if len(f) == 0:
            continue
        # tangential parts in the contact frame: [t1 t2 n] rows of force/velocity
        s, n = r.offset[k], r.count[k]
        ft, vt, fn = r.force[s:s + n, :2], r.cvel[s:s + n, :2], r.force[s:s + n, 2]
        sl = np.linalg.norm(vt, axis=1) > 1e-3
        if not sl.any():
            continue
        p = -np.sum(ft[sl] * vt[sl], axis=1)
        pmax = mu * fn[sl] * np.linalg.norm(vt[sl], axis=1)
        if pmax.sum() > 1e-12:
            ratio[k] = p.sum() / pmax.sum()
        nf = np.linalg.norm(ft[sl], axis=1)
        ok = nf > 1e-9
        if ok.any():
            c = p[ok] / (nf[ok] * np.linalg.norm(vt[sl][ok], axis=1))
            angle[k] = np.degrees(np.arccos(np.clip(c, -1, 1))).max()
    return ratio, angle


# Fig. 10 left: the cube's height above its start (mm) per pair and scene; returns the largest
# lift per (scene, label)
def height_panels(axs, res):
    lift = {}
    for i, (scen, mu, sets) in enumerate(SCEN):
        for j, (model, solver, label) in enumerate(PAIRS):
            r = res[(scen, label)][0]
            dz = (r.q[:, 2] - r.q[0, 2]) * 1e3
            lift[(scen, label)] = float(np.max(np.abs(dz))) * 1e-3
            axs[i].plot(r.t, dz, color="C%d" % j, lw=1,
                        label="%s: max |z - z0| %.2g mm" % (label, lift[(scen, label)] * 1e3))
        axs[i].set_xlabel("t (s)")
        axs[i].set_ylabel("%s: cube height z - z0 (mm)" % scen)
        axs[i].legend(fontsize=8, loc="upper left")
    axs[0].set_title("Fig. 10 left: the cube bounces under CCP", fontsize=10)
    return lift


# the paper's Fig. 10 left, as a claim fixed before the run: a bounce is a lift NCP has not
def bump_claim(F, lift):
    ccp, ncp = lift[("cube_slide", "CCP/PGS")], lift[("cube_slide", "NCP/PGS")]
    F.claim("\"The CCP contact model relaxes the Signorini condition, which induces unphysical forces leading "
            "to the vertical bouncing of the cube\" (Fig. 10, left).",
            "largest lift of the sliding cube under CCP/PGS on cube_slide (m)", ccp,
            J.judge(ccp, J.QUAL, {"lo": 1e-4}) if ccp >= 10 * ncp else "partly",
            "Under CCP/PGS the sliding cube's centre leaves its start height by up to %.2g mm (cube_push_ramp: "
            "%.2g mm); NCP/PGS stays within %.2g mm (RaiSim %.2g, RaiSim+DS %.2g)." % (
                ccp * 1e3, lift[("cube_push_ramp", "CCP/PGS")] * 1e3, ncp * 1e3,
                lift[("cube_slide", "RaiSim")] * 1e3, lift[("cube_slide", "RaiSim+DS")] * 1e3),
            paper=J.QUAL, tol={"lo": 1e-4},
            reason="Fig. 10 left gives a curve only; a bounce is a lift that NCP, which enforces Signorini, does "
                   "not have: CCP's largest lift must be at least 0.1 mm (above csim's contact tolerances) and "
                   "at least 10 times NCP/PGS's",
            why="CCP's cube lifts less than 0.1 mm or less than 10 times NCP's")


# run, plot and print
def main():
    C.check_csim()
    with figjson.Figure("000-10", "000", "Fig. 10", "CCP's bumps and maximum dissipation: RaiSim vs RaiSim+DS vs NCP vs CCP") as F:
        body(F)


# the runs, the figure and the record
def body(F):
    res = {}
    tmp = F.tmp
    for scen, mu, sets in SCEN:
        for model, solver, label in PAIRS:
            out = os.path.join(tmp, "%s_%s.h5" % (scen, model))
            C.run(scen, out, dict(sets, **{"contact.model": model, "solver.name": solver}))
            r = C.Run(out)
            res[(scen, label)] = (r,) + mdp(r, mu)
    fig, axs = plt.subplots(2, 4, figsize=(22, 9))
    for i, (scen, mu, sets) in enumerate(SCEN):
        for j, (model, solver, label) in enumerate(PAIRS):
            r, ratio, angle = res[(scen, label)]
            axs[i, 0].plot(r.t, ratio, ".", ms=2, color="C%d" % j,
                           label="%s: median %.3f" % (label, np.nanmedian(ratio)))
            axs[i, 1].plot(r.t, angle, ".", ms=2, color="C%d" % j,
                           label="%s: max %.1f deg" % (label, np.nanmax(angle) if np.isfinite(angle).any() else 0))
        axs[i, 0].set_ylabel("%s\nsum(-f_t.v_t) / sum(mu f_n |v_t|)" % scen)
        axs[i, 0].set_ylim(0.97, 1.005)
        axs[i, 0].legend(fontsize=8, loc="lower left", markerscale=4)
        axs[i, 1].set_ylabel("max angle(-f_t, v_t) (deg)")
        axs[i, 1].legend(fontsize=8, loc="upper right", markerscale=4)
        for a in axs[i, :2]:
            a.set_xlabel("t (s)")
    axs[0, 0].set_title("dissipated / maximal friction power (MDP: 1)", fontsize=10)
    axs[0, 1].set_title("friction direction error on sliding contacts", fontsize=10)
    C.textbox(axs[0, 1], "paper: RaiSim \"dissipates less power than expected,\nas it does not enforce "
              "the MDP\"; friction forces\n\"not opposed to the movements\" (Fig. 11)", loc="upper left")
    # the paper's Fig. 10 right: energy of cube_slide against the analytic curve
    a = axs[0, 2]
    r0 = res[("cube_slide", "NCP/PGS")][0]
    e_an = 0.5 * np.maximum(1.0 - 0.3 * 9.81 * r0.t, 0) ** 2 + 9.81 * 0.05
    a.plot(r0.t, e_an, "k-", lw=3, alpha=0.3, label="analytic")
    for j, (model, solver, label) in enumerate(PAIRS):
        r = res[("cube_slide", label)][0]
        a.plot(r.t, r.e, color="C%d" % j, lw=1,
               label="%s: max |E - E_an| %.1e J" % (label, np.abs(r.e - np.interp(r.t, r0.t, e_an)).max()))
    a.set_xlabel("t (s)")
    a.set_ylabel("mechanical energy (J)")
    a.set_title("Fig. 10 right: cube_slide energy", fontsize=10)
    a.legend(fontsize=8)
    C.textbox(a, "paper: CCP gap to the analytic energy is significant;\nRaiSim narrows it; only NCP/PGS "
              "closely matches", loc="lower left")
    # the drift across the motion: lateral displacement of the cube at the end
    a = axs[1, 2]
    for j, (model, solver, label) in enumerate(PAIRS):
        r = res[("cube_slide", label)][0]
        a.plot(r.t, r.q[:, 0] * 1e3, color="C%d" % j, lw=1,
               label="%s: x(0.6 s) = %.3f mm, y = %.2f mm" % (label, r.q[-1, 0] * 1e3, r.q[-1, 1] * 1e3))
    a.set_xlabel("t (s)")
    a.set_ylabel("cube_slide: sideways drift x (mm)")
    a.set_title("cube_slide: drift across the launch direction (y)", fontsize=10)
    a.legend(fontsize=8)
    lift = height_panels(axs[:, 3], res)
    fig.suptitle("000 Fig. 10 / MDP: RaiSim vs RaiSim+DS (de Saxce) vs NCP/PGS vs CCP/PGS "
                 "(contacts with |v_t| > 1 mm/s)", fontsize=11)
    fig.tight_layout()
    F.png(fig, dpi=80)
    for scen, mu, sets in SCEN:
        for model, solver, label in PAIRS:
            r, ratio, angle = res[(scen, label)]
            print("  %-15s %-10s power ratio median %.4f min %.4f, angle max %.2f deg, end x %.3f mm y %.2f mm,"
                  " E_end %.4f J" % (scen, label, np.nanmedian(ratio), np.nanmin(ratio), np.nanmax(angle),
                                    r.q[-1, 0] * 1e3, r.q[-1, 1] * 1e3, r.e[-1]))
    rows, emax = [], {}
    for model, solver, label in PAIRS:
        r0 = res[("cube_slide", "NCP/PGS")][0]
        r = res[("cube_slide", label)][0]
        emax[label] = float(np.abs(r.e - np.interp(r.t, r0.t, e_an)).max())
        row = [label]
        for scen, mu, sets in SCEN:
            _, ratio, angle = res[(scen, label)]
            row += [float(np.nanmedian(ratio)), float(np.nanmax(angle))]
        rows.append(row + [emax[label]])
    F.table("Friction power on sliding contacts (|v_t| > 1 mm/s) as a fraction of the maximal mu f_n |v_t| "
            "(median over the run), the largest angle between -f_t and v_t (deg), and the largest gap of "
            "cube_slide's energy to the analytic curve (J). The paper gives curves, no numbers.",
            ["pair", "cube_slide power ratio", "cube_slide max angle", "push_ramp power ratio",
             "push_ramp max angle", "max abs(E - E_an) (J)"], rows, rel=0.1, abs_=1e-6)
    rai = res[("cube_slide", "RaiSim")][1]
    med = float(np.nanmedian(rai))
    F.claim("RaiSim \"dissipates less power than expected, as it does not enforce the MDP\" (Fig. 10).",
            "median friction power / maximal power, RaiSim on cube_slide", med, J.judge(med, J.QUAL, {"hi": 0.999}),
            "RaiSim dissipates %.3f of the maximal power on cube_slide and %.3f on cube_push_ramp, while "
            "RaiSim+DS and NCP/PGS dissipate 1.000; the deficit is small because csim converges the bisection "
            "tightly." % (med, np.nanmedian(res[("cube_push_ramp", "RaiSim")][1])),
            paper=J.QUAL, tol={"hi": 0.999},
            reason="Fig. 10 gives curves only; the MDP-satisfying pairs (RaiSim+DS, NCP/PGS) read 1.000 to three "
                   "digits, so a deficit of 0.1 % or more is RaiSim's",
            why="RaiSim dissipates the maximal power to within 0.1 %")
    best = min(emax, key=emax.get)
    ccp_gap = emax["CCP/PGS"] > 100 * emax["NCP/PGS"]
    F.claim("\"The NCP formulation, solved using the PGS solver, is the only formulation which closely matches "
            "the expected analytical behavior\"; CCP shows a significant gap.",
            "max abs(E - E_an) of NCP/PGS on cube_slide (J)", emax["NCP/PGS"],
            J.judge(emax["NCP/PGS"], J.QUAL, {"hi": 1e-5}) if ccp_gap else "partly",
            "NCP/PGS stays within %.1e J of the analytic energy, RaiSim+DS %.1e J, RaiSim %.1e J "
            "and CCP/PGS %.2f J (it takes off and lands); the closest is %s." % (
                emax["NCP/PGS"], emax["RaiSim+DS"], emax["RaiSim"], emax["CCP/PGS"], best),
            paper=J.QUAL, tol={"hi": 1e-5},
            reason="Fig. 10 gives curves only; 1e-5 J is 2e-5 of the cube's 0.5 J kinetic energy, far below what "
                   "the figure's energy axis resolves; CCP's gap must be 100 times NCP's",
            why="NCP/PGS departs from the analytic energy by more than 1e-5 J, or CCP's gap is not 100 times "
                "NCP's")
    bump_claim(F, lift)
    F.setup = ("scenarios/cube_slide.yaml (1 kg cube, v0 = 1 m/s along y, mu = 0.3, dt = 1 ms, 0.6 s) and "
               "scenarios/cube_push_ramp.yaml (force 10 t N along x, mu = 0.5, 1 s), each with RaiSim, "
               "RaiSim+DS (002's de Saxce correction), NCP/PGS and CCP/PGS. Forces and slip velocities are "
               "csim's /contacts/force and /contacts/velocity; only contacts sliding faster than 1 mm/s count. "
               "The analytic energy is 0.5 m max(v0 - mu g t, 0)^2 + m g h.")


if __name__ == "__main__":
    main()
