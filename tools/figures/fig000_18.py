#!/usr/bin/python3
"""Seed 000 Fig. 18: Solo-12 locomotion on bumpy ground (mu = 0.3), every model/solver pair.

The paper runs an MPC controller; csim runs the open-loop trot of scenarios/solo12_trot_bumpy.yaml
(tools/figures/fig_loco.py says why). Writes out/figures/fig000_18.png and fig000_18.json.
"""
import sys
import os

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fig_loco_figure  # noqa: E402  (tools/figures/fig_loco_figure.py)

if __name__ == "__main__":
    fig_loco_figure.main("000-18")
