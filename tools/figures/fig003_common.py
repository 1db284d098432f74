"""Pieces shared by seed 003's figure scripts (fig003_*.py)."""
import os
import subprocess

import numpy as np

import figjson as J


# per-toss e_q of a real engine's harness (build/cubetoss_ENGINE, one CSV row a toss: MuJoCo
# 2.2.2's or Bullet 3.24's) at stiffness k, damping b and friction mu over the first ntoss tosses
# (all when None), extra: more harness arguments; RuntimeError when the harness fails, a toss
# fails or tosses are missing
def harness_eq(engine, k, b, mu, ntoss=None, extra=()):
    exe = os.path.join(J.ROOT, "build", "cubetoss_" + engine)
    args = [exe, "--k", repr(k), "--b", repr(b), "--mu", repr(mu)]
    args += (["--tosses", str(ntoss)] if ntoss else []) + list(extra)
    r = subprocess.run(args, cwd=J.ROOT, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("%s failed (libmujoco-dev, libbullet-dev: make deps, make peers): %s"
                           % (exe, r.stderr.strip()[-300:]))
    rows = np.genfromtxt(r.stdout.splitlines(), delimiter=",", names=True)
    if (ntoss and len(rows) != ntoss) or (rows["failed"] != 0).any():
        raise RuntimeError("%s: tosses failed or missing at k %g, b %g, mu %g" % (engine, k, b, mu))
    return np.asarray(rows["e_q"], dtype=float)
