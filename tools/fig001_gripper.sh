#!/bin/sh
# fig001_gripper.sh — seed 001 (Castro et al.) Sec. VI-A, Figs. 7-8: the parallel-jaw gripper
# shaking a 100 g mug (scenarios/gripper_mug.yaml, h = 3 ms, 5 s):
#   mug slip relative to the fingers vs time; simulated vs wall-clock time (Fig. 7) for
#   tamsi + TALS, implicit_euler + TALS, implicit_euler without TALS (backtracking kept) and
#   implicit_euler with plain Newton (neither), through the tools/fig001_lib.sh driver (step
#   times only), plus the whole `csim run` process wall time of tamsi and implicit_euler (best
#   of 3); TAMSI's convergence in h over 1.2 s against a TAMSI h = 5 us reference (Fig. 8).
# Writes out/figures/fig001_gripper.png. Usage (repo root): sh tools/fig001_gripper.sh (~40 s)
set -eu
cd "$(dirname "$0")/.."
[ -x ./csim ] || make -j2 >/dev/null
. tools/fig001_lib.sh
tmp=$(mktemp -d -t fig001_gripper.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
mkdir -p out/figures
fig001_build_driver "$tmp/drv"
S=scenarios/gripper_mug.yaml

# Fig. 7 runs (driver: per-step wall time, Newton iterations, state)
# (3 repetitions each: the machine is shared, the plot uses the fastest)
for rep in 1 2 3; do
  "$tmp/drv/tals_driver" $S 1 1 > "$tmp/tamsi.$rep.csv"
  "$tmp/drv/tals_driver" $S 0 0 > "$tmp/tamsi_notals.$rep.csv"
  "$tmp/drv/tals_driver" $S 1 1 integrator.scheme=implicit_euler > "$tmp/ie.$rep.csv"
  "$tmp/drv/tals_driver" $S 0 1 integrator.scheme=implicit_euler > "$tmp/ie_notals.$rep.csv"
  "$tmp/drv/tals_driver" $S 0 0 integrator.scheme=implicit_euler > "$tmp/ie_plain.$rep.csv"
done

# whole-process wall time of `csim run` (parse, model, HDF5 output included), best of 3
for sch in tamsi implicit_euler; do
  best=
  for rep in 1 2 3; do
    t0=$(date +%s.%N)
    ./csim run $S --quiet --set integrator.scheme=$sch --out "$tmp/run_$sch.h5"
    t1=$(date +%s.%N)
    w=$(echo "$t1 - $t0" | bc -l)
    if [ -z "$best" ] || [ "$(echo "$w < $best" | bc -l)" = 1 ]; then best=$w; fi
  done
  echo "$best" > "$tmp/wall_$sch.txt"
done

# Fig. 8: convergence over 1.2 s, all runs recorded on a 30 ms grid
for h in 6e-3 3e-3 1.5e-3 1e-3 5e-4 2e-4 1e-4 5e-5 2e-5 1e-5 5e-6; do
  ev=$(/usr/bin/python3 -c "print(round(0.03 / $h))")
  ./csim run $S --quiet --set integrator.dt=$h --set integrator.duration=1.2 \
    --set output.every=$ev --out "$tmp/conv_$h.h5"
done

/usr/bin/python3 tools/fig001_gripper.py "$tmp" out/figures/fig001_gripper.png
