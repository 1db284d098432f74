#!/usr/bin/env bash
# Cost of output.flush_every (docs/reliability.md): CPU time (user + sys, median of 5 runs) of
# every shipped scenario with flushes only at the end (flush_every 1e9), the default (1 s of
# wall time) and a flush after every recorded row (0). usage: tools/bench/bench_flush.sh [CSIM]
set -euo pipefail
cd "$(dirname "$0")/../.."
csim=${1:-./csim}
tmp=$(mktemp -d -t csim_flush.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
/usr/bin/python3 - "$csim" "$tmp" <<'PY'
import os, subprocess, sys, glob, statistics, resource
csim, tmp = sys.argv[1], sys.argv[2]
def cpu(args):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
print("%-18s %10s %10s %8s %10s %8s" % ("scenario", "end_s", "default_s", "ratio", "every_row_s", "ratio"))
# the shipped scenarios (most end before the first 1 s flush), then 100 s of Solo-12 (~3.5 s of wall time)
cases = [(os.path.basename(sc)[:-5], sc, []) for sc in sorted(glob.glob("scenarios/*.yaml"))]
cases.append(("solo12_100s", "scenarios/solo12_stand.yaml", ["--set", "integrator.duration=100"]))
for label, sc, extra in cases:
    # the three variants interleaved, so load from other jobs falls on all of them alike
    runs = {"end": [], "default": [], "row": []}
    for _ in range(5):
        for name, fe in [("end", "1e9"), ("default", "1"), ("row", "0")]:
            runs[name].append(cpu([csim, "run", sc, "--quiet", "--set", "output.flush_every=" + fe,
                                   "--out", tmp + "/f.h5"] + extra))
    t = {k: statistics.median(v) for k, v in runs.items()}
    print("%-18s %10.3f %10.3f %8.3f %10.3f %8.3f" % (label, t["end"], t["default"],
          t["default"] / t["end"], t["row"], t["row"] / t["end"]))
PY
