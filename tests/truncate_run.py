#!/usr/bin/env python3
"""Make a truncated copy of a csim run, as a run killed midway leaves it (for the bad-input tests).

usage: truncate_run.py IN.h5 OUT.h5 ROWS [--drop-audit]

Per-row datasets keep ROWS rows, except /state/q and /time which keep ROWS + 3 (datasets of
unequal length, as after a kill between chunk writes); the flat /contacts arrays lose the last
contact of row ROWS - 1; complete = 0 and failure says why. --drop-audit also removes
/energy/work and /energy/injected, as in files written before the energy audit existed.
"""
import shutil
import sys

import h5py

src, dst, rows = sys.argv[1], sys.argv[2], int(sys.argv[3])
drop = "--drop-audit" in sys.argv[4:]
shutil.copyfile(src, dst)
with h5py.File(dst, "r+") as f:
    n = f["/time"].shape[0]
    if rows + 3 > n:
        sys.exit("truncate_run: %s has %d rows, fewer than %d" % (src, n, rows + 3))
    off, cnt = f["/contacts/offset"][rows - 1], f["/contacts/count"][rows - 1]
    flat = max(0, int(off) + int(cnt) - 1)
    def visit(name, obj):
        if isinstance(obj, h5py.Dataset) and obj.maxshape[0] is None:
            if name.startswith("contacts/") and obj.shape[0] != n:
                obj.resize(flat, axis=0)
            elif obj.shape[0] == n:
                obj.resize(rows + 3 if name in ("time", "state/q") else rows, axis=0)
    f.visititems(visit)
    for p in ("/energy/work", "/energy/injected"):
        if drop and p in f:
            del f[p]
    f.attrs["complete"] = 0
    f.attrs["failure"] = "killed (truncated copy made by tests/truncate_run.py)"
