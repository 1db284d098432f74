#!/usr/bin/env python3
"""tools/bench/bench_table.py — the Markdown table of one `make bench` run, from out/bench/*.csv.

  tools/bench/bench_table.py              print the table (out/bench/mujoco.csv, slopes.csv,
                                        peers.csv, testspeed.csv, siconos.csv, meta.txt; a missing
                                        file gives a "not run" row)
  tools/bench/bench_table.py --doc        also write it into docs/benchmarks.md between the markers
                                        <!-- bench:begin --> and <!-- bench:end -->
  tools/bench/bench_table.py --check FILE exit 0 when FILE's block has the generated form: the same
                                        headings, notes and table headers in the same order (csim
                                        solvers pgs and admm, the default of CSIM_SOLVERS), and
                                        data rows with as many cells as their header (the numbers
                                        are not checked: they change per machine); 1 otherwise
Every number in the table comes from those CSV files, written by the same run; none is typed in.
"""
import csv
import math
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "out", "bench")
DOC = os.path.join("docs", "benchmarks.md")   # the page that carries the block, from ROOT
BEGIN, END = "<!-- bench:begin -->", "<!-- bench:end -->"
META = "Measured: "

# the csim solvers of the tables when the CSV names none (the check's generated form); the table of
# a run has a column per solver found in out/bench/mujoco.csv (ir_csim_<key>), the default's first
# (what users get, before the fixed solvers beside it)
DEFAULT_KEYS = ("auto", "pgs", "admm")
H_SI = ("| FCLib files | criterion | csim best converged | Siconos best converged "
        "| median csim/Siconos | files ratioed | within 2× (issue 26) | worst csim/Siconos |")
H_SL = "| family | cost vs | engine | Ir/step | µs/step | points |"
H_PE = "| scene | engine | nv | contacts | µs/step | Ir/step | ε_abs | max abs(G λ + g − J v+) |"
H_TS = ("| model | engine | nv | steps timed / counted | contacts | µs/step | ratio µs | Ir/step "
        "| ratio Ir | ε_abs | note |")


def h_ir(keys):
    """header of the instructions table"""
    return ("| scene | nv | " + "".join("contacts csim %s | " % k for k in keys) + "contacts MuJoCo | "
            + "".join("Ir/step csim %s | " % k for k in keys) + "Ir/step MuJoCo | "
            + "".join("ratio Ir %s | " % k for k in keys) + "ratio Ir default | best csim (smallest Ir ratio) | "
            + "Ir horizon | ratio Ir settling (default) | "
            + "".join("ε_abs csim %s | " % k for k in keys) + "ε_abs MuJoCo | note |")


def h_us(keys):
    """header of the time table"""
    return ("| scene | " + "".join("µs/step csim %s | " % k for k in keys) + "µs/step MuJoCo | "
            + "".join("ratio µs %s | " % k for k in keys) + "ratio µs default | time horizon | "
            + "".join("iterations csim %s | " % k for k in keys) + "iterations MuJoCo | "
            + "".join("steps at cap csim %s | " % k for k in keys)).rstrip()


# the targets of issue 26 for the default pair (bench_scenes.py TARGET_IR, TARGET_US)
H_TG = ("| scene | Ir horizon | ratio Ir default | Ir/step ≤ 0.5 × MuJoCo | ratio µs default "
        "| µs/step ≤ 0.6 × MuJoCo | steps at cap (default) | no step at the cap "
        "| ε_abs default | ε_abs MuJoCo |")


# the scenes where the default misses a target: where its instructions go, and MuJoCo's
H_PR = ("| scene | targets missed | csim default: top functions by own Ir (share of the step) "
        "| MuJoCo: top functions by own Ir |")


def missed(r):
    """the targets the default pair missed on a scene ("Ir, µs, cap"), or "" """
    return ", ".join(n for n, k in (("Ir", "target_ir"), ("µs", "target_us"), ("cap", "target_cap"))
                     if r.get(k) == "missed")


def headers(keys):
    return (h_ir(keys), h_us(keys), H_TG, H_PR, H_PE, H_TS, H_SL, H_SI)


def horizon(r, k):
    """a row's horizon of steps_<k>: "whole" (every step of the run) or "first N of M" """
    n, run = num(r.get("steps_" + k)), num(r.get("steps_run"))
    if n is None:
        return "-"
    if run is None:
        return "first %d" % n
    return "whole (%d)" % run if n >= run else "first %d of %d" % (n, run)


def ir_horizon(r):
    """the instructions' horizon: the default pair's and MuJoCo's, and the other pairs' where
    they are counted over fewer steps (bench_scenes.py FIXED_COUNT)"""
    h = horizon(r, "counted")
    n, c = num(r.get("steps_counted_fixed")), num(r.get("steps_counted"))
    return h if n is None or c is None or n >= c else "%s; other pairs: first %d" % (h, n)


