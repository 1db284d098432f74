#!/usr/bin/python3
"""The figure convention's JSON record (docs/experiments.md).

A figure script (tools/figures/fig<id_>.py, run by `make fig-<id>`) does

    with figjson.Figure("000-6", "000", "Fig. 6", "short title") as F:
        ... runs of csim into F.tmp (out/figures/tmp-<id>, removed at the end) ...
        F.png(matplotlib_figure)                 # out/figures/fig000_6.png
        F.table("caption", ["pair", "paper", "csim", "ratio"], rows, timing_columns=[], rel=0.05)
        F.claim("the paper's claim", "what csim measured", value, verdict, "one sentence",
                paper=7.8 or QUAL, tol={"rel": 0.1} or {"lo": 1}, reason="why this tolerance",
                why="what differs and why (partly, not reproduced)")
        F.setup = "one paragraph: scenarios, parameters, choices and why"

and out/figures/fig<id_>.json is written when the `with` block ends without an exception (the
wall time of the script is recorded as "seconds"). Only the script's own files are touched, so
`make -j2 figures` is safe. tools/figures/figures_report.py gathers the JSON files into
out/figures/REPORT.md and docs/figures.md.

A claim record (claim_record; check_claim lists what is wrong with one) carries the paper's number
("paper": a number, or the literal QUAL when the paper gives none), csim's number ("value"), the
tolerance ("tolerance": {"rel": r} or {"abs": a} around the paper's number, or {"lo": x, "hi": y}
the interval a qualitative claim needs) and the tolerance's reason ("reason": the precision the
paper's figure reads to, a physical argument, a statistical interval), a verdict of VERDICTS, and
for "partly" and "not reproduced" what differs and why ("why"). "drift" is the run-to-run band
of `make test-figures` (for a timing claim, its noise band: a ratio of wall times of one run).
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


QUAL = "no number: qualitative"
VERDICTS = ("reproduced", "qualitative", "partly", "not reproduced")


def _isnum(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


# is x inside the tolerance tol around the paper's number (rel/abs) or its interval (lo/hi)?
def within(x, paper, tol):
    if not _isnum(x):
        return False
    if "lo" in tol or "hi" in tol:
        lo, hi = tol.get("lo"), tol.get("hi")
        return (lo is None or x >= lo) and (hi is None or x <= hi)
    if not _isnum(paper):
        return False
    return abs(x - paper) <= tol.get("abs", 0.0) + tol.get("rel", 0.0) * abs(paper)


# the interval [lo, hi] of csim values a tolerance accepts
def _interval(paper, tol):
    if "lo" in tol or "hi" in tol:
        lo, hi = tol.get("lo"), tol.get("hi")
        return (-math.inf if lo is None else lo, math.inf if hi is None else hi)
    w = tol.get("abs", 0.0) + tol.get("rel", 0.0) * abs(paper)
    return (paper - w, paper + w)


# the verdict by rule: in tolerance -> reproduced (a paper number) or qualitative (none); else
# partly when csim meets `direction` (the claim's sign or ordering, same form as tol), else not.
# A timing value with noise factor F stands for [value / F, value * F]: reproduced/qualitative
# only when all of it is in tolerance, partly when part of it is, so that a rerun within the
# noise band rarely changes the verdict
def judge(value, paper, tol, direction=None, noise=None):
    if not _isnum(value):
        return "not reproduced"
    lo, hi = (value / noise, value * noise) if noise else (value, value)
    if lo > hi:
        lo, hi = hi, lo
    a, b = _interval(paper, tol) if (_isnum(paper) or "lo" in tol or "hi" in tol) else (1, 0)
    if a <= lo and hi <= b:
        return "reproduced" if _isnum(paper) else "qualitative"
    if noise and lo <= b and a <= hi:
        return "partly"
    if direction is not None:
        c, d = _interval(None, direction)
        if c <= lo and hi <= d:
            return "partly"
    return "not reproduced"


# the tolerance as the report prints it
def tol_text(tol):
    if "lo" in tol or "hi" in tol:
        lo, hi = tol.get("lo"), tol.get("hi")
        if hi is None:
            return "csim >= %g" % lo
        if lo is None:
            return "csim <= %g" % hi
        return "csim in [%g, %g]" % (lo, hi)
    if "rel" in tol:
        return "+-%g %%" % (100 * tol["rel"]) + (" +- %g" % tol["abs"] if tol.get("abs") else "")
    return "+-%g" % tol["abs"]


# what is wrong with a claim record (empty when it is well formed)
def check_claim(c):
    errs = []
    for key in ("claim", "measure", "value", "verdict", "sentence", "paper", "tolerance", "reason",
                "drift"):
        if key not in c:
            errs.append("no '%s'" % key)
    if errs:
        return errs
    if c["verdict"] not in VERDICTS:
        errs.append("verdict '%s' is not one of %s" % (c["verdict"], ", ".join(VERDICTS)))
    if not (_isnum(c["paper"]) or c["paper"] == QUAL):
        errs.append("paper value %r is neither a number nor '%s'" % (c["paper"], QUAL))
    tol = c["tolerance"]
    if not isinstance(tol, dict) or not ({"rel", "abs", "lo", "hi"} & set(tol)) or not all(
            v is None or _isnum(v) for v in tol.values()):
        errs.append("tolerance %r is not {rel|abs: x} or {lo: x, hi: y}" % (tol,))
    elif ("rel" in tol or "abs" in tol) and not _isnum(c["paper"]):
        errs.append("a tolerance around the paper's number needs a paper number")
    if not isinstance(c["reason"], str) or len(c["reason"].strip()) < 10:
        errs.append("no reason for the tolerance")
    if c["verdict"] in ("partly", "not reproduced") and len(str(c.get("why") or "").strip()) < 10:
        errs.append("verdict '%s' without 'why' (what differs and why)" % c["verdict"])
    if c["verdict"] == "reproduced" and not _isnum(c["paper"]):
        errs.append("'reproduced' without a paper number (use 'qualitative')")
    if c["verdict"] == "qualitative" and c["paper"] != QUAL:
        errs.append("'qualitative' with a paper number")
    if c["verdict"] in ("reproduced", "qualitative") and not errs and not within(
            c["value"], c["paper"], tol):
        errs.append("'%s' but csim's %r is outside the tolerance (%s)" % (c["verdict"], c["value"],
                                                                         tol_text(tol)))
    d = c["drift"]
    if not isinstance(d, dict) or not _isnum(d.get("rel")) or not _isnum(d.get("abs")):
        errs.append("drift %r is not {rel: x, abs: y}" % (d,))
    return errs


# one claim record (see the module docstring); raises ValueError when it is malformed, so a
# figure script cannot write a claim without a tolerance reason or with a verdict of its own
# noise=F: a timing claim (a ratio of wall times of the run), drift band a factor F
def claim_record(claim, measure, value, verdict, sentence, paper, tol, reason, why="", rel=0.1,
                 abs_=1e-12, noise=None):
    timing = noise is not None
    if timing:
        rel = 1.0 - 1.0 / noise
    c = {"claim": claim, "measure": measure, "value": num(value), "verdict": verdict,
         "sentence": sentence, "paper": num(paper) if paper != QUAL else QUAL, "tolerance": tol,
         "reason": reason, "why": why, "drift": {"rel": rel, "abs": abs_}, "timing": bool(timing)}
    errs = check_claim(c)
    if errs:
        raise ValueError("claim '%s': %s" % (claim[:60], "; ".join(errs)))
    return c


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
        # timing columns by index (the report's drift check reads them as integers)
        bad = [c for c in timing_columns if not isinstance(c, int) or not 0 <= c < len(columns)]
        if bad:
            raise ValueError("%s: timing_columns %r are not column indices of %r" % (self.id, bad, columns))
        self.tables.append({"caption": caption, "columns": list(columns),
                            "rows": [[num(c) for c in r] for r in rows],
                            "timing_columns": list(timing_columns),
                            "tolerance": {"rel": rel, "abs": abs_}})

    # one claim of the paper with csim's measured number and its verdict (claim_record)
    def claim(self, claim, measure, value, verdict, sentence, **kw):
        self.claims.append(claim_record(claim, measure, value, verdict, sentence, **kw))

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
