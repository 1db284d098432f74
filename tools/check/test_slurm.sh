#!/usr/bin/env bash
# make test-slurm: a one-node SLURM cluster on this machine runs a 12-point sweep as a job array;
# its merged table must equal the Make path's (all columns but the timings) and every output must
# equal the Make path's output (csim compare, default tolerances).
#
# The cluster is the test's own: munged on its own key and socket, slurmctld and slurmd on
# localhost with a generated slurm.conf (AuthInfo=socket=..., SlurmUser=root,
# ProctrackType=proctrack/linuxproc, TaskPlugin=task/none, random non-default ports, state in a
# temporary directory). Every daemon is started in the foreground from here and stopped by its
# PID on exit, whatever happened. Needs root and Debian's slurm-wlm and munge (make deps);
# without them the test says SKIP and why, except under CI=true where a skip is a failure.
set -u
CSIM=$(realpath "${CSIM:-./csim}")
SPEC=scenarios/sweeps/cube_friction_model.yaml
WAIT=${SLURM_TEST_TIMEOUT:-180}   # seconds for the whole array, bounded

skip() {
  echo "test-slurm: SKIP: $*"
  if [ "${CI:-}" = true ]; then echo "test-slurm: FAIL: CI must run the SLURM test"; exit 1; fi
  exit 0
}
[ "$(id -u)" -eq 0 ] || skip "needs root (slurmd runs the array tasks as SlurmUser=root)"
for b in munged munge unmunge slurmctld slurmd sbatch squeue sinfo; do
  command -v "$b" >/dev/null || skip "$b not found: install slurm-wlm and munge (make deps)"
done

waitfor() {  # waitfor SECONDS COMMAND...: poll until COMMAND succeeds
  local n=$(($1 * 10)); shift
  for _ in $(seq "$n"); do "$@" >/dev/null 2>&1 && return 0; sleep 0.1; done
  return 1
}

