#!/usr/bin/env python3
"""Check a `csim replay` page in headless Chromium (Debian's chromium, software WebGL).

usage: check_replay.py fall HTML RUN.h5 T0 T1   the page at #t=T0 and #t=T1: screenshots differ,
                                                the (orange) body's pixel centroid moves down,
                                                no console message, the page's status has no
                                                error; body 1's poses in the page equal the free
                                                base pose of /state/q; the last row's
                                                contact and slip counts are the file's
       check_replay.py bodies HTML N            the page draws N moving bodies, without error
       check_replay.py control HTML RUN.h5 [T]  the page's footholds and commanded velocity are
                                                /control/log's (read by column name); with T, in
                                                chromium: at #t=T the page draws every foothold
                                                and the command arrow along the yaw-rotated
                                                command (yaw from /state/q)

Exit 0 when all hold, 1 with a message when not, 3 when chromium is not installed.
"""
import base64
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--use-gl=angle", "--use-angle=swiftshader",
         "--enable-unsafe-swiftshader", "--disable-background-networking",
         "--disable-component-update", "--no-first-run", "--disable-sync", "--hide-scrollbars",
         "--enable-logging=stderr", "--v=0", "--window-size=900,600",
         "--virtual-time-budget=5000"]
SIDE = 290   # css px of the side panel, left out of the pixel search


def fail(msg):
    print("check_replay: FAIL: " + msg)
    sys.exit(1)


def chromium(url, *what):
    """run chromium on url with extra flags; (stdout, console lines)"""
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if not exe:
        print("check_replay: chromium is not installed")
        sys.exit(3)
    prof = tempfile.mkdtemp(prefix="csim_chromium_")
    try:
        p = subprocess.run([exe] + FLAGS + ["--user-data-dir=" + prof] + list(what) + [url],
                           capture_output=True, text=True, timeout=120)
    finally:
        shutil.rmtree(prof, ignore_errors=True)
    # the page's console; the GL driver's performance notes on the screenshot's read-back
    # ("GPU stall due to ReadPixels") are the browser's, not the page's
    console = [l for l in p.stderr.splitlines()
               if ":CONSOLE" in l and "GL Driver Message (OpenGL, Performance" not in l]
    return p.stdout, console


def status(html, t=None):
    url = "file://" + os.path.abspath(html) + ("#t=%g" % t if t is not None else "#play=0")
    dom, console = chromium(url, "--dump-dom")
    m = re.search(r'<pre id="status">(.*?)</pre>', dom, re.S)
    if not m:
        fail("no status element in the page's DOM")
    st = json.loads(m.group(1).replace("&quot;", '"').replace("&amp;", "&"))
    if console:
        fail("console messages: %s" % console)
    if st.get("errors"):
        fail("page errors: %s" % st["errors"])
    if st.get("ready") != 1:
        fail("page not ready: %s" % st)
    return st


def screenshot(html, t):
    from PIL import Image
    out = tempfile.mktemp(suffix=".png", prefix="csim_replay_")
    _, console = chromium("file://%s#t=%g" % (os.path.abspath(html), t), "--screenshot=" + out)
    if console:
        fail("console messages: %s" % console)
    if not os.path.exists(out):
        fail("chromium wrote no screenshot")
    img = np.asarray(Image.open(out).convert("RGB")).astype(float)
    os.unlink(out)
    return img


def orange_centroid(img):
    """centroid of the pixels of the first robot's colour (0xe08030, shaded) in the 3-D view"""
    v = img[:, : img.shape[1] - SIDE]
    r, g, b = v[:, :, 0], v[:, :, 1], v[:, :, 2]
    m = (r > 90) & (g > 0.3 * r) & (g < 0.78 * r) & (b < 0.5 * r)
    if m.sum() < 50:
        fail("the body is not visible (%d orange pixels)" % m.sum())
    ys, xs = np.nonzero(m)
    return xs.mean(), ys.mean(), int(m.sum())


def page_data(html):
    text = open(html, encoding="utf-8").read()
    m = re.search(r'<script id="csim-data" type="application/json">(.*?)</script>', text, re.S)
    if not m:
        fail("no csim-data block in the page")
    return json.loads(m.group(1))


