#!/usr/bin/env bash
# tools/bench/bench.sh — csim's speed table (what `make bench` runs), in the spirit of MuJoCo's
# sample/testspeed.cc: for each scenario, the median over RUNS runs of the time per step and
# the real-time factor that `csim run` prints in its summary, with the dofs, the mean number
# of contacts and the mean solver iterations per step; once recording every step
# (output.every=1) and once recording nothing but the last row (output.every=100000), so the
# difference is the cost of the HDF5 output. Then an allocation check that does not depend on
# timing: valgrind's heap summary ("total heap usage: X allocs") for N and 2N steps must give
# the same count, i.e. the step loop allocates nothing (DESIGN.md: buffers are sized once).
#
# It builds nothing: run `make` first (or point CSIM at a binary). Runs from the repo root;
# outputs go to a temporary directory (mktemp -d) that is removed at the end.
#   tools/bench/bench.sh                             # all scenarios, 5 runs each
#   RUNS=9 SCENARIOS="solo12_stand talos_stand" tools/bench/bench.sh
#   CSIM=build/san/csim tools/bench/bench.sh         # any binary (timings then mean little)
#   QUICK=1 tools/bench/bench.sh                     # a subset of every part, a few minutes
# Every figure is measured in this run (none is quoted); results go to out/bench/*.csv and
# tools/bench/bench_table.py writes the Markdown table into docs/benchmarks.md.
# Exit status: 0 when every run completed and every allocation check passed, 1 otherwise,
# 2 when ./csim is missing.
set -u
CSIM=${CSIM:-./csim}
QUICK=${QUICK:-0}
export QUICK
if [ "$QUICK" = 1 ]; then RUNS=${RUNS:-3}; else RUNS=${RUNS:-5}; fi
SCENARIOS=${SCENARIOS:-"cube_slide solo12_stand talos_stand panda_push_cube"}
if [ ! -x "$CSIM" ]; then
  echo "bench: $CSIM not found or not executable: build it first (make)" >&2
  exit 2
fi
tmp=$(mktemp -d -t csim_bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
status=0

# median of the numbers on stdin (the mean of the two middle ones for an even count)
median() {
  sort -g | awk '{a[NR] = $1} END {if (NR == 0) print "nan"; else if (NR % 2) print a[(NR + 1) / 2];
                                   else printf "%.6g\n", (a[NR / 2] + a[NR / 2 + 1]) / 2}'
}

# field FILE REGEX: the first capture group of the sed -E regex on the first matching line
field() {
  sed -nE "s/$2/\1/p" "$1" | head -1
}

# run one scenario RUNS times with output.every=EVERY; sets the globals us, rtf, nv, steps,
# con, its (medians, or the last run's value for the deterministic ones)
measure() {
  local name=$1 every=$2 k out
  : >"$tmp/us" ; : >"$tmp/rtf"
  for k in $(seq 1 "$RUNS"); do
    out="$tmp/$name.$every.txt"
    if ! "$CSIM" run "scenarios/$name.yaml" --set output.every="$every" --out "$tmp/$name.h5" \
         >"$out" 2>"$tmp/err.txt"; then
      echo "bench: $name (output.every=$every) failed:" >&2
      cat "$tmp/err.txt" "$out" >&2
      status=1
      us=nan; rtf=nan; nv=?; steps=?; con=?; its=?
      return
    fi
    # "  steps 2000, simulated 2 s, wall 0.0655 s, real-time factor 30.5, 32.75 us/step"
    field "$out" '.*, ([0-9.eE+-]+) us\/step.*' >>"$tmp/us"
    field "$out" '.*real-time factor ([0-9.eE+-]+),.*' >>"$tmp/rtf"
  done
  us=$(median <"$tmp/us")
  rtf=$(median <"$tmp/rtf")
  nv=$(field "$out" '.*dofs nq [0-9]+, nv ([0-9]+);.*')
  steps=$(field "$out" '^  steps ([0-9]+),.*')
  con=$(field "$out" '.*contacts mean ([0-9.eE+-]+),.*')
  its=$(field "$out" '.*iterations mean ([0-9.eE+-]+),.*')
}

