#!/bin/sh
# Writes the animation fixtures with Debian 12's Pillow 9.4.0 (python3-pil, run
# by /usr/bin/python3) and libwebp's gif2webp 1.2.4 (package webp). See SOURCES.md.
set -eu
cd "$(dirname "$0")"
/usr/bin/python3 - <<'PY'
from PIL import Image, ImageDraw
W, H = 48, 32
colors = [(200, 30, 30), (30, 200, 30), (30, 30, 200), (220, 220, 40)]
base = Image.new("RGB", (W, H), (90, 90, 90))
ImageDraw.Draw(base).rectangle([4, 4, 20, 20], fill=(250, 250, 250))
frames = [base]
for i, c in enumerate(colors):
    im = base.copy()
    x = 6 + i * 9
    ImageDraw.Draw(im).rectangle([x, 8, x + 7, 22], fill=c)
    frames.append(im)
frames[0].save("disposal.gif", save_all=True, append_images=frames[1:], duration=[120, 80, 0, 200, 150],
               loop=3, disposal=[1, 2, 3, 1, 2], optimize=False)
PY
gif2webp -quiet disposal.gif -o disposal.webp
