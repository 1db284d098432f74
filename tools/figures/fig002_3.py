#!/usr/bin/python3
"""Seed 002 Experiment 3 (Fig. 5): RaiSim vs RaiSim+DS on bumpy, slippery ground.

Solo-12 walks closed loop under csim's quadruped_walk controller over 10 seeds
(tools/figures/fig_loco_figure.py, fig_walk.py). Writes out/figures/fig002_3.png and fig002_3.json.
"""
import sys
import os

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fig_loco_figure  # noqa: E402  (tools/figures/fig_loco_figure.py)

if __name__ == "__main__":
    fig_loco_figure.main("002-3")