def sep(header):
    return "|" + "---|" * (header.count("|") - 1)


def not_run(header):
    return "| not run |" + " |" * (header.count("|") - 2)


def read(name):
    path = os.path.join(OUT, name)
    if not os.path.exists(path):
        return None
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def csv_keys(mj):
    """the csim solver keys of mujoco.csv (ir_csim_pgs -> pgs) and their model/solver pairs
    (csim_solvers, in the same column order), the default's key moved first"""
    if not mj:
        return DEFAULT_KEYS, ["ncp/" + k for k in DEFAULT_KEYS]
    keys = [c[len("ir_csim_"):] for c in mj[0] if c.startswith("ir_csim_") and c != "ir_csim_best"]
    if not keys:
        return DEFAULT_KEYS, ["ncp/" + k for k in DEFAULT_KEYS]
    pairs = (mj[0].get("csim_solvers") or "").split()
    if len(pairs) != len(keys):
        pairs = [""] * len(keys)
    d = (mj[0].get("csim_default") or "").split("/")[-1]
    order = sorted(range(len(keys)), key=lambda i: keys[i] != d)   # stable: the rest as run
    return tuple(keys[i] for i in order), [pairs[i] for i in order]


def num(x):
    try:
        v = float(x)
        return v if math.isfinite(v) else None
    except (TypeError, ValueError):
        return None


def g(x, f="%.3g"):
    v = num(x)
    return "-" if v is None else f % v


def cell(s):
    return str(s).replace("|", "/").replace("\n", " ")


def table(L, header, data, cells):
    """append a table to L: header, separator, one row of cells(r) per record (or "not run")"""
    L += [header, sep(header)]
    if data is None:
        L.append(not_run(header))
        return
    for r in data:
        L.append("| " + " | ".join(cell(c) for c in cells(r)) + " |")


def settle(r):
    """the default pair's Ir ratio over the settling window, with the window, or "-" """
    v = num(r.get("ratio_ir_settle_default"))
    return "-" if v is None else "%.2f (first %s)" % (v, r.get("steps_settle") or "?")


