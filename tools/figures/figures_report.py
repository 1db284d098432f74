#!/usr/bin/python3
"""Gather out/figures/fig*.json (tools/figures/figures.list order) into out/figures/REPORT.md and
docs/figures.md.

  tools/figures/figures_report.py           write out/figures/REPORT.md, docs/figures.md and the first
                                    image of each figure, shrunk, as docs/images/figures/*.png
  tools/figures/figures_report.py --check   write out/figures/REPORT.md; compare docs/figures.md with a
                                    fresh generation (not written): numbers in tables within each
                                    table's tolerance (timing columns skipped), claims' values
                                    within their drift band (a timing claim's: its noise band),
                                    the rest word for word with numbers masked.
                                    Exit 1 on a difference, 2 on a missing or malformed record.
  tools/figures/figures_report.py --validate [PAGE]   check a generated page (default
                                    docs/figures.md) without the records: every claim states its
                                    verdict (one of four), the paper's number, a tolerance and its
                                    reason, "partly"/"not" say what differs; the summary's verdicts
                                    follow the rule and the headline counts them. Exit 1 if not.

The JSON record is the figure convention's (tools/figures/figjson.py writes it). A listed id without a
record is an error naming the command that makes it: no figure is silently left out.
"""
import json
import math
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import figjson  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
# the paths can be moved for tests/test_figure_claims.c (records, list, page elsewhere)
FIGDIR = os.environ.get("CSIM_FIGDIR", os.path.join(ROOT, "out", "figures"))
LIST = os.environ.get("CSIM_FIGLIST", os.path.join(ROOT, "tools", "figures", "figures.list"))
DOC = os.environ.get("CSIM_FIGDOC", os.path.join(ROOT, "docs", "figures.md"))
DOC_IMG = os.path.join("images", "figures")      # relative to docs/
DOC_IMG_WIDTH = 1200                             # px: committed images are kept small

SEEDS = {"000": "Contact Models in Robotics: a Comparative Analysis (Le Lidec et al., 2023)",
         "001": "A Transition-Aware Method for the Simulation of Compliant Contact with Regularized "
                "Friction (Castro et al.)",
         "002": "Reconciling RaiSim With the Maximum Dissipation Principle (Le Lidec, Carpentier, 2024)",
         "003": "Validating Robotics Simulators on Real World Impacts (Acosta, Yang, Posa)"}
CLAIM = re.compile(r" = (\S+) (?:\(timing, noise band a factor \S+\) )?<!-- claim (timing )?rel=(\S+) "
                   r"abs=(\S+) -->$")
VERDICT = re.compile(r"^- \*\*[a-z ]+\*\*")
EXP_VERDICT = re.compile(r"(?<=^Claims \(verdict: )[a-z ]+(?=\):$)|"
                         r"(?<= \| )(?:reproduced|qualitative|partly|not reproduced)(?= \| \d+/\d+/\d+/\d+ \|)")
NUM = re.compile(r"[-+]?(?:\d+(?:\.\d+)?|\.\d+)(?:[eE][-+]?\d+)?")  # "1." is a number and a period


class BadRecord(Exception):
    pass


# the ids of tools/figures/figures.list, in order (blank lines and # comments skipped)
def read_list():
    ids = []
    with open(LIST) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line:
                ids.append(line)
    return ids


