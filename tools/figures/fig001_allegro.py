#!/usr/bin/python3
"""Seed 001 Sec. VI-B (Fig. 9, the Allegro hand reorienting a mug; id 001-allegro):
`make fig-001-allegro` writes out/figures/fig001_allegro.png and .json.

The paper's comparison measured its way: TAMSI at a fixed h = 0.7 ms against error-controlled (EC)
implicit Euler (integrator.accuracy a; Drake's ImplicitEulerIntegrator: integrator.error_estimate
trapezoid, the implicit-trapezoid estimate and Newton stop, Drake's step-size rule), full (FN) and
quasi-Newton (QN) Jacobians, with and without TALS, on scenarios/allegro_mug.yaml over the first
HORIZON seconds (EC implicit Euler costs 2-50 s of wall time per simulated second here, so the
paper's 15 s would take minutes per run). 001 Sec. VI-B: "TAMSI ... with a time step h = 0.7 ms,
runs 7.8x faster than our fastest integrator setup, the error-controlled implicit Euler using
quasi-Newton when solving to a (loose) accuracy of a = 0.01 m/s" -- a is the integrator's accuracy
setting (Drake's, 001 Sec. III-B, "roughly the desired number of significant digits"), in m/s.
Beside the setting, every run's accuracy is measured by 001 Sec. IV-A's localized error
(fig001_common.localized_error): windows of DW = 24.5 ms (35 TAMSI steps: the paper's 25 ms is no
multiple of 0.7 ms), the reference of each window restarted from the run's own state (hand and
mug q, v; the trajectory's phase advanced to the window's start) and integrated by TAMSI at
H_REF = 2e-5 s (35x finer than the test; checked against 1e-5 s on the first windows); the error
is the RMS over windows of the L2 norm of the generalized velocity error (22 dofs: the hand's 16
joint rates in rad/s, the mug's velocity in m/s and rad/s, as 001 Fig. 8's "L2-norm of the
generalized velocity errors"). Work: dynamics evaluations (work_dynamics_evaluations, 001 Sec.
IV-A); wall: the sum of /timing/step. TAMSI over the paper's 15 s as well (real-time factor, the
mug's rotation). The fixed-step implicit Euler of the earlier version of this figure is not rerun
(its 0.5 s took minutes, failing and substepping at h = 0.7 ms; docs/figures.md history).
"""
import os
import re
import subprocess
import sys
import time

import h5py
import matplotlib
import numpy as np

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import figjson as J  # noqa: E402
import fig001_common as C  # noqa: E402

SCN = os.path.join(C.ROOT, "scenarios", "allegro_mug.yaml")
H = 7.0e-4      # s, TAMSI's step (001 Sec. VI-B)
DW = 35 * H     # s, the localized error's window (001 Sec. IV-A: 25 ms)
NW = 20         # windows' start rows: the horizon is NW * DW = 0.49 s, NW - 1 windows measured
HORIZON = NW * DW
H_REF = 2e-5    # s, the reference's TAMSI step; H_CHECK on the first N_CHECK windows of TAMSI
H_CHECK, N_CHECK = 1e-5, 4
TFULL = 15.0    # s, the paper's TAMSI run
A_PAPER = 0.01  # m/s, the paper's accuracy
MUG = 16        # first q index of the mug's free base (16 hand joints before it), v index too
PALM = np.array([0.0475, 0.0, 0.2907])  # palm box centre in the world (see the scenario)
# (key, label, jacobian, line search, accuracy, error estimate): Drake's estimate and Newton stop
# (the paper's integrator), and csim's step doubling at a = 0.01 beside them (Newton tolerance
# a / 100 there: well below a so that the Newton error does not enter the estimate; the
# scenario's 1e-8 for TAMSI); only Drake's runs compete for the paper's "fastest setup"
EC = [("qn_3e-2", "IE QN + TALS, EC a = 0.03", "quasi_newton", "tals", 0.03, "trapezoid"),
      ("qn_1e-2", "IE QN + TALS, EC a = 0.01", "quasi_newton", "tals", 0.01, "trapezoid"),
      ("fn_1e-2", "IE FN + TALS, EC a = 0.01", "full", "tals", 0.01, "trapezoid"),
      ("qn_3e-3", "IE QN + TALS, EC a = 0.003", "quasi_newton", "tals", 0.003, "trapezoid"),
      ("qn_1e-3", "IE QN + TALS, EC a = 0.001", "quasi_newton", "tals", 0.001, "trapezoid"),
      ("qn_1e-2_sd", "IE QN + TALS, EC a = 0.01, step doubling", "quasi_newton", "tals", 0.01,
       "step_doubling")]
