#!/usr/bin/env python3
"""Check the layering of src/ (docs/source_layout.md): make check-layers, run by make test.

Layers, lowest first: core < io < out < run < cli. A file may include headers of its own layer
and of lower ones, never of a higher one. A module is a .c file and the .h of the same stem
in the same folder; module A depends on B when a file of A includes B's header. A circle of
modules (A -> B -> ... -> A) is an error too. Private headers (*_internal.h, *_impl.h) belong to
the folder they sit in and add no edge: they are how one module's files share code.

Exit 0 with a one-line summary, or 1 naming every upward include and every circle.
"""
import os
import re
import sys

LAYERS = ["core", "io", "out", "run", "cli"]
INC = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def is_private(path):
    return path.endswith("_internal.h") or path.endswith("_impl.h")


def module_of(path):
    return os.path.splitext(path)[0]


def layer_of(path):
    top = path.split("/", 1)[0]
    return LAYERS.index(top) if top in LAYERS else -1


def scan(src):
    files = []
    for root, _, names in os.walk(src):
        for n in names:
            if n.endswith((".c", ".h")):
                files.append(os.path.relpath(os.path.join(root, n), src))
    return sorted(files)


def check(src):
    errors = []
    edges = {}
    files = scan(src)
    for f in files:
        if layer_of(f) < 0:
            errors.append(f"src/{f}: not in a layer folder ({', '.join(LAYERS)})")
            continue
        text = open(os.path.join(src, f), encoding="utf-8").read()
        for m in INC.finditer(text):
            inc = m.group(1)
            line = text.count("\n", 0, m.start()) + 1
            if not os.path.exists(os.path.join(src, inc)):
                errors.append(f"src/{f}:{line}: includes \"{inc}\", which is not a path under src/")
                continue
            if layer_of(inc) > layer_of(f):
                errors.append(f"src/{f}:{line}: includes {inc}: layer {LAYERS[layer_of(f)]} "
                              f"must not include the higher layer {LAYERS[layer_of(inc)]}")
            if is_private(inc) or is_private(f):
                continue
            a, b = module_of(f), module_of(inc)
            if a != b:
                edges.setdefault(a, set()).add(b)
    errors += [f"module circle: {' -> '.join(c + [c[0]])}" for c in circles(edges)]
    return errors, len(files)


def circles(edges):
    """Strongly connected components of more than one module (Tarjan), each as one circle."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def self_test():
    """The checker on made-up trees whose problems are known: it must find each of them, and
    nothing in a clean tree (so a broken checker cannot pass src/ silently)."""
    import tempfile

    def tree(files):
        d = tempfile.mkdtemp(prefix="check_layers_")
        for path, text in files.items():
            os.makedirs(os.path.join(d, os.path.dirname(path)), exist_ok=True)
            with open(os.path.join(d, path), "w", encoding="utf-8") as f:
                f.write(text)
        return d

    clean = {"core/a.h": "", "core/a.c": '#include "core/a.h"\n',
             "io/b.h": '#include "core/a.h"\n', "io/b.c": '#include "io/b.h"\n',
             "core/p_internal.h": '#include "core/a.h"\n',
             "core/q.c": '#include "core/p_internal.h"\n#include "core/a.h"\n'}
    upward = dict(clean, **{"core/a.c": '#include "core/a.h"\n#include "io/b.h"\n'})
    circle = dict(clean, **{"core/x.h": "", "core/y.h": "",
                            "core/x.c": '#include "core/y.h"\n',
                            "core/y.c": '#include "core/x.h"\n'})
    stray = dict(clean, **{"misc/z.c": ""})
    cases = [(clean, []), (upward, ["core/a.c:2: includes io/b.h"]),
             (circle, ["module circle: core/x -> core/y -> core/x"]),
             (stray, ["not in a layer folder"])]
    for files, expect in cases:
        errors, _ = check(tree(files))
        if bool(errors) != bool(expect) or any(not any(e in x for x in errors) for e in expect):
            print(f"check-layers self-test failed: expected {expect or 'no problem'}, "
                  f"found {errors or 'none'}")
            return 1
    return 0


def main():
    if self_test():
        return 1
    src = sys.argv[1] if len(sys.argv) > 1 else "src"
    errors, n = check(src)
    for e in errors:
        print(e)
    if errors:
        print(f"check-layers: {len(errors)} problem(s) in {n} files")
        return 1
    print(f"check-layers: {n} files, layers {' < '.join(LAYERS)}, no upward include, no circle")
    return 0


if __name__ == "__main__":
    sys.exit(main())
