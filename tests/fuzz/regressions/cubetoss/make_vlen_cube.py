#!/usr/bin/python3
"""Remake vlen-cube-global-heap-index.h5 (run from the repository root): a 7.5 KB cube-toss file
of the shared file's layout (root attributes dt and the vlen string cube, the three groups) whose
'cube' global-heap index is set to ff ff 00 6f by tests/fuzz/corrupt_vlen.py."""
import subprocess
import tempfile

import h5py

D = "tests/fuzz/regressions/cubetoss/"
with tempfile.TemporaryDirectory() as tmp:
    good = tmp + "/good.h5"
    with h5py.File(good, "w") as f:
        f.attrs["dt"] = 1.0 / 148
        f.attrs["cube"] = ('{"side_m": 0.1048, "mass_kg": 0.37, '
                           '"inertia_kgm2": [0.00081, 0.00081, 0.00081]}')
        for g in ("contactnets570", "dairlib550", "dairlib550_eval"):
            f.create_group(g)
    subprocess.run(["/usr/bin/python3", "tests/fuzz/corrupt_vlen.py", good,
                    D + "vlen-cube-global-heap-index.h5", "cube"], check=True)