def control(html, run, t):
    """the controllers' data in the page against /control/log, and what the page draws at t"""
    import h5py
    d = page_data(html)
    f = h5py.File(run, "r")
    log = f["/control/log"]
    cols = [c.strip() for c in (log.attrs["columns"].decode() if isinstance(log.attrs["columns"], bytes)
                                else str(log.attrs["columns"])).split(",")]
    ctl = d.get("control")
    if not ctl or len(ctl) != 1:
        fail("the page has no controller data (control: %r)" % (ctl,))
    c = ctl[0]
    name, nfoot, fr, ev = c["name"], c["nfoot"], d["frames"], d["every"]
    rows = log[::ev][:fr]
    col = lambda ch: rows[:, cols.index("%s/%s" % (name, ch))]
    want = np.stack([col("foothold_%d_%s" % (l, a)) for l in range(nfoot) for a in "xy"], axis=1)
    got = np.frombuffer(base64.b64decode(c["footholds"]), "<f4").reshape(fr, 2 * nfoot)
    if nfoot != 4 or np.abs(got - want).max() > 1e-5 * max(1, np.abs(want).max()):
        fail("footholds differ from /control/log: nfoot %d, max diff %.3g" % (nfoot,
                                                                            np.abs(got - want).max()))
    cmd = np.frombuffer(base64.b64decode(c["cmd"]), "<f4").reshape(fr, 3)
    wcmd = np.stack([col("vx_cmd"), col("vy_cmd"), col("wz_cmd")], axis=1)
    if np.abs(cmd - wcmd).max() > 1e-6:
        fail("commanded velocity differs from /control/log by %.3g" % np.abs(cmd - wcmd).max())
    if t is None:
        print("check_replay: ok: %d footholds and the command over %d frames match /control/log"
              % (nfoot, fr))
        return
    st = status(html, t)
    s = st.get("control", [{}])[0]
    i = int(st["frame"])
    q = f["/state/q"][i * ev]
    x, y, z, w = q[3:7]  # csim's free base quaternion [x y z w]
    yaw = np.arctan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z))
    vx, vy = wcmd[i, 0], wcmd[i, 1]
    arrow = [np.cos(yaw) * vx - np.sin(yaw) * vy, np.sin(yaw) * vx + np.cos(yaw) * vy]
    if s.get("footholds") != nfoot or not s.get("cmd") or \
            np.abs(np.array(s["cmd"]) - arrow).max() > 1e-4:
        fail("at t = %g the page draws %s, expected %d footholds and the arrow %s"
             % (t, s, nfoot, arrow))
    print("check_replay: ok: %d footholds over %d frames match /control/log; at t = %g the "
          "command arrow is (%.3f, %.3f) m/s" % (nfoot, fr, t, arrow[0], arrow[1]))


def main():
    mode = sys.argv[1]
    if mode == "fall":
        html, run, t0, t1 = sys.argv[2], sys.argv[3], float(sys.argv[4]), float(sys.argv[5])
        a, b = screenshot(html, t0), screenshot(html, t1)
        if a.shape != b.shape or np.abs(a - b).max() == 0:
            fail("the screenshots at t = %g and %g are identical" % (t0, t1))
        xa, ya, na = orange_centroid(a)
        xb, yb, nb = orange_centroid(b)
        if not yb > ya + 5:
            fail("the body did not move down on screen: y %.1f -> %.1f px" % (ya, yb))
        s0, s1 = status(html, t0), status(html, t1)
        if not s1["time"] > s0["time"]:
            fail("page times %s, %s" % (s0["time"], s1["time"]))
        # body 1's poses in the page are the free base's q (csim's kinematics, float32)
        import h5py
        d = page_data(html)
        pose = np.frombuffer(base64.b64decode(d["pose"]), "<f4").reshape(d["frames"], d["nbody"], 7)
        q = h5py.File(run, "r")["/state/q"][:: d["every"], :7][: d["frames"]]
        dq = np.minimum(np.abs(pose[:, 0, 3:] - q[:, 3:]), np.abs(pose[:, 0, 3:] + q[:, 3:])).max()
        dp = np.abs(pose[:, 0, :3] - q[:, :3]).max()
        if dp > 1e-5 or dq > 1e-5:
            fail("page poses differ from /state/q: position %.3g, quaternion %.3g" % (dp, dq))
        # the last row's contacts: count, and slip where |v_T| > the page's slip velocity
        f = h5py.File(run, "r")
        last = (d["frames"] - 1) * d["every"]
        off, cnt = int(f["/contacts/offset"][last]), int(f["/contacts/count"][last])
        v = f["/contacts/velocity"][off:off + cnt]
        slip = int((np.hypot(v[:, 0], v[:, 1]) > d["slip_velocity"]).sum())
        s2 = status(html, float(f["/time"][last]))
        if s2.get("contacts") != cnt or s2.get("slip") != slip or cnt == 0:
            fail("last row: the page shows %s contacts (%s slip), the file has %d (%d slip)"
                 % (s2.get("contacts"), s2.get("slip"), cnt, slip))
        print("check_replay: ok: body at y %.1f px (t = %g) -> %.1f px (t = %g), %d/%d px; "
              "poses match /state/q (%.1e m); last row %d contacts, %d slipping"
              % (ya, t0, yb, t1, na, nb, dp, cnt, slip))
    elif mode == "bodies":
        html, n = sys.argv[2], int(sys.argv[3])
        st = status(html)
        if st.get("bodies") != n or st.get("nbody") != n:
            fail("the page draws %s bodies (model: %s), expected %d" % (st.get("bodies"),
                                                                         st.get("nbody"), n))
        print("check_replay: ok: %d bodies drawn, %d frames" % (n, st["frames"]))
    elif mode == "control":
        control(sys.argv[2], sys.argv[3], float(sys.argv[4]) if len(sys.argv) > 4 else None)
    else:
        fail("unknown mode %s" % mode)


if __name__ == "__main__":
    main()
