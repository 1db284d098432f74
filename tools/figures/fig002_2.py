#!/usr/bin/python3
"""Seed 002 Exp. 2 (Fig. 4): a 1 kg cube dragged by a force growing at 10 N/s (mu = 0.5), with
RaiSim, RaiSim+DS and NCP/PGS: internal y-forces per contact, velocity along the drag, eps_abs,
and the steps that end at the iteration cap.
Usage: make fig-002-2 (out/figures/fig002_2.{png,json}; tools/figures/figjson.py)
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

MU, RATE = 0.5, 10.0


def body(F):
    t0 = MU * 1.0 * D.G / RATE
    fig, ax = plt.subplots(1, 3, figsize=(18, 5.5))
    a, b, c = ax
    res = {}
    for m, lab, col in D.MODELS:
        out = os.path.join(F.tmp, "push_%s.h5" % m)
        C.run("cube_push_ramp", out, {"contact.model": m, "solver.name": "pgs" if m == "ncp" else "bisection"})
        with h5py.File(out, "r") as f:
            t, v = f["/time"][:], f["/state/v"][:]
            eps, conv, iters = f["/solver/eps_abs"][:], f["/solver/converged"][:], f["/solver/iterations"][:]
            _, _, _, fy = D.contact_metrics(f, MU)
        slide = t > t0 + 0.05
        res[m] = dict(v=v[-1, 0], fy=float(np.nanmax(np.abs(fy[slide]))), eps_mean=float(eps[slide].mean()),
                      eps_max=float(eps[slide].max()), cap=int((conv == 0).sum()), it=float(iters.mean()))
        for j in range(4):
            a.plot(t, fy[:, j], color=col, lw=1, label=lab if j == 0 else None)
        b.plot(t, v[:, 0], color=col, lw=1.2, label=lab)
        c.semilogy(t, np.maximum(eps, 1e-14), color=col, lw=1, label=lab)
    v_an = 5 * (t[-1] - t0) ** 2
    a.axvline(t0, color="0.6", lw=0.6)
    a.set_xlabel("t (s)")
    a.set_ylabel("world-y force of each contact (N)")
    a.set_title("(a) internal y-forces (slip starts at %.3f s)" % t0, fontsize=10)
    a.legend(fontsize=7)
    tt = np.linspace(0, 1, 400)
    b.plot(tt, np.where(tt > t0, 5 * (tt - t0) ** 2, 0), color="0.6", lw=4, alpha=0.4, label="analytic (MDP)")
    b.set_xlabel("t (s)")
    b.set_ylabel("cube v_x (m/s)")
    b.set_title("(b) velocity along the drag", fontsize=10)
    b.legend(fontsize=7)
    c.set_xlabel("t (s)")
    c.set_ylabel("eps_abs (000 eq. 14, impulse units)")
    c.set_title("(c) NCP criterion (tolerance 1e-8)", fontsize=10)
    c.legend(fontsize=7)
    fig.suptitle("002 Exp. 2 (Fig. 4) with csim: cube dragged by 10 t N along x, mu = 0.5", fontsize=11)
    fig.tight_layout()
    F.png(fig, dpi=80)
    rows = [[lab, v_an, res[m]["v"], res[m]["fy"], res[m]["eps_mean"], res[m]["eps_max"], res[m]["it"],
             res[m]["cap"]] for m, lab, col in D.MODELS]
    F.table("v_x at 1 s against the analytic 5 (t - t_s)^2 (m/s), the largest internal y-force while sliding "
            "(N), eps_abs while sliding (mean, max), iterations per step and steps at the iteration cap (2000, "
            "solver.criterion ncp). The paper shows curves only.",
            ["run", "analytic v_x(1 s)", "v_x(1 s)", "slide max abs(f_y)", "slide mean eps_abs",
             "slide max eps_abs", "iterations/step", "steps at the cap"], rows, rel=0.2, abs_=1e-3)
    r, d = res["raisim"], res["raisim_ds"]
    F.claim("\"RaiSim exhibits some remaining internal forces while our de Saxce correction results in zero "
            "internal forces\".", "largest internal y-force while sliding, RaiSim (N)", r["fy"],
            J.judge(r["fy"], J.QUAL, {"lo": 0.01}) if d["fy"] < 1e-3 else "partly",
            "RaiSim keeps up to %.3f N across the drag while sliding, RaiSim+DS %.1e N." % (r["fy"], d["fy"]),
            paper=J.QUAL, tol={"lo": 0.01},
            reason="002 Fig. 4 gives curves only; 'zero' read as below 1e-3 N (NCP/PGS, converged to 1e-8, "
                   "leaves 1e-4 N: table) and 'some remaining' as ten times that bound",
            why="RaiSim keeps less than 0.01 N, or RaiSim+DS 1e-3 N or more", rel=0.3)
    dv = r["v"] - res["ncp"]["v"]
    F.claim("\"The velocity simulated by RaiSim grows faster than what is obtained by our approach or a more "
            "classical PGS algorithm\".", "RaiSim v_x(1 s) - NCP/PGS v_x(1 s) (m/s)", dv,
            J.judge(dv, J.QUAL, {"lo": 0.01}) if r["v"] - d["v"] > 0.01 else "partly",
            "%.3f m/s (RaiSim) against %.3f (RaiSim+DS) and %.3f (NCP/PGS); analytic %.3f." % (
                r["v"], d["v"], res["ncp"]["v"], v_an),
            paper=J.QUAL, tol={"lo": 0.01},
            reason="002 Fig. 4 gives curves only; RaiSim+DS and NCP/PGS agree on v_x(1 s) to 1e-3 m/s (table), "
                   "so RaiSim faster by 0.01 m/s than both is RaiSim's",
            why="RaiSim is not 0.01 m/s faster than both", rel=0.3)
    er = r["eps_mean"] / max(d["eps_mean"], 1e-300)
    F.claim("\"A jump of the NCP criterion eps_abs when the cube is sliding, while the proposed correction keeps "
            "this criterion at a relatively low level\".", "mean eps_abs while sliding, RaiSim / RaiSim+DS", er,
            J.judge(er, J.QUAL, {"lo": 10.0}),
            "RaiSim's eps_abs while sliding averages %.1e, RaiSim+DS's %.1e; %d RaiSim steps end at the iteration "
            "cap (NCP criterion), %d RaiSim+DS steps." % (r["eps_mean"], d["eps_mean"], r["cap"], d["cap"]),
            paper=J.QUAL, tol={"lo": 10.0},
            reason="002 Fig. 4 gives curves on a log axis only; 'a jump' read as an order of magnitude",
            why="RaiSim's residual while sliding is not ten times RaiSim+DS's", rel=1.0)
    F.setup = ("scenarios/cube_push_ramp.yaml (1 kg, 10 cm cube, mu = 0.5, force 10 t N along x, dt = 1 ms, "
               "tolerance 1e-8 with solver.criterion ncp, cap 2000 iterations, 1 s), models raisim and "
               "raisim_ds (bisection) and ncp (pgs).")


def main():
    C.check_csim()
    with figjson.Figure("002-2", "002", "Exp. 2 (Fig. 4)", "dragged cube: internal forces, velocity, eps_abs") as F:
        body(F)


if __name__ == "__main__":
    main()