# one figure's record, checked for the fields the report uses
def read_record(fid):
    path = os.path.join(FIGDIR, "fig%s.json" % fid.replace("-", "_"))
    if not os.path.exists(path):
        raise BadRecord("%s: missing (listed in tools/figures/figures.list): run `make fig-%s`" % (path, fid))
    try:
        with open(path) as f:
            rec = json.load(f)
    except ValueError as e:
        raise BadRecord("%s: not valid JSON: %s" % (path, e))
    for key in ("id", "seed", "item", "title", "command", "seconds", "setup", "images", "tables",
                "claims"):
        if key not in rec:
            raise BadRecord("%s: key '%s' missing (figure convention)" % (path, key))
    if rec["id"] != fid:
        raise BadRecord("%s: id '%s', expected '%s'" % (path, rec["id"], fid))
    for i, t in enumerate(rec["tables"]):
        for key in ("caption", "columns", "rows"):
            if key not in t:
                raise BadRecord("%s: tables[%d] has no '%s'" % (path, i, key))
        for j, r in enumerate(t["rows"]):
            if len(r) != len(t["columns"]):
                raise BadRecord("%s: tables[%d].rows[%d] has %d cells for %d columns"
                                % (path, i, j, len(r), len(t["columns"])))
    for i, c in enumerate(rec["claims"]):
        errs = figjson.check_claim(c)
        if errs:
            raise BadRecord("%s: claims[%d]: %s" % (path, i, "; ".join(errs)))
    for im in rec["images"]:
        if not os.path.exists(os.path.join(FIGDIR, im)):
            raise BadRecord("%s: image %s not found in out/figures" % (path, im))
    return rec


# a table cell: 3 significant digits for floats, integers as they are, "—" for none
def cell(x):
    if x is None:
        return "—"
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, int):
        return str(x)
    if isinstance(x, float):
        if x == 0:
            return "0"
        if x == int(x) and abs(x) < 1e6:
            return "%d" % x
        a = abs(x)
        return "%.3g" % x if 1e-3 <= a < 1e5 else "%.2e" % x
    return str(x).replace("|", "\\|").replace("\n", " ")


VERDICT_RULE = (
    "A claim is *reproduced* when csim's number is within the stated tolerance of the paper's "
    "number, *qualitative* when the paper gives no number and csim's number meets the stated "
    "qualitative claim (the interval beside it), *partly* when csim agrees in direction or in part "
    "only, *not reproduced* otherwise; every tolerance gives its reason, every partly/not says what "
    "differs and why. An experiment is *reproduced to the number* when at least one of its claims "
    "is reproduced and all the others are reproduced or qualitative; *qualitative* when all its "
    "claims are qualitative; *not reproduced* when all its claims are not reproduced; *partly* "
    "otherwise. Timing claims are ratios of wall times measured in the run: their drift band is a "
    "noise band (a factor F between runs, from the spread this page's runs and CI's showed); while "
    "a timing value stays within it, a changed verdict is noise and the drift check accepts it.")


# an experiment's verdict from its claims' (VERDICT_RULE)
def exp_verdict(claims):
    v = [c["verdict"] for c in claims]
    if v and all(x == "not reproduced" for x in v):
        return "not reproduced"
    if v and all(x in ("reproduced", "qualitative") for x in v):
        return "reproduced" if "reproduced" in v else "qualitative"
    return "partly"


def claim_counts(claims):
    return "/".join(str(sum(1 for c in claims if c["verdict"] == v)) for v in figjson.VERDICTS)


# the two lines of one claim: verdict, paper's claim, its number, tolerance and reason, csim's
# number with the drift band as a comment; then the sentence and, for partly/not, what differs
def claim_md(c):
    d = c["drift"]
    paper = c["paper"] if c["paper"] == figjson.QUAL else cell(c["paper"])
    if c.get("timing"):
        f = 1.0 / (1.0 - d["rel"]) if d["rel"] < 1 else float("inf")
        mark = "(timing, noise band a factor %.3g) <!-- claim timing rel=%r abs=%r -->" % (
            f, d["rel"], d["abs"])
    else:
        mark = "<!-- claim rel=%r abs=%r -->" % (d["rel"], d["abs"])
    line = "- **%s**. Paper: %s Paper's number: %s; tolerance: %s (%s). Measured: %s = %s %s" % (
        c["verdict"], c["claim"].strip().rstrip(".") + ".", paper, figjson.tol_text(c["tolerance"]),
        c["reason"].strip().rstrip("."), c["measure"].strip(), cell(c["value"]), mark)
    second = "  %s" % c["sentence"].strip()
    if c["verdict"] in ("partly", "not reproduced"):
        second += " Differs: %s." % c["why"].strip().rstrip(".")
    return [line, second]


