#!/usr/bin/python3
"""The figure convention's JSON record (docs/experiments.md).

A figure script (tools/figures/fig<id_>.py, run by `make fig-<id>`) does

    with figjson.Figure("000-6", "000", "Fig. 6", "short title") as F:
        ... runs of csim into F.tmp (out/figures/tmp-<id>, removed at the end) ...
        F.png(matplotlib_figure)                 # out/figures/fig000_6.png
        F.table("caption", ["pair", "paper", "csim", "ratio"], rows, timing_columns=[], rel=0.05)
        F.claim("the paper's claim", "what csim measured", value, reproduced, "one sentence")
        F.setup = "one paragraph: scenarios, parameters, choices and why"

and out/figures/fig<id_>.json is written when the `with` block ends without an exception (the
wall time of the script is recorded as "seconds"). Only the script's own files are touched, so
`make -j2 figures` is safe. tools/figures/figures_report.py gathers the JSON files into
out/figures/REPORT.md and docs/figures.md.
"""
import json
import math
import os
import shutil
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
FIGDIR = os.path.join(ROOT, "out", "figures")


# a JSON-safe number: floats that are nan/inf become null (the JSON has no such numbers)
def num(x):
    if x is None:
        return None
    if isinstance(x, bool):
        return x
    if isinstance(x, int):
        return x
    try:
        x = float(x)
    except (TypeError, ValueError):
        return x
    return x if math.isfinite(x) else None


# paper / csim ratio, or None when either is missing or the paper's value is zero
def ratio(paper, csim):
    if paper is None or csim is None or paper == 0:
        return None
    return float(csim) / float(paper)


class Figure:
    """One experiment's record; see the module docstring."""

    def __init__(self, fid, seed, item, title):
        self.t0 = time.time()
        self.id, self.seed, self.item, self.title = fid, seed, item, title
        self.base = "fig" + fid.replace("-", "_")
        self.setup = ""
        self.images, self.tables, self.claims = [], [], []
        os.makedirs(FIGDIR, exist_ok=True)
        self.tmp = os.path.join(FIGDIR, "tmp-" + fid)
        shutil.rmtree(self.tmp, ignore_errors=True)
        os.makedirs(self.tmp)

    def __enter__(self):
        return self

    def __exit__(self, etype, evalue, tb):
        shutil.rmtree(self.tmp, ignore_errors=True)
        if etype is None:
            self.write()
        return False

    # save a matplotlib figure as out/figures/<base><suffix>.png
    def png(self, fig, suffix="", dpi=100):
        name = self.base + suffix + ".png"
        fig.savefig(os.path.join(FIGDIR, name), dpi=dpi)
        self.images.append(name)
        print("wrote", os.path.join("out", "figures", name))
        return name

    # a table: rows of numbers (None where the paper gives none) and strings
    def table(self, caption, columns, rows, timing_columns=(), rel=0.05, abs_=1e-12):
        self.tables.append({"caption": caption, "columns": list(columns),
                            "rows": [[num(c) for c in r] for r in rows],
                            "timing_columns": list(timing_columns),
                            "tolerance": {"rel": rel, "abs": abs_}})

    # one claim of the paper with csim's measured number and a one-sentence verdict
    # (timing=True: the value is a wall-time measure, left out of the drift check)
    def claim(self, claim, measure, value, reproduced, sentence, rel=0.1, abs_=1e-12, timing=False):
        self.claims.append({"claim": claim, "measure": measure, "value": num(value),
                            "reproduced": bool(reproduced), "sentence": sentence,
                            "tolerance": {"rel": rel, "abs": abs_}, "timing": bool(timing)})

    # out/figures/<base>.json
    def write(self):
        rec = {"id": self.id, "seed": self.seed, "item": self.item, "title": self.title,
               "command": "make fig-" + self.id, "seconds": round(time.time() - self.t0, 1),
               "setup": self.setup, "images": self.images, "tables": self.tables,
               "claims": self.claims}
        path = os.path.join(FIGDIR, self.base + ".json")
        with open(path, "w") as f:
            json.dump(rec, f, indent=1)
        print("wrote", os.path.join("out", "figures", self.base + ".json"),
              "(%.1f s)" % rec["seconds"])
