#!/usr/bin/python3
"""003 Tab. II's parameter interval (tools/figures/fig003_tab2.py: the profile's minimiser and its
bootstrap interval) against closed forms, on a synthetic profile: toss i's e_q along a parameter is
(ln f - c_i)^2 with c_i drawn about ln 2, so the mean's minimiser is exp(mean c) exactly (the
parabola through three grid points of a quadratic in ln f is the quadratic), and the bootstrap
interval of a mean of n draws is mean(c) +- 1.96 sd(c) / sqrt(n) to within the bootstrap's own
noise. Exit 0 when both hold, 1 otherwise (tests/test_figure_claims.c runs it)."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools", "figures"))
import fig003_tab2 as T  # noqa: E402

rng = np.random.default_rng(11)
n = 430
c = np.log(2.0) + 0.3 * rng.standard_normal(n)
prof = (np.log(T.PROFILE)[:, None] - c[None, :]) ** 2
x, lo, hi = T.intervals(prof)
want = np.exp(c.mean())
half = 1.96 * c.std(ddof=1) / np.sqrt(n)
errs = []
if abs(x / want - 1) > 1e-9:
    errs.append("minimiser %.12g, closed form %.12g" % (x, want))
for got, ref in ((np.log(lo), c.mean() - half), (np.log(hi), c.mean() + half)):
    if abs(got - ref) > 0.1 * half:
        errs.append("interval edge %.4f in ln, closed form %.4f (+-10 %% of the half-width %.4f)" % (got, ref, half))
# a minimiser at the grid's end stays there (no extrapolation beyond x8)
edge, _, _ = T.intervals((np.log(T.PROFILE)[:, None] - np.log(100.0)) ** 2 + 0 * c[None, :])
if edge != T.PROFILE[-1]:
    errs.append("minimiser beyond the grid: %g, want the grid's end %g" % (edge, T.PROFILE[-1]))
print("\n".join(errs) or "ok: minimiser %.6g (closed form %.6g), interval %.4g to %.4g" % (x, want, lo, hi))
sys.exit(1 if errs else 0)
