#!/usr/bin/python3
"""Seed 001 Fig. 5 (id 001-5): work-precision of implicit Euler with full (FN) and quasi-Newton
(QN) Jacobians, fixed-step and error-controlled (EC), with and without TALS, beside TAMSI, on the
stick-slip box of 001 Sec. IV-A. `make fig-001-5` writes out/figures/fig001_5.png and .json.

Measured the paper's way (001 Sec. IV-A): work is the number of dynamics evaluations, those of the
forward-difference Jacobians included (csim's work_dynamics_evaluations; TAMSI: one per step, its
contact-space Newton evaluates only the force law); precision is the localized error e_v, the L2
norm over windows of dw = 25 ms (divided by the square root of their number, 80: a per-window
error, comparable with v_s) of the horizontal velocity against a reference restarted from the
run's own state at every window (fig001_common.localized_error) and integrated by a 3rd-order
Runge-Kutta (h = 1e-6 s, checked against 5e-7 s). Each point is one step size h (fixed step) or
one accuracy a (EC: integrator.accuracy, output step 25 ms).

The scene: the paper's 2-D box is csim's 0.33 kg box on two prismatic joints (robots/
box_slider.urdf, x then z), so that it cannot pitch; its horizontal velocity then obeys the
paper's 1-D equation exactly (the free box of scenarios/stick_slip_box.yaml pitches when it
accelerates, which puts a floor of 2.8e-4 m/s under e_v against the 1-D reference).
"""
import os
import subprocess
import sys
import time

import h5py
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import figjson as J  # noqa: E402
import fig001_common as C  # noqa: E402

DW = 0.025
M, MC = 0.33, 0.001  # box and x-carriage masses (robots/box_slider.urdf)
HS = [0.025, 0.0125, 0.005, 0.0025, 0.001, 0.0005, 0.00025, 0.0001, 5e-5, 2.5e-5, 1e-5]  # fixed
AS = [0.1, 0.03, 0.01, 0.003, 0.001, 3e-4, 1e-4, 3e-5, 1e-5, 3e-6, 1e-6, 3e-7]  # EC accuracies
NEWTON_TOL = 1e-8  # m/s: below every error measured (e_v >= 1e-6)
SCENE = """name: box_slider
world: {gravity: [0, 0, -9.8], ground: {type: plane, height: 0}}
robots:
  - urdf: %s
    base: fixed
    q0: [0, 0.019991915]   # box centre at 0.02 m minus the equilibrium penetration m g / (4 k)
contact: {model: hunt_crossley, friction: 1.0, stiffness: 1.0e+5, damping: 10,
          stiction_velocity: 1.0e-4}
solver: {name: none}
integrator: {scheme: tamsi, dt: 1.0e-2, duration: 2.0, newton_tolerance: %g,
             newton_max_iterations: 50}
actions:
  - {type: force, body: box, direction: [1, 0, 0], point: [0, 0, -0.02], profile: sine,
     amplitude: 4.0, frequency: 1.0}
""" % (os.path.join(J.ROOT, "robots", "box_slider.urdf"), NEWTON_TOL)
CSIM = os.environ.get("CSIM", os.path.join(J.ROOT, "csim"))

# (key, label, style, scheme, jacobian, line_search, error-controlled)
METHODS = [("tamsi", "TAMSI + TALS, fixed h", "k^-", "tamsi", "full", "tals", False),
           ("fn", "IE FN + TALS, fixed h", "bs-", "implicit_euler", "full", "tals", False),
           ("fn_nt", "IE FN, no TALS, fixed h", "bs:", "implicit_euler", "full", "none", False),
           ("qn", "IE QN + TALS, fixed h", "gd-", "implicit_euler", "quasi_newton", "tals", False),
           ("qn_nt", "IE QN, no TALS, fixed h", "gd:", "implicit_euler", "quasi_newton", "none",
            False),
           ("fn_ec", "IE FN + TALS, EC", "bo-", "implicit_euler", "full", "tals", True),
           ("fn_ec_nt", "IE FN, no TALS, EC", "bo:", "implicit_euler", "full", "none", True),
           ("qn_ec", "IE QN + TALS, EC", "go-", "implicit_euler", "quasi_newton", "tals", True),
           ("qn_ec_nt", "IE QN, no TALS, EC", "go:", "implicit_euler", "quasi_newton", "none", True)]


