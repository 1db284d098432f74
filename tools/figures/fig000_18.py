#!/usr/bin/python3
"""Seed 000 Fig. 18: Solo-12 locomotion on bumpy ground (mu = 0.3), every model/solver pair.

Solo-12 walks closed loop under csim's quadruped_walk controller over 10 seeds
(tools/figures/fig_loco_figure.py, fig_walk.py). Writes out/figures/fig000_18.png and fig000_18.json.
"""
import sys
import os

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fig_loco_figure  # noqa: E402  (tools/figures/fig_loco_figure.py)

if __name__ == "__main__":
    fig_loco_figure.main("000-18")
