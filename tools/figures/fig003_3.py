#!/usr/bin/python3
"""Seed 003 Fig. 3 (cube toss, top row): e_q's sensitivity to each contact parameter around the
identified point, per contact model. `make fig-003-3` writes out/figures/fig003_3.png and .json.

The paper sweeps each parameter of MuJoCo, Bullet and Drake while the others stay at their
identified optimum theta*, and finds MuJoCo and Bullet ("contact models similar to linear
spring-damper systems") sensitive to damping and to excessive stiffness, and Drake's nonlinear
Hunt-Crossley needing only to be "stiff enough". csim's stand-ins, each at the parameters csim
identified on the same data (src/run/cubetoss_params.c, `csim identify cubetoss`):
spring_damper (a linear spring-damper: Bullet's and MuJoCo's kind), hunt_crossley (Drake's law)
and ccp with solref [-stiffness, -damping] (MuJoCo's own model and softness). Each parameter is
scaled by FACTORS while the other two stay at theta*; e_q (003 eq. 3, csim's ct_score) is the mean
over the first NTOSS tosses of the dairlib550_eval group (csim validate cubetoss --tosses).

The paper's own subjects are swept too, each around the paper's identified point (Tab. II), the
point the paper sweeps about: the real MuJoCo 2.2.2 on the paper's model file
(build/cubetoss_mujoco) and the real Bullet 3.24 (build/cubetoss_bullet), both scored by csim's e_q code over the same first NTOSS tosses.
The claims on MuJoCo and Bullet are judged on them; csim's stand-ins are judged beside them.
"""
import math
import os
import re
import subprocess
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fig003_common as C  # noqa: E402
import figjson as J  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CSIM = os.path.join(ROOT, "csim")
NTOSS = 60
FACTORS = [1 / 30, 1 / 10, 1 / 3, 1, 3, 10, 30]
# theta*: the parameters csim identified and ships (src/run/cubetoss_params.c, the params text
# `csim validate cubetoss` uses without --params), read from that file so a re-identification
# moves this figure too; ccp's solref [-stiffness, -damping] is MuJoCo's direct form
def shipped_params(model):
    with open(os.path.join(ROOT, "src", "run", "cubetoss_params.c")) as f:
        for line in f:
            m = re.match(r'\s*"%s: \{(.*)\}\\n"' % model, line)
            if m:
                kv = dict(re.findall(r"(\w+): (\[[^]]*\]|[-+.\w]+)", m.group(1)))
                if "solref" in kv:
                    k, b = (float(v) for v in kv["solref"].strip("[]").split(","))
                    return {"friction": float(kv["friction"]), "stiffness": -k, "damping": -b}
                return {k: float(kv[k]) for k in ("friction", "stiffness", "damping")}
    sys.exit("fig003_3: no '%s' entry in src/run/cubetoss_params.c" % model)


MODELS = [(m, label, shipped_params(m)) for m, label in (
    ("spring_damper", "linear spring-damper (Bullet, MuJoCo kind)"),
    ("hunt_crossley", "Hunt-Crossley (Drake's law)"),
    ("ccp", "ccp + solref (MuJoCo's model)"))]
PARAMS = ["stiffness", "damping", "friction"]
# the real engines at the paper's Tab. II theta* (stiffness, damping as the harnesses take them:
# MuJoCo's solref direct form per unit mass, Bullet's contact stiffness and damping on the table)
REAL = [("mujoco", "MuJoCo 2.2.2 (the paper's model file)", {"stiffness": 3850.0, "damping": 63.0,
                                                            "friction": 0.23}),
        ("bullet", "Bullet 3.24", {"stiffness": 2500.0, "damping": 32.0, "friction": 0.36})]
PER_TOSS = {}  # (model, stiffness, damping, friction): e_q of each toss
SD_TAB2 = "spring_damper at Bullet's Tab. II point"  # the results' key of that sweep
# what the runs showed (the analysis behind a verdict, not its threshold)
NOTE = {"ccp": " At x30 (B = 2.99e4 /s, h B = 2.0 at h = 1/14800 s) the step over-corrects and throws "
               "the cube: %d of the %d tosses end with e_q above 5: an unstable discretization, not a "
               "gentle sensitivity."}
WHY_DAMP = {"spring_damper": "spring_damper's e_q moves less than 20 % over the damping sweep: at the "
                             "identified stiffness (3.9e5 N/m on the 0.37 kg cube) damping 10.6 N s/m is a "
                             "damping ratio of 0.014, x30 is 0.42; e_q (mostly the cube's slide and turn "
                             "after landing) hardly depends on the bounce's restitution"}


