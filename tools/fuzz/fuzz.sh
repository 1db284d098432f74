#!/usr/bin/env bash
# Run every libFuzzer target (built by `make fuzz` under ASan+UBSan) for FUZZ_SECONDS each.
# Seeds are read in place from tests/data, scenarios/, robots/ and ../shared/data (libFuzzer
# reads every extra corpus directory, recursively, and writes only into the first one, which is
# build/fuzz/corpus/<target>). A crash, leak, timeout (10 s) or memory blow-up (2 GB) leaves
# the input in build/fuzz/artifacts/<target>/ and makes this script fail: minimise it, fix the
# bug, then keep the input under tests/fuzz/regressions/<target>/ (replayed by `make test`).
# usage: tools/fuzz/fuzz.sh SECONDS DIR TARGET...   (FUZZ_SEED=N: libFuzzer's -seed, CI's fixed sequence)
set -u
secs=$1; dir=$2; shift 2
cd "$(dirname "$0")/../.."
status=0
# HDF5 mallocs sizes read from a corrupted file (130 TB seen in H5C_protect): as with glibc, the
# allocation must fail and HDF5 report an error, not abort; real blow-ups hit -rss_limit_mb
export ASAN_OPTIONS="allocator_may_return_null=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export LSAN_OPTIONS="suppressions=$PWD/tests/fuzz/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
seeds() {
  case $1 in
    scenario) echo "scenarios tests/data/scenarios" ;;
    urdf) echo "robots tests/data/urdf ../shared/data/robots" ;;
    mjcf) echo "tests/fuzz/seeds/mjcf robots /usr/share/mujoco/model" ;;
    stl) echo "tests/data/urdf/meshes ../shared/data/robots" ;;
    fclib) echo "../shared/data/fclib" ;;
    cubetoss) echo "../shared/data/cubetoss" ;;
  esac
}
printf '%-10s %8s %12s %10s %s\n' target seconds executions exec/s result
for t in "$@"; do
  mkdir -p "$dir/corpus/$t" "$dir/artifacts/$t"
  extra=""
  for s in $(seeds "$t"); do [ -d "$s" ] && extra="$extra $s"; done
  log="$dir/fuzz_$t.log"
  # a probe child (src/out/h5guard.h) that hits a sanitizer report writes its artifact and dies
  # while libFuzzer goes on: a new artifact is a finding whatever the exit status
  before=$(ls "$dir/artifacts/$t" | wc -l)
  # one malloc larger than the RSS limit is a finding, except HDF5's failing ones (fclib)
  mlimit=""; [ "$t" = fclib ] || [ "$t" = cubetoss ] && mlimit="-malloc_limit_mb=1000000000"
  # the shared cube-toss file is 12 MB: whole, or its HDF5 structure is cut off
  maxlen=1048576; [ "$t" = cubetoss ] && maxlen=16777216
    "$dir/fuzz_$t" "$dir/corpus/$t" $extra -max_total_time="$secs" -timeout=10 \
    -rss_limit_mb=2048 $mlimit -max_len=$maxlen -print_final_stats=1 ${FUZZ_SEED:+-seed=$FUZZ_SEED} \
    -artifact_prefix="$dir/artifacts/$t/" >"$log" 2>&1
  rc=$?
  execs=$(sed -nE 's/^stat::number_of_executed_units: *([0-9]+)/\1/p' "$log" | tail -1)
  rate=$(sed -nE 's/^stat::average_exec_per_sec: *([0-9]+)/\1/p' "$log" | tail -1)
  after=$(ls "$dir/artifacts/$t" | wc -l)
  if [ $rc -eq 0 ] && [ "$after" -eq "$before" ]; then res=ok
  else res="FOUND (exit $rc, $((after - before)) new in $dir/artifacts/$t, see $log)"; status=1; fi
  printf '%-10s %8s %12s %10s %s\n' "$t" "$secs" "${execs:-?}" "${rate:-?}" "$res"
done
exit $status
