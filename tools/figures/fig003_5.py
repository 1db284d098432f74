#!/usr/bin/python3
"""Seed 003 Fig. 5: the contact forces of the first impact of a cube toss where MuJoCo does worse
than Drake and Bullet, per simulator, beside the impulse the recording implies.
`make fig-003-5` writes out/figures/fig003_5.png and .json.

The paper picks the tosses in MuJoCo's worst 10 % (by e_q) that are in neither Drake's nor
Bullet's worst 10 %, and shows that MuJoCo's first impact lasts longer, with a lower peak
friction force and more penetration ("MuJoCo's constraint softening"). csim's stand-ins at the
parameters csim identified (fig003_3.MODELS): ccp with solref (MuJoCo's model), hunt_crossley
(Drake's law), spring_damper (a linear spring-damper: Bullet's kind). All 430 tosses of
dairlib550_eval are scored by `csim validate cubetoss` per model; the chosen toss is the one
with ccp's largest e_q among the paper's selection; it is rerun by `csim run` (the scenario
ct_scenario builds: src/run/cubetoss.c) recording every step's contacts. The recorded impulse of
the first bounce is m (v[k+1] - v[k-1]) + m g 2 dt z over the data rows around the first sign
change of v_z (the data's velocities are filtered differences: an estimate); the same estimator
is applied to each simulated trajectory sampled at the data's rate.
"""
import os
import subprocess
import sys

import h5py
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fig000_common as C  # noqa: E402
import fig003_3 as S3  # noqa: E402
import figjson as J  # noqa: E402

DATA = os.path.join(S3.ROOT, "..", "shared", "data", "cubetoss", "cube_tosses.h5")
GROUP = "dairlib550_eval"
SUB = 10        # substeps per data period (csim validate's default, seed 003's 1/1480 s)
SOLVER = {"ccp": "solver: {name: admm, criterion: model, max_iterations: 200}\n"}
# the rerun's runs: csim's stand-ins at csim's identified parameters, and ccp at seed 003's own
# MuJoCo values (Tab. II: stiffness 3850, damping 63, mu 0.23; solref [-3850, -63])
RUNS = [(m, m, label, p) for m, label, p in S3.MODELS] + [
    ("ccp_paper", "ccp", "ccp + solref at 003's MuJoCo values",
     {"friction": 0.23, "stiffness": 3850, "damping": 63})]


# e_q of every toss per model (csim validate cubetoss over the whole group)
def scores(tmp):
    out = os.path.join(tmp, "all")
    cmd = [S3.CSIM, "validate", "cubetoss", "--jobs", "2", "--out", out, "--quiet"]
    for m, _, _ in S3.MODELS:
        cmd += ["--model", m]
    params = os.path.join(tmp, "params.yaml")
    with open(params, "w") as f:
        f.write("".join(S3.entry(m, p) for m, _, p in S3.MODELS))
    subprocess.run(cmd + ["--params", params], check=True, cwd=S3.ROOT)
    rows = np.genfromtxt(os.path.join(out, "cubetoss.csv"), delimiter=",", names=True, dtype=None,
                         encoding=None)
    return {m: rows["e_q"][rows["model"] == m] for m, _, _ in S3.MODELS}


