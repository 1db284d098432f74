#!/usr/bin/python3
"""Runs shared by tools/figures/fig000_tab3.py, fig000_tab4.py, fig000_14.py and fig000_15.py (seed 000
Sec. IV-B: self-consistency w.r.t. the time step and the stopping criterion).

The integral consistency error is sum_k |p_k - p_ref(t_k)| dt (m s), p the base position (the
reference interpolated at the run's times; fig000_common.integral_error). Each script calls
these with its own scratch directory (figjson.Figure.tmp), so they can run in parallel.
"""
import os

import numpy as np

import fig000_common as C

MODELS = [("ccp", "pgs", "CCP/PGS"), ("raisim", "bisection", "RaiSim"), ("ncp", "pgs", "NCP/PGS"),
          ("raisim_ds", "bisection", "RaiSim+DS"), ("ncp", "admm", "NCP/ADMM")]
PAPER_LABELS = ("CCP/PGS", "RaiSim", "NCP/PGS")
DTS = [1e-3, 2e-3, 5e-3, 1e-2, 1e-1]
DT_REF = 1e-4
TOLS = [1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8]
TOL_REF = 1e-9
HORIZON = 3.5   # s: the horizon at which csim's Tab. III errors meet the paper's (issue 15)
MU, G, V0, M, H = 0.3, 9.81, 1.0, 1.0, 0.05
# the paper's Tab. III and IV (m s), by solver and dt (s) / stopping criterion
PAPER3 = {"CCP/PGS": {1e-3: 1.6e-3, 1e-2: 1.7e-2, 1e-1: 1.6e-1},
          "RaiSim": {1e-3: 1.5e-3, 1e-2: 1.6e-2, 1e-1: 1.5e-1},
          "NCP/PGS": {1e-3: 1.5e-3, 1e-2: 1.6e-2, 1e-1: 1.6e-1}}
PAPER4 = {"CCP/PGS": {1e-6: 6.7e-7, 1e-4: 4.3e-5, 1e-2: 4.8e-2},
          "RaiSim": {1e-6: 9.0e-8, 1e-4: 4.8e-5, 1e-2: 7.0e-4},
          "NCP/PGS": {1e-6: 6.0e-10, 1e-4: 9.9e-8, 1e-2: 5.3e-6}}
# Solo-12 (the paper's robot systems, Fig. 8): standing under PD control, 2 s, dt up to 10 ms (at
# 100 ms the PD loop of the scenario is unstable, so that column would measure the controller)
SOLO_DTS = [1e-3, 2e-3, 5e-3, 1e-2]
SOLO_DURATION = 1.0


# analytic mechanical energy of the sliding cube (J)
def e_analytic(t):
    v = np.maximum(V0 - MU * G * t, 0.0)
    return 0.5 * M * v ** 2 + M * G * H


# one run of SCENARIO with model/solver/dt/tolerance (and extra --set pairs), read back
def one(tmp, scenario, model, solver, dt, tol, duration, units="impulse", extra=None):
    out = os.path.join(tmp, "%s_%s_%s_%g_%g_%s_%s.h5" % (scenario, model, solver, dt, tol, units,
                                                          "_".join(str(v) for v in (extra or {}).values())))
    sets = {"contact.model": model, "solver.name": solver, "integrator.dt": dt, "solver.tolerance": tol,
            "solver.max_iterations": 2000, "integrator.duration": duration,
            "solver.tolerance_units": units}
    sets.update(extra or {})
    C.run(scenario, out, sets)
    r = C.Run(out)
    os.remove(out)  # the Run holds the arrays; keep the scratch directory small
    return r


# Tab. III: {label: {dt: error}}, runs {label: {dt: Run}}, refs {label: Run}
def sweep_dt(tmp, scenario, dts, duration, models=MODELS, tol=1e-8):
    errs, runs, refs = {}, {}, {}
    for model, solver, label in models:
        refs[label] = one(tmp, scenario, model, solver, DT_REF, tol, duration)
        runs[label] = {dt: one(tmp, scenario, model, solver, dt, tol, duration) for dt in dts}
        errs[label] = {dt: C.integral_error(runs[label][dt], refs[label]) for dt in dts}
    return errs, runs, refs


# Tab. IV: {label: {tol: error}}, runs, refs (dt = 1 ms); criterion: solver.criterion
def sweep_tol(tmp, scenario, tols, duration, units, models=MODELS, criterion="ncp"):
    errs, runs, refs = {}, {}, {}
    ex = {"solver.criterion": criterion}
    for model, solver, label in models:
        refs[label] = one(tmp, scenario, model, solver, 1e-3, TOL_REF, duration, units, ex)
        runs[label] = {tol: one(tmp, scenario, model, solver, 1e-3, tol, duration, units, ex) for tol in tols}
        errs[label] = {tol: C.integral_error(runs[label][tol], refs[label]) for tol in tols}
    return errs, runs, refs


# least-squares slope of log(err) against log(x)
def loglog_slope(xs, ys):
    return float(np.polyfit(np.log(xs), np.log(ys), 1)[0])
