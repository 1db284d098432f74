#!/usr/bin/env python3
"""Independent URDF figures for csim's tests: links, joints by type, dofs and total mass.

Reads a URDF with xml.etree (nothing shared with csim's C parser) and prints one line per
figure, in the same words `csim info` uses, so a test can compare the two:

    links: 17
    joints: revolute 12, continuous 0, prismatic 0, fixed 4, floating 0, planar 0
    dofs (fixed base): nq 12, nv 12
    dofs (free base): nq 19, nv 18
    mass: 2.500000

Only top-level <link> and <joint> elements count (those inside <gazebo> or <transmission> are
not kinematic). A floating joint counts 7 q and 6 v.

usage: tools/check/urdf_stats.py ROBOT.urdf [ROBOT.urdf ...]
"""
import sys
import xml.etree.ElementTree as ET

TYPES = ["revolute", "continuous", "prismatic", "fixed", "floating", "planar"]


def stats(path):
    root = ET.parse(path).getroot()
    links = root.findall("link")
    joints = root.findall("joint")
    counts = {t: 0 for t in TYPES}
    for j in joints:
        counts[j.get("type")] += 1
    nq = counts["revolute"] + counts["continuous"] + counts["prismatic"] + 7 * counts["floating"]
    nv = counts["revolute"] + counts["continuous"] + counts["prismatic"] + 6 * counts["floating"]
    mass = 0.0
    for link in links:
        m = link.find("inertial/mass")
        if m is not None:
            mass += float(m.get("value"))
    return {
        "links": len(links),
        "joints": counts,
        "nq": nq,
        "nv": nv,
        "mass": mass,
    }


def main():
    for path in sys.argv[1:]:
        s = stats(path)
        if len(sys.argv) > 2:
            print("file: %s" % path)
        print("links: %d" % s["links"])
        print("joints: " + ", ".join("%s %d" % (t, s["joints"][t]) for t in TYPES))
        print("dofs (fixed base): nq %d, nv %d" % (s["nq"], s["nv"]))
        print("dofs (free base): nq %d, nv %d" % (s["nq"] + 7, s["nv"] + 6))
        print("mass: %.6f" % s["mass"])


if __name__ == "__main__":
    main()
