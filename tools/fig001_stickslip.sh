#!/bin/sh
# fig001_stickslip.sh — seed 001 (Castro et al., TAMSI/TALS) Sec. IV-A, Figs. 4-5 (+ the
# convergence study of Fig. 8 on the same box): the 0.33 kg stick-slip box of
# scenarios/stick_slip_box.yaml at h = 10 ms with
#   tamsi (TALS on), tamsi with TALS and backtracking off (tools/fig001_lib.sh driver),
#   implicit_euler (TALS on), semi_implicit at 10 ms and 1 ms,
# then TAMSI's error against a small-step (h = 2 us) TAMSI reference for h = 10 ms .. 10 us, and
# the same without TALS, and the work (Newton iterations) each needs (001 Fig. 5's
# work-precision view). Writes out/figures/fig001_stickslip.png (data in a temporary directory).
# Usage (repo root): sh tools/fig001_stickslip.sh     (about 30 s)
set -eu
cd "$(dirname "$0")/.."
[ -x ./csim ] || make -j2 >/dev/null
. tools/fig001_lib.sh
tmp=$(mktemp -d -t fig001_stickslip.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
mkdir -p out/figures
fig001_build_driver "$tmp/drv"
S=scenarios/stick_slip_box.yaml

# the h = 10 ms runs of Figs. 4/5
for sch in tamsi implicit_euler; do
  ./csim run $S --quiet --set integrator.scheme=$sch --out "$tmp/run_$sch.h5"
done
# semi-implicit: explicit in the normal compliance; diverges at 10 ms (exit 1, file kept)
./csim run $S --quiet --set integrator.scheme=semi_implicit --out "$tmp/run_semi_10ms.h5" \
  2>"$tmp/semi_10ms.err" || true
./csim run $S --quiet --set integrator.scheme=semi_implicit --set integrator.dt=1e-3 \
  --out "$tmp/run_semi_1ms.h5"
"$tmp/drv/tals_driver" $S 0 0 > "$tmp/notals.csv"
"$tmp/drv/tals_driver" $S 1 1 > "$tmp/tals.csv"

# convergence in h (record every 10 ms so all runs share one time grid)
for h in 1e-2 5e-3 2e-3 1e-3 5e-4 2e-4 1e-4 5e-5 2e-5 1e-5 2e-6; do
  ev=$(/usr/bin/python3 -c "print(round(0.01 / $h))")
  ./csim run $S --quiet --set integrator.dt=$h --set output.every=$ev --out "$tmp/conv_$h.h5"
done
for h in 1e-2 5e-3 2e-3 1e-3 5e-4 2e-4 1e-4; do
  "$tmp/drv/tals_driver" $S 0 0 integrator.dt=$h > "$tmp/conv_notals_$h.csv"
  "$tmp/drv/tals_driver" $S 1 1 integrator.dt=$h > "$tmp/conv_tals_$h.csv"
done

/usr/bin/python3 tools/fig001_stickslip.py "$tmp" out/figures/fig001_stickslip.png
