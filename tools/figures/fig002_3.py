#!/usr/bin/python3
"""Seed 002 Experiment 3 (Fig. 5): RaiSim vs RaiSim+DS on bumpy, slippery ground.

The paper runs an MPC controller; csim runs the open-loop trot of scenarios/solo12_trot_bumpy.yaml
(tools/figures/fig_loco.py says why). Writes out/figures/fig002_3.png and fig002_3.json.
"""
import sys
import os

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fig_loco_figure  # noqa: E402  (tools/figures/fig_loco_figure.py)

if __name__ == "__main__":
    fig_loco_figure.main("002-3")