def render(mj, sl, si, meta, pe=None, ts=None):
    """the lines of the block (without the markers)"""
    keys, pairs = csv_keys(mj)
    hi, hu = h_ir(keys), h_us(keys)
    names = ", ".join("csim %s = %s" % (k, p) for k, p in zip(keys, pairs)) if all(pairs) \
        else "csim solvers " + ", ".join(keys)
    dflt = (mj[0].get("csim_default") if mj else "ncp/auto") or "not measured"
    L = ["_Generated by `tools/bench/bench_table.py` from `out/bench/*.csv`: every figure below was "
         "measured in that one `make bench` run (csim with each of its solvers on every scene (%s) "
         "vs MuJoCo Newton, elliptic cone, same dt, tolerance and iteration cap; Ir = instructions "
         "inside the step, callgrind; ratios are csim / MuJoCo, < 1: csim cheaper; ratio default: "
         "csim's default solver (%s) over MuJoCo; best csim: the csim solver with the smallest Ir ratio "
         "on the scene; horizons: whole runs, or the first N steps of the run where stated (the "
         "default and MuJoCo over the whole run, the other pairs over its first steps where their "
         "ratio is taken against MuJoCo's over the same steps); the "
         "settling column counts the first steps alone where the run settles). Numbers change per "
         "machine._" % (names, dflt),
         "",
         META + meta,
         "",
         "**csim vs MuJoCo 2.2.2, matched scenes: instructions per step and accuracy**",
         "",
         hi, sep(hi)]
    if mj is None:
        L.append(not_run(hi))
    else:
        for r in mj:
            best = r.get("best_csim") or ""
            bk = best.split("/")[-1] if best.split("/")[-1] in keys else best.replace("/", "_")
            best = "%s (%s)" % (bk, g(r.get("ratio_ir_best"), "%.2f")) if best else "-"
            L.append("| " + " | ".join(cell(c) for c in (
                [r["scene"], r["nv_csim"] or r["nv_mujoco"]]
                + [g(r.get("contacts_csim_" + k)) for k in keys] + [g(r["contacts_mujoco"])]
                + [g(r.get("ir_csim_" + k), "%.4g") for k in keys] + [g(r["ir_mujoco"], "%.4g")]
                + [g(r.get("ratio_ir_" + k), "%.2f") for k in keys]
                + [g(r.get("ratio_ir_default"), "%.2f"), best, ir_horizon(r),
                   settle(r)]
                + [g(r.get("eps_csim_" + k), "%.1e") for k in keys] + [g(r["eps_mujoco"], "%.1e")]
                + [r["note"] or ""])) + " |")
    L += ["", "**csim vs MuJoCo 2.2.2, matched scenes: time per step** (median of interleaved "
          "batches, every csim solver and MuJoCo in turn; wall time on a shared machine, noisier "
          "than Ir)", ""]
    table(L, hu, mj, lambda r: (
        [r["scene"]] + [g(r.get("us_csim_" + k)) for k in keys] + [g(r["us_mujoco"])]
        + [g(r.get("ratio_us_" + k), "%.2f") for k in keys]
        + [g(r.get("ratio_us_default"), "%.2f"), horizon(r, "time")]
        + [g(r.get("iters_csim_" + k)) for k in keys] + [g(r.get("iters_mujoco"))]
        + [g(r.get("cap_csim_" + k), "%.0f") for k in keys]))
    L += ["", "**Targets, csim's default solver against MuJoCo 2.2.2** (issue 26: instructions per "
          "step ≤ 0.5 and time per step ≤ 0.6 of MuJoCo's, no step at the iteration cap, at equal "
          "or better ε_abs; met or missed over the horizons above)", ""]
    table(L, H_TG, mj, lambda r: (
        r["scene"], horizon(r, "counted"), g(r.get("ratio_ir_default"), "%.2f"), r.get("target_ir") or "-",
        g(r.get("ratio_us_default"), "%.2f"), r.get("target_us") or "-",
        g(r.get("cap_csim_default"), "%.0f"), r.get("target_cap") or "-",
        g(r.get("eps_csim_default"), "%.1e"), g(r.get("eps_mujoco"), "%.1e")))
    L += ["", "**Where the instructions go on each miss** (callgrind over the counted horizon above, "
          "instructions inside the step: the functions with the most instructions of their own, "
          "their inlined callees included, as a share of the step)", ""]
    table(L, H_PR, None if mj is None else [r for r in mj if missed(r)], lambda r: (
        r["scene"], missed(r), r.get("profile_csim_default") or "-", r.get("profile_mujoco") or "-"))
    L += ["", "**Bullet 3.24 and ODE 0.16 beside csim and MuJoCo on the cube scenes** (tools/bench/"
          "bench_peers.py: batches interleaved round by round; ε_abs of each engine's impulses by "
          "csim's residual code; the last column checks the impulses against the engine's own next "
          "velocity, round-off when frames and signs are read right)", ""]
    table(L, H_PE, pe, lambda r: (
        r["scene"], r["engine"], r["nv"], g(r["contacts_mean"]), g(r["us_per_step"]),
        g(r["ir_per_step"], "%.4g"), g(r["eps_abs_mean"], "%.1e"), g(r["mismatch_max"], "%.0e")))
    L += ["", "**MuJoCo's own testspeed beside csim on MuJoCo's model files** (tools/bench/"
          "bench_testspeed.py: `mujoco-testspeed FILE NSTEP 1 0` and `csim run` on the same file, "
          "same steps, median of interleaved rounds; csim ccp is csim's model matching MuJoCo's "
          "(the file's solref/solimp) in the Lorentz cone, solved by pgs and by newton (MuJoCo's "
          "primal Newton method); csim matching model, default solver is ccp in MuJoCo's pyramid "
          "(contact.cone pyramidal, MuJoCo's cone for files that set none, as these) under csim's "
          "default solver auto, which is newton there; every ccp row takes the file's integrator, "
          "MuJoCo's Euler step (velocity products at the step's start: integrator.velocity_products "
          "explicit), and the midpoint row the same model with csim's own midpoint velocity "
          "products instead; csim default (ncp/auto) is what a scenario naming the file gets "
          "without contact or integrator keys; ratios csim / MuJoCo; Ir inside mj_step and csim's step over the counted "
          "steps; ε_abs by csim's residual code on each side, MuJoCo's from its impulses (mj_contactForce) and "
          "its own next velocity c = J v+ over the same steps, bench_mujoco --mjcf-eps)", ""]
    table(L, H_TS, ts, lambda r: (
        r["model"], r["engine"], r["nv"] or "-", "%s / %s" % (r["steps"], r.get("steps_ir") or "-"),
        g(r["contacts_mean"]), g(r["us_per_step"], "%.4g"), g(r["ratio_us"], "%.2f"),
        g(r["ir_per_step"], "%.4g"), g(r["ratio_ir"], "%.2f"), g(r["eps_abs_mean"], "%.1e"),
        r["note"] or ""))
    L += ["", "**Cost growth: log-log slope of cost per step (1 = linear), per engine and solver**",
          "", H_SL, sep(H_SL)]
    if sl is None:
        L.append(not_run(H_SL))
    else:
        fits, engines = {}, []
        for r in sl:
            fits[(r["family"], r["x"], r["engine"], r["cost"])] = (r["slope"], r["points"])
            if r["engine"] not in engines:
                engines.append(r["engine"])
        for fam in ("grid", "stack", "chain"):
            for x in ("contacts", "dofs"):
                for e in engines:
                    vals = [fits.get((fam, x, e, c), ("", "0")) for c in ("ir_per_step", "us_per_step")]
                    pts = max(int(v[1] or 0) for v in vals)
                    if pts < 2:
                        continue
                    L.append("| %s | %s | %s | %s | %s | %d |"
                             % ((fam, x, "MuJoCo" if e == "mujoco" else e)
                                + tuple(g(v[0], "%.2f") for v in vals) + (pts,)))
    L += ["", "**csim vs Siconos numerics 4.4 on FCLib problems** (best of ncp/pgs, ncp/admm, "
          "ncp/staggered, ncp/newton against the best of NSGS, NSGS_FULL, ADMM, NSN_AC, PROX, DSFP; one "
          "criterion for every answer: Siconos's relative error, computed by csim's code)", "",
          H_SI, sep(H_SI)]
    if si is None:
        L.append(not_run(H_SI))
    else:
        med = [r for r in si if r["file"] == "MEDIAN"]
        conv = {r["solver"]: r for r in si if r["file"] == "CONVERGED"}
        c, s = conv.get("csim_best", {}), conv.get("siconos_best", {})
        crit = med[0]["target_siconos_rel"] if med else ""
        # the per-file ratios (csim's best time / Siconos's best, files where both met it)
        rat = [(float(r["time_s"]), os.path.basename(r["file"])) for r in si
               if r["solver"] == "csim_best/siconos_best" and r["file"] not in ("MEDIAN",)
               and r["reached"] == "1"]
        worst = max(rat) if rat else None
        L.append("| %s | rel. error <= %s | %s | %s | %s | %s | %s | %s |" % (
            c.get("contacts", "-"), g(crit, "%g"), c.get("reached", "-"), s.get("reached", "-"),
            g(med[0]["time_s"], "%.3g") if med else "-", med[0]["reached"] if med else "-",
            "%d of %d" % (sum(x <= 2 for x, _ in rat), len(rat)) if rat else "-",
            "%.3g (%s)" % worst if worst else "-"))
    return L


