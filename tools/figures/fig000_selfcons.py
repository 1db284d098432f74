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


# ---- the authors' sliding cube and stopping rules (000 Tab. IV, Fig. 15 as the paper ran them)
# ContactBench (github.com/Simple-Robotics/ContactBench, the paper's code): examples/cube.py --slide
# is the only public script of the sliding cube: a = 0.2 m, m = 1 kg, mu = 0.4, v0 = 1 m/s along y,
# dt = 1 ms, duration 1.098 s, th = 1e-9 (Tab. IV's reference eps_abs), rel_th_stop = 1e-12,
# maxIter = 10000, warm_start = False; examples/utils/models.py create_cubes: the cube collides
# through 8 spheres of radius a/50 at its corners, initial height a/2 + a/50. The Tab. IV script
# itself is not public: its horizon, warm start and relative threshold are taken from cube.py.
CB_A, CB_M, CB_MU, CB_V0, CB_G = 0.2, 1.0, 0.4, 1.0, 9.81
CB_R = CB_A / 50
CB_Z0 = CB_A / 2 + CB_R
CB_DURATION = 1.098
CB_MAXIT = 10000
CB_REL = 1e-12
CB_REF = 1e-9


# write cube.py's scene (URDF with the 8 corner spheres, scenario) into tmp; returns the scenario
def cb_scene(tmp):
    inertia = CB_M * CB_A ** 2 / 6
    sph = "".join('    <collision><origin xyz="%g %g %g" rpy="0 0 0"/><geometry><sphere radius="%g"/>'
                  '</geometry></collision>\n' % (sx * CB_A / 2, sy * CB_A / 2, sz * CB_A / 2, CB_R)
                  for sx in (1, -1) for sy in (1, -1) for sz in (1, -1))
    with open(os.path.join(tmp, "cube_cb.urdf"), "w") as f:
        f.write('<?xml version="1.0"?>\n<robot name="cube_cb">\n  <link name="cube">\n'
                '    <inertial><origin xyz="0 0 0" rpy="0 0 0"/><mass value="%g"/>\n'
                '      <inertia ixx="%.12g" ixy="0" ixz="0" iyy="%.12g" iyz="0" izz="%.12g"/></inertial>\n'
                '%s  </link>\n</robot>\n' % (CB_M, inertia, inertia, inertia, sph))
    path = os.path.join(tmp, "cube_cb.yaml")
    with open(path, "w") as f:
        f.write("name: cube_slide_contactbench\n"
                "world: {gravity: [0, 0, -%g], ground: {type: plane, height: 0}}\n"
                "robots:\n  - urdf: cube_cb.urdf\n    base: free\n"
                "    q0: [0, 0, %.12g, 0, 0, 0, 1]\n    v0: [0, %g, 0, 0, 0, 0]\n"
                "contact: {model: ncp, friction: %g, restitution: 0, baumgarte: 0}\n"
                "solver: {name: auto, tolerance: 1.0e-9, max_iterations: %d, warm_start: false}\n"
                "integrator: {dt: 1.0e-3, duration: %g}\n"
                "output: {path: out.h5, every: 1}\n" % (CB_G, CB_Z0, CB_V0, CB_MU, CB_MAXIT, CB_DURATION))
    return path


# analytic mechanical energy of cube.py's sliding cube (J)
def cb_e_analytic(t):
    v = np.maximum(CB_V0 - CB_MU * CB_G * t, 0.0)
    return 0.5 * CB_M * v ** 2 + CB_M * CB_G * CB_Z0


# the authors' rules (ContactBench solvers.hxx, simulators.py): tolerance in the units of their
# code (contactbench), ContactBench's rule (relative) with rel_th_stop rel, cold start unless warm
def cb_sets(tol, warm=False, rel=CB_REL, maxit=CB_MAXIT):
    return {"solver.tolerance": tol, "solver.tolerance_units": "contactbench",
            "solver.criterion": "relative", "solver.rel_tolerance": rel,
            "solver.warm_start": "true" if warm else "false", "solver.max_iterations": maxit}


# one run of cube.py's scene (scenario path from cb_scene) with model/solver and --set pairs
def cb_one(tmp, scene, model, solver, sets, duration=CB_DURATION):
    tag = "_".join("%s" % v for v in sets.values())
    out = os.path.join(tmp, "cb_%s_%s_%s.h5" % (model, solver, tag))
    s = {"contact.model": model, "solver.name": solver, "integrator.duration": duration}
    s.update(sets)
    C.run(scene, out, s)
    r = C.Run(out)
    os.remove(out)
    return r


# Tab. IV on cube.py's scene: {label: {tol: error}}, runs {label: {tol: Run}}, refs {label: Run};
# every run and its reference (tolerance CB_REF) under the same rule
def cb_sweep(tmp, scene, tols, models, warm=False, rel=CB_REL, rel_is_tol=False, maxit=CB_MAXIT):
    errs, runs, refs = {}, {}, {}
    for model, solver, label in models:
        ref = refs[label] = cb_one(tmp, scene, model, solver,
                                   cb_sets(CB_REF, warm, CB_REF if rel_is_tol else rel, maxit))
        runs[label] = {t: cb_one(tmp, scene, model, solver, cb_sets(t, warm, t if rel_is_tol else rel, maxit))
                       for t in tols}
        errs[label] = {t: C.integral_error(runs[label][t], ref) for t in tols}
    return errs, runs, refs
