#!/usr/bin/python3
"""Seed 001 Sec. VI-B (Fig. 9, the Allegro hand reorienting a mug; id 001-allegro):
`make fig-001-allegro` writes out/figures/fig001_allegro.png and .json.

scenarios/allegro_mug.yaml (16-dof Allegro hand, open-loop sine joint trajectories tracked by PD,
100 g mug, hunt_crossley, h = 0.7 ms): TAMSI over the paper's 15 s; TAMSI, implicit_euler + TALS
and implicit_euler without TALS (integrator.line_search none: plain Newton) over the first
HORIZON seconds, recorded at every step (implicit Euler needs 10-100 Newton iterations per step
here, so 15 s of it would take tens of minutes). Measured: wall time (whole `csim run` process
and the sum of /timing/step; timing columns, never asserted), Newton iterations, failed and
substepped steps, the mug's distance to the palm and its rotation, contacts on the mug.
"""
import os
import sys

import matplotlib
import numpy as np

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import figjson as J  # noqa: E402
import fig001_common as C  # noqa: E402

SCN = os.path.join(C.ROOT, "scenarios", "allegro_mug.yaml")
HORIZON = 0.5   # s, the three-way comparison (implicit Euler is slow here: minutes per second)
TFULL = 15.0    # s, the paper's TAMSI run
# palm box centre in the world: the hand frame at (0, 0, 0.3) turned by rpy [0, -pi/2, 0]
# maps the box origin (-0.0093, 0, -0.0475) (allegro_right_hand.urdf) to (0.0475, 0, 0.2907)
PALM = np.array([0.0475, 0.0, 0.2907])
MUG = 16        # first q index of the mug's free base (16 hand joints before it)
RUNS = [("tamsi", "tamsi", "tals", "tamsi (TALS)", "b"),
        ("ie", "implicit_euler", "tals", "implicit_euler + TALS", "g"),
        ("ie_plain", "implicit_euler", "none", "implicit_euler, no TALS (plain Newton)", "r")]


def series(f):
    q = f["/state/q"][:]
    cnt, off, body = f["/contacts/count"][:], f["/contacts/offset"][:], f["/contacts/body"][:]
    # contacts between the mug and a hand link (bodies: 0 the palm, 1..16 the finger links)
    nh = np.array([int(((body[o:o + n] < 17).any(axis=1) & (body[o:o + n] == 17).any(axis=1)).sum())
                   for o, n in zip(off, cnt)])
    qw = np.clip(np.abs(q[:, MUG + 6]), 0, 1)
    return {"t": f["/time"][:], "dist": np.linalg.norm(q[:, MUG:MUG + 3] - PALM, axis=1),
            "rot": np.degrees(2 * np.arccos(qw)), "wall": f["/timing/step"][:],
            "it": f["/compliant/newton_iterations"][:],
            "conv": f["/compliant/newton_converged"][:], "sub": f["/compliant/substeps"][:],
            "nh": nh}


