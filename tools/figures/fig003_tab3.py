#!/usr/bin/python3
"""Seed 003 Tab. III (id 003-tab3): the cube-toss errors of Drake, MuJoCo and Bullet at their
identified parameters (Tab. II), against csim's stand-in for each and the real Bullet 3.24.
`make fig-003-tab3` writes out/figures/fig003_tab3.png and .json.

Each row is run as the paper's code runs its simulator (dairlib `evaluate_cube_parameters.py`:
the `*_10` results, 10 substeps per data period, every simulator from the toss's first row):
- Drake: csim's hunt_crossley with Tab. II's k, d, mu on the table and Drake's default material on
  the cube, combined as Drake combines them (docs/cubetoss/params/seed003_drake_default_cube.yaml;
  docs/validation.md says why the literal reading is not Drake's model);
- MuJoCo: csim's ccp with Tab. II's solref [-3850, -63], mu 0.23 and MuJoCo's default solimp
  (docs/cubetoss/params/seed003_mujoco_solref.yaml), in MuJoCo's default pyramidal cone solved by
  MuJoCo's default Newton method (`mujoco_cube_sim.py` sets neither `cone` nor `solver`);
- Bullet: the real Bullet 3.24 with Tab. II's parameters set as pybullet sets them
  (tools/figures/cubetoss_bullet.py), scored by csim's e_q code;
- beside them the real MuJoCo 2.2.2 on the paper's own model file (tools/bench/cubetoss_mujoco.c):
  a check of csim's pipeline (initial states, metric) and the reference for csim's ccp.
"""
import math
import os
import subprocess
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import figjson as J  # noqa: E402

ROOT = J.ROOT
CSIM = os.path.join(ROOT, "csim")
PARAMS = os.path.join(ROOT, "docs", "cubetoss", "params")
N_PAPER = 550  # the paper's tosses (Tab. III averages all of them, evaluate_cube_parameters.py)
# Tab. III: (e_q, sigma), (position % side, sigma), (rotation deg, sigma); cells printed to 0.01,
# 0.1 and 0.1
PAPER = {"Drake": ((0.27, 0.57), (13.6, 11.1), (16.5, 20.0)),
         "MuJoCo": ((0.38, 0.62), (27.0, 12.4), (22.0, 21.3)),
         "Bullet": ((0.27, 0.57), (15.1, 9.1), (16.5, 20.1))}
HALF_UNIT = (0.005, 0.05, 0.05)
COLS = (("e_q", "e_q"), ("position error (% side)", "pos_err"), ("rotation error (deg)", "rot_err"))
RUNS = (("Drake", "hunt_crossley", "seed003_drake_default_cube.yaml", []),
        ("MuJoCo", "ccp", "seed003_mujoco_solref.yaml",
         ["--set", "contact.cone=pyramidal", "--set", "solver.name=newton"]))
WHO = {"Drake": "csim hunt_crossley (Drake's parameters)", "MuJoCo": "csim ccp (MuJoCo's parameters)",
       "Bullet": "the real Bullet 3.24", "MuJoCo 2.2.2": "the real MuJoCo 2.2.2 (the paper's model file)"}
ROWS = ("Drake", "MuJoCo", "Bullet", "MuJoCo 2.2.2")
PAPER["MuJoCo 2.2.2"] = PAPER["MuJoCo"]


# per-toss columns of a `csim validate cubetoss` run
def validate(tmp, sim, model, params, extra):
    out = os.path.join(tmp, sim)
    subprocess.run([CSIM, "validate", "cubetoss", "--model", model, "--params",
                    os.path.join(PARAMS, params), "--out", out, "--quiet"] + extra, check=True, cwd=ROOT)
    rows = np.genfromtxt(os.path.join(out, "cubetoss.csv"), delimiter=",", names=True, dtype=None,
                         encoding=None)
    if (rows["failed"] != 0).any():
        sys.exit("fig003_tab3: %s: %d tosses failed" % (sim, int((rows["failed"] != 0).sum())))
    return {k: np.asarray(rows[c], dtype=float) for k, c in
            (("e_q", "e_q"), ("pos_err", "pos_err_pct"), ("rot_err", "rot_err_deg"))}


# the real Bullet's per-toss columns (tools/figures/cubetoss_bullet.py writes them to an HDF5 file)
def bullet(tmp):
    import h5py
    path = os.path.join(tmp, "bullet.h5")
    r = subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "tools", "figures", "cubetoss_bullet.py"),
                        path], cwd=ROOT)
    if r.returncode != 0:
        sys.exit("fig003_tab3: the Bullet row needs build/cubetoss_bullet (libbullet-dev: make deps)")
    with h5py.File(path, "r") as H:
        G = H["bullet"]
        if (G["failed"][...] != 0).any():
            sys.exit("fig003_tab3: Bullet: tosses failed")
        return {k: G[k][...].astype(float) for k in ("e_q", "pos_err", "rot_err")}


