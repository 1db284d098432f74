#!/bin/sh
# fig002_cube.sh — seed 002 (Le Lidec & Carpentier, RaiSim + de Saxce) Experiments 1 and 2
# (Figs. 3, 4) with csim's rigid models raisim / raisim_ds (solver bisection) and ncp (pgs):
#   Exp. 1: a 1 kg cube sliding on a plane, v0 = 1 m/s and 3 m/s (scenarios/cube_slide.yaml,
#           mu = 0.3, h = 1 ms): kinetic energy vs the analytic MDP solution, angle between each
#           contact's friction force and its slip velocity, dissipated power;
#   Exp. 2: the cube dragged by a force growing at 10 N/s (scenarios/cube_push_ramp.yaml,
#           mu = 0.5): internal y-forces per contact, x velocity, eps_abs.
# Writes out/figures/fig002_cube.png. Usage (repo root): sh tools/fig002_cube.sh  (~5 s)
set -eu
cd "$(dirname "$0")/.."
[ -x ./csim ] || make -j2 >/dev/null
tmp=$(mktemp -d -t fig002_cube.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
mkdir -p out/figures
for ms in raisim:bisection raisim_ds:bisection ncp:pgs; do
  m=${ms%%:*}
  s=${ms##*:}
  ./csim run scenarios/cube_slide.yaml --quiet --set contact.model=$m --set solver.name=$s \
    --out "$tmp/slide1_$m.h5"
  ./csim run scenarios/cube_slide.yaml --quiet --set contact.model=$m --set solver.name=$s \
    --set "robots.0.v0=[0,3,0,0,0,0]" --set integrator.duration=1.2 --out "$tmp/slide3_$m.h5"
  ./csim run scenarios/cube_push_ramp.yaml --quiet --set contact.model=$m --set solver.name=$s \
    --out "$tmp/push_$m.h5"
done
/usr/bin/python3 tools/fig002_cube.py "$tmp" out/figures/fig002_cube.png
