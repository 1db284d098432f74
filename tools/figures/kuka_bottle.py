#!/usr/bin/python3
"""Writes robots/iiwa_wsg.urdf and scenarios/kuka_bottle.yaml (001 Sec. VI-C stand-in).

`--urdf-only` writes only robots/iiwa_wsg.urdf: `make` does that (the URDF is built from the
shared iiwa14, which is never copied into the repository, so it is not committed);
scenarios/kuka_bottle.yaml is our own and committed.

robots/iiwa_wsg.urdf: the shared Kuka iiwa14 (../shared/data/robots/iiwa/
iiwa14_spheres_collision.urdf, BSD-3-Clause, Drake; copied as it is) with a WSG 50 stand-in of
our own welded to iiwa_link_7: the shared wsg50 URDF's collision geometry is five .obj meshes
that are not provided, so its body (1.2 kg, 146 x 50 x 72 mm) and fingers (0.1 kg each, prismatic,
0..55 mm each, the WSG 50's 110 mm stroke, 80 N effort) are boxes here.
scenarios/kuka_bottle.yaml: a scripted keyframe joint trajectory (the paper's inverse-dynamics
controller tracking Cartesian keyframes is not available): keyframes by a damped least-squares
inverse kinematics of the gripper's finger centre (gripper pointing down), each segment a
half-cosine tracked by PD (trajectory action: offset + amp sin(pi (t - t0) / T - pi / 2)).
"""
import os
import re
import sys

import numpy as np
import xml.etree.ElementTree as ET

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
IIWA = os.path.join(ROOT, "..", "shared", "data", "robots", "iiwa", "iiwa14_spheres_collision.urdf")
TIP = 0.045 + 0.072 + 0.045   # finger centre on link 7's z: flange, WSG body, half finger


def rpy(a):
    cr, sr, cp, sp, cy, sy = np.cos(a[0]), np.sin(a[0]), np.cos(a[1]), np.sin(a[1]), \
        np.cos(a[2]), np.sin(a[2])
    return np.array([[cy, -sy, 0], [sy, cy, 0], [0, 0, 1]]) @ \
        np.array([[cp, 0, sp], [0, 1, 0], [-sp, 0, cp]]) @ \
        np.array([[1, 0, 0], [0, cr, -sr], [0, sr, cr]])


JOINTS = []
for j in ET.parse(IIWA).getroot().findall("joint"):
    if j.get("type") == "revolute":
        o = j.find("origin")
        JOINTS.append((np.array([float(x) for x in o.get("xyz").split()]),
                       rpy([float(x) for x in o.get("rpy").split()])))


def fk(q):
    R, p = np.eye(3), np.zeros(3)
    for (xyz, Ro), qi in zip(JOINTS, q):
        p = p + R @ xyz
        R = R @ Ro @ rpy([0, 0, qi])
    return p + R @ np.array([0, 0, TIP]), R


def fk_rows(Q):
    """fk of every row of Q (n x 7) at once: finger centres (n x 3) and rotations (n x 3 x 3)."""
    n = len(Q)
    R, p = np.broadcast_to(np.eye(3), (n, 3, 3)), np.zeros((n, 3))
    for (xyz, Ro), qi in zip(JOINTS, np.asarray(Q)[:, :7].T):
        c, s = np.cos(qi), np.sin(qi)
        Rz = np.zeros((n, 3, 3))
        Rz[:, 0, 0], Rz[:, 0, 1], Rz[:, 1, 0], Rz[:, 1, 1], Rz[:, 2, 2] = c, -s, s, c, 1
        p = p + R @ xyz
        R = (R @ Ro) @ Rz
    return p + R[:, :, 2] * TIP, R


def ik(target, q0):
    q = np.array(q0, float)
    qn = q.copy()

    def err(x):
        p, R = fk(x)
        return np.concatenate([p - target, R[:, 2] - np.array([0, 0, -1]), 1e-3 * (x - qn)])
    for _ in range(400):
        e = err(q)
        Jm = np.zeros((len(e), 7))
        for i in range(7):
            d = q.copy()
            d[i] += 1e-6
            Jm[:, i] = (err(d) - e) / 1e-6
        dq = np.linalg.solve(Jm.T @ Jm + 1e-6 * np.eye(7), Jm.T @ e)
        n = np.linalg.norm(dq)
        if n > 0.2:
            dq *= 0.2 / n
        q = q - dq
        if n < 1e-12:
            break
    assert np.linalg.norm(err(q)[:6]) < 1e-4, target
    return q


