#!/usr/bin/python3
"""Seed 000 Sec. IV-B, Tabs. III-IV and Figs. 14-15: self-consistency of the solvers.

A 1 kg cube launched at 1 m/s on a plane with mu = 0.3 (scenarios/cube_slide.yaml, 0.6 s).
 Tab. III / Fig. 14: dt in {1, 2, 5, 10, 100} ms against a dt = 0.1 ms reference (tolerance 1e-8);
 Tab. IV / Fig. 15: solver.tolerance in {1e-2 ... 1e-8} against a 1e-9 reference (dt = 1 ms).
The integral consistency error is sum_k |p_k - p_ref(t_k)| dt (m s), p the cube's position (the
reference interpolated at the run's times). Models: the paper's CCP/PGS, RaiSim, NCP/PGS, plus
RaiSim+DS and NCP/ADMM. Fig. 14/15: mechanical energy against time beside the analytic
0.5 m max(v0 - mu g t, 0)^2 + m g h. Writes out/figures/fig000_14.png and fig000_15.png and prints
both tables.
Usage: tools/fig000_14_15.sh   (run `make` first)
"""
import os
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fig000_common as C  # noqa: E402

MODELS = [("ccp", "pgs", "CCP/PGS"), ("raisim", "bisection", "RaiSim"), ("ncp", "pgs", "NCP/PGS"),
          ("raisim_ds", "bisection", "RaiSim+DS"), ("ncp", "admm", "NCP/ADMM")]
DTS = [1e-3, 2e-3, 5e-3, 1e-2, 1e-1]
DT_REF = 1e-4
TOLS = [1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8]
TOL_REF = 1e-9
MU, G, V0, M, H = 0.3, 9.81, 1.0, 1.0, 0.05
# Tab. III and IV of the paper (m s), by solver and dt (s) / stopping criterion
PAPER3 = {"CCP/PGS": {1e-3: 1.6e-3, 1e-2: 1.7e-2, 1e-1: 1.6e-1},
          "RaiSim": {1e-3: 1.5e-3, 1e-2: 1.6e-2, 1e-1: 1.5e-1},
          "NCP/PGS": {1e-3: 1.5e-3, 1e-2: 1.6e-2, 1e-1: 1.6e-1}}
PAPER4 = {"CCP/PGS": {1e-6: 6.7e-7, 1e-4: 4.3e-5, 1e-2: 4.8e-2},
          "RaiSim": {1e-6: 9.0e-8, 1e-4: 4.8e-5, 1e-2: 7.0e-4},
          "NCP/PGS": {1e-6: 6.0e-10, 1e-4: 9.9e-8, 1e-2: 5.3e-6}}


# analytic mechanical energy of the sliding cube (J)
def e_analytic(t):
    v = np.maximum(V0 - MU * G * t, 0.0)
    return 0.5 * M * v ** 2 + M * G * H


# run one cube_slide variant into tmp and read it
def slide(tmp, model, solver, dt, tol):
    out = os.path.join(tmp, "%s_%s_%g_%g.h5" % (model, solver, dt, tol))
    C.run("cube_slide", out, {"contact.model": model, "solver.name": solver, "integrator.dt": dt,
                              "solver.tolerance": tol, "solver.max_iterations": 2000})
    return C.Run(out)


