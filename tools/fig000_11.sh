#!/usr/bin/env bash
# Seed 000 Fig. 11 (cube pushed by a ramp force, every model/solver): out/figures/fig000_11.png.
# Run from anywhere after `make`; the work is done by tools/fig000_11.py with Debian's python3.
exec /usr/bin/python3 "$(dirname "$0")/fig000_11.py" "$@"