mkdir -p out/bench
machine="$(sed -nE 's/^model name[[:space:]]*: (.*)/\1/p' /proc/cpuinfo | head -1), $(nproc) cores"
mode=full; [ "$QUICK" = 1 ] && mode="QUICK=1 (subset)"
# how each side was built: csim by the Makefile (OPT, LTO), MuJoCo as the Debian package ships it
cflags=$(make -s -f Makefile --no-print-directory print-opt 2>/dev/null)
mjpkg=$(dpkg-query -W -f='${Package} ${Version}' libmujoco2.2.2 2>/dev/null)
echo "$machine; $(date -u '+%Y-%m-%d %H:%M UTC'); $("$CSIM" --version 2>/dev/null | head -1) built with ${cflags:-?}; MuJoCo: ${mjpkg:-?} (Debian's build); mode $mode" >out/bench/meta.txt
echo "csim bench: $("$CSIM" --version 2>/dev/null | head -1)"
echo "machine: $machine; $(date -u '+%Y-%m-%d %H:%M UTC'); mode $mode"
echo "median of $RUNS runs per cell; us/step and real-time factor as printed by csim run (wall time of the step loop, recording included)"
echo
hdr='%-16s %4s %6s %9s %7s | %10s %8s | %10s %8s | %9s\n'
printf "$hdr" scenario nv steps contacts iters "us/step" RTF "us/step" RTF "recording"
printf "$hdr" "" "" "" "mean" "mean" "every=1" "" "every=1e5" "" "cost"
printf '%s\n' "-----------------------------------------------------------------------------------------------"
echo "scenario,nv,steps,contacts_mean,iterations_mean,us_per_step_every1,rtf_every1,us_per_step_every1e5,rtf_every1e5,runs" >out/bench/speed.csv
for name in $SCENARIOS; do
  if [ ! -f "scenarios/$name.yaml" ]; then
    echo "bench: scenarios/$name.yaml missing" >&2
    status=1
    continue
  fi
  "$CSIM" run "scenarios/$name.yaml" --out "$tmp/$name.h5" --quiet >/dev/null 2>&1  # warm-up
  measure "$name" 1
  us1=$us; rtf1=$rtf
  measure "$name" 100000
  us2=$us; rtf2=$rtf
  cost=$(awk -v a="$us1" -v b="$us2" 'BEGIN {if (b > 0) printf "%+.0f%%", 100 * (a - b) / b; else print "-"}')
  printf "$hdr" "$name" "$nv" "$steps" "$con" "$its" "$us1" "$rtf1" "$us2" "$rtf2" "$cost"
  echo "$name,$nv,$steps,$con,$its,$us1,$rtf1,$us2,$rtf2,$RUNS" >>out/bench/speed.csv
done

# allocation check: the heap allocation count must not depend on the number of steps
echo
echo "allocation check (valgrind memcheck heap summary; N and 2N steps must allocate the same):"
if ! command -v valgrind >/dev/null; then
  echo "  SKIP: valgrind not installed (make deps)"
else
  # allocs SCENARIO DURATION EVERY -> the allocation count, or "" when the run failed; the
  # output file is removed first (overwriting an existing HDF5 file allocates differently)
  allocs() {
    rm -f "$tmp/vg.h5"
    valgrind --tool=memcheck "$CSIM" run "scenarios/$1.yaml" --set integrator.duration="$2" \
      --set output.every="$3" --out "$tmp/vg.h5" --quiet 2>&1 |
      sed -nE 's/.*total heap usage: ([0-9,]+) allocs.*/\1/p' | tr -d , | head -1
  }
  afmt='  %-26s %-22s %9s %9s  %s\n'
  printf "$afmt" "scenario, N/2N" "what" "allocs N" "allocs 2N" verdict
  # scenario, N and 2N durations (the panda only touches the cube after 0.33 s)
  specs=("cube_slide 0.2 0.4" "solo12_stand 0.2 0.4" "panda_push_cube 0.5 1.0")
  [ "$QUICK" = 1 ] && specs=("cube_slide 0.2 0.4")
  for spec in "${specs[@]}"; do
    set -- $spec
    [ -f "scenarios/$1.yaml" ] || continue
    n=$(awk -v d="$2" 'BEGIN {printf "%d", d * 1000 + 0.5}')  # steps added (dt = 1 ms)
    for every in 100000 1; do
      a1=$(allocs "$1" "$2" "$every"); a2=$(allocs "$1" "$3" "$every")
      if [ -z "$a1" ] || [ -z "$a2" ]; then
        verdict="FAIL (run failed)"; status=1
      elif [ "$every" = 100000 ]; then
        # the step loop (nothing recorded but the last row): exactly the same count
        if [ "$a1" = "$a2" ]; then verdict=PASS; else verdict="FAIL ($((a2 - a1)) more)"; status=1; fi
      else
        # recording every step: HDF5 allocates when a dataset grows into a new 64 KB chunk,
        # so this grows with the data written (not a per-step path of csim); reported only
        verdict=$(awk -v d=$((a2 - a1)) -v n="$n" 'BEGIN {printf "info: %+d (%.2f per recorded step, HDF5 chunks)", d, d / n}')
      fi
      what="step loop (every=1e5)"
      [ "$every" = 1 ] && what="recording (every=1)"
      printf "$afmt" "$1 ${2}/${3} s" "$what" "${a1:-?}" "${a2:-?}" "$verdict"
    done
  done
