#!/usr/bin/python3
"""Figures of a fuzzing campaign from libFuzzer's logs, for docs/reliability.md.

usage: fuzz_stats.py LOGDIR [--runs] [--plus TARGET=SECONDS,...] [TARGET...]

LOGDIR holds TARGET_N.log (libFuzzer's output with -print_final_stats=1) and TARGET_N.time
(/usr/bin/time -f "cpu_user %U cpu_sys %S wall %e"), one pair per run, as tools/fuzz/fuzz_campaign.sh
writes them. A run stopped by SIGKILL has no final stats: its executions are the last "#N"
status line. Prints one markdown row per target: CPU time (user + sys), wall time, executions,
executions per wall second and per CPU second, runs, runs ended by a finding, final corpus;
--runs prints one row per run instead (a target's runs may use different builds); --plus adds a column: the CPU time plus SECONDS fuzzed before (earlier runs' wall time, an upper
bound of their CPU time for one process).
"""
import glob
import os
import re
import sys

args = sys.argv[1:]
logdir = args.pop(0)
per_run = bool(args) and args[0] == "--runs"
if per_run:
    args.pop(0)
plus = {}
if args and args[0] == "--plus":
    args.pop(0)
    plus = {k: float(v) for k, v in (kv.split("=") for kv in args.pop(0).split(","))}
targets = args or ["scenario", "urdf", "stl", "fclib", "cubetoss"]


def run_figures(log, tim):
    text = open(log, errors="replace").read()
    m = re.findall(r"^stat::number_of_executed_units: *(\d+)", text, re.M)
    if m:
        execs = int(m[-1])
    else:
        st = re.findall(r"^#(\d+)\s", text, re.M)
        execs = int(st[-1]) if st else 0
    cpu = wall = 0.0
    if os.path.exists(tim):
        t = open(tim).read()
        u = re.search(r"cpu_user ([\d.]+) cpu_sys ([\d.]+) wall ([\d.]+)", t)
        if u:
            cpu, wall = float(u.group(1)) + float(u.group(2)), float(u.group(3))
    found = bool(re.search(r"==\d+==ERROR: |deadly signal|ERROR: libFuzzer", text))
    corp = re.findall(r"corp: (\d+)/", text)
    return execs, cpu, wall, found, int(corp[-1]) if corp else 0


extra = " with earlier runs |" if plus else ""
print("| target | CPU time (user+sys) | wall time | executions | exec/s (wall) | exec per CPU s | runs | ended by a finding | corpus |" + extra)
print("|---|---|---|---|---|---|---|---|---|" + ("---|" if plus else ""))
for t in targets:
    logs = sorted(glob.glob(os.path.join(logdir, t + "_*.log")),
                  key=lambda p: int(re.search(r"_(\d+)\.log$", p).group(1)))
    if not logs:
        continue
    E = C = W = 0.0
    nf = 0
    corpus = 0
    for log in logs:
        e, c, w, f, corp = run_figures(log, log[:-4] + ".time")
        if per_run:
            print("| `%s` | %.0f s | %.0f s | %s | %.0f | %.0f | 1 | %d | %d |" % (
                os.path.basename(log)[:-4], c, w, format(e, ","), e / w if w else 0,
                e / c if c else 0, f, corp))
        E, C, W, nf = E + e, C + c, W + w, nf + f
        corpus = corp or corpus
    row = "| `fuzz_%s` | %.0f s (%.1f min) | %.0f s | %s | %.0f | %.0f | %d | %d | %d |" % (
        t, C, C / 60, W, format(int(E), ","), E / W if W else 0, E / C if C else 0, len(logs),
        nf, corpus)
    if plus:
        row += " %.1f min |" % ((C + plus.get(t, 0)) / 60)
    if not per_run:
        print(row)