# the Markdown of one figure; img(name) gives an image's path as the page sees it
def figure_md(rec, img, first_image_only):
    out = []
    out.append("## %s %s: %s" % (rec["seed"], rec["item"], rec["title"]))
    out.append("")
    out.append("`%s` (id `%s`) ran in %s s." % (rec["command"], rec["id"], "%.1f" % rec["seconds"]))
    out.append("")
    out.append(rec["setup"].strip())
    out.append("")
    images = rec["images"][:1] if first_image_only else rec["images"]
    for name in images:
        out.append("![%s](%s)" % (name, img(name)))
        out.append("")
    if first_image_only and len(rec["images"]) > 1:
        out.append("More images in out/figures/REPORT.md: %s." % ", ".join(rec["images"][1:]))
        out.append("")
    for i, t in enumerate(rec["tables"]):
        tol = t.get("tolerance", {})
        out.append("<!-- table %s/%d rel=%r abs=%r timing=%s -->" % (
            rec["id"], i, tol.get("rel", 0.05), tol.get("abs", 1e-12),
            ",".join(str(c) for c in t.get("timing_columns", []))))
        out.append("*%s*" % t["caption"].strip())
        out.append("")
        out.append("| " + " | ".join(cell(c) for c in t["columns"]) + " |")
        out.append("|" + "---|" * len(t["columns"]))
        for r in t["rows"]:
            out.append("| " + " | ".join(cell(c) for c in r) + " |")
        out.append("")
    if rec["claims"]:
        out.append("Claims (verdict: %s):" % exp_verdict(rec["claims"]))
        out.append("")
        for c in rec["claims"]:
            out += claim_md(c)
        out.append("")
    return out


# the headline: the experiments' verdicts counted
def headline(recs):
    v = [exp_verdict(r["claims"]) for r in recs]
    return ("Verdicts: %d reproduced to the number, %d qualitative, %d partly, %d not reproduced "
            "(of %d experiments)" % tuple([v.count(x) for x in figjson.VERDICTS] + [len(v)]))


# the whole page
def page(recs, img, first_image_only, where):
    out = ["# Reproduced experiments of the seed papers", "",
           "<!-- generated by tools/figures/figures_report.py from out/figures/fig*.json: do not edit -->", "",
           "Generated by `make figures` (%s). Every number below comes from a csim run made by the "
           "figure's command; the paper's numbers are those printed in the seed (../shared/seeds/). "
           "`make test-figures` reruns every experiment and fails when this page and a fresh "
           "generation differ beyond each table's stated tolerance (wall-time columns excepted) or a "
           "claim's value beyond its drift band (a timing claim's: its noise band)." % where, "",
           headline(recs), "", VERDICT_RULE, "",
           "| id | seed | item | title | verdict | claims reproduced/qualitative/partly/not | seconds |",
           "|---|---|---|---|---|---|---|"]
    total = 0.0
    for r in recs:
        out.append("| %s | %s | %s | %s | %s | %s | %.1f |" % (
            r["id"], r["seed"], r["item"], r["title"], exp_verdict(r["claims"]),
            claim_counts(r["claims"]), r["seconds"]))
        total += r["seconds"]
    out.append("")
    out.append("Sum of the scripts' wall times: %.0f s (one core each; `make -j2 figures` runs two "
               "at a time)." % total)
    out.append("")
    seed = None
    for r in recs:
        if r["seed"] != seed:
            seed = r["seed"]
            out.append("# Seed %s: %s" % (seed, SEEDS.get(seed, "")))
            out.append("")
        out += figure_md(r, img, first_image_only)
    return "\n".join(out).rstrip() + "\n"


# copy the first image of each figure into docs/images/figures, at most DOC_IMG_WIDTH wide
def copy_images(recs):
    from PIL import Image
    dest = os.path.join(os.path.dirname(DOC), DOC_IMG)
    os.makedirs(dest, exist_ok=True)
    keep = set()
    for r in recs:
        for name in r["images"][:1]:
            im = Image.open(os.path.join(FIGDIR, name)).convert("RGB")
            if im.width > DOC_IMG_WIDTH:
                im = im.resize((DOC_IMG_WIDTH, round(im.height * DOC_IMG_WIDTH / im.width)),
                               Image.LANCZOS)
            im = im.quantize(colors=96)
            im.save(os.path.join(dest, name), optimize=True)
            keep.add(name)
    for name in os.listdir(dest):  # images of figures no longer listed
        if name.endswith(".png") and name not in keep:
            os.remove(os.path.join(dest, name))


