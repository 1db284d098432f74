#!/usr/bin/python3
"""Seed 001 Fig. 4 (id 001-4): Newton residual per iteration at the stick-slip box's first
slide-to-stick transition, h = 10 ms, with TALS and without (plain Newton), plus residual
backtracking without TALS. `make fig-001-4` writes out/figures/fig001_4.png and fig001_4.json.

All three runs start the transition step from the same state (checked: identical /state rows
before it), so the three Newton solves are the same problem. The residual history is csim's
/compliant/newton_history (output.newton_history = 64 > newton_max_iterations + 1)."""
import os
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import figjson as J  # noqa: E402
import fig001_common as C  # noqa: E402

K = 64
RUNS = [("none", "plain Newton (line_search: none)", "r"),
        ("backtracking", "no TALS, residual backtracking", "orange"),
        ("tals", "TALS (line_search: tals)", "b")]


def main():
    F = C.Figure("001-4")
    f = {}
    for ls, _, _ in RUNS:
        f[ls], _, _ = F.run(C.BOX, ls, [("integrator.line_search", ls),
                                         ("integrator.duration", 0.6),
                                         ("output.newton_history", K)])
    tol = 1e-10  # scenarios/stick_slip_box.yaml integrator.newton_tolerance
    k = C.first_stick(f["tals"])
    if k < 1:
        sys.exit("fig001_4: no slide-to-stick transition in the TALS run")
    t = f["tals"]["/time"][:]
    same = all(np.array_equal(f[ls]["/state/v"][:k + 1], f["tals"]["/state/v"][:k + 1]) and
               np.array_equal(f[ls]["/state/q"][:k + 1], f["tals"]["/state/q"][:k + 1])
               for ls, _, _ in RUNS)
    if not same:
        sys.exit("fig001_4: the runs reach the transition step from different states")
    k0 = int(np.argmax(f["tals"]["/compliant/stiction_count"][:] == 0))  # first sliding step
    hist = {ls: f[ls]["/compliant/newton_history"][k] for ls, _, _ in RUNS}
    res = {}
    for ls, _, _ in RUNS:
        h = hist[ls][np.isfinite(hist[ls])]
        res[ls] = dict(n=len(h) - 1, last=h[-1], hist=h,
                       conv=bool(h[-1] <= tol),
                       sub=int(f[ls]["/compliant/substeps"][k]),
                       it_step=int(f[ls]["/compliant/newton_iterations"][k]))
    ht = res["tals"]["hist"]
    # apparent order of the last TALS iterates: log r_{j+1} / log r_j (2 for Newton's quadratic
    # convergence when the residual's scale constant is ~1 m/s)
    p_tals = float(np.log(ht[-1]) / np.log(ht[-2])) if len(ht) >= 3 else float("nan")

    fig, ax = plt.subplots(1, 3, figsize=(18, 5.2))
    for i, (ls, lab, col) in enumerate(RUNS):
        h = res[ls]["hist"]
        a = ax[0] if ls != "tals" else ax[1]
        a.semilogy(np.arange(len(h)), h, "o-", color=col, ms=4,
                   label="%s: %d iterations, final %.2e m/s" % (lab, res[ls]["n"], h[-1]))
    for a, ttl in zip(ax[:2], ["without TALS (001 Fig. 4 top)", "with TALS (001 Fig. 4 bottom)"]):
        a.axhline(tol, color="0.5", ls="--", lw=0.8)
        a.text(0.5, tol * 2, "newton_tolerance 1e-10", fontsize=8, color="0.4")
        a.set_xlabel("Newton iteration")
        a.set_ylabel("residual max-norm [m/s]")
        a.set_title("%s, step at t = %.2f s, h = 10 ms" % (ttl, t[k]), fontsize=10)
        a.set_ylim(1e-17, 10)
        a.legend(fontsize=8, loc="lower left")
    ax[1].text(0.45, 0.55, "apparent order of the last\nTALS iterates: %.2f" % p_tals,
               transform=ax[1].transAxes, fontsize=9, bbox=dict(fc="w", ec="0.6"))
    a = ax[2]
    v = f["tals"]["/state/v"][:, 0]
    a.plot(t, v, "b.-", ms=3, label="box v_x, TALS run")
    a.axvspan(t[k], t[k] + 0.01, color="y", alpha=0.5, label="transition step (Fig. 4)")
    a.axhline(1e-4, color="0.6", lw=0.6)
    a.set_xlabel("t [s]")
    a.set_ylabel("v_x [m/s]")
    a.set_title("stick_slip_box.yaml: the step plotted", fontsize=10)
    a.legend(fontsize=8)
    fig.suptitle("001 Fig. 4: Newton residual history at the first slide-to-stick transition "
                 "(csim tamsi, hunt_crossley, v_s = 1e-4 m/s)", fontsize=11)
    fig.tight_layout()

    rows = [[lab, 1 if ls == "tals" else (0 if ls == "none" else None), int(res[ls]["conv"]),
             res[ls]["n"], C.num(res[ls]["last"]), res[ls]["sub"], res[ls]["it_step"]]
            for ls, lab, _ in RUNS]
    tables = [{"caption": "Newton solve of the whole 10 ms transition step starting at t = %.2f s "
                          "(paper: 1 = converges, 0 = does not; it gives no iteration counts)"
                          % t[k],
               "columns": ["line search", "paper converged", "csim converged",
                           "csim iterations (first solve)", "csim final residual [m/s]",
                           "csim substeps taken", "csim iterations (whole step)"],
               "rows": rows, "timing_columns": [],
               "tolerance": {"rel": 0.05, "abs": 1e-9}}]
    rn, rt = res["none"], res["tals"]
    claims = [
        J.claim_record(
            "Newton's method misses stiction, oscillates, and does not converge (Fig. 4, top; h = 10 ms, "
            "without TALS)",
            "residual after the 50 plain-Newton iterations of the transition step [m/s]", C.num(rn["last"]),
            "qualitative" if not rn["conv"] else "not reproduced",
            "Plain Newton stalls at a residual of %.2g m/s, alternating between two iterates after the first "
            "few, and the step is retaken in %d substeps by convergence control." % (rn["last"], rn["sub"]),
            paper=J.QUAL, tol={"lo": tol},
            reason="Fig. 4 gives the residual history without a value to compare; 'does not converge' is a "
                   "residual still above the step's Newton tolerance (1e-10, scenarios/stick_slip_box.yaml) "
                   "after the 50 iterations",
            why="plain Newton converged"),
        J.claim_record(
            "TALS detects the transition to stiction, limits the iteration update, and guides Newton's method "
            "to convergence (Fig. 4, bottom)",
            "Newton iterations of the transition step with TALS", rt["n"],
            "qualitative" if rt["conv"] and rt["n"] <= rn["n"] else "not reproduced",
            "With TALS the same step converges to %.1e m/s in %d iterations." % (rt["last"], rt["n"]),
            paper=J.QUAL, tol={"hi": rn["n"]},
            reason="'guides to convergence': converged to the Newton tolerance within the iterations plain "
                   "Newton spent without converging",
            why="TALS did not converge on the transition step"),
        J.claim_record(
            "TALS is able to ... even recover the second order convergence rate of Newton's method (Sec. IV-A)",
            "log r_last / log r_previous of the TALS iterates (2 = quadratic)", C.num(p_tals),
            J.judge(p_tals, 2, {"abs": 0.3}),
            "The last TALS iterates go from %.1e to %.1e m/s, an apparent order of %.2f." % (
                ht[-2], ht[-1], p_tals),
            paper=2, tol={"abs": 0.3},
            reason="'second order' is the integer 2; an apparent order from the last two residuals (scaled by "
                   "about 1 m/s) within 0.3 of 2 tells it from linear (1) and cubic (3) convergence",
            why="the apparent order of the last iterates is not 2"),
        J.claim_record(
            "the box first transitions from sliding into stiction at t = 0.160 s",
            "start of csim's first slide-to-stick step [s]", C.num(t[k]), J.judge(t[k], 0.160, {"abs": 0.01}),
            "csim's first sliding step starts at t = %.2f s and converges in %d iterations even without TALS; "
            "csim returns to stiction at %.2f-%.2f s." % (
                t[k0], int(f["none"]["/compliant/newton_iterations"][k0]), t[k], t[k] + 0.01),
            paper=0.160, tol={"abs": 0.01},
            reason="the paper prints the time to 1 ms; csim's steps are h = 10 ms, so +-one step",
            why="from rest with f = 4 sin(2 pi t) N the box leaves stiction when f exceeds mu m g (t = 0.150 s), "
                "so it cannot return to stiction by 0.160 s; csim returns where the reduced ODE of the box does, "
                "so the paper's phase, initial condition or wording must differ from the scene as it describes it"),
    ]
    setup = ("scenarios/stick_slip_box.yaml (0.33 kg box, mu = 1, f = 4 sin(2 pi t) N, "
             "hunt_crossley k = 1e5 N/m per corner, v_s = 1e-4 m/s, tamsi, h = 10 ms, "
             "newton_tolerance 1e-10, newton_max_iterations 50), 0.6 s, run three times with "
             "integrator.line_search = none, backtracking, tals and output.newton_history = %d. "
             "The plotted step is the first that ends in stiction (/compliant/stiction_count "
             "0 -> 4) in the TALS run; all runs reach it from bit-identical states, so each "
             "curve is the same Newton problem. The history is the whole step's first solve, "
             "before convergence control retakes a failed step in substeps." % K)
    F.finish(fig, "Fig. 4", "Newton residual per iteration at the first slide-to-stick "
             "transition, with and without TALS", setup, tables, claims)
    for ls, lab, _ in RUNS:
        print("  %-36s iterations %2d final residual %.3e converged %s substeps %d"
              % (lab, res[ls]["n"], res[ls]["last"], res[ls]["conv"], res[ls]["sub"]))
    print("  transition step at t = %.2f s; TALS apparent order %.2f" % (t[k], p_tals))


if __name__ == "__main__":
    main()
