#!/usr/bin/python3
"""Shared measures of tools/figures/fig002_1.py and fig002_2.py (seed 002, Figs. 3 and 4).

Per contact i, /contacts/force F_i (N, frame [t1 t2 n]) and /contacts/velocity c_i (after the
step). MDP (002 eq. 5): F_T,i = -mu F_N,i c_T,i / |c_T,i| when sliding, so the angle between
-F_T,i and c_T,i is 0 and the dissipated power -sum F_T,i . c_T,i equals mu sum F_N,i |c_T,i|.
"""
import numpy as np

G = 9.81
MODELS = [("raisim", "raisim (bisection)", "r"), ("raisim_ds", "raisim_ds (bisection)", "b"),
          ("ncp", "ncp (pgs)", "k")]


# per row: max MDP angle over sliding contacts (deg), dissipated power, MDP power, and per-contact
# world-y force components
def contact_metrics(f, mu):
    cnt, off = f["/contacts/count"][:], f["/contacts/offset"][:]
    F, V, fr = f["/contacts/force"][:], f["/contacts/velocity"][:], f["/contacts/frame"][:]
    n = len(cnt)
    ang, p, pmax = np.full(n, np.nan), np.zeros(n), np.zeros(n)
    fy = np.full((n, 4), np.nan)
    for k in range(n):
        for j, i in enumerate(range(off[k], off[k] + cnt[k])):
            ft, ct = F[i, :2], V[i, :2]
            p[k] += -ft @ ct
            pmax[k] += mu * F[i, 2] * np.linalg.norm(ct)
            if j < 4:
                fy[k, j] = F[i, 0] * fr[i, 1] + F[i, 1] * fr[i, 4] + F[i, 2] * fr[i, 7]
            if np.linalg.norm(ct) > 1e-4 and np.linalg.norm(ft) > 1e-6:
                c = -ft @ ct / (np.linalg.norm(ft) * np.linalg.norm(ct))
                a = np.degrees(np.arccos(np.clip(c, -1, 1)))
                ang[k] = a if np.isnan(ang[k]) else max(ang[k], a)
    return ang, p, pmax, fy