# ---- the drift check -------------------------------------------------------------------------

def _num(s):
    s = s.strip()
    try:
        return float(s)
    except ValueError:
        return None


def _close(a, b, rel, abs_):
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return abs(a - b) <= abs_ + rel * max(abs(a), abs(b))


def _mask(line):
    return NUM.sub("#", line)


# differences between the committed page and a fresh one (list of messages)
def compare(old, new):
    a, b = old.splitlines(), new.splitlines()
    msgs = []
    if len(a) != len(b):
        msgs.append("docs/figures.md has %d lines, a fresh generation %d" % (len(a), len(b)))
    table = None  # (rel, abs, timing columns) while inside a table
    skip = 0      # the sentence line of a timing claim whose verdict moved within its noise band
    for i, (x, y) in enumerate(zip(a, b)):
        where = "docs/figures.md:%d" % (i + 1)
        if skip:
            skip -= 1
            continue
        m = re.match(r"<!-- table (\S+) rel=(\S+) abs=(\S+) timing=(\S*) -->", y)
        if m:
            table = (float(m.group(2)), float(m.group(3)),
                     {int(c) for c in m.group(4).split(",") if c}, m.group(1))
        if not y.strip():
            if table and y == "" and x == "" and i > 0 and a[i - 1].startswith("|"):
                table = None
        if table and x.startswith("| ") and y.startswith("| "):
            cx, cy = x.strip().strip("|").split(" | "), y.strip().strip("|").split(" | ")
            if len(cx) != len(cy):
                msgs.append("%s: table %s row has %d cells, fresh %d" % (where, table[3], len(cx), len(cy)))
                continue
            for j, (p, q) in enumerate(zip(cx, cy)):
                if j in table[2]:
                    continue
                u, v = _num(p), _num(q)
                if u is not None and v is not None:
                    if not _close(u, v, table[0], table[1]):
                        msgs.append("%s: table %s column %d: %s committed, %s fresh (rel %g, abs %g)"
                                    % (where, table[3], j, p.strip(), q.strip(), table[0], table[1]))
                elif p.strip() != q.strip():
                    msgs.append("%s: table %s column %d: '%s' committed, '%s' fresh"
                                % (where, table[3], j, p.strip(), q.strip()))
            continue
        mc, mo = CLAIM.search(y), CLAIM.search(x)
        if mc and mo:
            u, v = _num(mo.group(1)), _num(mc.group(1))
            rel, abs_ = float(mc.group(3)), float(mc.group(4))
            if u is not None and v is not None:
                if not _close(u, v, rel, abs_):
                    msgs.append("%s: claim value %s committed, %s fresh (%s %g)" % (
                        where, mo.group(1), mc.group(1), "noise band rel" if mc.group(2) else "rel",
                        rel))
                elif mc.group(2) and mo.group(2):
                    # a timing value within its noise band: a verdict across it is noise
                    skip = 1
            elif mo.group(1) != mc.group(1):
                msgs.append("%s: claim value '%s' committed, '%s' fresh" % (where, mo.group(1), mc.group(1)))
            x, y = x[:mo.start()], y[:mc.start()]
            if skip:
                x, y = VERDICT.sub("- **#**", x), VERDICT.sub("- **#**", y)
        # an experiment's verdict follows from its claims', which are compared one by one (a timing
        # claim's within its noise band)
        x, y = EXP_VERDICT.sub("#", x), EXP_VERDICT.sub("#", y)
        if _mask(x) != _mask(y):
            msgs.append("%s: text differs (numbers masked):\n  committed: %s\n  fresh:     %s" % (where, x, y))
    return msgs


