#!/usr/bin/env bash
# Regenerate the golden outputs in tests/golden/ that tests/test_golden.c compares against.
# Run from the repo root after `make`, and only when a change of results is intended (say why
# in the commit). Each golden is a 0.5 s run of a scenario, recorded at every step, then
# repacked with h5repack (shuffle + gzip 9, lossless) because csim's 64 KB chunks would make
# a short run's file ~2 MB; `csim compare` reads either layout.
#   tools/gen/make_golden.sh           regenerate with ./csim
#   CSIM=path/to/csim tools/gen/make_golden.sh
set -eu
CSIM=${CSIM:-./csim}
command -v h5repack >/dev/null || { echo "make_golden: h5repack (hdf5-tools) is needed" >&2; exit 2; }
tmp=$(mktemp -d -t csim_make_golden.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
mkdir -p tests/golden
# the golden set: scenario name -> the exact overrides (keep in sync with tests/test_golden.c)
for name in cube_drop solo12_stand; do
  "$CSIM" run "scenarios/$name.yaml" --set integrator.duration=0.5 --out "$tmp/$name.h5" --quiet
  h5repack -f SHUF -f GZIP=9 "$tmp/$name.h5" "tests/golden/$name.h5"
  # the repacked file must hold exactly what csim wrote
  "$CSIM" compare "tests/golden/$name.h5" "$tmp/$name.h5" --rtol 0 --atol 0 >/dev/null
  printf 'tests/golden/%s.h5  %s bytes\n' "$name" "$(stat -c %s "tests/golden/$name.h5")"
done