def box_inertia(m, a, b, c):
    return m * (b * b + c * c) / 12, m * (a * a + c * c) / 12, m * (a * a + b * b) / 12


def link(name, m, size, xyz):
    ix, iy, iz = box_inertia(m, *size)
    return ('  <link name="%s">\n    <inertial>\n      <origin xyz="%s" rpy="0 0 0"/>\n'
            '      <mass value="%g"/>\n      <inertia ixx="%.6g" ixy="0" ixz="0" iyy="%.6g" iyz="0" '
            'izz="%.6g"/>\n    </inertial>\n    <collision>\n      <origin xyz="%s" rpy="0 0 0"/>\n'
            '      <geometry><box size="%g %g %g"/></geometry>\n    </collision>\n  </link>\n'
            % (name, xyz, m, ix, iy, iz, xyz, size[0], size[1], size[2]))


def urdf():
    src = open(IIWA).read()
    grip = ("  <!-- csim: WSG 50 stand-in (boxes; the shared wsg50 URDF's .obj collision meshes "
            "are not provided) -->\n"
            '  <joint name="wsg_mount" type="fixed">\n    <parent link="iiwa_link_7"/>\n'
            '    <child link="wsg_body"/>\n    <origin xyz="0 0 0.045" rpy="0 0 0"/>\n  </joint>\n'
            + link("wsg_body", 1.2, (0.146, 0.05, 0.072), "0 0 0.036"))
    for side, sgn in (("left", -1), ("right", 1)):
        grip += ('  <joint name="wsg_%s_finger_joint" type="prismatic">\n'
                 '    <parent link="wsg_body"/>\n    <child link="wsg_%s_finger"/>\n'
                 '    <origin xyz="0 0 0.072" rpy="0 0 0"/>\n    <axis xyz="%d 0 0"/>\n'
                 '    <limit lower="0" upper="0.055" effort="80" velocity="0.4"/>\n  </joint>\n'
                 % (side, side, sgn))
        # finger box 2 cm thick centred 1 cm outside the joint: its inner face at x = +-q
        grip += link("wsg_%s_finger" % side, 0.1, (0.02, 0.03, 0.09),
                     "%g 0 0.045" % (sgn * 0.01))
    head = ("<!-- generated by tools/figures/kuka_bottle.py from ../shared/data/robots/iiwa/"
            "iiwa14_spheres_collision.urdf (BSD-3-Clause, Drake / iiwa_stack), copied unchanged, "
            "with csim's box stand-in for the Schunk WSG 50 welded to iiwa_link_7 -->\n")
    src = src.replace("</robot>", grip + "</robot>")
    return re.sub(r"^<\?xml[^>]*>\n", lambda m: m.group(0) + head, src)


def scene(name, q0, bx, by, duration):
    """The scenario's scene (name to integrator) as kuka_bottle.yaml has it: also
    tools/figures/kuka_pick_place.py's. q0: the arm's 7 angles as text."""
    return """name: %s
world: {gravity: [0, 0, -9.81], ground: {type: plane}}
robots:
  - urdf: ../robots/iiwa_wsg.urdf
    base: fixed
    # the iiwa's <dynamics damping="0.5"> left out: 001 VI-C's controller models no joint
    # damping, and the figures of this scene predate csim reading it
    joint_dynamics: ignore
    q0: [%s, 0.05, 0.05]
  - urdf: ../robots/bottle.urdf
    base: free
    q0: [%g, %g, 0.1, 0, 0, 0, 1]
contact:
  model: hunt_crossley
  friction: 0.8
  stiffness: 2.0e+4
  damping: 1.0
  stiction_velocity: 1.0e-3
solver: {name: none}
integrator:
  scheme: tamsi
  dt: 1.0e-3
  duration: %g
  newton_tolerance: 1.0e-8
  newton_max_iterations: 50""" % (name, q0, bx, by, duration)


