#!/usr/bin/env python3
"""csim plot: one PNG with the panels of one or more csim runs (run by `csim plot`).

usage: plot_run.py RUN.h5 [more.h5...] [--out FILE.png] [--panels LIST] [--json FILE]

Panels: energy, eps, iterations, contacts, penetration, forces, slip, timing; for runs with
controllers (/control) also control_velocity (commanded vs measured base velocity: the log's
vx_cmd, vx, vy_cmd, vy, wz_cmd, wz channels), control_iterations and control_residual (the
log's *iterations and *eps* / *residual channels, e.g. quadruped_walk's MPC) and control_tau (the
applied joint torques, /control/tau), each drawn when a run has its data and labelled from the
datasets' columns attribute ("controller/channel"). Several runs are
overlaid with a legend from their scenario_name attribute. Axis units come from the datasets'
"units" attributes. A truncated run (complete = 0, datasets of unequal length) is plotted on the
rows present and said so on stderr and in the legend. --json writes what was drawn: every
panel's name, its axes' pixel box in the PNG, and for every line its label, point count and
min/max of the data actually plotted (tests compare these with the HDF5 file read on its own).
Exit codes: 0 success, 2 bad input or missing python packages.
"""
import json
import os
import sys

try:
    import numpy as np
    import h5py
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError as e:  # say what to install, not a traceback
    sys.stderr.write("csim: error: plot: %s (python %s) lacks %s: install Debian's python3-matplotlib "
                     "and python3-h5py (make deps), or point CSIM_PYTHON at a python3 that has "
                     "them\n" % (sys.argv[0], sys.executable, e.name))
    sys.exit(2)

PANELS = ["energy", "eps", "iterations", "contacts", "penetration", "forces", "slip", "timing"]
CONTROL_PANELS = ["control_velocity", "control_iterations", "control_residual", "control_tau"]
# commanded and measured base velocity as quadruped_walk logs them (yaw frame), in this order
VELOCITY = ["vx_cmd", "vx", "vy_cmd", "vy", "wz_cmd", "wz"]
PER_ROW = ["/time", "/energy/kinetic", "/energy/potential", "/energy/total", "/solver/eps_abs",
           "/solver/primal", "/solver/dual", "/solver/complementarity", "/solver/iterations",
           "/solver/converged", "/contacts/count", "/contacts/offset", "/timing/step"]
FLAT = ["/contacts/depth", "/contacts/force", "/contacts/velocity"]


def fail(msg):
    sys.stderr.write("csim: error: plot: %s\n" % msg)
    sys.exit(2)


def units(f, path):
    u = f[path].attrs.get("units", "")
    if isinstance(u, bytes):
        u = u.decode()
    return "" if u in ("", "1") else str(u)


class Run:
    """The rows present in one csim output file."""

    def __init__(self, path):
        self.path = path
        if not os.path.isfile(path):
            fail("%s: no such file" % path)
        if not h5py.is_hdf5(path):
            fail("%s: not an HDF5 file (expected the output of `csim run`)" % path)
        f = self.f = h5py.File(path, "r")
        if "csim_version" not in f.attrs or "complete" not in f.attrs:
            fail("%s: not a csim output file (no csim_version / complete root attributes)" % path)
        missing = [p for p in PER_ROW + FLAT if p not in f]
        if missing:
            fail("%s: not a csim run file: missing %s" % (path, ", ".join(missing)))
        a = f.attrs
        s = lambda k: (a[k].decode() if isinstance(a.get(k), bytes) else str(a.get(k, "")))
        self.name = s("scenario_name") or os.path.basename(path)
        self.model, self.solver = s("contact_model"), s("solver")
        self.complete = int(a["complete"]) == 1
        self.failure = s("failure") if "failure" in a else ""
        # the shortest per-row dataset bounds the rows of a truncated file
        optional = [p for p in ("/energy/work", "/energy/injected") if p in f]
        self.rows = min(f[p].shape[0] for p in PER_ROW + optional)
        self.nflat = min(f[p].shape[0] for p in FLAT)
        self.d = {p: f[p][: self.rows] for p in PER_ROW + optional}
        self.flat = {p: f[p][: self.nflat] for p in FLAT}
        self.t = self.d["/time"]
        self.ctl = control_series(f, self.rows)

    def per_contact(self, reduce, values):
        """reduce(values of the row's contacts) per row; NaN for rows without contacts."""
        off, cnt = self.d["/contacts/offset"], self.d["/contacts/count"]
        out = np.full(self.rows, np.nan)
        for i in range(self.rows):
            a, n = int(off[i]), int(cnt[i])
            if n > 0 and a >= 0 and a + n <= self.nflat:
                out[i] = reduce(values[a:a + n])
        return out


