#!/usr/bin/env bash
# Seed 000 Tab. III/IV, Figs. 14-15 (self-consistency in dt and tolerance on cube_slide):
# out/figures/fig000_14.png, fig000_15.png. Run from anywhere after `make`.
exec /usr/bin/python3 "$(dirname "$0")/fig000_14_15.py" "$@"
