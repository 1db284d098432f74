#!/usr/bin/env bash
# tools/bench/bench_sparse.sh — ADMM's island factor (dense, banded, sparse: admm.c) measured in
# instructions: callgrind's count inside solver_solve (--toggle-collect), for one csim build or
# two (BEFORE=path/to/other/csim prints both columns). Scenes: the two FCLib piles
# (LMGC_100_PR_PerioBox, Capsules-i125-1213: csim solve, ncp/admm, tolerance 1e-10, 2000
# iterations: one solve under valgrind), a resting stack of 8 cubes (300 steps, tolerance 1e-8),
# a pile of 16 boxes (20 steps; its trajectory depends on the factor's rounding, so the
# fixed-work rows follow) and both again with the work fixed (tolerance 1e-30, 200 iterations, 10
# steps: every factor is refactored and solved as often).
#   tools/bench/bench_sparse.sh
#   BEFORE=../csim_other/csim tools/bench/bench_sparse.sh   (another build to compare with)
# Exit status: 0 done, 2 no csim, no valgrind or no data.
set -u
CSIM=${CSIM:-./csim}
BEFORE=${BEFORE:-}
DATA=${DATA:-../shared/data/fclib/siconos_local}
command -v valgrind > /dev/null || { echo "bench_sparse: valgrind not found" >&2; exit 2; }
[ -x "$CSIM" ] || { echo "bench_sparse: $CSIM not found (make first)" >&2; exit 2; }
[ -d "$DATA" ] || { echo "bench_sparse: no FCLib data under $DATA" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# scene NAME SOLVER_YAML STEPS X Y Z ...: free 10 cm cubes at the given centres
scene() {
  local name=$1 solver=$2 steps=$3
  shift 3
  {
    echo "name: $name"
    echo "world: {gravity: [0, 0, -9.81], ground: {type: plane, height: 0}}"
    echo "robots:"
    while [ $# -gt 0 ]; do
      echo "  - {urdf: $PWD/robots/cube.urdf, base: free, q0: [$1, $2, $3, 0, 0, 0, 1]}"
      shift 3
    done
    echo "contact: {model: ncp, friction: 0.5}"
    echo "solver: $solver"
    echo "integrator: {dt: 1.0e-3, duration: $(echo "$steps / 1000" | bc -l)}"
    echo "output: {path: $tmp/$name.h5, every: 1}"
  } > "$tmp/$name.yaml"
}
stack=$(for k in 0 1 2 3 4 5 6 7; do echo "0 0 $(echo "0.05 + 0.1 * $k" | bc -l)"; done)
pile=$(for i in 0 1 2 3 4; do for j in 0 1; do echo "$(echo "0.11 * $i" | bc -l) $(echo "0.11 * $j" | bc -l) 0.05"; done; done
       for i in 0 1 2 3; do echo "$(echo "0.055 + 0.11 * $i" | bc -l) 0.055 0.15"; done
       for i in 0 1; do echo "$(echo "0.11 + 0.22 * $i" | bc -l) 0.055 0.25"; done)
natural="{name: admm, tolerance: 1.0e-8, max_iterations: 1000}"
fixed="{name: admm, tolerance: 1.0e-30, max_iterations: 200}"
# shellcheck disable=SC2086
{ scene stack8 "$natural" 300 $stack; scene pile16 "$natural" 20 $pile
  scene stack8_fixed "$fixed" 10 $stack; scene pile16_fixed "$fixed" 10 $pile; }
# instructions inside solver_solve of one command
count() {
  valgrind --tool=callgrind --toggle-collect=solver_solve --callgrind-out-file="$tmp/cg.out" \
    "$@" > /dev/null 2>&1
  awk '/^(summary|totals):/ {print $2; exit}' "$tmp/cg.out"
}
run() {  # LABEL ARGS...: one row
  local label=$1
  shift
  local a b=""
  a=$(count "$CSIM" "$@")
  [ -n "$BEFORE" ] && b=$(count "$BEFORE" "$@")
  if [ -n "$BEFORE" ]; then
    printf '%-38s %15s %15s %7.2f\n' "$label" "$b" "$a" "$(echo "$a / $b" | bc -l)"
  else
    printf '%-38s %15s\n' "$label" "$a"
  fi
}
if [ -n "$BEFORE" ]; then
  printf '%-38s %15s %15s %7s\n' scene before after ratio
else
  printf '%-38s %15s\n' scene instructions
fi
for f in LMGC_100_PR_PerioBox-i00361-60-03000 Capsules-i125-1213; do
  run "$f" solve "$DATA/$f.hdf5" --solver admm --tolerance 1e-10 --max-iterations 2000
done
for s in stack8 pile16 stack8_fixed pile16_fixed; do
  run "$s" run "$tmp/$s.yaml" --quiet
done