# the paper's selection: in ccp's worst 10 %, in neither other model's
def select(eq):
    worst = {m: set(np.argsort(e)[-max(1, len(e) // 10):]) for m, e in eq.items()}
    sel = worst["ccp"] - worst["hunt_crossley"] - worst["spring_damper"]
    return sorted(sel, key=lambda i: -eq["ccp"][i])


# toss i's recorded rows (n x 13, quaternion wxyz) and the data's cube
def toss(i):
    with h5py.File(DATA, "r") as f:
        off = f[GROUP]["offsets"][:]
        return f[GROUP]["states"][off[i]:off[i + 1]], float(f.attrs["dt"])


# ct_scenario's scene for model at its identified parameters, from the toss's first row
def scenario(tmp, key, model, p, rows, dt):
    urdf = os.path.join(tmp, "cube.urdf")
    with open(urdf, "w") as f:
        f.write("<robot name='cube'><link name='cube'><inertial><mass value='0.37'/>"
                "<inertia ixx='0.00081' ixy='0' ixz='0' iyy='0.00081' iyz='0' izz='0.00081'/>"
                "</inertial><collision><geometry><box size='0.1048 0.1048 0.1048'/></geometry>"
                "</collision></link></robot>\n")
    r = rows[0]
    q0 = list(r[0:3]) + [r[4], r[5], r[6], r[3]]
    contact = S3.entry(model, p).split(": ", 1)[1].strip()[1:-1]
    text = ("name: toss_%s\nworld: {gravity: [0, 0, -9.81], ground: {type: plane, height: 0}}\n"
            "robots:\n  - {urdf: cube.urdf, base: free, q0: [%s], v0: [%s]}\n"
            "contact: {model: %s, %s}\n%sintegrator: {dt: %.17g, duration: %.17g%s}\n"
            "output: {every: 1}\n" % (
                model, ", ".join("%.17g" % x for x in q0), ", ".join("%.17g" % x for x in r[7:13]),
                model, contact, SOLVER.get(model, ""), dt / SUB, (len(rows) - 1) * dt,
                ", scheme: tamsi" if model != "ccp" else ""))
    path = os.path.join(tmp, "toss_%s.yaml" % key)
    with open(path, "w") as f:
        f.write(text)
    return path


# the first bounce's impulse by the data's estimator: rows' z velocity vz (every data period)
def impulse(v, dt, m=0.37):
    k = next(i for i in range(1, len(v) - 1) if v[i - 1, 2] < 0 <= v[i + 1, 2])
    return m * (v[k + 1, :3] - v[k - 1, :3]) + np.array([0, 0, m * 9.81 * 2 * dt]), k


# the first impact of run r: the steps from first contact through WINDOW s, the total world force
# per step there, and the pulse's length (time the normal force stays above a tenth of its peak)
WINDOW = 0.03


def first_impact(r):
    s = int(np.argmax(r.count > 0))
    e = min(len(r.t), s + int(round(WINDOW / r.dt)))
    f = np.array([r.world_forces(k).sum(axis=0) if r.count[k] else np.zeros(3) for k in range(s, e)])
    depth = max((r.depth[r.offset[k]:r.offset[k] + r.count[k]].max() for k in range(s, e) if r.count[k]),
                default=0.0)
    pulse = float((f[:, 2] > 0.1 * f[:, 2].max()).sum() * r.dt)
    return {"t": r.t[s:e] - r.t[s], "fn": f[:, 2], "ft": np.linalg.norm(f[:, :2], axis=1),
            "pulse": pulse, "peak_ft": float(np.linalg.norm(f[:, :2], axis=1).max()),
            "peak_fn": float(f[:, 2].max()), "depth": float(depth)}


def run_toss(F, i):
    rows, dt = toss(i)
    res = {}
    for key, model, label, p in RUNS:
        out = os.path.join(F.tmp, "toss_%s.h5" % key)
        subprocess.run([S3.CSIM, "run", scenario(F.tmp, key, model, p, rows, dt), "--out", out,
                        "--quiet"], check=True, cwd=S3.ROOT)
        r = C.Run(out)
        with h5py.File(out, "r") as h:
            r.depth = h["/contacts/depth"][:]
        im = first_impact(r)
        im["J"] = impulse(r.v[::SUB], dt)[0]
        res[key] = im
    res["recorded"] = {"J": impulse(rows[:, 7:10], dt)[0]}
    return res


def plot(F, i, res, eq):
    fig, axs = plt.subplots(1, 2, figsize=(13, 4.5))
    for j, (key, _, label, _) in enumerate(RUNS):
        im = res[key]
        axs[0].plot(im["t"] * 1e3, im["ft"], color="C%d" % j,
                    label="%s: peak %.1f N, pulse %.1f ms" % (label, im["peak_ft"], im["pulse"] * 1e3))
        axs[1].plot(im["t"] * 1e3, im["fn"], color="C%d" % j,
                    label="%s: peak %.0f N, depth %.2f mm" % (label, im["peak_fn"], im["depth"] * 1e3))
    axs[0].set_ylabel("friction force |f_t| summed over contacts (N)")
    axs[1].set_ylabel("normal force summed over contacts (N)")
    for a in axs:
        a.set_xlabel("time from first contact (ms)")
        a.legend(fontsize=8)
    fig.suptitle("003 Fig. 5: first impact of toss %d (e_q: %s)" % (i, ", ".join(
        "%s %.2f" % (m, eq[m][i]) for m, _, _ in S3.MODELS)))
    fig.tight_layout()
    F.png(fig, dpi=80)


# what the runs would show behind a "not reproduced" (the readings hold at csim's identified solref
# since its identification under MuJoCo's margin 0, 2026-11-28; under the 1 mm margin before it
# the identified damping hit its bound, 997, and the first impact was a 2 ms, 400 N spike)
WHY = ("csim's ccp at its identified solref is not longer and lower than hunt_crossley at its identified "
       "parameters")


def claims(F, res):
    dur = res["ccp"]["pulse"] / res["hunt_crossley"]["pulse"]
    peak = res["ccp"]["peak_ft"] / res["hunt_crossley"]["peak_ft"]
    reason = ("Fig. 5 gives curves only; 'longer' and 'lower' read as 20 % or more (a difference the "
              "figure's axes show), MuJoCo's model against Drake's law at their identified parameters")
    F.claim("\"MuJoCo experiences a longer contact event with a lower peak force\" at the first impact "
            "(Fig. 5): the contact event.",
            "ccp + solref over hunt_crossley: length of the first impact's normal-force pulse", dur,
            J.judge(dur, J.QUAL, {"lo": 1.2}),
            "The first impact's normal force stays above a tenth of its peak for %.1f ms under ccp + solref, "
            "%.1f ms under hunt_crossley and %.1f ms under spring_damper; ccp at 003's own MuJoCo values "
            "%.1f ms." % tuple(1e3 * res[m]["pulse"] for m in ("ccp", "hunt_crossley", "spring_damper",
                                                               "ccp_paper")),
            paper=J.QUAL, tol={"lo": 1.2}, reason=reason,
            why=WHY)
    F.claim("\"MuJoCo experiences a longer contact event with a lower peak force\" (Fig. 5): the peak "
            "friction force.",
            "ccp + solref over hunt_crossley: peak friction force of the first impact", peak,
            J.judge(peak, J.QUAL, {"hi": 1 / 1.2}),
            "Peak friction force: %.1f N under ccp + solref, %.1f N under hunt_crossley, %.1f N under "
            "spring_damper (ccp at 003's MuJoCo values: %.1f N); penetration %.2f, %.2f, %.2f and %.2f mm." % (
                tuple(res[m]["peak_ft"] for m in ("ccp", "hunt_crossley", "spring_damper", "ccp_paper")) +
                tuple(1e3 * res[m]["depth"] for m in ("ccp", "hunt_crossley", "spring_damper", "ccp_paper"))),
            paper=J.QUAL, tol={"hi": 1 / 1.2}, reason=reason,
            why=WHY)
    # the same two readings, with the same tolerance and reason, for MuJoCo's model at the paper's own
    # MuJoCo parameters (003 Tab. II), the configuration Fig. 5 shows
    dur_p = res["ccp_paper"]["pulse"] / res["hunt_crossley"]["pulse"]
    peak_p = res["ccp_paper"]["peak_ft"] / res["hunt_crossley"]["peak_ft"]
    why_p = "csim's ccp at 003's MuJoCo values is not longer and lower than hunt_crossley"
    F.claim("\"MuJoCo experiences a longer contact event with a lower peak force\" (Fig. 5), MuJoCo's model at "
            "003's own MuJoCo parameters (Tab. II: solref [-3850, -63], mu 0.23): the contact event.",
            "ccp at 003's MuJoCo values over hunt_crossley: length of the first impact's normal-force pulse",
            dur_p, J.judge(dur_p, J.QUAL, {"lo": 1.2}),
            "Under ccp at 003's values the first impact's normal force stays above a tenth of its peak for "
            "%.1f ms (peak %.0f N, penetration %.1f mm), against %.1f ms (peak %.0f N) under hunt_crossley: "
            "MuJoCo's soft reference aref = -B v - K r with B = 63 1/s decelerates the cube at about 100 m/s^2 "
            "instead of stopping it." % (1e3 * res["ccp_paper"]["pulse"], res["ccp_paper"]["peak_fn"],
                                         1e3 * res["ccp_paper"]["depth"], 1e3 * res["hunt_crossley"]["pulse"],
                                         res["hunt_crossley"]["peak_fn"]),
            paper=J.QUAL, tol={"lo": 1.2}, reason=reason, why=why_p)
    F.claim("\"MuJoCo experiences a longer contact event with a lower peak force\" (Fig. 5), MuJoCo's model at "
            "003's own MuJoCo parameters: the peak friction force.",
            "ccp at 003's MuJoCo values over hunt_crossley: peak friction force of the first impact", peak_p,
            J.judge(peak_p, J.QUAL, {"hi": 1 / 1.2}),
            "Peak friction force %.2f N under ccp at 003's values against %.1f N under hunt_crossley." % (
                res["ccp_paper"]["peak_ft"], res["hunt_crossley"]["peak_ft"]),
            paper=J.QUAL, tol={"hi": 1 / 1.2}, reason=reason, why=why_p)


def main():
    with J.Figure("003-5", "003", "Fig. 5", "first impact of a toss where MuJoCo's model does worse: "
                  "contact forces per model and the recorded impulse") as F:
        eq = scores(F.tmp)
        sel = select(eq)
        i = sel[0]
        res = run_toss(F, i)
        plot(F, i, res, eq)
        rows = [[k] + [float(x) for x in res[k]["J"]] + (
            [res[k]["pulse"] * 1e3, res[k]["peak_ft"], res[k]["peak_fn"], res[k]["depth"] * 1e3]
            if k != "recorded" else [None] * 4) for k in ["recorded"] + [r[0] for r in RUNS]]
        F.table("Toss %d's first bounce: impulse (N s) by the data's estimator m (v[k+1] - v[k-1]) + m g 2 dt "
                "(recorded: the data's filtered velocities; models: their trajectories at the data's rate), "
                "the first impact's pulse length (ms), peak friction and normal force (N) and penetration "
                "(mm)" % i, ["", "J_x", "J_y", "J_z", "pulse ms", "peak |f_t|", "peak f_n", "depth mm"],
                rows, rel=0.02, abs_=1e-6)
        claims(F, res)
        F.setup = ("All %d tosses of %s scored by csim validate cubetoss for ccp + solref, hunt_crossley and "
                   "spring_damper at csim's identified parameters (fig003_3.MODELS); the paper's selection "
                   "(ccp's worst 10 %%, in neither other model's) has %d tosses; toss %d (ccp's largest e_q "
                   "among them) rerun by csim run with every step recorded (dt = 1/%d of the data's)." % (
                       len(eq["ccp"]), GROUP, len(sel), i, SUB))


if __name__ == "__main__":
    main()