def columns(ds):
    """a dataset's columns attribute ("controller/channel, ...") as a list"""
    c = ds.attrs.get("columns", "")
    c = c.decode() if isinstance(c, bytes) else str(c)
    return [x.strip() for x in c.split(",")] if c else []


def control_series(f, rows):
    """panel -> [(label, values, style)] of the controllers' datasets, on the rows present"""
    out = {}
    if "/control/log" in f:
        log = f["/control/log"]
        cols = columns(log)
        n = min(rows, log.shape[0])
        for j, c in enumerate(cols[: log.shape[1]]):
            ch = c.split("/")[-1]
            if ch in VELOCITY:
                panel = "control_velocity"
            elif ch.endswith("iterations"):
                panel = "control_iterations"
            elif "eps" in ch or "residual" in ch:
                panel = "control_residual"
            else:
                continue
            out.setdefault(panel, []).append((c, log[:n, j], "--" if ch.endswith("_cmd") else "-"))
        if "control_velocity" in out:  # commanded next to measured, axis by axis
            out["control_velocity"].sort(key=lambda s: VELOCITY.index(s[0].split("/")[-1]))
    if "/control/tau" in f:
        tau = f["/control/tau"]
        n = min(rows, tau.shape[0])
        cols = columns(tau) or ["tau %d" % j for j in range(tau.shape[1])]
        out["control_tau"] = [(c, tau[:n, j], "-") for j, c in enumerate(cols[: tau.shape[1]])]
    return out


def labels(runs):
    """the scenario names, made unique with model/solver, then the file name"""
    base = [r.name for r in runs]
    out = []
    for r in runs:
        lab = r.name
        if base.count(r.name) > 1:
            lab = "%s (%s/%s)" % (r.name, r.model, r.solver)
            if sum(1 for q in runs if "%s (%s/%s)" % (q.name, q.model, q.solver) == lab) > 1:
                lab += " " + os.path.basename(r.path)
        if not r.complete:
            lab += " [incomplete: %d rows]" % r.rows
        out.append(lab)
    return out