# ---- the page's own check (no records needed) ------------------------------------------------

HEADLINE = re.compile(r"^Verdicts: (\d+) reproduced to the number, (\d+) qualitative, (\d+) partly, "
                      r"(\d+) not reproduced \(of (\d+) experiments\)$")
SUMMARY = re.compile(r"^\| (\S+) \| \d{3} \| .* \| (reproduced|qualitative|partly|not reproduced) \| "
                     r"(\d+)/(\d+)/(\d+)/(\d+) \| [\d.]+ \|$")
CLAIM_LINE = re.compile(r"^- \*\*(reproduced|qualitative|partly|not reproduced)\*\*\. Paper: (.+?) Paper's number: "
                        r"(no number: qualitative|\S+); tolerance: (.+?) \((.{10,})\)\. Measured: (.+) = (\S+) "
                        r"(?:\(timing, noise band a factor \S+\) )?<!-- claim (?:timing )?rel=\S+ abs=\S+ -->$")


# the tolerance text of tol_text back as (lo, hi) around the paper's number p; None if unreadable
def _tol_interval(text, p):
    m = re.match(r"^\+-(\S+) %(?: \+- (\S+))?$", text)
    if m and p is not None:
        w = float(m.group(1)) / 100 * abs(p) + (float(m.group(2)) if m.group(2) else 0.0)
        return (p - w, p + w)
    m = re.match(r"^\+-(\S+)$", text)
    if m and p is not None:
        return (p - float(m.group(1)), p + float(m.group(1)))
    m = re.match(r"^csim (>=|<=) (\S+)$", text)
    if m:
        return (float(m.group(2)), math.inf) if m.group(1) == ">=" else (-math.inf, float(m.group(2)))
    m = re.match(r"^csim in \[(\S+), (\S+)\]$", text)
    if m:
        return (float(m.group(1)), float(m.group(2)))
    return None


# problems of one claim line (and the sentence line after it)
def _claim_problems(where, line, nxt):
    m = CLAIM_LINE.match(line)
    if not m:
        return ["%s: a claim without its verdict (one of %s), the paper's number, a tolerance and its "
                "reason, and csim's number: %s" % (where, ", ".join(figjson.VERDICTS), line[:120])]
    verdict, paper, tol, value = m.group(1), m.group(3), m.group(4), m.group(7)
    msgs = []
    p = _num(paper) if paper != figjson.QUAL else None
    if paper != figjson.QUAL and p is None:
        msgs.append("%s: paper's number '%s' is neither a number nor '%s'" % (where, paper, figjson.QUAL))
    if verdict in ("partly", "not reproduced") and " Differs: " not in nxt:
        msgs.append("%s: '%s' without 'Differs:' (what differs and why) on the next line" % (where, verdict))
    if verdict == "reproduced" and p is None:
        msgs.append("%s: 'reproduced' without a paper number" % where)
    if verdict == "qualitative" and paper != figjson.QUAL:
        msgs.append("%s: 'qualitative' with a paper number" % where)
    if verdict in ("reproduced", "qualitative"):
        iv, v = _tol_interval(tol, p), _num(value)
        if iv is None:
            msgs.append("%s: tolerance '%s' unreadable" % (where, tol))
        elif v is None or not iv[0] - 5e-3 * abs(v) <= v <= iv[1] + 5e-3 * abs(v):  # 3 printed digits
            msgs.append("%s: '%s' but csim's %s is outside %s" % (where, verdict, value, tol))
    return msgs


