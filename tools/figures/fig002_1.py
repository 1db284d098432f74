#!/usr/bin/python3
"""Seed 002 Exp. 1 (Fig. 3): a 1 kg cube sliding on a plane, v0 = 1 and 3 m/s (mu = 0.3, h = 1 ms),
with RaiSim, RaiSim+DS (the de Saxce correction) and NCP/PGS: kinetic energy against the analytic
MDP solution, the angle between each contact's friction and its slip, the dissipated power.
Usage: make fig-002-1 (out/figures/fig002_1.{png,json}; tools/figures/figjson.py)
"""
import os
import sys

import h5py
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fig000_common as C  # noqa: E402
import fig002_common as D  # noqa: E402
import figjson  # noqa: E402
import figjson as J  # noqa: E402

MU = 0.3


def body(F):
    fig, ax = plt.subplots(1, 3, figsize=(18, 5.5))
    a, b, c = ax
    res = {}
    for v0, ls in [(1, "-"), (3, "--")]:
        for m, lab, col in D.MODELS:
            out = os.path.join(F.tmp, "slide%d_%s.h5" % (v0, m))
            sets = {"contact.model": m, "solver.name": "pgs" if m == "ncp" else "bisection"}
            if v0 == 3:
                sets.update({"robots.0.v0": "[0,3,0,0,0,0]", "integrator.duration": 1.2})
            C.run("cube_slide", out, sets)
            with h5py.File(out, "r") as f:
                t, ek, q = f["/time"][:], f["/energy/kinetic"][:], f["/state/q"][:]
                eps = f["/solver/eps_abs"][:]
                ang, p, pmax, _ = D.contact_metrics(f, MU)
            de = ek - 0.5 * np.maximum(v0 - MU * D.G * t, 0) ** 2
            sl = pmax > 1e-6
            res[(v0, m)] = dict(dist=q[-1, 1], drift=abs(q[-1, 0]), ang=np.nanmax(ang),
                                pr=float(np.mean(p[sl] / pmax[sl])), de=float(np.abs(de).max()),
                                eps=float(eps.max()))
            a.plot(t, de, ls, color=col, lw=1.2, label="%s, v0=%d" % (lab, v0))
            b.semilogy(t, np.maximum(ang, 1e-6), ls, color=col, lw=1.2, label="%s, v0=%d" % (lab, v0))
            c.plot(t[sl], p[sl] / pmax[sl], ls, color=col, lw=1.2, label="%s, v0=%d" % (lab, v0))
    a.set_xlabel("t (s)")
    a.set_ylabel("E_kin(sim) - E_kin(analytic MDP) (J)")
    a.set_title("(a) kinetic energy minus analytic", fontsize=10)
    a.legend(fontsize=7)
    b.set_xlabel("t (s)")
    b.set_ylabel("max angle(-F_T, c_T) over sliding contacts (deg)")
    b.set_title("(b) friction direction vs slip (MDP: 0)", fontsize=10)
    b.set_ylim(1e-6, 100)
    c.set_xlabel("t (s)")
    c.set_ylabel("(-sum F_T.c_T) / (mu sum F_N |c_T|)")
    c.set_title("(c) dissipated / maximal power (MDP: 1)", fontsize=10)
    fig.suptitle("002 Exp. 1 (Fig. 3) with csim: cube sliding at v0 = 1 and 3 m/s, mu = 0.3", fontsize=11)
    fig.tight_layout()
    F.png(fig, dpi=80)
    rows = []
    for v0 in (1, 3):
        for m, lab, col in D.MODELS:
            r = res[(v0, m)]
            rows.append(["%s, v0 = %d" % (lab, v0), v0 ** 2 / (2 * MU * D.G), r["dist"], r["drift"], r["ang"],
                         r["pr"], r["de"], r["eps"]])
    F.table("Sliding distance against the continuous-time analytic v0^2 / (2 mu g) (m; time stepping adds "
            "about v0 dt / 2), sideways drift (m), largest MDP angle (deg), mean dissipated / maximal power, "
            "largest kinetic-energy gap to the analytic curve (J), largest eps_abs (impulse units). The paper "
            "shows curves only.",
            ["run", "analytic distance", "distance", "drift", "max angle", "power ratio", "max energy gap",
             "max eps_abs"], rows, rel=0.1, abs_=1e-6)
    r1, d1 = res[(1, "raisim")], res[(1, "raisim_ds")]
    eg = r1["de"] / max(d1["de"], 1e-300)
    F.claim("\"Because RaiSim's contact model violates the MDP, the dissipated energy decreases more slowly "
            "than expected\"; with de Saxce's corrective term \"the contact model recovers the expected "
            "evolution\".", "RaiSim max energy gap / RaiSim+DS max energy gap (v0 = 1 m/s)", eg,
            J.judge(eg, J.QUAL, {"lo": 10.0}) if r1["pr"] < d1["pr"] else "not reproduced",
            "RaiSim dissipates %.4f of the maximal power and its kinetic energy departs from the analytic curve "
            "by up to %.1e J; RaiSim+DS dissipates %.4f and stays within %.1e J." % (
                r1["pr"], r1["de"], d1["pr"], d1["de"]),
            paper=J.QUAL, tol={"lo": 10.0},
            reason="002 Fig. 3 gives curves only; 'more slowly' against 'recovers' read as RaiSim's energy gap "
                   "an order of magnitude above RaiSim+DS's, with less power dissipated",
            why="RaiSim's energy gap is not ten times RaiSim+DS's, or it dissipates no less power", rel=0.5)
    F.claim("RaiSim's friction is not opposite to the slip (002 eq. 10); the correction makes it so.",
            "largest angle between -F_T and c_T, RaiSim, v0 = 1 m/s (deg)", r1["ang"],
            J.judge(r1["ang"], J.QUAL, {"lo": 1.0}) if d1["ang"] < 0.1 else "partly",
            "RaiSim's friction is up to %.1f deg off the slip, RaiSim+DS's %.2g deg." % (r1["ang"], d1["ang"]),
            paper=J.QUAL, tol={"lo": 1.0},
            reason="the paper gives no angle; RaiSim+DS and NCP/PGS keep the friction within 0.1 deg of the slip "
                   "(table), so 1 deg or more is RaiSim's, and RaiSim+DS must stay within 0.1 deg",
            why="RaiSim's friction is within 1 deg of the slip, or RaiSim+DS's is not within 0.1 deg", rel=0.2)
    F.setup = ("scenarios/cube_slide.yaml (1 kg, 10 cm cube, mu = 0.3, dt = 1 ms, tolerance 1e-8, cap 2000 "
               "iterations), v0 = 1 m/s for 0.6 s and v0 = 3 m/s for 1.2 s (--set robots.0.v0, "
               "integrator.duration), models raisim and raisim_ds (solver bisection) and ncp (pgs). Power and "
               "angles from /contacts/force and /contacts/velocity, contacts sliding faster than 0.1 mm/s.")


def main():
    C.check_csim()
    with figjson.Figure("002-1", "002", "Exp. 1 (Fig. 3)", "sliding cube: MDP and dissipation") as F:
        body(F)


if __name__ == "__main__":
    main()
