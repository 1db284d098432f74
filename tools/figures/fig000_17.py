#!/usr/bin/python3
"""Seed 000 Fig. 17: Solo-12 locomotion on flat ground (mu = 0.9), every model/solver pair.

The paper runs an MPC controller; csim runs the open-loop trot of scenarios/solo12_trot.yaml
(tools/figures/fig_loco.py says why). Writes out/figures/fig000_17.png and fig000_17.json.
"""
import sys
import os

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fig_loco_figure  # noqa: E402  (tools/figures/fig_loco_figure.py)

if __name__ == "__main__":
    fig_loco_figure.main("000-17")