fi

# csim (ncp/pgs, ncp/admm and the default ncp/auto) and MuJoCo 2.2.2 on matched scenes over whole
# runs (stated shorter callgrind horizons on the biggest), with instruction counts, the default's
# targets met or missed, and cost slopes (tools/bench/bench_scenes.py -> out/bench/mujoco.csv, slopes.csv) and, in full mode, csim's solver
# pairs against MuJoCo's PGS/CG/Newton on the four small scenes (tools/bench/bench_mujoco.sh ->
# out/bench/mujoco_solvers.csv); MUJOCO=0 skips both
if [ "${MUJOCO:-1}" = 1 ]; then
  echo
  if [ -f /usr/include/mujoco/mujoco.h ]; then
    tools/bench/bench_scenes.py || status=1
    if [ "$QUICK" != 1 ]; then
      echo
      tools/bench/bench_mujoco.sh || status=1
    fi
  else
    echo "MuJoCo comparison: SKIP (libmujoco-dev not installed: make deps)"
  fi
fi
# Bullet 3.24 and ODE 0.16 beside csim (ncp/pgs, lcp/pgs) and MuJoCo on the cube scenes, batches
# interleaved round by round, callgrind instructions per step and eps_abs of each engine's impulses
# by csim's residual code (tools/bench/bench_peers.py -> out/bench/peers.csv); PEERS=0 skips it
if [ "${PEERS:-1}" = 1 ]; then
  echo
  if [ -f /usr/include/mujoco/mujoco.h ] && { pkg-config --exists ode || pkg-config --exists bullet-float64; }; then
    tools/bench/bench_peers.py || status=1
  else
    echo "Bullet/ODE comparison: SKIP (libbullet-dev, libode-dev or libmujoco-dev not installed: make deps)"
  fi
fi
# MuJoCo's own timing tool (mujoco-testspeed, libmujoco-samples) and csim on MuJoCo's model files
# humanoid, 22_humanoids and humanoid100, rounds interleaved, callgrind instructions inside each
# step (tools/bench/bench_testspeed.py -> out/bench/testspeed.csv); TESTSPEED=0 skips it
if [ "${TESTSPEED:-1}" = 1 ]; then
  echo
  tools/bench/bench_testspeed.py || status=1
fi
# csim vs Siconos numerics 4.4 on the FCLib problems of ../shared/data/fclib, one accuracy
# criterion for every answer (tools/bench/bench_siconos.sh -> out/bench/siconos.csv; QUICK=1: the 8
# smallest files); SICONOS=0 skips it
if [ "${SICONOS:-1}" = 1 ]; then
  echo
  if [ -d /usr/include/siconos ]; then
    tools/bench/bench_siconos.sh || status=1
  else
    echo "Siconos comparison: SKIP (libsiconos-numerics-dev not installed: make deps)"
  fi
fi
# the Markdown table of this run, into docs/benchmarks.md between the bench markers
echo
tools/bench/bench_table.py --doc >/dev/null && echo "table: out/bench/bench.md (and docs/benchmarks.md)"
exit $status
