#!/usr/bin/env bash
# Run every test binary given, from the repo root; print each binary's Check summary, then one
# closing line "checks: N passed, N failed" summed over all binaries (a binary that crashes or
# prints no Check summary counts as one failure). Exit non-zero if anything failed.
set -u
total=0; failed=0; bad=0
for t in "$@"; do
  out=$("$t" 2>&1); rc=$?
  summary=$(printf '%s\n' "$out" | grep -E '^[0-9]+%: Checks:' | tail -1)
  n=$(printf '%s' "$summary" | sed -nE 's/.*Checks: ([0-9]+).*/\1/p')
  f=$(printf '%s' "$summary" | sed -nE 's/.*Failures: ([0-9]+).*/\1/p')
  e=$(printf '%s' "$summary" | sed -nE 's/.*Errors: ([0-9]+).*/\1/p')
  if [ -z "$n" ]; then n=1; f=1; e=0; fi
  total=$((total + n)); failed=$((failed + f + e))
  if [ $rc -ne 0 ] || [ $((f + e)) -ne 0 ]; then
    printf '%s\n' "$out" | grep -vE ':P:|^Running suite' | tail -40
    printf 'FAIL %-32s %s (exit %d)\n' "$(basename "$t")" "$summary" $rc; bad=$((bad + 1))
  else
    printf 'ok   %-32s %s\n' "$(basename "$t")" "$summary"
  fi
done
echo "checks: $((total - failed)) passed, $failed failed"
[ $bad -eq 0 ]
