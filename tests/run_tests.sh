#!/usr/bin/env bash
# Run every test binary given, from the repo root, JOBS of them at a time (default: the number
# of cores; make passes its -j). Each program's output is kept in its own file; the results are
# printed in the order given, each line with the program's Check summary and wall time, as soon as
# it and those before it are done. Then one closing line "checks: N passed, N failed" summed over
# all binaries (a binary that crashes or prints no Check summary counts as one failure). Exit
# non-zero if anything failed.
#
# The programs start longest first (the wall times of the last run, kept in $BUILD/tests/times
# beside the binaries, one file per CK_INCLUDE_TAGS; programs without a time first), so the slowest one does not start last and leave
# a core idle at the end.
set -u
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
[ "$#" -gt 0 ] || { echo "usage: JOBS=N $0 test_binary..." >&2; exit 2; }
times_file="$(dirname "$1")/times${CK_INCLUDE_TAGS:+.$CK_INCLUDE_TAGS}"
work=$(mktemp -d "${TMPDIR:-/tmp}/csim_run_tests.XXXXXX")
trap 'rm -rf "$work"' EXIT

# one program: output, exit code and wall time into $work/<index>.{out,rc,sec}
run_one() {
  local i=$1 t=$2 start end rc
  start=$(date +%s.%N)
  "$t" > "$work/$i.out" 2>&1; rc=$?
  end=$(date +%s.%N)
  awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f\n", b - a }' > "$work/$i.sec"
  echo $rc > "$work/$i.rc.tmp" && mv "$work/$i.rc.tmp" "$work/$i.rc"
}
export -f run_one
export work

# start order: by last wall time, longest first; without one (a fresh build), the programs
# named in $TEST_SLOW in that order, then the rest
i=0
for t in "$@"; do
  name=$(basename "$t")
  sec=$(awk -v n="$name" '$1 == n { s = $2 } END { print s }' "$times_file" 2>/dev/null)
  if [ -z "$sec" ]; then
    sec=$(printf '%s\n' ${TEST_SLOW:-} | awk -v n="$name" '$1 == n { r = NR } END { print (r ? 1e9 - r : 1e8) }')
  fi
  printf '%s %d %s\n' "$sec" $i "$t"
  i=$((i + 1))
done | sort -s -k1,1gr | awk '{ print $2, $3 }' \
  | xargs -P "$JOBS" -n 2 bash -c 'run_one "$0" "$1"' &
runner=$!

total=0; failed=0; bad=0; i=0
: > "$work/times"
for t in "$@"; do
  while [ ! -f "$work/$i.rc" ]; do
    if ! kill -0 $runner 2>/dev/null && [ ! -f "$work/$i.rc" ]; then
      echo "0" > "$work/$i.sec"; echo 127 > "$work/$i.rc"; echo "not run" > "$work/$i.out"
    fi
    sleep 0.2
  done
  rc=$(cat "$work/$i.rc"); sec=$(cat "$work/$i.sec")
  out="$work/$i.out"
  name=$(basename "$t")
  echo "$name $sec" >> "$work/times"
  summary=$(grep -E '^[0-9]+%: Checks:' "$out" | tail -1)
  n=$(printf '%s' "$summary" | sed -nE 's/.*Checks: ([0-9]+).*/\1/p')
  f=$(printf '%s' "$summary" | sed -nE 's/.*Failures: ([0-9]+).*/\1/p')
  e=$(printf '%s' "$summary" | sed -nE 's/.*Errors: ([0-9]+).*/\1/p')
  if [ -z "$n" ]; then n=1; f=1; e=0; fi
  total=$((total + n)); failed=$((failed + f + e))
  if [ "$rc" -ne 0 ] || [ $((f + e)) -ne 0 ]; then
    grep -vE ':P:|^Running suite' "$out" | tail -40
    printf 'FAIL %-26s %6ss  %s (exit %d)\n' "$name" "$sec" "$summary" "$rc"; bad=$((bad + 1))
  else
    printf 'ok   %-26s %6ss  %s\n' "$name" "$sec" "$summary"
  fi
  i=$((i + 1))
done
wait $runner
# keep the other programs' times (a run of a few programs must not forget the rest)
{ cat "$work/times"; cat "$times_file" 2>/dev/null; } | awk '!seen[$1]++' > "$work/times.all" \
  && cp "$work/times.all" "$times_file" 2>/dev/null
echo "checks: $((total - failed)) passed, $failed failed"
[ $bad -eq 0 ]
