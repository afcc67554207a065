#!/bin/sh
# Writes the WebP fixtures of VitrineWebPTests from the repository's own PNG
# fixtures, with Debian 12's webp tools (apt-get install webp: cwebp, img2webp,
# webpmux, libwebp 1.2.4). See SOURCES.md for what each file is.
set -eu
cd "$(dirname "$0")"
png=../../VitrineRuntimeTests/PNGFixtures
golden=../../VitrineRuntimeTests/Golden
cwebp -quiet -q 80 -m 4 "$golden/demo-05.2-slide-transition.png" -o lossy.webp
cwebp -quiet -lossless "$png/rgb-8bit.png" -o lossless.webp
cwebp -quiet -q 90 -alpha_q 100 "$png/rgba-8bit.png" -o alpha-lossy.webp
cwebp -quiet -lossless -exact "$png/rgba-8bit.png" -o alpha-lossless.webp
img2webp -lossy -q 80 -d 500 "$png/rgb-8bit.png" -lossless -d 500 "$png/palette-8bit.png" -o animated.webp
# Two frames whose first is smaller than the canvas, at an offset: the canvas is their bounding box, 71x47.
webpmux -frame lossless.webp +400+10+10 -frame alpha-lossless.webp +400+0+0 -loop 0 -o animated-offset.webp
# EXIF (TIFF, big-endian) with one IFD0 entry: Orientation (0x0112) SHORT 6 (rotate 90° clockwise).
printf 'MM\000\052\000\000\000\010\000\001\001\022\000\003\000\000\000\001\000\006\000\000\000\000\000\000\000\000' > exif-orientation-6.bin
webpmux -set exif exif-orientation-6.bin lossless.webp -o exif-right.webp
rm exif-orientation-6.bin
# The first 60 % of lossy.webp.
size=$(stat -c %s lossy.webp)
head -c $((size * 6 / 10)) lossy.webp > truncated.webp
# alpha-lossy.webp (RIFF, VP8X, ALPH, VP8) with the VP8X canvas and the VP8
# frame header both rewritten to claim 16383x16383: consistent headers over
# data for 61x37, so only the pixel limit can refuse it.
python3 - <<'PY'
import struct
d = bytearray(open("alpha-lossy.webp", "rb").read())
assert d[12:16] == b"VP8X"
d[24:27] = (16383 - 1).to_bytes(3, "little")
d[27:30] = (16383 - 1).to_bytes(3, "little")
at = d.find(b"VP8 ")
assert d[at + 11:at + 14] == b"\x9d\x01\x2a"
struct.pack_into("<HH", d, at + 14, 16383, 16383)
open("bomb-16383.webp", "wb").write(bytes(d))
PY
