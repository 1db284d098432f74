#!/usr/bin/env python3
"""Check the relative links and image paths of csim's Markdown pages (make check-links).

  tests/check_links.py [FILE.md ...]   default: README.md, docs/*.md, docs/*/*.md, tools/README.md

Every [text](target) and ![alt](target) outside code is checked, except absolute URLs: the target
file must exist (relative to the page), and a #anchor must name a heading of the target page
(GitHub's rule: lower case, punctuation but '-' and '_' dropped, spaces to '-'; repeated headings
get -1, -2, ...). Prints one line per broken link; exit 1 when there is one, 0 otherwise.
"""
import glob
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(([^()\s]+(?:\([^()\s]*\))?)(?:\s+\"[^\"]*\")?\)")


def strip_code(text):
    """the page with fenced blocks and inline code spans blanked (line numbers kept)"""
    out, fence = [], False
    for line in text.split("\n"):
        if line.lstrip().startswith("```"):
            fence = not fence
            out.append("")
            continue
        out.append("" if fence else re.sub(r"`[^`]*`", "``", line))
    return out


def slug(title):
    s = re.sub(r"[^\w\- ]", "", title.strip().lower())
    return s.replace(" ", "-")


def anchors(path, cache={}):
    if path not in cache:
        seen, found = {}, set()
        fence = False
        for line in open(path, encoding="utf-8").read().split("\n"):
            if line.lstrip().startswith("```"):
                fence = not fence
                continue
            m = None if fence else re.match(r"#{1,6} (.*)", line)
            if m:
                s = slug(m.group(1))
                n = seen.get(s, 0)
                found.add(s if n == 0 else "%s-%d" % (s, n))
                seen[s] = n + 1
        for m in re.finditer(r'<a (?:name|id)="([^"]+)"', open(path, encoding="utf-8").read()):
            found.add(m.group(1))
        cache[path] = found
    return cache[path]


def check(page):
    bad = []
    for no, line in enumerate(strip_code(open(page, encoding="utf-8").read()), 1):
        for m in LINK.finditer(line):
            target = m.group(1)
            if re.match(r"[a-z][a-z0-9+.-]*:", target):   # http:, https:, mailto:, file:
                continue
            path, _, anchor = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
            where = "%s:%d: %s" % (os.path.relpath(page, ROOT), no, target)
            if not os.path.exists(dest):
                bad.append(where + ": no such file")
            elif anchor and dest.endswith(".md") and anchor.lower() not in anchors(dest):
                bad.append(where + ": no heading '#%s' in %s" % (anchor, os.path.relpath(dest, ROOT)))
    return bad


def main(argv):
    pages = argv[1:] or ([os.path.join(ROOT, "README.md")] +
                         sorted(glob.glob(os.path.join(ROOT, "docs", "*.md"))) +
                         sorted(glob.glob(os.path.join(ROOT, "docs", "*", "*.md"))) +
                         [os.path.join(ROOT, "tools", "README.md")])
    bad, n = [], 0
    for p in pages:
        bad += check(p)
        n += 1
    for b in bad:
        print(b)
    print("check-links: %d pages, %d broken links" % (n, len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