# TALS on/off over the first NW_TALS windows only: without TALS EC implicit Euler is 2-50x
# costlier (over 0.1 s it takes minutes)
NW_TALS = 2
TAMSI_REPEAT = 3  # TAMSI's 0.49 s takes ~0.1 s: its step time is the least of 3 runs


# the mug's rotation from its initial orientation (deg) per row
def rotation(q):
    qm = q[:, MUG + 3:MUG + 7]
    return np.degrees(2 * np.arccos(np.clip(np.abs(qm @ qm[0]), 0, 1)))


# `csim run SCN --set ...` into F.tmp/NAME.h5: (open h5py file, path, process wall time)
def csim(F, name, sets):
    out = os.path.join(F.tmp, name + ".h5")
    cmd = [C.CSIM, "run", SCN, "--quiet", "--out", out]
    for k, v in sets:
        cmd += ["--set", "%s=%s" % (k, v)]
    t = time.time()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        sys.exit("fig001_allegro: exit %d: %s\n%s" % (p.returncode, " ".join(cmd), p.stderr))
    return h5py.File(out, "r"), out, time.time() - t


# one csim run: the series and totals this figure uses
def run(F, name, sets):
    f, out, wall = csim(F, name, sets)
    with f:
        q, v, t = f["/state/q"][:], f["/state/v"][:], f["/time"][:]
        r = dict(t=t, q=q, v=v, rot=rotation(q), wall=wall, step=float(f["/timing/step"][:].sum()),
                 evals=int(f.attrs["work_dynamics_evaluations"]),
                 jacs=int(f.attrs["work_jacobian_evaluations"]),
                 iters=int(f["/compliant/newton_iterations"][:].sum()),
                 dist=float(np.linalg.norm(q[:, MUG:MUG + 3] - PALM, axis=1).max()))
        for k in ("substeps", "rejected_substeps"):
            if "/compliant/" + k in f:
                r[k] = int(f["/compliant/" + k][:].sum())
    os.remove(out)
    return r


# the window-start rows of a run: every multiple of DW up to (NW - 1) DW
def window_rows(t):
    m = np.round(t / DW)
    on = np.flatnonzero(np.abs(t - m * DW) <= 1e-9)
    return on[:NW]


class Reference:
    """001 Sec. IV-A's localized reference: x_r^m = Phi_DW(x^(m-1)), TAMSI at a fine step from the
    run's own state at the window's start (the open-loop trajectory's phase advanced to it)."""

    def __init__(self, F):
        self.F = F
        # the scenario's one trajectory action (no YAML module among the figure dependencies)
        with open(SCN) as fh:
            txt = fh.read()
        ph, fr = re.search(r"phase:\s*\[([^\]]*)\]", txt), re.search(r"freq:\s*([0-9.eE+-]+)", txt)
        if not ph or not fr or txt.count("type: trajectory") != 1:
            sys.exit("fig001_allegro: %s: expected one trajectory action with freq and phase" % SCN)
        self.phase = np.array([float(x) for x in ph.group(1).split(",")])
        self.freq = float(fr.group(1))
        self.j12 = "joint_12.0"   # the scenario's joints: override, applied after q0
        self.n = 0

    # the velocity at t0 + DW from (q, v) at t0, TAMSI at step h
    def __call__(self, q, v, t0, h=H_REF):
        steps = int(round(DW / h))
        ph = self.phase + 2 * np.pi * self.freq * t0
        lst = lambda x: "[%s]" % ",".join("%.17g" % y for y in x)  # noqa: E731
        sets = [("integrator.dt", h), ("integrator.duration", (steps + 0.5) * h),
                ("output.every", steps), ("robots.0.q0", lst(q[:MUG])),
                ("robots.0.v0", lst(v[:MUG])), ("robots.0.joints", "{%s: %.17g}" % (self.j12, q[12])),
                ("robots.1.q0", lst(q[MUG:])), ("robots.1.v0", lst(v[MUG:])),
                ("actions.0.phase", lst(ph))]
        self.n += 1
        name = "ref%d" % self.n
        f, out, _ = csim(self.F, name, sets)
        with f:
            t, vr = f["/time"][:], f["/state/v"][:]
        os.remove(out)
        if len(t) < 2 or abs(t[1] - DW) > 1e-9:
            sys.exit("fig001_allegro: reference run ended at %s, not at DW" % t)
        return vr[1]