# the params file's entry for model at values p
def entry(model, p):
    if model == "ccp":
        return "ccp: {friction: %.9g, solref: [%.9g, %.9g]}\n" % (p["friction"], -p["stiffness"],
                                                                  -p["damping"])
    return "%s: {friction: %.9g, stiffness: %.9g, damping: %.9g}\n" % (model, p["friction"],
                                                                        p["stiffness"], p["damping"])


# mean e_q of model at p over the first NTOSS tosses (csim validate cubetoss)
def e_q(tmp, model, p):
    path = os.path.join(tmp, "params.yaml")
    with open(path, "w") as f:
        f.write(entry(model, p))
    out = os.path.join(tmp, "run")
    subprocess.run([CSIM, "validate", "cubetoss", "--model", model, "--params", path, "--tosses",
                    str(NTOSS), "--out", out, "--quiet"], check=True, cwd=ROOT)
    rows = np.genfromtxt(os.path.join(out, "cubetoss.csv"), delimiter=",", names=True,
                         dtype=None, encoding=None)
    PER_TOSS[(model, p["stiffness"], p["damping"], p["friction"])] = rows["e_q"]
    return float(np.mean(rows["e_q"]))


# per-toss e_q of a real engine at p over the first NTOSS tosses (its harness: build/cubetoss_ENGINE,
# one CSV row a toss)
def e_q_real(tmp, engine, p):
    try:
        e = C.harness_eq(engine, p["stiffness"], p["damping"], p["friction"], NTOSS)
    except RuntimeError as ex:
        sys.exit("fig003_3: %s" % ex)
    PER_TOSS[(engine, p["stiffness"], p["damping"], p["friction"])] = e
    return float(np.mean(e))


def sweep(F):
    res = {}
    # the real engines' harnesses, built with the peers
    subprocess.run(["make", "--no-print-directory", "-s", "build/cubetoss_mujoco", "build/cubetoss_bullet"],
                   cwd=ROOT, check=False)
    for model, _, star in MODELS + REAL:
        for par in PARAMS:
            for fac in FACTORS:
                if fac == 1 and (model, "stiffness", 1) in res:
                    res[(model, par, 1)] = res[(model, "stiffness", 1)]
                    continue
                p = dict(star)
                p[par] = star[par] * fac
                run = e_q_real if model in ("mujoco", "bullet") else e_q
                res[(model, par, fac)] = run(F.tmp, model, p)
            print("  %-14s %-9s %s" % (model, par, " ".join(
                "%.3f" % res[(model, par, f)] for f in FACTORS)))
    # the analysis of spring_damper's claims: the same law about Bullet's Tab. II point
    bt = [m[2] for m in REAL if m[0] == "bullet"][0]
    for par in ("stiffness", "damping"):
        for fac in FACTORS:
            p = dict(bt)
            p[par] = bt[par] * fac
            res[(SD_TAB2, par, fac)] = e_q(F.tmp, "spring_damper", p)
    return res


def plot(F, res):
    fig, axs = plt.subplots(1, 3, figsize=(15, 4.5), sharey=True)
    for i, par in enumerate(PARAMS):
        for j, (model, label, _) in enumerate(MODELS + REAL):
            real = j >= len(MODELS)
            axs[i].plot(FACTORS, [res[(model, par, f)] for f in FACTORS], "s--" if real else "o-",
                        color="C%d" % j, label=label + (" at the paper's theta*" if real else ""))
        axs[i].set_xscale("log")
        axs[i].set_xlabel("%s / identified value" % par)
        axs[i].set_title("sweep of %s (others at theta*)" % par, fontsize=10)
    axs[0].set_ylabel("mean e_q over %d tosses" % NTOSS)
    axs[0].legend(fontsize=8)
    fig.suptitle("003 Fig. 3 (cube toss): e_q sensitivity to each contact parameter around the identified "
                 "point (csim's models: csim's; the real engines: the paper's)")
    fig.tight_layout()
    F.png(fig, dpi=80)


# worst e_q over a sweep's factors (fac_lo <= f <= fac_hi) relative to e_q at theta*
def rise(res, model, par, fac_lo=0, fac_hi=1e9):
    base = res[(model, par, 1)]
    return max(res[(model, par, f)] for f in FACTORS if fac_lo <= f <= fac_hi) / base