# the real MuJoCo 2.2.2's per-toss columns (build/cubetoss_mujoco: the paper's MJCF, Tab. II values)
def mujoco(tmp, table="box"):
    subprocess.run(["make", "--no-print-directory", "-s", "build/cubetoss_mujoco"], cwd=ROOT, check=False)
    exe = os.path.join(ROOT, "build", "cubetoss_mujoco")
    if not os.access(exe, os.X_OK):
        sys.exit("fig003_tab3: the MuJoCo 2.2.2 row needs build/cubetoss_mujoco (libmujoco-dev: make deps)")
    path = os.path.join(tmp, "mujoco_%s.csv" % table)
    with open(path, "w") as f:
        subprocess.run([exe, "--table", table], cwd=ROOT, stdout=f, check=True)
    rows = np.genfromtxt(path, delimiter=",", names=True)
    if (rows["failed"] != 0).any():
        sys.exit("fig003_tab3: MuJoCo 2.2.2: tosses failed")
    return {k: np.asarray(rows[c], dtype=float) for k, c in
            (("e_q", "e_q"), ("pos_err", "pos_err_pct"), ("rot_err", "rot_err_deg"))}


# the tolerance around a Tab. III mean: half the printed unit, plus the 95 % interval of the mean of
# n of the paper's 550 tosses drawn without replacement about the mean of all 550 (sigma the paper's)
def tolerance(sigma, half_unit, n):
    return half_unit + 1.96 * sigma * math.sqrt(1.0 / n - 1.0 / N_PAPER)


REASON = ("the cell is printed to %s (+-%g) and is the mean of the paper's 550 tosses, of which the data "
          "holds %d (110 are withheld for independent evaluation); a mean over %d of the 550 drawn at "
          "random lies within 1.96 sigma sqrt(1/%d - 1/550) = %.3g of the mean of all 550 with 95 %% "
          "probability (sampling without replacement, sigma = %g, the paper's): +-%.3g")


def claims(F, res, n):
    for sim in ROWS:
        for (label, key), (mean, sigma), hu in zip(COLS, PAPER[sim], HALF_UNIT):
            x = float(np.mean(res[sim][key]))
            t = tolerance(sigma, hu, n)
            v = J.judge(x, mean, {"abs": t})
            F.claim("Tab. III, %s: %s %g +- %g" % (sim, label, mean, sigma),
                    "%s: mean %s over %d tosses" % (WHO[sim], label, n), x, v,
                    "%s: %s %.3g +- %.3g (paper %g +- %g)." % (WHO[sim], label, x, np.std(res[sim][key]),
                                                              mean, sigma),
                    paper=mean, tol={"abs": t},
                    reason=REASON % ("%g" % (2 * hu), hu, n, n, n, t - hu, sigma, t), rel=0.01,
                    why=why_pos(res) if key == "pos_err" else "outside the subset's interval")
    ranked = max(np.mean(res["Drake"]["e_q"]), np.mean(res["Bullet"]["e_q"])) / np.mean(res["MuJoCo"]["e_q"])
    F.claim("\"Drake and Bullet being more accurate than MuJoCo\" (Tab. III)",
            "larger of the Drake and Bullet rows' mean e_q over the MuJoCo row's", ranked,
            J.judge(ranked, J.QUAL, {"hi": 1.0}),
            "The Drake and Bullet rows' mean e_q are %.2f and %.2f of the MuJoCo row's." % (
                np.mean(res["Drake"]["e_q"]) / np.mean(res["MuJoCo"]["e_q"]),
                np.mean(res["Bullet"]["e_q"]) / np.mean(res["MuJoCo"]["e_q"])),
            paper=J.QUAL, tol={"hi": 1.0}, reason="'more accurate' is a lower mean e_q: a ratio below 1",
            why="the MuJoCo row's mean e_q is not the largest", rel=0.01)


