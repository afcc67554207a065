#!/bin/sh
# Writes the HEIF fixtures of VitrineHEIFTests with Debian 12's libheif
# 1.15.1 tools (apt-get install libheif-examples: heif-enc with x265 and aom),
# cjpeg (libjpeg-turbo-progs) and Python's standard library. See SOURCES.md
# for what each file is.
set -eu
cd "$(dirname "$0")"
python3 make-source.py
heif-enc -q 90 source.png -o plain.heic
heif-enc -q 90 source-alpha.png -o alpha.heic
heif-enc -q 90 -b 10 source-16bit.png -o deep-10bit.heic
heif-enc -q 90 -A source.png -o plain.avif
# A JPEG whose EXIF says Orientation = 6 (rotate 90° clockwise): heif-enc 1.15
# copies the EXIF into an Exif item and writes no irot, so the picture's own
# transforms say "as stored" and its EXIF says "turned".
cjpeg -quality 95 source.ppm > source.jpg
python3 - <<'PY'
import struct
# EXIF (TIFF, big-endian) with one IFD0 entry: Orientation (0x0112) SHORT 6.
tiff = b"MM\x00\x2a\x00\x00\x00\x08\x00\x01\x01\x12\x00\x03\x00\x00\x00\x01\x00\x06\x00\x00\x00\x00\x00\x00"
app1 = b"Exif\x00\x00" + tiff
jpeg = open("source.jpg", "rb").read()
open("exif-6.jpg", "wb").write(jpeg[:2] + b"\xff\xe1" + struct.pack(">H", len(app1) + 2) + app1 + jpeg[2:])
PY
heif-enc -q 90 exif-6.jpg -o exif-6.heic
# irot 1: 90° anticlockwise, on the file whose EXIF says 6.
python3 rewrite-meta.py exif-6.heic irot-exif-6.heic irot=1
# irot 3 (270° anticlockwise) then imir 1 (libheif: columns reversed); together a transpose.
python3 rewrite-meta.py plain.heic irot-imir.heic irot=3 imir=1
# A 2x2 grid of plain.heic's 98x64 coded tile, cropped to 194x122.
python3 rewrite-meta.py plain.heic grid-2x2.heic grid=2,2,194,122 ispe=194,122
# plain.heic claiming 20000x20000 (400 megapixels) in its ispe and grid.
python3 rewrite-meta.py plain.heic bomb-20000.heic grid=1,1,20000,20000 ispe=20000,20000
# plain.heic with a centred clean aperture (clap) of 81x45: cropped by libheif.
python3 rewrite-meta.py plain.heic clap.heic clap=81,45
# A phone's large photo: a 511x511 picture coded as one 512x512 tile, then that
# tile 12 rows of 16 times, cropped to 8064x6048 (48.8 megapixels, an iPhone's
# HEIF Max), turned by irot 1 as a photo taken upright is. 40 KB.
python3 make-tile-source.py
heif-enc -q 90 tile-source.png -o tile-511.heic
python3 rewrite-meta.py tile-511.heic tiled-48mp-irot.heic grid=12,16,8064,6048 ispe=8064,6048 irot=1
# plain.heic whose 1x1 grid claims a 20000x20000 output while its ispe still
# says 97x61: libheif 1.15 allocates the grid's output size.
python3 rewrite-meta.py plain.heic grid-output-bomb.heic grid=1,1,20000,20000
# The first 60 % of plain.heic: the mdat is cut short.
size=$(stat -c %s plain.heic)
head -c $((size * 6 / 10)) plain.heic > truncated.heic
# plain.heic with the six bytes after the coded slice's NAL unit header
# inverted: its slice header is damaged.
python3 - <<'PY'
data = bytearray(open("plain.heic", "rb").read())
at = data.find(b"mdat") + 4 + 4 + 2
for i in range(at, at + 6):
    data[i] ^= 0xFF
open("damaged.heic", "wb").write(bytes(data))
PY
# Issue 39's isolation findings (rewritings libheif reads as it reads their originals).
python3 make-isolation-fixtures.py
rm source.ppm source.jpg exif-6.jpg source-16bit.png tile-source.png