def main(argv):
    files, out, panels, side = [], None, None, None
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("--out", "--panels", "--json"):
            if i + 1 >= len(argv):
                fail("%s expects a value" % a)
            v = argv[i + 1]
            i += 2
            if a == "--out":
                out = v
            elif a == "--json":
                side = v
            else:
                panels = [p.strip() for p in v.split(",") if p.strip()]
                bad = [p for p in panels if p not in PANELS + CONTROL_PANELS]
                if bad or not panels:
                    fail("--panels: unknown panel %s; expected a comma-separated list of %s"
                         % (", ".join(repr(b) for b in bad) or "(none)",
                            ", ".join(PANELS + CONTROL_PANELS)))
            continue
        if a.startswith("-"):
            fail("unexpected argument '%s'" % a)
        files.append(a)
        i += 1
    if not files:
        fail("missing RUN.h5")
    runs = [Run(p) for p in files]
    if panels is None:  # all, and the control panels some run has data for
        panels = PANELS + [p for p in CONTROL_PANELS if any(p in r.ctl for r in runs)]
    for r in runs:
        if not r.complete:
            sys.stderr.write("csim plot: warning: %s is an incomplete run (complete = 0%s): plotting "
                             "the %d rows present\n" % (r.path, ", failure: " + r.failure
                                                        if r.failure else "", r.rows))
    if out is None:
        out = files[0][:-3] + ".png" if files[0].endswith(".h5") else files[0] + ".png"
    labs = labels(runs)
    f0 = runs[0].f
    tu = units(f0, "/time") or "s"

    ncol = 2 if len(panels) > 1 else 1
    nrow = (len(panels) + ncol - 1) // ncol
    fig, axes = plt.subplots(nrow, ncol, figsize=(6.2 * ncol, 2.5 * nrow + 0.6), squeeze=False,
                             sharex=True)
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    styles = ["-", "--", ":", "-."]
    drawn = []

    def line(ax, r, k, x, y, what, style="-", **kw):
        # one run: the series name; several: the run's label too, one colour per run
        if len(runs) > 1:
            kw.setdefault("color", colors[k % len(colors)])
        lab = what if len(runs) == 1 else "%s %s" % (labs[k], what)
        return ax.plot(x, y, style, label=lab, lw=1.0, **kw)[0]

    for n, name in enumerate(panels):
        ax = axes[n // ncol][n % ncol]
        ax.set_title(name, fontsize=10, loc="left")
        for k, r in enumerate(runs):
            d, t = r.d, r.t
            if name == "energy":
                parts = [("kinetic", "/energy/kinetic"), ("potential", "/energy/potential"),
                         ("total", "/energy/total"), ("work", "/energy/work"),
                         ("injected", "/energy/injected")]
                for j, (w, p) in enumerate(parts):
                    if p in d:
                        line(ax, r, k, t, d[p], w, styles[j % 4] if len(runs) > 1 else "-")
                ax.set_ylabel("energy (%s)" % units(f0, "/energy/total"))
            elif name == "eps":
                parts = [("eps_abs", "/solver/eps_abs"), ("primal", "/solver/primal"),
                         ("dual", "/solver/dual"), ("complementarity", "/solver/complementarity")]
                for j, (w, p) in enumerate(parts):
                    line(ax, r, k, t, d[p], "%s (%s)" % (w, units(r.f, p)),
                         styles[j % 4] if len(runs) > 1 else "-")
                ax.set_yscale("log", nonpositive="mask")  # 0 (no contact) is not drawn
                ax.set_ylabel("residual")
            elif name == "iterations":
                line(ax, r, k, t, d["/solver/iterations"], "iterations")
                bad = (d["/solver/converged"] == 0) & (d["/contacts/count"] > 0)
                line(ax, r, k, t[bad], d["/solver/iterations"][bad],
                     "not converged (%d steps)" % int(bad.sum()), "x", color="red", ms=4)
                ax.set_ylabel("iterations")
            elif name == "contacts":
                line(ax, r, k, t, d["/contacts/count"], "contacts")
                ax.set_ylabel("contacts per step")
            elif name == "penetration":
                y = r.per_contact(np.max, r.flat["/contacts/depth"])
                line(ax, r, k, t, y, "max depth")
                ax.set_ylabel("max depth (%s)" % units(r.f, "/contacts/depth"))
            elif name == "forces":
                fo = r.flat["/contacts/force"]
                fn = r.per_contact(lambda v: v[:, 2].sum(), fo)
                ft = r.per_contact(lambda v: np.hypot(v[:, 0], v[:, 1]).sum(), fo)
                line(ax, r, k, t, fn, "normal (sum)", "-")
                line(ax, r, k, t, ft, "tangential (sum of |f_T|)", "--")
                ax.set_ylabel("force (%s)" % units(r.f, "/contacts/force"))
            elif name == "slip":
                ve = r.flat["/contacts/velocity"]
                y = r.per_contact(lambda v: np.hypot(v[:, 0], v[:, 1]).max(), ve)
                line(ax, r, k, t, y, "max |v_T|")
                ax.set_ylabel("slip velocity (%s)" % units(r.f, "/contacts/velocity"))
            elif name == "timing":
                line(ax, r, k, t, d["/timing/step"] * 1e6, "step")
                ax.set_ylabel("time per step (µs)" if units(r.f, "/timing/step") == "s"
                              else "time per step (%s)" % units(r.f, "/timing/step"))
            elif name in CONTROL_PANELS:
                for w, y, style in r.ctl.get(name, []):
                    kw = {}
                    if name == "control_velocity" and len(runs) == 1:  # one colour per axis
                        kw["color"] = colors[VELOCITY.index(w.split("/")[-1]) // 2]
                    line(ax, r, k, t[: len(y)], y, w, style, **kw)
                if name == "control_residual" and r.ctl.get(name):
                    ax.set_yscale("log", nonpositive="mask")
                ax.set_ylabel({"control_velocity": "velocity (m/s, rad/s)",
                               "control_iterations": "iterations",
                               "control_residual": "residual",
                               "control_tau": "torque (N m)"}[name])
        ax.grid(alpha=0.3)
        nl = len(ax.get_lines())
        ax.legend(fontsize=5.5 if nl > 8 else 6.5 if nl > 4 else 7, loc="best",
                  ncol=3 if nl > 8 else 2 if nl > 4 else 1, framealpha=0.7)
        if not any(np.isfinite(np.asarray(ln.get_ydata(), dtype=float)).any()
                   for ln in ax.get_lines()):
            ax.text(0.5, 0.5, "no data in these rows (%s)" % ("no such controller channels"
                                                              if name in CONTROL_PANELS
                                                              else "no contacts"),
                    transform=ax.transAxes,
                    ha="center", va="center", fontsize=10, color="0.3")
    for n in range(len(panels), nrow * ncol):
        axes[n // ncol][n % ncol].set_visible(False)
    for c in range(ncol):
        axes[nrow - 1][c].set_xlabel("time (%s)" % tu)
        if nrow > 1 and (nrow - 1) * ncol + c >= len(panels):
            axes[nrow - 2][c].set_xlabel("time (%s)" % tu)
            axes[nrow - 2][c].xaxis.set_tick_params(labelbottom=True)
    title = ", ".join(sorted(set(r.name for r in runs)))
    if any(not r.complete for r in runs):
        title += "  (incomplete run: rows present only)"
    fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    try:
        fig.savefig(out, dpi=100)
    except OSError as e:
        fail("%s: cannot write: %s" % (out, e.strerror))

    if side:
        W, H = fig.canvas.get_width_height()
        rec = {"png": out, "size": [W, H], "panels": [],
               "runs": [{"file": r.path, "label": labs[k], "name": r.name, "complete": r.complete,
                         "rows": r.rows} for k, r in enumerate(runs)]}
        for n, name in enumerate(panels):
            ax = axes[n // ncol][n % ncol]
            bb = ax.get_window_extent()
            lines = []
            for ln in ax.get_lines():
                y = np.asarray(ln.get_ydata(), dtype=float)
                fin = y[np.isfinite(y)]
                lines.append({"label": ln.get_label(), "n": int(y.size),
                              "min": float(fin.min()) if fin.size else None,
                              "max": float(fin.max()) if fin.size else None})
            rec["panels"].append({"name": name, "ylabel": ax.get_ylabel(),
                                  "box": [bb.x0, H - bb.y1, bb.x1, H - bb.y0], "lines": lines})
        with open(side, "w") as fp:
            json.dump(rec, fp, indent=1)
    print("csim plot: %s: %d panel%s (%s) of %d run%s" % (out, len(panels), "s" * (len(panels) > 1),
                                                        ", ".join(panels), len(runs),
                                                        "s" * (len(runs) > 1)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