# 001's localized error of a run: (RMS over windows of |v - v_r|, of the mug's part)
def localized(r, ref):
    rows = window_rows(r["t"])
    t, q, v = r["t"][rows], r["q"][rows], r["v"][rows]
    vr = np.array([ref(q[m], v[m], t[m]) for m in range(len(rows) - 1)])

    def flow(x, tt, dw):
        return vr
    e, _ = C.localized_error(t, v, flow, DW, rms=True)
    em = np.sqrt(((v[1:, MUG:] - vr[:, MUG:]) ** 2).sum(axis=1).mean())
    return e, float(em), vr


def main():
    with J.Figure("001-allegro", "001", "Sec. VI-B (Fig. 9)",
                  "Allegro hand reorienting a mug: TAMSI vs error-controlled implicit Euler") as F:
        res = {}
        # every step recorded: /timing/step is the time of the recorded steps only
        tam = [run(F, "tamsi%d" % i, [("integrator.duration", HORIZON),
                                      ("output.every", 1)]) for i in range(TAMSI_REPEAT)]
        res["tamsi"] = min(tam, key=lambda r: r["step"])
        for k, _, jac, ls, a, est in EC:
            res[k] = run(F, k, [("integrator.scheme", "implicit_euler"),
                                ("integrator.accuracy", a), ("integrator.jacobian", jac),
                                ("integrator.error_estimate", est),
                                ("integrator.line_search", ls), ("integrator.dt", DW),
                                ("integrator.duration", HORIZON), ("output.every", 1),
                                ("integrator.newton_tolerance", a / 100)])
        tals = {ls: run(F, "tals_" + ls, [("integrator.scheme", "implicit_euler"),
                                          ("integrator.accuracy", A_PAPER),
                                          ("integrator.jacobian", "quasi_newton"),
                                          ("integrator.error_estimate", "trapezoid"),
                                          ("integrator.line_search", ls), ("integrator.dt", DW),
                                          ("integrator.duration", NW_TALS * DW),
                                          ("output.every", 1),
                                          ("integrator.newton_tolerance", A_PAPER / 100)])
                for ls in ("tals", "none")}
        full = run(F, "tamsi_full", [("integrator.duration", TFULL), ("output.every", 1)])
        ref = Reference(F)
        for k, r in res.items():
            r["e"], r["e_mug"], r["vr"] = localized(r, ref)
        # the reference's own error: the finer reference on TAMSI's first windows
        tr = res["tamsi"]
        rows = window_rows(tr["t"])[:N_CHECK]
        gap = max(float(np.linalg.norm(ref(tr["q"][m], tr["v"][m], tr["t"][m], H_CHECK) -
                                       tr["vr"][i])) for i, m in enumerate(rows))
        report(F, res, full, tals, gap, ref.n)