def main():
    with open(os.path.join(ROOT, "robots", "iiwa_wsg.urdf"), "w") as f:
        f.write(urdf())
    if "--urdf-only" in sys.argv[1:]:
        return
    BX, BY = 0.6, 0.0   # bottle on the ground, 20 cm tall
    PX, PY = 0.45, 0.35  # where it is placed
    q = {}
    q["above"] = ik(np.array([BX, BY, 0.35]), [0, 0.6, 0, -1.6, 0, 0.9, 0])
    q["grasp"] = ik(np.array([BX, BY, 0.165]), q["above"])
    q["lift"] = ik(np.array([BX, BY, 0.40]), q["grasp"])
    q["carry"] = ik(np.array([PX, PY, 0.40]), q["lift"])
    q["place"] = ik(np.array([PX, PY, 0.17]), q["carry"])
    # (t0, t1, from, to): half-cosine segments; shake: joint 6 (wrist) and 4 sines
    segs = [(0.0, 1.0, "above", "grasp"), (1.0, 1.6, "grasp", "grasp"), (1.6, 2.6, "grasp", "lift"),
            (2.6, 4.6, "lift", "lift"), (4.6, 5.6, "lift", "carry"), (5.6, 6.6, "carry", "place"),
            (6.6, 7.5, "place", "place")]
    out = []
    A = "  - {type: trajectory, robot: iiwa14, joints: [%s], kp: %g, kd: %g, start: %g, stop: %g,\n" \
        "     offset: [%s], amp: [%s], freq: %s, phase: %s}"
    groups = [(range(0, 4), 4000.0, 100.0), (range(4, 7), 400.0, 4.0)]
    for t0, t1, a, b in segs:
        qa, qb = q[a], q[b]
        for js, kp, kd in groups:
            names = ", ".join("iiwa_joint_%d" % (j + 1) for j in js)
            if (a, b) == ("lift", "lift"):  # the shake: 2 Hz sines on joints 4 and 6
                amp = [0.0] * len(js)
                for j in js:
                    if j == 3:
                        amp[j - js[0]] = 0.15
                    if j == 5:
                        amp[j - js[0]] = 0.35
                out.append(A % (names, kp, kd, t0, t1, ", ".join("%.6f" % qa[j] for j in js),
                                ", ".join("%g" % x for x in amp), "2.0", "0"))
                continue
            T = t1 - t0
            out.append(A % (names, kp, kd, t0, t1,
                            ", ".join("%.6f" % ((qa[j] + qb[j]) / 2) for j in js),
                            ", ".join("%.6f" % ((qb[j] - qa[j]) / 2) for j in js),
                            "%.6f" % (1 / (2 * T)), "-1.5707963267948966"))
    q0 = ", ".join("%.6f" % x for x in q["above"])
    y = """# GENERATED by tools/figures/kuka_bottle.py (edit it, then rerun /usr/bin/python3 tools/figures/kuka_bottle.py).
# Seed 001 Sec. VI-C stand-in: the Kuka iiwa14 (7 dofs, sphere collisions, fixed base) with a box
# stand-in for the Schunk WSG 50 (robots/iiwa_wsg.urdf) picks a 0.5 kg bottle (robots/bottle.urdf,
# r = 3 cm, 20 cm) from the ground at (%g, %g), lifts it to 40 cm, shakes it for 2 s (2 Hz sines:
# wrist joint 6 +-0.35 rad, elbow joint 4 +-0.15 rad) and places it at (%g, %g). The paper's
# inverse-dynamics controller tracking Cartesian keyframes (with force feedback) is not available:
# joint keyframes from an inverse kinematics of the finger centre (gripper down), half-cosine
# segments tracked by joint PD, no gravity compensation. The fingers are held open by PD, then
# closed by a constant 40 N force each from t = 1.0 s to 6.6 s, then opened again.
# What the stand-in tests: TAMSI keeps a frictional grasp (mu = 0.8, hunt_crossley) through fast
# stick-slip-stick of the fingers on the bottle while the arm accelerates it, and the bottle-ground
# contacts at pick and place.
%s
actions:
%s
  - {type: pd, robot: iiwa14, joints: [wsg_left_finger_joint, wsg_right_finger_joint], kp: 200,
     kd: 2, target: [0.05, 0.05], stop: 1.0}
  - {type: force, body: wsg_left_finger, frame: local, direction: [1, 0, 0], magnitude: 40,
     start: 1.0, stop: 6.6}
  - {type: force, body: wsg_right_finger, frame: local, direction: [-1, 0, 0], magnitude: 40,
     start: 1.0, stop: 6.6}
  - {type: pd, robot: iiwa14, joints: [wsg_left_finger_joint, wsg_right_finger_joint], kp: 200,
     kd: 2, target: [0.05, 0.05], start: 6.6}
output: {path: ../out/kuka_bottle.h5, every: 10}
""" % (BX, BY, PX, PY, scene("kuka_bottle", q0, BX, BY, 7.5), "\n".join(out))
    with open(os.path.join(ROOT, "scenarios", "kuka_bottle.yaml"), "w") as f:
        f.write(y)
    print("wrote robots/iiwa_wsg.urdf, scenarios/kuka_bottle.yaml")


if __name__ == "__main__":
    main()