def main():
    F = C.Figure("001-allegro")
    c, wall = {}, {}
    for k, scheme, ls, _, _ in RUNS:
        f, _, w = F.run(SCN, k, [("integrator.scheme", scheme), ("integrator.line_search", ls),
                                 ("integrator.duration", HORIZON), ("output.every", 1)])
        c[k], wall[k] = series(f), w
    ff, _, wfull = F.run(SCN, "tamsi_full", [("integrator.duration", TFULL), ("output.every", 1)])
    full = series(ff)
    step = {k: c[k]["wall"].sum() for k in c}
    tfull_step = full["wall"].sum()

    fig, ax = plt.subplots(2, 2, figsize=(15, 9.5))
    a = ax[0, 0]
    a.plot(full["t"], 1e3 * full["dist"], "b", lw=1, label="tamsi, 15 s")
    for k, _, _, lab, col in RUNS[1:]:
        a.plot(c[k]["t"], 1e3 * c[k]["dist"], color=col, lw=1, label=lab)
    a.set_xlabel("t [s]")
    a.set_ylabel("mug centre to palm-box centre [mm]")
    a.set_title("(a) the mug stays in the hand: distance to the palm (max %.1f mm, tamsi 15 s)"
                % (1e3 * full["dist"].max()), fontsize=10)
    a.legend(fontsize=8)
    a = ax[0, 1]
    a.plot(full["t"], full["rot"], "b", lw=1, label="tamsi, 15 s")
    for k, _, _, lab, col in RUNS[1:]:
        a.plot(c[k]["t"], c[k]["rot"], color=col, lw=1, label=lab)
    a.set_xlabel("t [s]")
    a.set_ylabel("mug rotation from its initial pose [deg]")
    a.set_title("(b) mug reorientation (final %.1f deg)" % full["rot"][-1], fontsize=10)
    a.legend(fontsize=8)
    a = ax[1, 0]
    for k, _, _, lab, col in RUNS:
        it = c[k]["it"]
        a.semilogy(c[k]["t"], np.maximum(it, 0.8), ".", ms=2, color=col,
                   label="%s: mean %.1f, max %d, substepped %d, failed %d"
                   % (lab, it.mean(), it.max(), (c[k]["sub"] > 1).sum(), (c[k]["conv"] == 0).sum()))
    a.set_xlabel("t [s]")
    a.set_ylabel("Newton iterations per 0.7 ms step")
    a.set_title("(c) Newton iterations, first %.1f s" % HORIZON, fontsize=10)
    a.legend(fontsize=7.5)
    a = ax[1, 1]
    for k, _, _, lab, col in RUNS:
        a.plot(np.cumsum(c[k]["wall"]), c[k]["t"], color=col,
               label="%s: %.3f s wall per simulated s" % (lab, step[k] / HORIZON))
    a.set_xscale("log")
    a.set_xlabel("wall-clock time, sum of step times [s] (log)")
    a.set_ylabel("simulated time [s]")
    a.set_title("(d) simulated vs wall-clock time (timing: this machine, not asserted)",
                fontsize=10)
    a.legend(fontsize=8)
    fig.suptitle("001 Sec. VI-B stand-in: Allegro hand (16 dofs), open-loop finger sines, 100 g "
                 "mug; hunt_crossley k = 3e3 N/m, mu = 1, h = 0.7 ms", fontsize=12)
    fig.tight_layout()

    rows = []
    for k, _, _, lab, _ in RUNS:
        paper = 1.0 if k == "tamsi" else None
        rows.append([lab, HORIZON, paper, step[k] / HORIZON, step[k] / step["tamsi"], wall[k],
                     float(c[k]["it"].mean()), int(c[k]["it"].max()),
                     int((c[k]["sub"] > 1).sum()), int((c[k]["conv"] == 0).sum()),
                     1e3 * float(c[k]["dist"].max()), float(c[k]["rot"][-1])])
    rows.append(["tamsi (TALS), the paper's 15 s", TFULL, 1.0, tfull_step / TFULL, None, wfull,
                 float(full["it"].mean()), int(full["it"].max()), int((full["sub"] > 1).sum()),
                 int((full["conv"] == 0).sum()), 1e3 * float(full["dist"].max()),
                 float(full["rot"][-1])])
    cols = ["run", "simulated [s]", "paper x TAMSI", "csim wall per simulated s [s]",
            "csim x TAMSI", "csim process wall [s]", "mean iterations", "max iterations",
            "steps substepped", "steps failed", "max mug-palm distance [mm]",
            "final mug rotation [deg]"]
    F_tables = [{"caption": "h = 0.7 ms; wall = sum of /timing/step (process wall beside it); "
                            "the paper: TAMSI 15 s in 7.0 s on an i7-6900K (0.47 s per simulated "
                            "s, 2.14x real time), 7.8x faster than error-controlled implicit "
                            "Euler with quasi-Newton (a = 0.01 m/s), which csim does not have",
                 "columns": cols, "rows": rows, "timing_columns": [3, 4, 5],
                 "tolerance": {"rel": 0.05, "abs": 1e-9}}]
    x_ie = min(step["ie"], step["ie_plain"]) / step["tamsi"]
    ie_better = step["ie"] < step["ie_plain"]
    m = ff["/state/q"][:, MUG:MUG + 3]   # the mug's centre stays over the palm box, near its face
    kept = bool(((m[:, 0] > 0) & (m[:, 0] < 0.095) & (np.abs(m[:, 1]) < 0.0565) &
                 (m[:, 2] > 0.33) & (m[:, 2] < 0.40)).all())
    it_ratio = float(c["ie"]["it"].mean() / c["ie_plain"]["it"].mean())
    turn = float(full["rot"].max()) if kept else 0.0
    rt = TFULL / tfull_step
    claims = [
        J.claim_record(
            "TAMSI at h = 0.7 ms runs 7.8x faster than the fastest implicit-Euler setup (the "
            "error-controlled implicit Euler with quasi-Newton at a = 0.01 m/s)",
            "csim: wall time of the faster fixed-step implicit_euler run / TAMSI's over the first "
            "%.1f s (timing)" % HORIZON, x_ie,
            J.judge(x_ie, 7.8, {"rel": 0.5}, direction={"lo": 1.0}, noise=3),
            "TAMSI is %.0fx faster than csim's faster implicit Euler (%s)." % (
                x_ie, "with TALS" if ie_better else "without TALS"),
            paper=7.8, tol={"rel": 0.5},
            reason="a ratio of two runs' wall times: +-50 %; the noise band a factor 3, as 001 "
                   "Fig. 7's ratios, which moved by up to 2.1x between runs (here 1582x on one "
                   "run, 2160x on the CI machine)",
            why="not the paper's baseline: csim's implicit Euler is fixed-step with full Newton, the "
                "paper's is error-controlled with quasi-Newton (a = 0.01 m/s, 001 Sec. VI-B), which "
                "csim does not have (issue 24 item 3); a fixed step of 0.7 ms makes implicit Euler "
                "fail and substep (table), so only the direction (TAMSI faster) is measured",
            noise=3),
        J.claim_record(
            "TALS does not improve implicit Euler here: as q changes, the tangent space reorients "
            "and TALS cannot control the transitions into stiction",
            "mean Newton iterations, implicit_euler + TALS / without TALS", it_ratio,
            J.judge(it_ratio, J.QUAL, {"lo": 1.0}),
            "Implicit Euler with TALS takes %.1f Newton iterations per step on average (%d failed "
            "steps), without TALS %.1f (%d failed)." % (
                c["ie"]["it"].mean(), (c["ie"]["conv"] == 0).sum(), c["ie_plain"]["it"].mean(),
                (c["ie_plain"]["conv"] == 0).sum()),
            paper=J.QUAL, tol={"lo": 1.0},
            reason="'does not improve' read strictly: with TALS at least as many Newton "
                   "iterations as without (iteration counts are deterministic: no noise band)",
            why="TALS cuts csim's mean iterations to %.2f of plain Newton's and the failed steps "
                "from %d to %d. The paper's explanation needs the configuration to change while "
                "contacts go into stiction; in csim's stand-in the mug turns by %.0f deg at most "
                "over 15 s and then rests (grasp claim), so that motion is small here, but whether "
                "it is the cause was not tested" % (
                    it_ratio, (c["ie_plain"]["conv"] == 0).sum(), (c["ie"]["conv"] == 0).sum(),
                    float(full["rot"].max()))),
        J.claim_record(
            "TAMSI completes 15 s of simulated time in 7.0 s of wall-clock time (2.14x real time)",
            "csim's real-time factor of TAMSI over 15 s (sum of step times; timing)", rt,
            J.judge(rt, 2.14, {"rel": 0.5}, direction={"lo": 1.0}, noise=10),
            "TAMSI runs 15 s in %.2f s of step time (%.1fx real time) with %d failed steps." % (
                tfull_step, rt, (full["conv"] == 0).sum()),
            paper=2.14, tol={"rel": 0.5},
            reason="an absolute wall time compares only on like hardware and scenes; +-50 % as "
                   "the first claim; the noise band a factor 10 (4.7x real time on this loaded "
                   "machine, 37.7x on the CI machine)",
            why="a different CPU (the paper's i7-6900K) and a smaller scene (box fingers, a "
                "cylinder mug instead of the paper's meshes): the factor is not comparable; "
                "csim is faster than real time as the paper's TAMSI is",
            noise=10),
        J.claim_record(
            "the hand holds the mug while reorienting it periodically (Fig. 9: multiple "
            "simultaneous contacts secure the grasp)",
            "largest mug rotation over 15 s with TAMSI while the mug stays on the palm (deg; 0 if "
            "it leaves)", turn, J.judge(turn, J.QUAL, {"lo": 90.0}, direction={"lo": 1e-9}),
            ("The mug stays on the palm" if kept else "The mug leaves the palm") +
            " (at most %.1f mm from the palm box's centre); it turns by %.1f deg at most and ends "
            "at %.1f deg." % (1e3 * full["dist"].max(), full["rot"].max(), full["rot"][-1]),
            paper=J.QUAL, tol={"lo": 90.0},
            reason="the paper gives no angle: a periodic reorientation is read as a turn of at "
                   "least a quarter turn (90 deg), well above what a mug settling against the "
                   "fingers turns",
            why="the grasp holds but the open-loop finger sines (the paper's trajectories are not "
                "published) turn the mug only once and leave it resting against the thumb's base; "
                "finger swings large enough to roll it threw it off the palm"),
    ]
    setup = ("scenarios/allegro_mug.yaml: the Allegro right hand (../shared/data/robots/allegro, "
             "box and sphere collisions, fixed base, palm up), a 100 g cylinder mug (r = 4 cm, "
             "10 cm) standing on the palm; each finger's three flexion joints track 0.8 + "
             "0.15 sin(2 pi t + phase) rad by PD (kp 0.3, kd 0.005), the fingers a quarter "
             "period apart, the thumb 0.5 + 0.2 sin; hunt_crossley k = 3e3 N/m, d = 2 s/m, "
             "mu = 1, v_s = 1e-4 m/s, h = 0.7 ms. The paper's mug mesh, hand model and "
             "trajectories are not published: chosen so the mug stays in the hand (larger "
             "swings threw it off). tamsi, implicit_euler + TALS and implicit_euler with "
             "line_search none over %.1f s; tamsi over 15 s." % HORIZON)
    F.finish(fig, "Sec. VI-B (Fig. 9)", "Allegro hand reorienting a mug: speed, Newton "
             "iterations, grasp", setup, F_tables, claims)
    for r in rows:
        print("  " + "  ".join(str(round(x, 4)) if isinstance(x, float) else str(x) for x in r))


if __name__ == "__main__":
    main()