# check a generated page: claims well formed, experiments' verdicts by the rule, headline counts
def validate(text):
    lines = text.splitlines()
    msgs, summary, heads, exps, cur = [], {}, [], {}, None
    for i, x in enumerate(lines):
        where = "line %d" % (i + 1)
        if HEADLINE.match(x):
            heads.append([int(g) for g in HEADLINE.match(x).groups()])
        m = SUMMARY.match(x)
        if m:
            summary[m.group(1)] = (m.group(2), [int(g) for g in m.groups()[2:]])
        m = re.match(r"^`make fig-\S+` \(id `(\S+)`\)", x)
        if m:
            cur = m.group(1)
            exps[cur] = {"claims": [], "stated": None}
        m = re.match(r"^Claims \(verdict: ([a-z ]+)\):$", x)
        if m and cur:
            exps[cur]["stated"] = m.group(1)
        if x.startswith("- **") and cur:
            msgs += _claim_problems(where, x, lines[i + 1] if i + 1 < len(lines) else "")
            m = CLAIM_LINE.match(x)
            if m:
                exps[cur]["claims"].append({"verdict": m.group(1)})
    if len(heads) != 1:
        msgs.append("%d headline lines 'Verdicts: R reproduced to the number, ...', expected one" % len(heads))
    if set(summary) != set(exps):
        msgs.append("the summary lists %s, the sections %s" % (sorted(summary), sorted(exps)))
    tally = {v: 0 for v in figjson.VERDICTS}
    for fid, e in exps.items():
        v = exp_verdict(e["claims"])
        tally[v] += 1
        counts = [sum(1 for c in e["claims"] if c["verdict"] == k) for k in figjson.VERDICTS]
        if fid in summary and (summary[fid][0] != v or summary[fid][1] != counts):
            msgs.append("%s: summary says %s %s, its claims give %s %s" % (fid, summary[fid][0], summary[fid][1],
                                                                         v, counts))
        if e["stated"] != v:
            msgs.append("%s: 'Claims (verdict: %s)', its claims give %s" % (fid, e["stated"], v))
        if not e["claims"]:
            msgs.append("%s: no claims" % fid)
    if len(heads) == 1 and heads[0] != [tally[v] for v in figjson.VERDICTS] + [len(exps)]:
        msgs.append("headline counts %s, the experiments give %s of %d" % (
            heads[0], [tally[v] for v in figjson.VERDICTS], len(exps)))
    return msgs


def main(argv):
    if argv[1:2] == ["--validate"]:
        path = argv[2] if len(argv) > 2 else DOC
        try:
            with open(path) as f:
                msgs = validate(f.read())
        except OSError as e:
            sys.stderr.write("figures_report: %s\n" % e)
            return 2
        for m in msgs[:40]:
            sys.stderr.write("figures_report: %s: %s\n" % (path, m))
        if not msgs:
            print("%s: every claim states its verdict, the paper's number, a tolerance and its reason; "
                  "the verdicts and the headline follow the rule" % path)
        return 1 if msgs else 0
    check = "--check" in argv[1:]
    unknown = [a for a in argv[1:] if a != "--check"]
    if unknown:
        sys.stderr.write("usage: tools/figures/figures_report.py [--check | --validate [PAGE]]\n")
        return 2
    try:
        recs = [read_record(fid) for fid in read_list()]
    except (BadRecord, OSError) as e:
        sys.stderr.write("figures_report: %s\n" % e)
        return 2
    rep = page(recs, lambda n: n, False, "this file: out/figures/REPORT.md")
    with open(os.path.join(FIGDIR, "REPORT.md"), "w") as f:
        f.write(rep)
    print("wrote out/figures/REPORT.md (%d experiments)" % len(recs))
    doc = page(recs, lambda n: DOC_IMG + "/" + n, True, "this file: docs/figures.md; the full "
               "report with every image is out/figures/REPORT.md")
    if not check:
        with open(DOC, "w") as f:
            f.write(doc)
        copy_images(recs)
        print("wrote docs/figures.md and docs/%s/" % DOC_IMG)
        return 0
    try:
        with open(DOC) as f:
            old = f.read()
    except OSError as e:
        sys.stderr.write("figures_report: %s\n" % e)
        return 2
    msgs = compare(old, doc)
    if msgs:
        sys.stderr.write("figures_report: docs/figures.md differs from a fresh generation "
                         "(%d differences; run `make figures` and commit docs/figures.md if the "
                         "change is intended):\n" % len(msgs))
        for m in msgs[:40]:
            sys.stderr.write("  %s\n" % m)
        return 1
    print("docs/figures.md matches a fresh generation within the tables' tolerances")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
