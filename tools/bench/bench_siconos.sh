#!/usr/bin/env bash
# tools/bench/bench_siconos.sh — csim's contact solvers vs Siconos numerics 4.4 on every FCLib
# local/global problem of ../shared/data/fclib (part of `make bench`). Builds the separate
# program tools/bench/bench_siconos.c against build/libcsim.a and -lsiconos_numerics (run `make`
# first), runs it, writes out/bench/siconos.csv and prints the table.
#
# Method (details at the top of tools/bench/bench_siconos.c): one criterion for every answer,
# Siconos's relative error <= TOL (1e-6) computed by csim's code on it; every solver of both
# sides is re-run with a tighter tolerance until its answer meets it; times are medians of
# repeats around the solve call; the ratio is csim's best / Siconos's best (< 1: csim faster);
# converged counts per side and the median ratio close the table.
#   tools/bench/bench_siconos.sh
#   CSIM_SOLVERS=ncp/pgs SICONOS_SOLVERS=NSGS,ADMM tools/bench/bench_siconos.sh
#   QUICK=1 tools/bench/bench_siconos.sh           # the 8 smallest files, 5 s limit
#   TOL=1e-8 LIMIT=30 STORAGE=dense FILES="../shared/data/fclib/siconos_local/*.hdf5" tools/bench/bench_siconos.sh
# Exit status: 0 done, 2 missing library/headers or bad input.
set -u
CSIM_SOLVERS=${CSIM_SOLVERS:-ncp/pgs,ncp/admm,ncp/staggered,ncp/newton}  # pairs absent from the build are skipped
SICONOS_SOLVERS=${SICONOS_SOLVERS:-NSGS,NSGS_FULL,ADMM,NSN_AC,PROX,DSFP}
TOL=${TOL:-1e-6}
LIMIT=${LIMIT:-10}
STORAGE=${STORAGE:-both}
DATA=${DATA:-../shared/data/fclib}
OUT=${OUT:-out/bench/siconos.csv}
LIB=build/libcsim.a
BIN=build/bench_siconos

if [ ! -f "$LIB" ]; then
  echo "bench_siconos: $LIB not found: build csim first (make)" >&2
  exit 2
fi
if [ ! -f /usr/include/siconos/numerics/FrictionContactProblem.h ]; then
  echo "bench_siconos: Siconos numerics headers not found (libsiconos-numerics-dev)" >&2
  exit 2
fi
PKGS="hdf5 lapacke"
if ! cc -std=c11 -D_DEFAULT_SOURCE -O3 -g -flto=auto -Wall -Wextra -Werror -Wmissing-prototypes -Wvla -Wshadow \
     -Isrc -isystem /usr/include/siconos $(pkg-config --cflags $PKGS) \
     -o "$BIN" tools/bench/bench_siconos.c "$LIB" -lsiconos_numerics \
     $(pkg-config --libs $PKGS) -lcholmod -lopenblas -lm; then
  echo "bench_siconos: could not build $BIN" >&2
  exit 2
fi
if [ -n "${FILES:-}" ]; then
  files=$FILES
else
  files=$(ls "$DATA"/siconos_local/*.hdf5 "$DATA"/siconos_global/*.hdf5 \
             "$DATA"/siconos_dat_converted/*.hdf5 2>/dev/null | sort)
  # QUICK=1: the 8 smallest files (a few minutes), LIMIT 5 s
  if [ "${QUICK:-0}" = 1 ]; then
    files=$(ls -Sr $files | head -8 | sort)
    LIMIT=${QUICK_LIMIT:-5}
  fi
fi
if [ -z "$files" ]; then
  echo "bench_siconos: no FCLib files under $DATA" >&2
  exit 2
fi
mkdir -p "$(dirname "$OUT")"
# shellcheck disable=SC2086
# Siconos's LU-based solvers print one "NM_LU_factorize: ... failed" line per singular
# factorization (thousands on the Capsules files): counted and summarized, not echoed (their
# answers are judged by the criterion like any other)
"$BIN" --csim "$CSIM_SOLVERS" --siconos "$SICONOS_SOLVERS" --storage "$STORAGE" --tol "$TOL" \
       --limit "$LIMIT" --csv "$OUT" $files 2>&1 |
  awk '/^NM_LU_factorize: / {n++; next} {print; fflush()}
       END {if (n) printf "Siconos printed %d \"NM_LU_factorize: ... failed\" lines (singular LU in its solvers; not shown)\n", n}'
rc=${PIPESTATUS[0]}
echo "table: $OUT"
exit $rc
