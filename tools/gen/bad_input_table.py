#!/usr/bin/python3
"""Print the bad-input table of docs/reliability.md from tests/test_hardening.c (kBad): one
markdown row per case, @C shown as csim and @T as T; with --count, only the number of cases; with
--doc, rewrite the table in docs/reliability.md and its case counts ("N cases", "N-case") there
and in the other docs pages that quote them, in place. Run from the repository root."""
import re
import sys

src = open("tests/test_hardening.c").read()
macros = dict(re.findall(r'#define (\w+) "([^"]*)"', src))
block = src[src.index("static const bad_case kBad[] = {"):]
block = block[block.index("{") + 1:block.index("\n};")]
block = re.sub(r"//[^\n]*", "", block)
tok = re.compile(r'"((?:[^"\\]|\\.)*)"|(\b[A-Z_][A-Z0-9_]*\b)|(-?\d+)|([{},])')
rows, cur, field, depth = [], [], None, 0
for m in tok.finditer(block):
    s, name, num, p = m.groups()
    if p == "{":
        depth += 1
        cur, field = [], None
    elif p == ",":
        if depth and field is not None:
            cur.append(field)
            field = None
    elif p == "}":
        if field is not None:
            cur.append(field)
        rows.append(cur)
        depth, field = 0, None
    elif s is not None:
        field = (field or "") + bytes(s, "utf-8").decode("unicode_escape")
    elif name is not None and name in macros:
        field = (field or "") + macros[name]
    elif num is not None:
        field = int(num)
if "--count" in sys.argv:
    print(len(rows))
    sys.exit()
lines = ["| command | exit | message contains |", "|---|---|---|"]
for cmd, code, frag in rows:
    cmd = cmd.replace("@C", "csim").replace("@T", "T")
    frag = frag.replace("@C", "csim").replace("@T", "T")
    lines.append("| `%s` | %d | `%s` |" % (cmd, code, frag))
if "--doc" not in sys.argv:
    print("\n".join(lines))
    sys.exit()
PAGE, QUOTES = "docs/reliability.md", ("docs/reliability.md", "docs/status.md", "docs/tests.md")
page = open(PAGE).read()
start = page.index(lines[0])
end = page.index("\n\n", start)
open(PAGE, "w").write(page[:start] + "\n".join(lines) + page[end:])
for path in QUOTES:
    out = []
    for line in open(path).read().split("\n"):  # only the lines about this table
        if "bad-input" in line or "bad_input_table" in line:
            line = re.sub(r"\b\d+ cases\b", "%d cases" % len(rows), line)
            line = re.sub(r"\b\d+-case\b", "%d-case" % len(rows), line)
        out.append(line)
    open(path, "w").write("\n".join(out))
