#!/usr/bin/env bash
# Seed 000 Fig. 12 (ill-conditioned heavy-on-light stack, PGS vs ADMM): out/figures/fig000_12.png, fig000_12_ratio.png.
# Run from anywhere after `make`; the work is done by tools/fig000_12.py with Debian's python3.
exec /usr/bin/python3 "$(dirname "$0")/fig000_12.py" "$@"
