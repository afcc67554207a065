#!/bin/sh
# Writes the GIF fixtures of VitrineGIFTests from the repository's own PNG
# fixtures, with Debian 12's Pillow (apt-get install python3-pil: 9.4.0, run
# by /usr/bin/python3) and giflib's giftool (apt-get install giflib-tools,
# 5.2.1). See SOURCES.md for what each file is.
set -eu
cd "$(dirname "$0")"
png=../../VitrineRuntimeTests/PNGFixtures
/usr/bin/python3 - "$png" <<'PY'
import sys
from PIL import Image
png = sys.argv[1]
rgb = Image.open(png + "/rgb-8bit.png").convert("RGB")
# 256 colours, no dithering: an exact palette picture.
still = rgb.quantize(colors=256, dither=Image.Dither.NONE)
still.save("still.gif", interlace=False, optimize=False)
still.save("interlaced.gif", interlace=True, optimize=False)
second = Image.open(png + "/palette-8bit.png").convert("RGB").quantize(colors=256, dither=Image.Dither.NONE)
still.save("animated.gif", save_all=True, append_images=[second], duration=500, loop=0, interlace=False, optimize=False)
# Transparent where rgba-8bit.png's alpha is under half: index 255, whose
# colour is magenta (used nowhere else), so the tests can tell it apart.
rgba = Image.open(png + "/rgba-8bit.png").convert("RGBA")
opaque = rgba.convert("RGB").quantize(colors=255, dither=Image.Dither.NONE)
palette = opaque.getpalette()[:255 * 3] + [255, 0, 255]
pixels = [255 if a < 128 else p for p, a in zip(opaque.getdata(), rgba.getchannel("A").getdata())]
transparent = Image.new("P", rgba.size)
transparent.putpalette(palette)
transparent.putdata(pixels)
transparent.save("transparent.gif", transparency=255, interlace=False, optimize=False)
PY
# still.gif's frame at (10, 8) on an 81x57 logical screen.
giftool -s 81,57 -p 10,8 < still.gif > offset.gif
# The first 60 % of interlaced.gif.
size=$(stat -c %s interlaced.gif)
head -c $((size * 6 / 10)) interlaced.gif > truncated.gif
# still.gif with the logical screen (bytes 6 to 9) and the frame's image
# descriptor both rewritten to claim 65535x65535: consistent headers over
# data for 61x37, so only the pixel limit can refuse it.
/usr/bin/python3 - <<'PY'
import struct
d = bytearray(open("still.gif", "rb").read())
assert d[:6] == b"GIF89a" or d[:6] == b"GIF87a"
struct.pack_into("<HH", d, 6, 65535, 65535)
at = 13 + (3 << ((d[10] & 7) + 1) if d[10] & 0x80 else 0)
while d[at] == 0x21:  # extensions before the image: skip their sub-blocks
    at += 2
    while d[at]:
        at += d[at] + 1
    at += 1
assert d[at] == 0x2C, hex(d[at])
struct.pack_into("<HHHH", d, at + 1, 0, 0, 65535, 65535)
open("bomb-65535.gif", "wb").write(bytes(d))
PY
