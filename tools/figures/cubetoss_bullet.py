#!/usr/bin/python3
"""Seed 003's Bullet row (Tab. III: e_q 0.27 ± 0.57) with the real Bullet 3.24.

usage: /usr/bin/python3 tools/figures/cubetoss_bullet.py [OUT.h5] [--group G] [-- HARNESS ARGS...]

Runs build/cubetoss_bullet (tools/bench/cubetoss_bullet.cpp; `make peers` builds it when
libbullet-dev is present): every toss of the group replayed in Bullet with the paper's Table II
parameters (k = 2500 N/m, b = 32 N s/m, mu = 0.36 on the table, pybullet's defaults on the cube)
and scored by csim's e_q code. Writes OUT.h5 (default out/cubetoss/bullet.h5) in the layout of
`csim validate cubetoss` (one group, `bullet`), so `tools/figures/cubetoss_report.py RESULTS.h5 DIR
--extra "Bullet 3.24=out/cubetoss/bullet.h5:bullet"` puts it beside csim's models, and prints the
row beside the paper's. Arguments after `--` go to the harness (e.g. `-- --mu-cube 1`).
"""
import csv
import io
import json
import os
import subprocess
import sys
import tempfile

import h5py
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.path.join(ROOT, "build", "cubetoss_bullet")
DATA = os.path.join(ROOT, "..", "shared", "data", "cubetoss", "cube_tosses.h5")
PAPER = "e_q 0.27 ± 0.57, position 15.1 ± 9.1 % side, rotation 16.5 ± 20.1 deg"


def main(argv):
    extra = argv[argv.index("--") + 1:] if "--" in argv else []
    args = argv[:argv.index("--")] if "--" in argv else argv
    group = "dairlib550_eval"
    if "--group" in args:
        group = args[args.index("--group") + 1]
        args = [a for a in args if a not in ("--group", group)]
    out = args[0] if args else os.path.join(ROOT, "out", "cubetoss", "bullet.h5")
    subprocess.run(["make", "--no-print-directory", "-s", "build/cubetoss_bullet"], cwd=ROOT, check=False)
    if not os.access(BIN, os.X_OK):
        print("cubetoss_bullet: SKIP: build/cubetoss_bullet not built (libbullet-dev missing: make deps)")
        return 2
    with tempfile.TemporaryDirectory(prefix="csim_ctb.") as tmp:
        qpath = os.path.join(tmp, "q.bin")
        cmd = [BIN, "--data", DATA, "--group", group, "--q", qpath] + extra
        r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
        if r.returncode == 2 or not os.path.exists(qpath):
            sys.stderr.write(r.stderr)
            return 2
        rows = list(csv.DictReader(io.StringIO(r.stdout)))
        q = np.fromfile(qpath, dtype=np.float64).reshape(-1, 7)
    col = {k: np.array([float(x[k]) for x in rows]) for k in
           ("e_q", "pos_err_pct", "rot_err_deg", "us_per_step", "ms_total")}
    failed = np.array([int(x["failed"]) for x in rows], dtype=np.int32)
    toss = np.array([int(x["toss"]) for x in rows], dtype=np.int32)
    off = np.concatenate([[0], np.cumsum([int(x["rows"]) for x in rows])]).astype(np.int64)
    with h5py.File(DATA, "r") as D:
        dt = float(D.attrs["dt"])
    params = "Bullet 3.24 (float64), seed 003 Tab. II: table k 2500 N/m, b 32 N s/m, mu 0.36; " \
             "cube: pybullet URDF defaults (mu 0.5, contact damping 0.1), a floating-base btMultiBody with its default damping 0.04 as pybullet loads it; harness args: %s" % (" ".join(extra) or "none")
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with h5py.File(out + ".tmp", "w") as H:
        H.attrs["data"] = DATA
        H.attrs["group"] = group
        H.attrs["substeps"] = "10" if "--substeps" not in extra else extra[extra.index("--substeps") + 1]
        H.attrs["dt"] = "%.17g" % (dt / int(H.attrs["substeps"]))
        H.attrs["params"] = params
        H.attrs["metric"] = "e_q of seed 003 eq. 3 by csim's ct_score (src/run/cubetoss.c)"
        G = H.create_group("bullet")
        G.attrs["contact"] = params
        G["toss"], G["offsets"], G["failed"], G["q"] = toss, off, failed, q
        G["e_q"], G["pos_err"], G["rot_err"] = col["e_q"], col["pos_err_pct"], col["rot_err_deg"]
        G["us_per_step"], G["ms_total"] = col["us_per_step"], col["ms_total"]
    os.replace(out + ".tmp", out)
    ok = failed == 0
    e, p, a = col["e_q"][ok], col["pos_err_pct"][ok], col["rot_err_deg"][ok]
    res = {"tosses": int(len(rows)), "failed": int((~ok).sum()), "e_q_mean": float(e.mean()),
           "e_q_std": float(e.std()), "e_q_median": float(np.median(e)), "pos_mean": float(p.mean()),
           "pos_std": float(p.std()), "rot_mean": float(a.mean()), "rot_std": float(a.std()),
           "us_per_step": float(np.nanmean(col["us_per_step"]))}
    print("Bullet 3.24 on %d tosses of %s (%d failed): e_q %.3f ± %.3f (median %.3f), position %.1f ± %.1f "
          "%% side, rotation %.1f ± %.1f deg, %.2f us/step" % (
              res["tosses"], group, res["failed"], res["e_q_mean"], res["e_q_std"], res["e_q_median"],
              res["pos_mean"], res["pos_std"], res["rot_mean"], res["rot_std"], res["us_per_step"]))
    print("seed 003 Tab. III Bullet: %s (550 tosses)" % PAPER)
    print(json.dumps(res))
    print("written:", os.path.relpath(out, ROOT))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