def report(F, res, full, tals, gap, nref):
    tam = res["tamsi"]
    labels = dict([("tamsi", "TAMSI + TALS, h = 0.7 ms")] + [(k, lab) for k, lab, *_ in EC])
    fig, ax = plt.subplots(1, 3, figsize=(17, 5.2))
    a = ax[0]
    for k, r in res.items():
        a.loglog(r["step"], r["e"], "ks" if k == "tamsi" else "o", ms=8, label=labels[k])
    a.axhline(A_PAPER, color="gray", lw=0.8)
    a.text(a.get_xlim()[0] * 1.1 if a.get_xlim()[0] > 0 else 0.1, A_PAPER * 1.1,
           "0.01 m/s (the paper's a)", fontsize=8, color="gray")
    a.set_xlabel("wall time over %.2f s: sum of step times [s]" % HORIZON)
    a.set_ylabel("localized error e_v (22 dofs; DW = 24.5 ms, RMS over windows)")
    a.set_title("(a) wall time vs 001's localized error (timing: this machine)", fontsize=10)
    a.legend(fontsize=7)
    a.grid(True, which="both", alpha=0.3)
    a = ax[1]
    for k, r in res.items():
        a.loglog(r["evals"], r["e"], "ks" if k == "tamsi" else "o", ms=8, label=labels[k])
    a.set_xlabel("dynamics evaluations over %.2f s (work, 001 Sec. IV-A)" % HORIZON)
    a.set_ylabel("localized error e_v")
    a.set_title("(b) work vs localized error", fontsize=10)
    a.grid(True, which="both", alpha=0.3)
    a = ax[2]
    a.plot(full["t"], full["rot"], "b", lw=1, label="TAMSI, 15 s")
    for k, r in res.items():
        if k != "tamsi":
            a.plot(r["t"], r["rot"], lw=1, label=labels[k])
    a.set_xscale("symlog", linthresh=1.0)
    a.set_xlabel("t [s] (linear to 1 s, then log)")
    a.set_ylabel("mug rotation from its initial pose [deg]")
    a.set_title("(c) mug reorientation (TAMSI 15 s: max %.1f deg)" % full["rot"].max(),
                fontsize=10)
    a.legend(fontsize=7)
    fig.suptitle("001 Sec. VI-B: Allegro hand (16 dofs), open-loop finger sines, 100 g mug; "
                 "hunt_crossley k = 3e3 N/m, mu = 1, v_s = 1e-4 m/s", fontsize=11)
    fig.tight_layout()
    F.png(fig)
    rows = []
    for k, r in res.items():
        rows.append([labels[k], r["e"], r["e_mug"], r["evals"], r["jacs"], r["iters"],
                     r.get("substeps", round(HORIZON / H)), r.get("rejected_substeps", 0),
                     float(r["rot"].max()), r["step"], r["step"] / tam["step"],
                     r["evals"] / tam["evals"]])
    F.table("Every run over the first %.2f s (%d windows of 24.5 ms): 001's localized error e_v "
            "(all 22 velocities; the mug's 6 alone), dynamics evaluations, Jacobians, Newton "
            "iterations, accepted and rejected substeps, the mug's largest rotation, the sum of "
            "step times, and both as multiples of TAMSI's. References: %d TAMSI runs at h = %g s "
            "(at %g s they differ by at most %.2g in |v| on TAMSI's first %d windows)"
            % (HORIZON, NW - 1, nref, H_REF, H_CHECK, gap, N_CHECK),
            ["run", "e_v", "e_v mug", "evaluations", "Jacobians", "Newton iterations",
             "substeps", "rejected", "mug rotation max [deg]", "wall [s]", "wall x TAMSI",
             "evaluations x TAMSI"], rows, timing_columns=[9, 10], rel=0.05)
    F.table("TAMSI over the paper's 15 s (the paper: 7.0 s on an i7-6900K, 2.14x real time)",
            ["run", "simulated [s]", "wall, sum of step times [s]", "real-time factor",
             "max mug-palm distance [mm]", "mug rotation max [deg]", "final [deg]"],
            [["TAMSI + TALS, h = 0.7 ms", TFULL, full["step"], TFULL / full["step"],
              1e3 * full["dist"], float(full["rot"].max()), float(full["rot"][-1])]],
            timing_columns=[2, 3], rel=0.05)
    F.table("TALS on and off: EC implicit Euler QN, a = 0.01, over the first %.3f s" % (
        NW_TALS * DW), ["line search", "evaluations", "Jacobians", "Newton iterations",
                        "substeps", "rejected", "wall [s]"],
        [[ls, r["evals"], r["jacs"], r["iters"], r["substeps"], r["rejected_substeps"], r["step"]]
         for ls, r in tals.items()], timing_columns=[6], rel=0.05)
    claims(F, res, full, tals, gap)


