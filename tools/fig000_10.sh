#!/usr/bin/env bash
# Seed 000 Fig. 10 right and maximum dissipation (RaiSim vs RaiSim+DS):
# out/figures/fig000_10.png. Run from anywhere after `make`.
exec /usr/bin/python3 "$(dirname "$0")/fig000_10.py" "$@"
