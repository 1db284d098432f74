#!/usr/bin/env bash
# A long libFuzzer campaign (issue 11), one slot of targets in turn at nice 19:
#   tools/fuzz/fuzz_campaign.sh SLOT END_EPOCH TARGET[:SECONDS|:wait]...
# (FUZZ_BIN: the fuzz_* binaries, default build/fuzz; FUZZ_WORK: corpus, artifacts and logs,
# default out/fuzz_campaign under the repository, ignored by git). Each target runs until its SECONDS (or
# END_EPOCH) are used; :wait waits for FUZZ_BIN/fuzz_TARGET to appear (a fixed build). A
# finding ends a libFuzzer run: it is restarted on the same corpus (4 findings within a minute
# each stop the target). Logs: FUZZ_WORK/logs/TARGET_N.log and .time (CPU from /usr/bin/time),
# summed by tools/fuzz/fuzz_stats.py. Seeds as tools/fuzz/fuzz.sh.
set -u
R=$(cd "$(dirname "$0")/../.." && pwd)
F=${FUZZ_WORK:-$R/out/fuzz_campaign}; B=${FUZZ_BIN:-$R/build/fuzz}; mkdir -p "$F"
slot=$1; end=$2; shift 2
export ASAN_OPTIONS="allocator_may_return_null=1"
export LSAN_OPTIONS="suppressions=$R/tests/fuzz/lsan.supp"
seeds() {
  case $1 in
    scenario) echo "$R/scenarios $R/tests/data/scenarios" ;;
    urdf) echo "$R/robots $R/tests/data/urdf $R/../shared/data/robots" ;;
    stl) echo "$R/tests/data/urdf/meshes $R/../shared/data/robots" ;;
    fclib) echo "$R/../shared/data/fclib" ;;
    cubetoss) echo "$R/../shared/data/cubetoss" ;;
  esac
}
cd $F
for spec in "$@"; do
  t=${spec%%:*}; share=${spec#*:}
  if [ "$share" = wait ]; then
    while [ ! -x $B/fuzz_$t ] && [ $(date +%s) -lt $((end-300)) ]; do sleep 20; done
    [ -x $B/fuzz_$t ] || { echo "$t: binary never ready" >> $F/$slot.events; continue; }
    tend=$end
  else
    tend=$(( $(date +%s) + share )); [ $tend -gt $end ] && tend=$end
  fi
  mkdir -p corpus/$t artifacts/$t
  extra=""; for s in $(seeds $t); do [ -d $s ] && extra="$extra $s"; done
  mlimit=""; { [ $t = fclib ] || [ $t = cubetoss ]; } && mlimit="-malloc_limit_mb=1000000000"
  maxlen=1048576; [ $t = cubetoss ] && maxlen=16777216
  fast=0; run=0
  while :; do
    now=$(date +%s); left=$((tend-now)); [ $left -lt 20 ] && break
    run=$((run+1)); log=$F/logs/${t}_$run.log; mkdir -p logs
    echo "$(date -u +%T) start $t run $run for $left s" >> $F/$slot.events
    /usr/bin/time -f "cpu_user %U cpu_sys %S wall %e" -o $F/logs/${t}_$run.time \
      nice -n 19 $B/fuzz_$t corpus/$t $extra -max_total_time=$left -timeout=10 \
      -rss_limit_mb=2048 $mlimit -max_len=$maxlen -print_final_stats=1 \
      -artifact_prefix=$F/artifacts/$t/ > $log 2>&1
    rc=$?
    echo "$(date -u +%T) end $t run $run rc $rc" >> $F/$slot.events
    [ $rc -eq 0 ] && break
    [ $(( $(date +%s) - now )) -lt 60 ] && fast=$((fast+1))
    [ $fast -ge 4 ] && { echo "$t: stopped, repeated fast findings" >> $F/$slot.events; break; }
  done
done
echo "$(date -u +%T) slot done" >> $F/$slot.events