def claims(F, res):
    hc_stiff = rise(res, "hunt_crossley", "stiffness", fac_lo=1)
    F.claim("Drake's nonlinear Hunt-Crossley model \"simply needs to be 'stiff enough' to achieve low "
            "error through impacts\" (Fig. 3 top).",
            "hunt_crossley: worst e_q at stiffness x1 to x30 over e_q at theta*", hc_stiff,
            J.judge(hc_stiff, J.QUAL, {"hi": 1.2}),
            "Above its identified stiffness, Hunt-Crossley's e_q rises at most %.2f times (below it, x1/30: "
            "%.2f times)." % (hc_stiff, res[("hunt_crossley", "stiffness", FACTORS[0])] /
                              res[("hunt_crossley", "stiffness", 1)]),
            paper=J.QUAL, tol={"hi": 1.2},
            reason="Fig. 3 gives curves only; 'sensitive' read as a curve that leaves the optimum by 20 % or "
                   "more (a rise the figure's axis shows), so insensitive above theta* is a rise under 1.2",
            why="Hunt-Crossley's e_q rises 20 % or more when stiffer than identified")
    real_claims(F, res)
    for model, who in (("spring_damper", "Bullet's kind"), ("ccp", "MuJoCo's model")):
        damp_claim(F, res, model, who)
        stiff_claim(F, res, model, who)


# the paper's two claims on MuJoCo and Bullet themselves, each engine swept around the paper's
# theta* (Tab. II): both engines must rise by the same 20 % the stand-ins' claims need
def real_claims(F, res):
    for par, lo, what, quote in (
            ("damping", 0, "over the damping sweep (x1/30 to x30)", "to the damping parameters"),
            ("stiffness", 3, "at stiffness x3 to x30", "\"to excessive stiffness\"")):
        r = {e: rise(res, e, par, fac_lo=lo) for e, _, _ in REAL}
        x = min(r.values())
        F.claim("MuJoCo and Bullet, \"which use contact models similar to linear spring-damper systems, are "
                "sensitive\" %s (Fig. 3 top): the real engines at the paper's theta*." % quote,
                "smaller of the real MuJoCo 2.2.2's and Bullet 3.24's worst e_q %s over e_q at the paper's "
                "theta*" % what, x, J.judge(x, J.QUAL, {"lo": 1.2}),
                "About the paper's Tab. II point, e_q rises %.3g times for MuJoCo 2.2.2 and %.3g times for "
                "Bullet 3.24 %s (csim's stand-ins about csim's own point: spring_damper %.3g, ccp %.3g)." % (
                    r["mujoco"], r["bullet"], what, rise(res, "spring_damper", par, fac_lo=lo),
                    rise(res, "ccp", par, fac_lo=lo)),
                paper=J.QUAL, tol={"lo": 1.2},
                reason="Fig. 3 gives curves only; 'sensitive' read as a curve that leaves the optimum by 20 % "
                       "or more (a rise the figure's axis shows), the threshold of the stand-ins' claims; "
                       "both engines must show it",
                why="one of the real engines' e_q moves less than 20 %% %s" % what)


# the note on model's damping x30 run, its count of thrown tosses filled in
def note(model):
    if model not in NOTE:
        return ""
    star = [m[2] for m in MODELS if m[0] == model][0]
    e = PER_TOSS[(model, star["stiffness"], star["damping"] * 30, star["friction"])]
    return NOTE[model] % (int((e > 5).sum()), len(e))


# the paper names MuJoCo and Bullet: one claim per stand-in, the threshold fixed before the run
def damp_claim(F, res, model, who):
    r = rise(res, model, "damping")
    F.claim("MuJoCo and Bullet, \"which use contact models similar to linear spring-damper systems, are "
            "sensitive to the damping parameters\" (Fig. 3 top): %s, %s." % (model, who),
            "%s: worst e_q over the damping sweep (x1/30 to x30) over e_q at theta*" % model, r,
            J.judge(r, J.QUAL, {"lo": 1.2}),
            "Over the damping sweep %s's e_q rises %.3g times (Hunt-Crossley's: %.2f times); the "
            "friction sweep moves the three models' e_q %.1f to %.1f times: friction sets e_q on these "
            "tosses.%s" % (model, r, rise(res, "hunt_crossley", "damping"),
                           min(rise(res, m, "friction") for m, _, _ in MODELS),
                           max(rise(res, m, "friction") for m, _, _ in MODELS), note(model)),
            paper=J.QUAL, tol={"lo": 1.2},
            reason="Fig. 3 gives curves only; 'sensitive' read as a curve that leaves the optimum by 20 % or "
                   "more (a rise the figure's axis shows)",
            why=WHY_DAMP.get(model, "%s's e_q moves less than 20 %% over the damping sweep" % model) +
            tab2_why(res, model, "damping", 0))


