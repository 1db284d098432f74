#!/usr/bin/env python3
"""tools/gen/validation_tables.py — docs/validation.md's two cube-toss tables from the generated report.

docs/validation.md quotes the cube-toss validation beside its prose: the nine models' scores and
seed 003's Tab. III row, and seed 003's own parameters entered four ways. Every number of those
tables is copied here from docs/cubetoss/cubetoss_report.md (made by
tools/figures/cubetoss_report.py from `csim validate cubetoss`), so none is typed by hand:

  tools/gen/validation_tables.py [PAGE]            rewrite PAGE's tables (docs/validation.md)
  tools/gen/validation_tables.py --check [PAGE]    exit 0 when they match the report, 1 (naming
                                                   the first row that differs) when not

A row is matched by its model (the models' table: "ccp (solref)" is the report's "csim ccp"; the
seed 003 row takes the report's 003 Drake, Bullet and MuJoCo rows) or by its place (the four
parameter rows, whose model must agree); the row labels are the page's own.
"""
import sys

REPORT = "docs/cubetoss/cubetoss_report.md"
PAGE = "docs/validation.md"
MODELS_HEAD = "| model | e_q ± σ (430 tosses) |"
EXTRA_HEAD = "| seed 003's parameters entered as |"


def cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def row(c):
    return "| " + " | ".join(c) + " |"


def report_tables(text):
    """the report's models table (by label) and its parameters table (in order)"""
    models, extra, mode = {}, [], None
    for line in text.splitlines():
        if line.startswith("| model | e_q ± σ (all)"):
            mode = "models"
        elif line.startswith("| run | model | e_q ± σ (all)"):
            mode = "extra"
        elif not line.startswith("|"):
            mode = None
        elif mode and not line.startswith("|---"):
            c = cells(line)
            if mode == "models":
                models[c[0]] = c
            else:
                extra.append(c)
    return models, extra


def models_row(c, rep):
    """a row of the page's models table: model | e_q | median | held out | position | rotation | failures"""
    if c[0].startswith("seed 003 Tab. III"):
        rs = [rep.get("003 %s (Tab. III)" % e) for e in ("Drake", "Bullet", "MuJoCo")]
        if None in rs:
            raise KeyError("the report has no 003 Drake/Bullet/MuJoCo rows")
        mean = lambda s: s.split(" ± ")[0]
        return [c[0], " / ".join(r[1] for r in rs), "", "",
                " / ".join(mean(r[5]) for r in rs), " / ".join(mean(r[6]) for r in rs), ""]
    name = "csim " + c[0].split(" ")[0]
    r = rep.get(name)
    if r is None:
        raise KeyError("the report has no row '%s'" % name)
    return [c[0], r[1], r[2], r[4], r[5], r[6], r[7]]


def extra_row(c, r):
    """a row of the page's parameters table: label | model | e_q | median | held out | position | rotation"""
    if r[1] != c[1]:
        raise KeyError("row '%s': model %s, the report's row in its place is %s" % (c[0], c[1], r[1]))
    return [c[0], c[1], r[2], r[3], r[5], r[6], r[7]]


def generate(page, report):
    rep, extra = report_tables(report)
    out, mode, k = [], None, 0
    for line in page.splitlines():
        if line.startswith(MODELS_HEAD):
            mode = "models"
        elif line.startswith(EXTRA_HEAD):
            mode, k = "extra", 0
        elif not line.startswith("|"):
            mode = None
        elif mode and not line.startswith("|---"):
            c = cells(line)
            if mode == "models":
                line = row(models_row(c, rep))
            else:
                if k >= len(extra):
                    raise KeyError("row '%s': the report has %d parameter rows" % (c[0], len(extra)))
                line = row(extra_row(c, extra[k]))
                k += 1
        out.append(line)
    return "\n".join(out) + ("\n" if page.endswith("\n") else "")


def main(argv):
    args = argv[1:]
    check = "--check" in args
    rest = [a for a in args if a != "--check"]
    if len(rest) > 1 or any(a.startswith("-") for a in rest):
        print(__doc__, file=sys.stderr)
        return 2
    page_path = rest[0] if rest else PAGE
    page = open(page_path, encoding="utf-8").read()
    report = open(REPORT, encoding="utf-8").read()
    try:
        new = generate(page, report)
    except KeyError as e:
        print("validation_tables: %s" % e.args[0], file=sys.stderr)
        return 1
    if check:
        if new != page:
            bad = [a for a, b in zip(page.splitlines(), new.splitlines()) if a != b]
            print("validation_tables: %s differs from %s: %s" % (page_path, REPORT, bad[0]),
                  file=sys.stderr)
            return 1
        return 0
    if new != page:
        open(page_path, "w", encoding="utf-8").write(new)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