# one run: (times, horizontal velocities, dynamics evaluations, Jacobians, exit code, wall)
def run(F, scene, name, sets):
    out = os.path.join(F.tmp, name + ".h5")
    cmd = [CSIM, "run", scene, "--quiet", "--out", out]
    for k, v in sets:
        cmd += ["--set", "%s=%s" % (k, v)]
    t = time.time()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=300)
    wall = time.time() - t
    if p.returncode != 0:
        print("fig001_5: %s exited %d: %s" % (name, p.returncode, p.stderr.strip()[:300]))
        return None
    with h5py.File(out, "r") as f:
        r = (f["/time"][:], f["/state/v"][:, 0], int(f.attrs["work_dynamics_evaluations"]),
             int(f.attrs["work_jacobian_evaluations"]), wall)
    os.remove(out)
    return r


# the settings of one method: (parameter, --set list) for each h or a
def settings(meth):
    _, _, _, scheme, jac, ls, ec = meth
    base = [("integrator.scheme", scheme), ("integrator.line_search", ls)]
    if scheme == "implicit_euler":
        base.append(("integrator.jacobian", jac))
    if ec:
        # the paper's EC integrator: Drake's ImplicitEulerIntegrator (its trapezoid estimate and
        # Newton stop on the accuracy)
        return [(a, base + [("integrator.accuracy", a), ("integrator.error_estimate", "trapezoid"),
                            ("integrator.dt", DW)]) for a in AS]
    return [(h, base + [("integrator.dt", h), ("output.every", int(round(DW / h)))]) for h in HS]


# largest error up to which a curve (errors e, work w) follows first order: the work within 2x
# of the line e w = const fitted (median) to its three most accurate points, at that point and
# every more accurate one. 001: "extending the range in which the first order behavior is valid"
def first_order_limit(e, w):
    o = np.argsort(e)
    e, w = np.asarray(e)[o], np.asarray(w)[o]
    c = np.median(e[:3] * w[:3])
    ok = w <= 2 * c / e
    k = len(e) if ok.all() else int(np.argmin(ok))
    return float(e[k - 1]) if k > 0 else float("nan")


def main():
    with J.Figure("001-5", "001", "Fig. 5", "work-precision of implicit Euler, FN/QN, EC, TALS") \
            as F:
        scene = os.path.join(F.tmp, "box_slider.yaml")
        with open(scene, "w") as fh:
            fh.write(SCENE)
        raw = {}
        for meth in METHODS:
            for p, sets in settings(meth):
                raw[(meth[0], p)] = run(F, scene, "%s_%g" % (meth[0], p), sets)
        # the reference of every window of every run at once, and a check of its step
        keys = [k for k in raw if raw[k] is not None]
        v0, t0, idx = [], [], []
        for k in keys:
            t, v = raw[k][0], raw[k][1]
            on = np.abs(t / DW - np.round(t / DW)) < 1e-9
            v0.append(v[on][:-1])
            t0.append(t[on][:-1])
            idx.append(len(v0[-1]))
        v0, t0 = np.concatenate(v0), np.concatenate(t0)
        vr = C.box_flow(m=M, mx=M + MC)(v0, t0, DW)
        sub = slice(0, min(len(v0), 160))
        vr_fine = C.box_flow(m=M, mx=M + MC, h=5e-7)(v0[sub], t0[sub], DW)
        ref_gap = float(np.max(np.abs(vr_fine - vr[sub])))
        res, pos = {}, 0
        for k, n in zip(keys, idx):
            r = vr[pos:pos + n]
            pos += n

            def flow(x, tt, dw, r=r):
                return r
            e, _ = C.localized_error(raw[k][0], raw[k][1], flow, DW, rms=True)
            res[k] = dict(e=e, work=raw[k][2], jac=raw[k][3], wall=raw[k][4])
        report(F, res, ref_gap)


