#!/usr/bin/env python3
"""Writes the pictures the HEIF fixtures are encoded from: a 97x61 picture of
four coloured quadrants (red, green / blue, white) with a diagonal ripple, so
that any turn or mirror shows, and odd in both directions, so that HEVC's
8x8 coding blocks do not divide it. source.png (RGB, 8 bits), source-alpha.png
(the same with alpha rising from 0 at the left to 255 at the right),
source-16bit.png (RGB, 16 bits) and source.ppm (for cjpeg). Python's zlib and
struct only; deterministic."""
import struct
import zlib

W, H = 97, 61


def pixel(x, y):
    if x < W // 2 and y < H // 2:
        base = (220, 40, 40)
    elif y < H // 2:
        base = (40, 200, 60)
    elif x < W // 2:
        base = (40, 60, 220)
    else:
        base = (235, 235, 235)
    ripple = (x * 3 + y * 2) % 40
    return tuple(c + ripple if c < 128 else c - ripple for c in base)


def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def png(path, colour_type, depth, sample):
    rows = bytearray()
    for y in range(H):
        rows.append(0)
        for x in range(W):
            for v in sample(x, y):
                rows += v.to_bytes(depth // 8, "big")
    header = struct.pack(">IIBBBBB", W, H, depth, colour_type, 0, 0, 0)
    with open(path, "wb") as out:
        out.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(bytes(rows), 9)) + chunk(b"IEND", b""))


png("source.png", 2, 8, pixel)
png("source-alpha.png", 6, 8, lambda x, y: pixel(x, y) + ((x * 255) // (W - 1),))
png("source-16bit.png", 2, 16, lambda x, y: tuple(c * 257 + (x * 97 + y) % 200 for c in pixel(x, y)))
with open("source.ppm", "wb") as out:
    out.write(b"P6 %d %d 255\n" % (W, H) + bytes(c for y in range(H) for x in range(W) for c in pixel(x, y)))