# what differs in the position column, from the runs: the real MuJoCo 2.2.2 through the same pipeline
# against the paper's MuJoCo cell, and csim's ccp against it toss by toss
def why_pos(res):
    m = lambda sim: float(np.mean(res[sim]["pos_err"]))
    d = res["MuJoCo"]["pos_err"] - res["plane"]["pos_err"]
    return ("the real MuJoCo 2.2.2, run on the paper's model file through the same initial states and scores, "
            "gives %.2f %% against the paper's 27.0 (within the interval): csim's pipeline reproduces the "
            "paper's MuJoCo row. The same MuJoCo 2.2.2 with a plane at z = 0 in place of the paper's 5 x 5 x "
            "0.4 m box table (csim's ground is a plane) gives %.2f %%, and csim's ccp is within %+.2f points of "
            "it on average (median %+.2f; %d of %d tosses within 1 point): the MuJoCo stand-in's miss is the "
            "table's geometry (MuJoCo's box-box contacts against its plane's), not csim's contact model. The "
            "position column resolves such a difference (its interval is 3-4 %% of the cell, e_q's 8-11 %%: "
            "e_q's sigma is twice its mean). Drake's stand-in (%.2f against 13.6) is csim's hunt_crossley on a "
            "plane, not Drake's discrete solver; the real Bullet (%.2f against 15.1, now a btMultiBody with "
            "its default damping as pybullet builds it: as a btRigidBody without damping it gave 13.77) is "
            "Tab. II's rounded values in the paper's pybullet settings; those two were not separated further"
            % (m("MuJoCo 2.2.2"), m("plane"), float(np.mean(d)), float(np.median(d)),
               int((abs(d) < 1).sum()), len(d), m("Drake"), m("Bullet")))


def plot(F, res, n):
    fig, axs = plt.subplots(1, 3, figsize=(14, 4.2))
    sims = ROWS
    x = np.arange(len(sims))
    for j, (label, key) in enumerate(COLS):
        paper = [PAPER[s][j][0] for s in sims]
        tol = [tolerance(PAPER[s][j][1], HALF_UNIT[j], n) for s in sims]
        ours = [float(np.mean(res[s][key])) for s in sims]
        axs[j].bar(x - 0.2, paper, 0.4, yerr=tol, capsize=4, color="0.6", label="paper (tolerance)")
        axs[j].bar(x + 0.2, ours, 0.4, color="C0", label="csim's stand-in / the real engine via csim")
        axs[j].set_xticks(x)
        axs[j].set_xticklabels(["Drake\n(hunt_crossley)", "MuJoCo\n(ccp, pyramid)", "Bullet\n(real 3.24)",
                                "MuJoCo\n(real 2.2.2)"], fontsize=8)
        axs[j].set_title("mean %s over %d tosses" % (label, n), fontsize=10)
    axs[0].legend(fontsize=8)
    fig.suptitle("003 Tab. III: cube-toss errors at the paper's identified parameters")
    fig.tight_layout()
    F.png(fig, dpi=80)


def main():
    with J.Figure("003-tab3", "003", "Tab. III",
                  "cube-toss errors per simulator at the paper's identified parameters") as F:
        res = {sim: validate(F.tmp, sim, model, params, extra) for sim, model, params, extra in RUNS}
        res["Bullet"] = bullet(F.tmp)
        res["MuJoCo 2.2.2"] = mujoco(F.tmp)
        res["plane"] = mujoco(F.tmp, "plane")  # the analysis of the position column (why_pos)
        n = len(res["Drake"]["e_q"])
        rows = []
        for sim in ROWS:
            r = [WHO[sim]]
            for (label, key), (mean, sigma) in zip(COLS, PAPER[sim]):
                r += [mean, sigma, float(np.mean(res[sim][key])), float(np.std(res[sim][key]))]
            rows.append(r + [float(np.median(res[sim]["e_q"]))])
        F.table("Tab. III beside csim (%d tosses of dairlib550_eval; the paper: 550): mean and population "
                "sigma over tosses" % n,
                ["row", "paper e_q", "sigma", "csim e_q", "sigma", "paper pos %", "sigma", "csim pos %",
                 "sigma", "paper rot deg", "sigma", "csim rot deg", "sigma", "csim median e_q"],
                rows, rel=0.01, abs_=1e-9)
        plot(F, res, n)
        claims(F, res, n)
        F.setup = ("csim validate cubetoss (group dairlib550_eval of ../shared/data/cubetoss/cube_tosses.h5, "
                   "%d tosses, 10 substeps per data period as the paper's `*_10` results) with "
                   "--model hunt_crossley --params docs/cubetoss/params/seed003_drake_default_cube.yaml and "
                   "--model ccp --params docs/cubetoss/params/seed003_mujoco_solref.yaml --set "
                   "contact.cone=pyramidal --set solver.name=newton (MuJoCo's defaults, which the paper's "
                   "mujoco_cube_sim.py keeps); the real Bullet 3.24 by tools/figures/cubetoss_bullet.py "
                   "(pybullet's settings, Tab. II on the table); the real MuJoCo 2.2.2 by "
                   "build/cubetoss_mujoco (tools/bench/cubetoss_mujoco.c: mujoco_cube_sim.py's model, Tab. II's "
                   "values). Scores: 003 eq. 3 (e_q), mean distance "
                   "in %% of the side, mean rotation angle in degrees, per toss, then mean and sigma over "
                   "tosses as evaluate_cube_parameters.py computes them." % n)


if __name__ == "__main__":
    main()