def block(text):
    m = re.search(re.escape(BEGIN) + r"\n(.*?)" + re.escape(END), text, re.S)
    return None if m is None else m.group(1).rstrip("\n").split("\n")


def structure(lines, hdrs):
    """structural lines (data rows and the measured line's values dropped), or None if a data
    row has the wrong number of cells; hdrs: the table headers"""
    out, width = [], None
    for ln in lines:
        if ln in hdrs:
            width = ln.count("|")
            out.append(ln)
        elif ln.startswith("|---"):
            out.append(ln)
        elif ln.startswith("|"):
            if width is None or ln.count("|") != width:
                return None
        elif ln.startswith(META):
            out.append(META)
        else:
            out.append(ln)
    return out


def main(argv):
    if len(argv) == 3 and argv[1] == "--check":
        with open(argv[2]) as f:
            got = block(f.read())
        hdrs = headers(DEFAULT_KEYS)
        want = structure(render(None, None, None, ""), hdrs)
        ok = got is not None and structure(got, hdrs) == want
        if not ok:
            print("bench_table: %s: the bench block differs from the generated form "
                  "(run make bench, or tools/bench/bench_table.py --doc)" % argv[2], file=sys.stderr)
        return 0 if ok else 1
    meta = "not run"
    mp = os.path.join(OUT, "meta.txt")
    if os.path.exists(mp):
        with open(mp) as f:
            meta = " ".join(f.read().split())
    lines = render(read("mujoco.csv"), read("slopes.csv"), read("siconos.csv"), meta, read("peers.csv"),
                   read("testspeed.csv"))
    text = "\n".join(lines) + "\n"
    with open(os.path.join(OUT, "bench.md") if os.path.isdir(OUT) else os.devnull, "w") as f:
        f.write(text)
    print(text, end="")
    if len(argv) == 2 and argv[1] == "--doc":
        path = os.path.join(ROOT, DOC)
        with open(path) as f:
            page = f.read()
        if block(page) is None:
            print("bench_table: %s has no %s ... %s block" % (DOC, BEGIN, END), file=sys.stderr)
            return 1
        page = re.sub(re.escape(BEGIN) + r"\n.*?" + re.escape(END),
                        lambda m: BEGIN + "\n" + text + END, page, flags=re.S)
        with open(path, "w") as f:
            f.write(page)
    elif len(argv) > 1 and argv[1] != "--doc":
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
