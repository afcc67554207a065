#!/usr/bin/env python3
"""Writes the two pictures `vitrine doctor` times the decoding of (its
"Decoding" section; docs/raspberry-pi.md, "vitrine doctor"). The package
installs them in /usr/share/vitrine/doctor: a board has no encoder to make
them, and a figure is only comparable between boards and versions when the
bytes decoded are the same, so they are made here once and kept in the
repository rather than made at every package build (whose tools' versions
would change the bytes).

  photo-12mp.jpg   4000x3000, 4:2:0, baseline (sequential, standard Huffman
                   tables), cjpeg -quality 90: a phone's 12-megapixel JPEG.
                   The benchmarks' synthetic photo (SyntheticPhoto in
                   Sources/vitrine/BenchCommand.swift: gradients, a wave, and
                   grain) with a finer grain, so that it stays under 2 MB:
                   Huffman decoding time grows with the bits, and a flat
                   picture would say nothing. About 1.8 MB (1.2 bits a pixel;
                   a phone's is 3 to 6 MB, so a real one takes somewhat longer).
  photo-48mp.heic  8064x6048 as coded, a grid of 12 rows of 16 HEVC tiles of
                   512x512 cropped to that size, with `irot` 1 as a photo taken
                   upright has (shown 6048x8064): the layout of an iPhone's
                   48-megapixel HEIF Max. Every cell is the same coded tile (the
                   same kind of picture made at 511x511 with a grain of 2 levels,
                   heif-enc -q 70: 23 KB), as
                   Tests/VitrineHEIFTests/Fixtures/tiled-48mp-irot.heic is made:
                   libheif decodes each cell on its own, so the work is that of
                   192 tiles at 0.7 bits a pixel, the bitrate of a 4.4 MB picture
                   (an iPhone's HEIF Max is about 5 MB), in a file of 23 KB. 192
                   different tiles would have to be coded at under half that
                   bitrate to stay under 2 MB, and would decode faster than a
                   phone's photo.

Needs Python's standard library, cjpeg (libjpeg-turbo-progs) and heif-enc
(libheif-examples); Tests/VitrineHEIFTests/Fixtures/rewrite-meta.py makes the
grid and the turn, which heif-enc 1.15 cannot. Deterministic: run it again to
remake the same files with the same tools (made with Debian 12's
libjpeg-turbo 2.1.5 and libheif 1.15.1 with x265 3.5).

    deploy/doctor/make-pictures.py
"""
import math
import os
import struct
import subprocess
import sys
import tempfile
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
REWRITE_META = os.path.join(HERE, "..", "..", "Tests", "VitrineHEIFTests", "Fixtures", "rewrite-meta.py")

JPEG_SIZE = (4000, 3000)
JPEG_QUALITY = 90
# Grain of 10 levels (±5): what keeps the JPEG under 2 MB at quality 90, with room.
JPEG_GRAIN = 10

# 511x511: heif-enc codes it as one 512x512 tile, which a 1x1 grid crops; that grid
# is what rewrite-meta.py rewrites to 12x16 of the tile.
TILE_SIZE = 511
TILE_QUALITY = 70
TILE_GRAIN = 2
HEIC_GRID = "grid=12,16,8064,6048"
HEIC_SIZE = "ispe=8064,6048"


def synthetic_photo(width, height, grain):
    """Rows of RGB bytes: SyntheticPhoto's gradients and wave, and grain of
    `grain` levels from the same linear congruential generator."""
    seed = 0x12345678
    across = [x / width for x in range(width)]
    # sin(37 fx + s) = sin(37 fx) cos(s) + cos(37 fx) sin(s): the column's part once.
    column_sin = [math.sin(f * 37) for f in across]
    column_cos = [math.cos(f * 37) for f in across]
    for y in range(height):
        fy = y / height
        shift = math.sin(fy * 11) * 3
        shift_cos, shift_sin, row_cos = math.cos(shift), math.sin(shift), math.cos(fy * 23)
        row = bytearray(width * 3)
        for x in range(width):
            fx = across[x]
            seed = (seed * 1664525 + 1013904223) & 0xFFFFFFFF
            noise = ((seed >> 24) * grain) // 256 - grain // 2
            wave = 40 * (column_sin[x] * shift_cos + column_cos[x] * shift_sin) * row_cos
            row[3 * x] = clamp(120 + 90 * fx + wave + noise)
            row[3 * x + 1] = clamp(90 + 120 * fy - wave * 0.5 + noise)
            row[3 * x + 2] = clamp(160 - 80 * fx * fy + wave * 0.7 + noise)
        yield bytes(row)


def clamp(value):
    return 0 if value < 0 else 255 if value > 255 else int(value)


def write_ppm(path, width, height, rows):
    with open(path, "wb") as out:
        out.write(b"P6\n%d %d\n255\n" % (width, height))
        for row in rows:
            out.write(row)


def write_png(path, width, height, rows):
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    scanlines = b"".join(b"\0" + row for row in rows)
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    with open(path, "wb") as out:
        out.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(scanlines, 9)) + chunk(b"IEND", b""))


def run(command, stdout=None):
    try:
        subprocess.run(command, check=True, stdout=stdout)
    except FileNotFoundError:
        sys.exit(f"make-pictures.py: {command[0]} is missing (apt-get install libjpeg-turbo-progs libheif-examples)")


def main():
    with tempfile.TemporaryDirectory(prefix="vitrine-doctor-pictures-") as work:
        source = os.path.join(work, "photo.ppm")
        write_ppm(source, *JPEG_SIZE, synthetic_photo(*JPEG_SIZE, JPEG_GRAIN))
        with open(os.path.join(HERE, "photo-12mp.jpg"), "wb") as out:
            # cjpeg's defaults are the rest: sequential (baseline), standard Huffman tables, the integer DCT.
            run(["cjpeg", "-quality", str(JPEG_QUALITY), "-sample", "2x2", source], stdout=out)

        tile = os.path.join(work, "tile.png")
        write_png(tile, TILE_SIZE, TILE_SIZE, synthetic_photo(TILE_SIZE, TILE_SIZE, TILE_GRAIN))
        coded = os.path.join(work, "tile.heic")
        run(["heif-enc", "-q", str(TILE_QUALITY), tile, "-o", coded], stdout=subprocess.DEVNULL)
        run([sys.executable, REWRITE_META, coded, os.path.join(HERE, "photo-48mp.heic"), HEIC_GRID, HEIC_SIZE, "irot=1"])
    for name in ("photo-12mp.jpg", "photo-48mp.heic"):
        print(f"{name}: {os.path.getsize(os.path.join(HERE, name))} bytes")


if __name__ == "__main__":
    main()