# the curve of one method: (parameters, errors, work)
def curve(res, key):
    ps = [p for (k, p) in res if k == key]
    return ps, [res[(key, p)]["e"] for p in ps], [res[(key, p)]["work"] for p in ps]


def report(F, res, ref_gap):
    fig, ax = plt.subplots(figsize=(9, 6.5))
    limits = {}
    for key, lab, sty, *_ in METHODS:
        ps, es, ws = curve(res, key)
        if not ps:
            continue
        ax.loglog(ws, es, sty, label=lab, mfc="none" if ":" in sty else None)
        limits[key] = first_order_limit(es, ws)
    ax.axhline(1e-4, color="gray", lw=0.8)
    ax.text(ax.get_xlim()[0] * 1.1, 1.15e-4, "v_s = 1e-4 m/s", fontsize=8, color="gray")
    ax.set_xlabel("dynamics evaluations over 2 s (work, 001 Sec. IV-A)")
    ax.set_ylabel("localized error e_v (m/s), dw = 25 ms, RMS over windows")
    ax.set_title("001 Fig. 5: stick-slip box (slider), implicit Euler FN/QN, EC, TALS; TAMSI")
    ax.legend(fontsize=7)
    ax.grid(True, which="both", alpha=0.3)
    F.png(fig)
    rows = []
    for (k, p), r in sorted(res.items()):
        rows.append([k, p, r["e"], r["work"], r["jac"], r["wall"]])
    F.table("Every run: method, h (s, fixed step) or accuracy a (EC), localized error e_v (m/s), "
            "dynamics evaluations, Jacobian evaluations, wall time (s)",
            ["method", "h or a", "e_v", "evaluations", "Jacobians", "wall"], rows,
            timing_columns=[5], rel=0.05)
    ext = {k: limits.get(k, float("nan")) / limits.get(k + "_nt", float("nan"))
           for k in ("fn", "qn", "fn_ec", "qn_ec")}
    F.table("First-order range: the largest e_v up to which the curve's work stays within 2x of "
            "the first-order line fitted to its three most accurate points, with and without "
            "TALS, and their ratio (TALS's extension)",
            ["method", "limit with TALS", "limit without", "extension"],
            [[k, limits.get(k), limits.get(k + "_nt"), ext[k]] for k in ext])
    claims(F, res, limits, ext, ref_gap)


# the largest errors each method's curve reaches (the top of its sampled range)
def tops(res):
    return {k: max(r["e"] for (kk, _), r in res.items() if kk == k) for k, *_ in METHODS
            if any(kk == k for (kk, _) in res)}


