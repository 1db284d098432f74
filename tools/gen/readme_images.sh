#!/usr/bin/env bash
# Regenerate the README's two images: a `csim plot` of cube_slide under two contact models and a
# headless-Chromium screenshot of the Solo-12 replay (docs/images/). Needs make deps.
set -euo pipefail
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d -t csim_readme_XXXXXX)
trap 'rm -rf "$tmp"' EXIT
./csim run scenarios/cube_slide.yaml --quiet --set integrator.duration=0.3 --out "$tmp/ncp.h5"
./csim run scenarios/cube_slide.yaml --quiet --set integrator.duration=0.3 \
  --set contact.model=ccp --set solver.name=admm --out "$tmp/ccp.h5"
mkdir -p docs/images
./csim plot "$tmp/ncp.h5" "$tmp/ccp.h5" --panels energy,eps,forces,slip --out "$tmp/plot.png"
./csim run scenarios/solo12_stand.yaml --quiet --set integrator.duration=0.5 --out "$tmp/solo.h5"
./csim replay "$tmp/solo.h5" --out "$tmp/solo.html"
chromium --headless --no-sandbox --disable-gpu --use-gl=angle --use-angle=swiftshader \
  --enable-unsafe-swiftshader --disable-background-networking --disable-component-update \
  --no-first-run --disable-sync --hide-scrollbars --user-data-dir="$tmp/profile" \
  --window-size=1000,620 --virtual-time-budget=3000 --screenshot="$tmp/replay.png" \
  "file://$tmp/solo.html#t=0.4" 2>/dev/null
# 256-colour palettes keep the committed images small
/usr/bin/python3 - "$tmp" <<'PY'
import sys
from PIL import Image
t = sys.argv[1]
for src, dst in (("plot.png", "plot_cube_slide.png"), ("replay.png", "replay_solo12.png")):
    Image.open(f"{t}/{src}").convert("RGB").quantize(256).save(f"docs/images/{dst}", optimize=True)
PY
ls -l docs/images
