#!/bin/sh
# Writes animated.gif, the VM's animated slide (animation_checks.py), with
# Debian 12's Pillow 9.4.0 (python3-pil): four 400x300 frames of 700 ms, red,
# green, blue and yellow, each with a white square further right, looping.
set -eu
cd "$(dirname "$0")"
/usr/bin/python3 - <<'PY'
from PIL import Image, ImageDraw
W, H = 400, 300
palette = [(200, 40, 40), (40, 170, 60), (40, 70, 200), (230, 200, 40)]
frames = []
for i, c in enumerate(palette):
    im = Image.new("RGB", (W, H), c)
    ImageDraw.Draw(im).rectangle([40 + 80 * i, 100, 120 + 80 * i, 200], fill=(250, 250, 250))
    frames.append(im)
frames[0].save("animated.gif", save_all=True, append_images=frames[1:], duration=700, loop=0, optimize=False)
PY
