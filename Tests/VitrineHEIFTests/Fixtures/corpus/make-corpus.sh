#!/bin/sh
# Writes the real-file corpus of VitrineHEIFTests (HEIFCorpusTests: every
# file here must decode) with Debian 12's libheif 1.15.1 heif-enc (x265 for
# HEVC, aom for AV1) from the shared JPEG fixtures (../../../../../shared/fixtures/jpeg,
# or $JPEGS), and from this package's own source pictures. Nothing here is
# downloaded. A JPEG heif-enc cannot read (12-bit, arithmetic coded) is skipped
# and named. See SOURCES.md.
set -u
cd "$(dirname "$0")"
JPEGS=${JPEGS:-../../../../../shared/fixtures/jpeg}
FIXTURES=..
made=0
skipped=""
enc() {  # enc OUTPUT heif-enc-arguments...
    out=$1; shift
    if heif-enc "$@" -o "$out" >/dev/null 2>&1 && heif-info "$out" >/dev/null 2>&1; then
        made=$((made + 1))
    else
        rm -f "$out"; skipped="$skipped $out"
    fi
}
for jpeg in "$JPEGS"/*.jpg; do
    name=$(basename "$jpeg" .jpg)
    enc "$name.heic" -q 60 "$jpeg"
    enc "$name.avif" -q 60 -A "$jpeg"
done
# Other things heif-enc writes: a thumbnail (thmb), 4:4:4 and 4:2:2 chroma,
# lossless RGB, two pictures in one file, alpha in HEVC and AV1, 10 and 12 bits.
enc thumbnail-32.heic -q 60 -t 32 "$JPEGS/ijg_testorig_baseline420.jpg"
enc thumbnail-32.avif -q 60 -A -t 32 "$JPEGS/ijg_testorig_baseline420.jpg"
enc chroma-444.heic -q 60 -p chroma=444 "$JPEGS/progressive444.jpg"
enc chroma-422.heic -q 60 -p chroma=422 "$JPEGS/progressive444.jpg"
enc chroma-444.avif -q 60 -A -p chroma=444 "$JPEGS/progressive444.jpg"
enc lossless-rgb.heic -L -p chroma=444 --matrix_coefficients=0 "$JPEGS/restarts_33x33.jpg"
enc two-pictures.heic -q 60 "$JPEGS/ijg_testorig_baseline420.jpg" "$JPEGS/restarts_33x33.jpg"
enc alpha.avif -q 60 -A "$FIXTURES/source-alpha.png"
enc alpha-thumbnail.heic -q 60 -t 16 "$FIXTURES/source-alpha.png"
# 16-bit RGB from a real JPEG (djpeg, then a 16-bit PNG written by Python), coded deep.
djpeg -pnm "$JPEGS/ijg_testorig_baseline420.jpg" > deep.ppm
python3 - <<'PY'
import struct, zlib
data = open("deep.ppm", "rb").read()
parts = data.split(maxsplit=4)
width, height, pixels = int(parts[1]), int(parts[2]), parts[4]
rows = b"".join(b"\0" + b"".join(struct.pack(">H", v * 257) for v in pixels[y * width * 3:(y + 1) * width * 3]) for y in range(height))
def chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 16, 2, 0, 0, 0)) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")
open("deep16.png", "wb").write(png)
PY
enc deep-10bit.heic -q 60 -b 10 deep16.png
enc deep-12bit.heic -q 60 -b 12 deep16.png
enc deep-10bit.avif -q 60 -A -b 10 deep16.png
enc deep-12bit.avif -q 60 -A -b 12 deep16.png
rm -f deep.ppm deep16.png
echo "made $made files; skipped:${skipped:- none}"
