#!/usr/bin/env bash
# tools/bench/bench_mujoco.sh — build tools/bench/bench_mujoco.c against build/libcsim.a and MuJoCo 2.2.2
# (libmujoco-dev) and run it: csim and MuJoCo side by side on matched scenes (cube resting and
# sliding, a 2-cube stack, solo12 standing), us/step, ratios, eps_abs (000 eq. 14) of both engines.
# Writes out/bench/mujoco_solvers.csv (replaced on each run). The binary is build/bench_mujoco; it is not
# part of libcsim. Runs from the repo root.
#   tools/bench/bench_mujoco.sh                    # the matched table
#   BATCHES=9 tools/bench/bench_mujoco.sh
#   tools/bench/bench_mujoco.sh --build-only       # just build build/bench_mujoco
#   tools/bench/bench_mujoco.sh --scenario scenarios/talos_stand.yaml --csim ncp/pgs --mujoco newton
# Exit status: 0 on success, 1 when a run failed, 2 when MuJoCo or the library is missing.
set -u
cd "$(dirname "$0")/../.." || exit 2
BIN=build/bench_mujoco
LIB=build/libcsim.a
if [ ! -f /usr/include/mujoco/mujoco.h ]; then
  echo "bench_mujoco: SKIP: MuJoCo headers not found (libmujoco-dev; make deps)" >&2
  exit 2
fi
# the library: build it when missing (the same objects `make` builds)
if [ ! -f "$LIB" ]; then
  make --no-print-directory -s "$LIB" >&2 || exit 2
fi
# same flags as the Makefile (pkg-config packages, warnings as errors, -O3 -g, link-time optimization)
PKGS="yaml-0.1 ccd hdf5 lapacke"
CFLAGS="-std=c11 -D_DEFAULT_SOURCE -O3 -g -flto=auto -Wall -Wextra -Wpedantic -Werror -Wmissing-prototypes
        -Wvla -Wshadow $(pkg-config --cflags $PKGS) -Isrc"
LIBS="$(pkg-config --libs $PKGS) -lcholmod -lopenblas -lmujoco -lm"
if [ ! -x "$BIN" ] || [ "$BIN" -ot tools/bench/bench_mujoco.c ] || [ "$BIN" -ot "$LIB" ]; then
  # shellcheck disable=SC2086
  ${CC:-cc} $CFLAGS -o "$BIN" tools/bench/bench_mujoco.c "$LIB" $LIBS || exit 2
fi
[ "${1:-}" = "--build-only" ] && exit 0
if [ $# -gt 0 ]; then
  exec "$BIN" "$@"
fi
mkdir -p out/bench
rm -f out/bench/mujoco_solvers.csv
echo "machine: $(sed -nE 's/^model name[[:space:]]*: (.*)/\1/p' /proc/cpuinfo | head -1), $(nproc) cores"
"$BIN" --batches "${BATCHES:-7}" --csv out/bench/mujoco_solvers.csv
st=$?
echo "written: out/bench/mujoco_solvers.csv"
exit $st