def claims(F, res, full, tals, gap):
    tam = res["tamsi"]
    # "solving to a (loose) accuracy of a = 0.01": any setting at least that tight qualifies (here
    # looser settings cost more: their larger substeps fail Newton and are rejected more often)
    acc = dict((k, a) for k, *_, a, est in EC if est == "trapezoid")
    best = min((k for k in acc if acc[k] <= A_PAPER), key=lambda k: res[k]["step"])
    x = res[best]["step"] / tam["step"]
    xw = res[best]["evals"] / tam["evals"]
    b = res[best]
    tol = {"lo": 7.8 / 2, "hi": 7.8 * 2}
    F.claim("TAMSI at h = 0.7 ms runs 7.8x faster than the fastest integrator setup, the "
            "error-controlled implicit Euler with quasi-Newton at a = 0.01 m/s",
            "wall time (sum of step times) of the fastest EC implicit Euler run with a <= 0.01 "
            "(Drake's estimate; FN/QN with TALS, a = 0.01, 0.003, 0.001; without TALS it is "
            "costlier, see the TALS claim; here %s) / TAMSI's, first %.2f s (timing)" % (best, HORIZON), x,
            J.judge(x, 7.8, tol, noise=3),
            "TAMSI is %.0fx faster than csim's fastest EC implicit Euler with a <= 0.01 (%s: %.0fx "
            "TAMSI's dynamics evaluations, %d of %d substeps rejected; at a = 0.01 itself %.0fx "
            "in wall time); 001's localized error e_v (22 velocities) is %.2g for TAMSI, %.2g "
            "for that run and %.2g for a = 0.01; csim's step doubling at a = 0.01 is %.0fx TAMSI" % (
                x, best, xw, b["rejected_substeps"], b["substeps"] + b["rejected_substeps"],
                res["qn_1e-2"]["step"] / tam["step"], tam["e"], b["e"], res["qn_1e-2"]["e"],
                res["qn_1e-2_sd"]["step"] / tam["step"]),
            paper=7.8, tol=tol,
            reason="7.8 is printed to two digits (+-0.05), but a ratio of wall times of two "
                   "implementations (Drake's integrators, csim's) on different CPUs and scenes "
                   "(the paper's meshes, csim's boxes) is read within a factor 2 either way; "
                   "the noise band a factor 3 (TAMSI's 0.49 s takes 6-35 ms of step time on "
                   "the shared 2-core machine, the EC runs seconds, and the two scale differently "
                   "with load: the ratio moved by 2.1x between a CI run beside other work and "
                   "one alone (951 and 461, step doubling), 1.6x between two runs here (175 "
                   "and 281))",
            why=why_slow(res, best), noise=3)
    qf = res["qn_1e-2"]["step"] / res["fn_1e-2"]["step"]
    F.claim("the fastest EC implicit Euler setup uses quasi-Newton",
            "wall time of EC IE QN + TALS / FN + TALS at a = 0.01 (timing)", qf,
            J.judge(qf, J.QUAL, {"hi": 1.0}, noise=2),
            "quasi-Newton takes %.3g of full Newton's wall time at a = 0.01 with %.3g of its "
            "dynamics evaluations (%d and %d Jacobians)" % (
                qf, res["qn_1e-2"]["evals"] / res["fn_1e-2"]["evals"], res["qn_1e-2"]["jacs"],
                res["fn_1e-2"]["jacs"]),
            paper=J.QUAL, tol={"hi": 1.0},
            reason="'fastest ... using quasi-Newton' read as less wall time than full Newton at "
                   "the same accuracy; the noise band a factor 2 (a ratio of two EC runs of seconds each, which load alike: 0.097 and 0.115 in two runs)",
            why="quasi-Newton is not the slower here (Jacobians / Newton iterations %.2f against "
                "full Newton's 1)" % (res["qn_1e-2"]["jacs"] / max(res["qn_1e-2"]["iters"], 1)),
            noise=2)
    r = tals["tals"]["evals"] / tals["none"]["evals"]
    F.claim("TALS does not improve the performance of implicit Euler (as q changes, the tangent "
            "space reorients and TALS cannot control the transitions into stiction)",
            "dynamics evaluations of EC IE QN with TALS / without TALS, a = 0.01, first %.3f s"
            % (NW_TALS * DW), r, J.judge(r, J.QUAL, {"lo": 1 / 1.25}),
            "with TALS EC implicit Euler (QN, a = 0.01) takes %d dynamics evaluations over the "
            "first %.3f s, without %d (%d and %d rejected substeps)" % (
                tals["tals"]["evals"], NW_TALS * DW, tals["none"]["evals"],
                tals["tals"]["rejected_substeps"], tals["none"]["rejected_substeps"]),
            paper=J.QUAL, tol={"lo": 1 / 1.25},
            reason="'does not improve' read as TALS saving less than 20 % of the work (001 Fig. "
                   "5's TALS gains are factors of 3-10); evaluation counts are deterministic",
            why="TALS saves csim's implicit Euler more than 20 %% of its dynamics evaluations "
                "here; the paper's explanation needs the configuration to change while contacts "
                "go into stiction, and csim's mug turns only %.0f deg in the horizon, so that "
                "motion is small here; whether it is the cause was not tested" %
                res["qn_1e-2"]["rot"].max())
    rt = TFULL / full["step"]
    F.claim("TAMSI completes 15 s of simulated time in 7.0 s of wall-clock time (2.14x real time)",
            "csim's real-time factor of TAMSI over 15 s (sum of step times; timing)", rt,
            J.judge(rt, 2.14, {"rel": 0.5}, direction={"lo": 1.0}, noise=10),
            "TAMSI runs 15 s in %.2f s of step time (%.1fx real time)" % (full["step"], rt),
            paper=2.14, tol={"rel": 0.5},
            reason="an absolute wall time compares only on like hardware and scenes; +-50 %; the "
                   "noise band a factor 10 (4.7x real time on a loaded machine, 37.7x on the CI "
                   "machine)",
            why="a different CPU (the paper's i7-6900K) and a smaller scene (box fingers, a "
                "cylinder mug instead of the paper's meshes): the factor is not comparable; "
                "csim is faster than real time as the paper's TAMSI is", noise=10)
    m = full["q"][:, MUG:MUG + 3]  # the mug's centre stays over the palm box, near its face
    kept = bool(((m[:, 0] > 0) & (m[:, 0] < 0.095) & (np.abs(m[:, 1]) < 0.0565) &
                 (m[:, 2] > 0.33) & (m[:, 2] < 0.40)).all())
    turn = float(full["rot"].max()) if kept else 0.0
    F.claim("the hand holds the mug while reorienting it periodically (Fig. 9: multiple "
            "simultaneous contacts secure the grasp)",
            "largest mug rotation over 15 s with TAMSI while the mug stays on the palm (deg; 0 if "
            "it leaves)", turn, J.judge(turn, J.QUAL, {"lo": 90.0}, direction={"lo": 1e-9}),
            ("The mug stays on the palm" if kept else "The mug leaves the palm") +
            " (at most %.1f mm from the palm box's centre); it turns by %.1f deg at most and ends "
            "at %.1f deg" % (1e3 * full["dist"], full["rot"].max(), full["rot"][-1]),
            paper=J.QUAL, tol={"lo": 90.0},
            reason="the paper gives no angle: a periodic reorientation is read as a turn of at "
                   "least a quarter turn (90 deg), well above what a mug settling against the "
                   "fingers turns",
            why="the grasp holds but the open-loop finger sines (the paper's trajectories are not "
                "published) turn the mug by %.0f deg at most over the 15 s (%.0f at the end); finger "
                "swings large enough to roll it threw it off the palm (scenario comment)" % (
                    full["rot"].max(), full["rot"][-1]))
    F.setup = ("scenarios/allegro_mug.yaml: the Allegro right hand (../shared/data/robots/"
               "allegro, box and sphere collisions, fixed base, palm up), a 100 g cylinder mug "
               "(r = 4 cm, 10 cm) standing on the palm; each finger's three flexion joints track "
               "0.8 + 0.15 sin(2 pi t + phase) rad by PD (kp 0.3, kd 0.005), the fingers a "
               "quarter period apart, the thumb 0.5 + 0.2 sin; hunt_crossley k = 3e3 N/m, "
               "d = 2 s/m, mu = 1, v_s = 1e-4 m/s. TAMSI at h = 0.7 ms (Newton tolerance 1e-8; "
               "its step time the least of %d runs) and error-controlled implicit Euler "
               "(integrator.accuracy a = 0.03, 0.01, 0.003, 0.001 with QN + TALS, 0.01 with FN + "
               "TALS; Drake's ImplicitEulerIntegrator: integrator.error_estimate trapezoid, its "
               "Newton stop eta |dv| < 0.05 a; csim's step doubling at a = 0.01 beside them, "
               "Newton tolerance a/100; output step 24.5 ms) over the first %.2f s; TAMSI over "
               "15 s. The paper's a = 0.01 m/s is the "
               "integrator's accuracy setting; each run's accuracy is also measured as 001 Sec. "
               "IV-A's localized error e_v over the 22 generalized velocities (windows of 24.5 "
               "ms = 35 TAMSI steps, references by TAMSI at %g s restarted from the run's own "
               "state; the finer %g s reference differs by at most %.2g). The paper's hand "
               "model, mug mesh and trajectories are not published." % (
                   TAMSI_REPEAT, HORIZON, H_REF, H_CHECK, gap))