def claims(F, res, limits, ext, ref_gap):
    top = tops(res)
    reason = ("the factor is read off 001 Fig. 5, a log-log plot on which the point where a curve "
              "leaves the first-order line is uncertain by about half a decade (x3) either way")
    for name, keys, paper in (("FN", ("fn", "fn_ec"), 10.0), ("QN", ("qn", "qn_ec"), 3.0)):
        k = max(keys, key=lambda kk: ext[kk] if np.isfinite(ext[kk]) else -1)
        val = ext[k]
        # TALS's curve still first order at the largest error sampled: the factor is a bound
        bound = limits.get(k) >= top.get(k, np.inf)
        tol = {"lo": paper / 3, "hi": paper * 3}
        v = J.judge(val, paper, tol, direction={"lo": 1.0})
        why = ("csim measures the extension as the ratio of the largest errors up to which the "
               "work stays within 2x of the first-order line (the paper gives no rule)")
        if bound:
            why += ("; with TALS the %s curve is still first order at the largest step sampled "
                    "(h = 25 ms, the window; EC: the output step caps the substep), so %.3g is a "
                    "lower bound, not a measured factor" % (k, val))
            v = "partly" if v == "reproduced" else v
        if name == "QN" and v != "reproduced":
            why += ("; csim's quasi-Newton refreshes its Jacobian as soon as an iteration shrinks "
                    "the residual less than tenfold, so without TALS it fails where full Newton "
                    "does (both depart at 4 v_s fixed-step) and TALS extends both alike; the "
                    "paper's QN without TALS departs later than its FN (factor 3 against 10)")
        F.claim("TALS extends the range in which the first-order behaviour holds, up to a factor "
                "of %g (%s)" % (paper, name),
                "largest ratio of first-order limits with/without TALS, %s, fixed step and EC "
                "(here %s%s)" % (name, k, ", a lower bound" if bound else ""), val, v,
                "TALS extends the first-order range of implicit Euler %s by %s%.3g (paper: up to "
                "%g)" % (name, ">= " if bound else "", val, paper), paper=paper, tol=tol,
                reason=reason, why=why if v in ("partly", "not reproduced") else "", rel=0.3)
    dep = {k: limits[k + "_nt"] / 1e-4 for k in ("fn", "qn", "fn_ec", "qn_ec")
           if np.isfinite(limits.get(k + "_nt", np.nan))}
    val = min(dep.values()) if dep else float("nan")
    tol = {"lo": 1.0, "hi": 10.0}
    v = J.judge(val, J.QUAL, tol)
    F.claim("for errors larger than v_s, integrators without TALS depart from the theoretical "
            "result", "smallest error (in units of v_s = 1e-4 m/s) at which an IE curve without "
            "TALS leaves the first-order line (FN, QN; fixed, EC: %s)"
            % ", ".join("%s %.2g" % (k, d) for k, d in dep.items()), val, v,
            "without TALS implicit Euler leaves first order from %.2g v_s" % val, paper=J.QUAL,
            tol=tol, reason="'larger than v_s' read as above v_s and within a decade of it, where "
                            "the paper's no-TALS curves bend",
            why="" if v == "qualitative" else "the departure is not within a decade above v_s",
            rel=0.3)
    ps, es, ws = curve(res, "qn_ec")
    sel = [i for i in range(len(ps)) if es[i] <= 2e-4]
    slope = C.fitted_order(np.array(ws)[sel], np.array(es)[sel]) if len(sel) >= 3 else float("nan")
    tol = {"lo": -1.3, "hi": -0.7}
    v = J.judge(slope, J.QUAL, tol)
    F.claim("the expected theoretical first order slope for errors near v_s or smaller",
            "fitted slope of log e_v against log work, IE QN + TALS with EC, e_v <= 2e-4 m/s",
            slope, v, "error-controlled IE follows a slope of %.2f in work-precision (first "
            "order: -1)" % slope, paper=J.QUAL, tol=tol,
            reason="first order is slope -1 (error ~ 1/work for fixed step, and ~ a^(1/2) with "
                   "work ~ a^(-1/2) under per-step control); +-0.3 covers the curvature a 1.5-"
                   "decade fit shows on such curves",
            why="" if v == "qualitative" else "the slope departs from -1 in that range", rel=0.1)
    F.setup = ("csim's 0.33 kg box on a plane (hunt_crossley k = 1e5 N/m per corner, d = 10 s/m, "
               "mu = 1, v_s = 1e-4 m/s) pushed by 4 sin(2 pi t) N, on two prismatic joints "
               "(robots/box_slider.urdf: it cannot pitch, so its horizontal velocity follows 001 "
               "Sec. IV-A's 1-D equation; a 1 g carriage adds to the moving mass, and the "
               "reference includes it). 2 s. Fixed steps h = 25 ms .. 0.1 ms (recorded every "
               "25 ms); error control (integrator.accuracy a = 0.1 .. 3e-7, output step 25 ms, "
               "Drake's ImplicitEulerIntegrator as the paper ran it: integrator.error_estimate "
               "trapezoid, its Newton stop on the accuracy). Newton tolerance 1e-8 m/s for the "
               "fixed steps. Work = dynamics evaluations (work_dynamics_"
               "evaluations), error = 001's localized e_v (dw = 25 ms; the L2 norm over the 80 "
               "windows divided by sqrt(80), so that e_v is a per-window error that compares "
               "with v_s as the paper's discussion does) "
               "against an RK3 reference at h = 1e-6 s restarted from each window's state; the "
               "reference at h = 5e-7 s differs by at most %.2g m/s on the windows checked. "
               "The Allegro comparison of 001 Sec. VI-B (TAMSI vs the fastest error-controlled "
               "IE, the paper's 7.8x) is 001-allegro's." % ref_gap)


if __name__ == "__main__":
    main()