T=$(mktemp -d -t csim_slurm.XXXXXX) || exit 1
PIDS=()
ok=0
cleanup() {
  local p
  if [ "${SLURM_CONF:-}" = "$T/slurm.conf" ] && [ ${#PIDS[@]} -ge 2 ]; then  # no job of this test cluster outlives it
    scancel --quiet --user=root 2>/dev/null
    waitfor 15 sh -c '[ -z "$(squeue -h 2>/dev/null)" ]'
  fi
  for ((i = ${#PIDS[@]} - 1; i >= 0; i--)); do  # slurmd, slurmctld, then munged
    p=${PIDS[i]}
    kill "$p" 2>/dev/null
    for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$p" 2>/dev/null
    wait "$p" 2>/dev/null
  done
  if [ $ok -ne 1 ]; then
    for f in "$T"/slurmctld.out "$T"/slurmd.out "$T"/munged.log "$T"/slurm/logs/slurm-*.out; do
      [ -f "$f" ] && { echo "--- $f"; tail -15 "$f"; }
    done
  fi
  rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
fail() { echo "test-slurm: FAIL: $*"; exit 1; }

# munge: its own key and socket
mungekey -c -k "$T/munge.key" 2>/dev/null || dd if=/dev/urandom of="$T/munge.key" bs=1 count=1024 2>/dev/null
chmod 600 "$T/munge.key"
munged -F -f --socket="$T/munge.sock" --key-file="$T/munge.key" --pid-file="$T/munged.pid" \
  --log-file="$T/munged.log" --seed-file="$T/munged.seed" >>"$T/munged.log" 2>&1 &
PIDS+=($!)
waitfor 10 sh -c "munge -n -S '$T/munge.sock' | unmunge -S '$T/munge.sock'" ||
  fail "munged did not answer on $T/munge.sock"

# ports: random in 20000-39999 so concurrent runs on one machine do not collide
port=$((20000 + RANDOM % 20000))
node=csimnode$$
mkdir -p "$T/state" "$T/spool"
cat >"$T/slurm.conf" <<CONF
ClusterName=csimtest
SlurmctldHost=$(hostname -s)(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
AuthInfo=socket=$T/munge.sock
CredType=cred/munge
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/slurmctld.log
SlurmdLogFile=$T/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
NodeName=$node NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=csim Nodes=$node Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$T/slurm.conf
slurmctld -D -f "$SLURM_CONF" >"$T/slurmctld.out" 2>&1 &
PIDS+=($!)
slurmd -D -N "$node" -f "$SLURM_CONF" >"$T/slurmd.out" 2>&1 &
PIDS+=($!)
waitfor 30 sh -c "sinfo -h -o %T | grep -qx idle" || fail "the node did not come up idle within 30 s"
echo "test-slurm: cluster up (node $node, ports $port-$((port + 1)))"

# the same sweep twice: Make here, the job array on SLURM
"$CSIM" sweep "$SPEC" --out "$T/make" >/dev/null || fail "csim sweep (make) failed"
"$CSIM" sweep "$SPEC" --out "$T/slurm" >/dev/null || fail "csim sweep (slurm) failed"
t0=$(date +%s.%N)
make -s -C "$T/make" -j2 || fail "the Make path failed"
t1=$(date +%s.%N)
jid=$(sbatch --parsable "$T/slurm/sweep.sbatch") || fail "sbatch refused the script"
jid=${jid%%;*}
waitfor "$WAIT" sh -c "[ -z \"\$(squeue -h -j $jid 2>/dev/null)\" ]" ||
  fail "job array $jid not finished within $WAIT s"
t2=$(date +%s.%N)
ntask=$(ls "$T"/slurm/logs/slurm-"$jid"_*.out 2>/dev/null | wc -l)
echo "test-slurm: job array $jid: $ntask tasks; make -j2 $(awk "BEGIN{printf \"%.1f\", $t1 - $t0}") s, slurm $(awk "BEGIN{printf \"%.1f\", $t2 - $t1}") s"
[ "$ntask" -eq 6 ] || fail "expected 6 array tasks (12 points, chunk 2), found $ntask task logs"

"$CSIM" merge "$T/make" >/dev/null || fail "the Make path left points incomplete"
"$CSIM" merge "$T/slurm" >/dev/null || { cat "$T/slurm/merged.csv"; fail "the SLURM path left points incomplete"; }
[ "$(($(wc -l <"$T/slurm/merged.csv") - 1))" -eq 12 ] || fail "expected 12 rows"
# all but the two timing columns (the last two)
diff <(rev "$T/make/merged.csv" | cut -d, -f3- | rev) <(rev "$T/slurm/merged.csv" | cut -d, -f3- | rev) ||
  fail "the merged tables differ (left: make, right: slurm)"
for f in "$T"/make/out/*.h5; do
  "$CSIM" compare "$T/slurm/out/$(basename "$f")" "$f" >/dev/null || fail "$(basename "$f") differs"
done
echo "test-slurm: 12 points on SLURM, merged table and outputs equal to the Make path's"

# preemption: scancel (SIGTERM) a running array, resubmit: exactly the points not complete run
cat >"$T/preempt.yaml" <<SPEC
base: $(realpath scenarios/cube_slide.yaml)
name: preempt
axes: {contact.friction: [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]}
set: {integrator.duration: 40, output.every: 200}
chunk: 3
slurm: {max_parallel: 1}
SPEC
"$CSIM" sweep "$T/preempt.yaml" --out "$T/pre" >/dev/null || fail "csim sweep (preempt) failed"
P=$T/pre
jid=$(sbatch --parsable "$P/sweep.sbatch") || fail "sbatch refused the script"
jid=${jid%%;*}
waitfor "$WAIT" sh -c "grep -qs 'exit status 0' '$P'/logs/*.log" || fail "no point completed within $WAIT s"
scancel "$jid"
waitfor 60 sh -c "[ -z \"\$(squeue -h -j $jid 2>/dev/null)\" ]" || fail "job $jid still queued 60 s after scancel"
"$CSIM" merge "$P" --out "$T/pre1.csv" >/dev/null
done1=$(awk -F, 'NR > 1 && $4 == "complete" {print $2}' "$T/pre1.csv")
n1=$(printf '%s\n' "$done1" | grep -c .)
nterm=$(grep -c 'interrupted by SIGTERM' "$T/pre1.csv")
[ "$n1" -ge 1 ] && [ "$n1" -lt 6 ] || fail "expected some but not all points complete after scancel, found $n1"
for n in $done1; do stat -c '%i %y' "$P/out/$n.h5" >>"$T/pre.stat"; done
jid=$(sbatch --parsable "$P/sweep.sbatch") || fail "sbatch refused the resubmission"
jid=${jid%%;*}
waitfor "$WAIT" sh -c "[ -z \"\$(squeue -h -j $jid 2>/dev/null)\" ]" || fail "resubmitted array $jid not finished within $WAIT s"
"$CSIM" merge "$P" >/dev/null || { cat "$P/merged.csv"; fail "points left incomplete after the resubmission"; }
for n in $done1; do stat -c '%i %y' "$P/out/$n.h5"; done | diff "$T/pre.stat" - >/dev/null ||
  fail "a point complete before the resubmission was run again"
rerun=0
for f in "$P"/logs/[0-9]*.log; do  # the last attempt of each point: skipped or run
  # a skipped point's attempt is "... skipped: ... is complete" then "csim run: exit status 0"
  tail -n 2 "$f" | grep -q 'skipped:' && last=skipped || last=run
  [ "$last" = run ] && rerun=$((rerun + 1))
done
[ "$rerun" -eq $((6 - n1)) ] || fail "expected $((6 - n1)) points rerun after the resubmission, found $rerun"
echo "test-slurm: scancel after $n1 of 6 points ($nterm interrupted by SIGTERM), resubmitted: $rerun rerun, all complete"
ok=1
echo "test-slurm: ok"