# what makes csim's EC implicit Euler slower than the paper's: measured, per run
def why_slow(res, best):
    b, tam = res[best], res["tamsi"]
    att = b["substeps"] + b["rejected_substeps"]
    return ("csim's EC implicit Euler (Drake's estimate and Newton stop) takes %d accepted substeps "
            "(mean %.2g ms against TAMSI's 0.7 ms) and %d rejected, %.1f Newton iterations per attempt "
            "(an implicit Euler and a trapezoid solve each) and %d Jacobians of 22 evaluations: %.0fx "
            "TAMSI's dynamics evaluations. The substeps are small because the estimate is: the mug's "
            "and fingertips' regularized friction (v_s = 1e-4 m/s) changes the acceleration over "
            "velocity changes of 0.1 mm/s, so implicit Euler and the trapezoid differ by more than "
            "a = 0.01 m/s at steps well under TAMSI's. TAMSI's Newton works in contact space on a frozen "
            "configuration and evaluates only the force law; implicit Euler's Newton on the full "
            "22-dof residual needs finite-difference Jacobians. Dynamics evaluations by accuracy: %s "
            "(a looser setting takes larger substeps, more of them rejected). Drake's error norm with its "
            "default unit weights is this max-norm of q and v too, and its step-size rule is "
            "csim's; what is not reproduced is the scene: the paper's hand model, meshes, "
            "trajectories and contact parameters are not published" % (
                b["substeps"], 1e3 * HORIZON / b["substeps"], b["rejected_substeps"],
                b["iters"] / max(att, 1), b["jacs"], b["evals"] / tam["evals"],
                ", ".join("%d at a = %g" % (res[k]["evals"], a) for k, *_, a, est in EC
                          if k.startswith("qn_") and est == "trapezoid")))


if __name__ == "__main__":
    main()
