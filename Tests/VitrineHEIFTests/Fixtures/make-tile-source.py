#!/usr/bin/env python3
"""Writes tile-source.png, the 511x511 picture tile-511.heic is encoded from
(heif-enc codes it as one 512x512 tile, which a 1x1 grid crops): the tile of a
phone's large photo (an iPhone's 48-megapixel HEIF is a grid of
512x512 HEVC tiles). Soft gradients that differ along both axes (so that a
turn or a mirror shows, and a misplaced tile too) with a dark corner square
marking the top left. Python's zlib and struct only; deterministic."""
import struct
import zlib

SIZE = 511


def pixel(x, y):
    if x < 64 and y < 64:
        return (20, 20, 20)
    return (40 + (x * 180) // SIZE, 40 + (y * 180) // SIZE, 200 - ((x + y) * 150) // (2 * SIZE))


def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


rows = bytearray()
for y in range(SIZE):
    rows.append(0)
    for x in range(SIZE):
        rows += bytes(pixel(x, y))
header = struct.pack(">IIBBBBB", SIZE, SIZE, 8, 2, 0, 0, 0)
with open("tile-source.png", "wb") as out:
    out.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(bytes(rows), 9)) + chunk(b"IEND", b""))