# one figure: error table (left) and energy per model (right) for one swept parameter
def figure(name, title, xs, xlabel, errs, runs, refs, paper, fmt, note):
    fig = plt.figure(figsize=(18, 9))
    gs = fig.add_gridspec(2, 4, wspace=0.3, hspace=0.35)
    ax = fig.add_subplot(gs[:, 0:2])
    for j, (model, solver, label) in enumerate(MODELS):
        ax.loglog(xs, [max(errs[label][x], 1e-14) for x in xs], "o-", color="C%d" % j, label="csim " + label)
        if label in paper:
            px = sorted(paper[label])
            ax.loglog(px, [paper[label][x] for x in px], "s--", color="C%d" % j, mfc="none", ms=8,
                      label="paper " + label)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("integral consistency error (m s)")
    ax.legend(fontsize=8, ncol=2, loc="lower right")
    ax.set_title(title, fontsize=10)
    C.textbox(ax, note, loc="upper left", fontsize=8)
    cmap = plt.cm.viridis
    for j, (model, solver, label) in enumerate(MODELS):
        a = fig.add_subplot(gs[j // 2, 2 + j % 2]) if j < 4 else None
        if a is None:
            continue
        ref = refs[label]
        a.plot(ref.t, e_analytic(ref.t), "k-", lw=3, alpha=0.3, label="analytic")
        for i, x in enumerate(xs):
            r = runs[label][x]
            a.plot(r.t, r.e, color=cmap(i / max(1, len(xs) - 1)), lw=1, label=fmt % x)
        a.plot(ref.t, ref.e, "r:", lw=1, label="reference")
        a.set_title("%s: mechanical energy" % label, fontsize=9)
        a.set_xlabel("t (s)", fontsize=8)
        a.set_ylabel("E (J)", fontsize=8)
        a.tick_params(labelsize=7)
        if j == 0:
            a.legend(fontsize=6.5)
    fig.suptitle("000 %s with csim (cube_slide: 1 kg cube, v0 = 1 m/s, mu = 0.3, 0.6 s); energy panels: "
                 "NCP/ADMM is in the table only" % name, fontsize=10)
    path = os.path.join(C.FIGDIR, "fig000_%s.png" % name.split()[-1].replace(".", ""))
    fig.savefig(path, dpi=105)
    print("wrote", path)


# run both sweeps, print the tables, draw the figures
def main():
    C.check_csim()
    errs3, errs4, runs3, runs4, ref3, ref4 = {}, {}, {}, {}, {}, {}
    with C.workdir() as tmp:
        for model, solver, label in MODELS:
            ref3[label] = slide(tmp, model, solver, DT_REF, 1e-8)
            runs3[label] = {dt: slide(tmp, model, solver, dt, 1e-8) for dt in DTS}
            errs3[label] = {dt: C.integral_error(runs3[label][dt], ref3[label]) for dt in DTS}
            ref4[label] = slide(tmp, model, solver, 1e-3, TOL_REF)
            runs4[label] = {tol: slide(tmp, model, solver, 1e-3, tol) for tol in TOLS}
            errs4[label] = {tol: C.integral_error(runs4[label][tol], ref4[label]) for tol in TOLS}
    # energy at the end (t = 0.6 s) against the analytic m g h: how much was dissipated
    print("Tab. III (integral consistency error, m s; reference dt = 0.1 ms):")
    print("  %-10s " % "solver" + " ".join("%10s" % ("%g ms" % (dt * 1e3)) for dt in DTS) + "   paper 1/10/100 ms")
    for model, solver, label in MODELS:
        p = PAPER3.get(label, {})
        print("  %-10s " % label + " ".join("%10.2e" % errs3[label][dt] for dt in DTS) + "   " +
              " ".join("%.1e" % p[k] for k in sorted(p)))
    print("Tab. IV (integral consistency error, m s; reference tolerance 1e-9, dt = 1 ms):")
    print("  %-10s " % "solver" + " ".join("%9s" % ("%g" % t) for t in TOLS) + "   paper 1e-6/1e-4/1e-2")
    for model, solver, label in MODELS:
        p = PAPER4.get(label, {})
        print("  %-10s " % label + " ".join("%9.1e" % errs4[label][t] for t in TOLS) + "   " +
              " ".join("%.1e" % p[k] for k in sorted(p)))
    print("energy at 0.6 s (analytic %.4f J):" % e_analytic(np.array(0.6)))
    for model, solver, label in MODELS:
        print("  %-10s dt 1 ms: %.4f J, dt 10 ms: %.4f J, dt 100 ms: %.4f J | tol 1e-2: %.4f J, tol 1e-9: %.4f J"
              % (label, runs3[label][1e-3].e[-1], runs3[label][1e-2].e[-1], runs3[label][1e-1].e[-1],
                 runs4[label][1e-2].e[-1], ref4[label].e[-1]))
    n3 = "paper Tab. III (1 / 10 / 100 ms): CCP/PGS 1.6e-3 / 1.7e-2 / 1.6e-1,\n" \
         "RaiSim 1.5e-3 / 1.6e-2 / 1.5e-1, NCP/PGS 1.5e-3 / 1.6e-2 / 1.6e-1:\n" \
         "\"sensitivities w.r.t. the time-step are similar for the various solvers\"\n" \
         "csim 1 / 10 / 100 ms: " + "; ".join(
             "%s %.1e / %.1e / %.1e" % (l, errs3[l][1e-3], errs3[l][1e-2], errs3[l][1e-1])
             for l in ("CCP/PGS", "RaiSim", "NCP/PGS"))
    n3 = n3.replace("; RaiSim", ";\n  RaiSim")
    figure("Tab. III, Fig. 14", "time-step sensitivity (reference dt = 0.1 ms, tolerance 1e-8)", DTS,
           "time step dt (s)", errs3, runs3, ref3, PAPER3, "dt = %g s", n3)
    n4 = "paper Tab. IV (1e-6 / 1e-4 / 1e-2): CCP/PGS 6.7e-7 / 4.3e-5 / 4.8e-2,\n" \
         "RaiSim 9.0e-8 / 4.8e-5 / 7.0e-4, NCP/PGS 6.0e-10 / 9.9e-8 / 5.3e-6;\n" \
         "RaiSim at 1e-2: \"almost no energy dissipation\"\n" \
         "csim (1e-6 / 1e-4 / 1e-2): " + "; ".join(
             "%s %.1e / %.1e / %.1e" % (l, errs4[l][1e-6], errs4[l][1e-4], errs4[l][1e-2])
             for l in ("CCP/PGS", "RaiSim", "NCP/PGS"))
    n4 = n4.replace("; RaiSim", ";\n  RaiSim")
    figure("Tab. IV, Fig. 15", "stopping-criterion sensitivity (reference tolerance 1e-9, dt = 1 ms; "
           "each solver stops on its own model's residual)", TOLS, "solver.tolerance", errs4, runs4, ref4,
           PAPER4, "tol = %g", n4)


if __name__ == "__main__":
    main()