def stiff_claim(F, res, model, who):
    r = rise(res, model, "stiffness", fac_lo=3)
    F.claim("MuJoCo and Bullet are sensitive \"to excessive stiffness\" (Fig. 3 top): %s, %s." % (model, who),
            "%s: worst e_q at stiffness x3 to x30 over e_q at theta*" % model, r,
            J.judge(r, J.QUAL, {"lo": 1.2}),
            "Stiffer than identified (x3 to x30), %s's e_q rises %.3g times, Hunt-Crossley's %.2f "
            "times." % (model, r, rise(res, "hunt_crossley", "stiffness", fac_lo=3)),
            paper=J.QUAL, tol={"lo": 1.2},
            reason="Fig. 3 gives curves only; 'sensitive' read as a curve that leaves the optimum by 20 % or "
                   "more (a rise the figure's axis shows)",
            why=why_stiff(model) + tab2_why(res, model, "stiffness", 3))


# spring_damper's rise about Bullet's Tab. II point (k 2500 N/m, b 32 N s/m, mu 0.36), where its
# damping ratio is the paper's Bullet's, beside the claim's rise about csim's own identified point
def tab2_why(res, model, par, lo):
    if model != "spring_damper":
        return ""
    return ("; about Bullet's Tab. II point (k 2500 N/m, b 32 N s/m, mu 0.36: damping ratio %.2f on the cube) "
            "the same law rises %.3g times, as the real Bullet does (%.3g): the difference is csim's "
            "identified point, not the law" % (32.0 / (2 * math.sqrt(2500.0 * 0.37)),
                                               rise(res, SD_TAB2, par, fac_lo=lo), rise(res, "bullet", par, fac_lo=lo)))


# why a model's e_q hardly rises with the stiffness: a linear spring-damper's restitution depends on
# its damping ratio alone, e = exp(-pi zeta / sqrt(1 - zeta^2)), zeta = d / (2 sqrt(k m)) on the
# 0.37 kg cube (m: the cube's mass, every contact carrying it)
def why_stiff(model):
    p = dict((m, q) for m, _, q in MODELS).get(model)
    if model != "spring_damper" or not p:
        return "%s's e_q rises less than 20 %% when stiffer than identified" % model
    z = [p["damping"] / (2 * math.sqrt(f * p["stiffness"] * 0.37)) for f in (1, 30)]
    e = [math.exp(-math.pi * x / math.sqrt(1 - x * x)) for x in z]
    return ("spring_damper's e_q rises less than 20 %% when stiffer than identified: its restitution depends on "
            "its damping ratio alone, exp(-pi zeta), and stiffening lowers that ratio from %.3f to %.4f (x30), "
            "so the bounce goes from restitution %.3f to %.3f; e_q (mostly the cube's slide and turn after "
            "landing) hardly depends on it" % (z[0], z[1], e[0], e[1]))


def main():
    with J.Figure("003-3", "003", "Fig. 3 (cube toss)",
                  "e_q sensitivity to stiffness, damping and friction per contact model") as F:
        res = sweep(F)
        plot(F, res)
        rows = [[model, par] + [res[(model, par, f)] for f in FACTORS]
                for model, _, _ in MODELS + REAL for par in PARAMS]
        F.table("mean e_q over the first %d tosses with one parameter scaled (columns: the factor) and the "
                "others at theta* (csim's models: csim's identified point; the real mujoco and bullet: the "
                "paper's Tab. II point); the paper gives curves, no numbers" % NTOSS,
                ["model", "parameter"] + ["x%.3g" % f for f in FACTORS], rows, rel=0.02, abs_=1e-9)
        claims(F, res)
        F.setup = ("csim validate cubetoss --model M --params P --tosses %d (group dairlib550_eval of "
                   "../shared/data/cubetoss/cube_tosses.h5, 10 substeps per data period) for M = "
                   "spring_damper, hunt_crossley and ccp (solref [-stiffness, -damping]), each at csim's "
                   "identified parameters (src/run/cubetoss_params.c) with one of stiffness, damping and "
                   "friction scaled by 1/30 to 30. The real engines, each about the paper's Tab. II "
                   "point (MuJoCo 2.2.2: solref [-3850, -63], mu 0.23, the paper's model file, "
                   "build/cubetoss_mujoco --k --b --mu; Bullet 3.24: k 2500 N/m, b 32 N s/m, mu 0.36 on "
                   "the table, build/cubetoss_bullet), the same factors and the same first %d tosses, "
                   "scored by csim's e_q code." % (NTOSS, NTOSS))


if __name__ == "__main__":
    main()
