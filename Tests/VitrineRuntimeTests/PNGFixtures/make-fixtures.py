#!/usr/bin/env python3
"""Writes the PNG fixtures of SlideDecodingTests: one small picture of each
colour type and bit depth, with and without transparency, gamma and
interlacing, so that the row-by-row reader is compared with libpng's
simplified API on every kind. Deterministic: run it again to get the same
files. Python's zlib and struct only (the PNG format, written out by hand)."""
import os
import struct
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
W, H = 61, 37


def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def sample(x, y, channel, maximum):
    return ((x * 7 + y * 13 + channel * 53) * 2654435761 >> 7) % (maximum + 1)


def pack_row(values, depth):
    if depth >= 8:
        return b"".join(v.to_bytes(depth // 8, "big") for v in values)
    out, bits, used = bytearray(), 0, 0
    for v in values:
        bits = (bits << depth) | v
        used += depth
        if used == 8:
            out.append(bits)
            bits, used = 0, 0
    if used:
        out.append(bits << (8 - used))
    return bytes(out)


def scanlines(rows, depth, channels, interlaced):
    def filtered(selected):
        data = bytearray()
        for y, xs in selected:
            data.append(0)
            data += pack_row([v for x in xs for v in rows[y][x]], depth)
        return data
    if not interlaced:
        return filtered([(y, range(W)) for y in range(H)])
    data = bytearray()
    # Adam7: (x start, y start, x step, y step) for the seven passes.
    for x0, y0, dx, dy in [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]:
        xs = range(x0, W, dx)
        if len(xs) == 0:
            continue
        data += filtered([(y, xs) for y in range(y0, H, dy)])
    return data


def write(name, color_type, depth, extra=b"", interlaced=False, palette=None):
    channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[color_type]
    maximum = (len(palette) // 3 - 1) if palette else (1 << depth) - 1
    rows = [[[sample(x, y, c, maximum) for c in range(channels)] for x in range(W)] for y in range(H)]
    if color_type in (4, 6):  # a gradient of transparency, fully transparent to opaque
        for y in range(H):
            for x in range(W):
                rows[y][x][-1] = (x * maximum) // (W - 1)
    header = struct.pack(">IIBBBBB", W, H, depth, color_type, 0, 0, 1 if interlaced else 0)
    body = chunk(b"IHDR", header) + extra
    if palette:
        body += chunk(b"PLTE", palette)
    body += chunk(b"IDAT", zlib.compress(bytes(scanlines(rows, depth, channels, interlaced)), 9)) + chunk(b"IEND", b"")
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + body)


palette = bytes(sample(i, 3, c, 255) for i in range(16) for c in range(3))
write("gray-1bit.png", 0, 1)
write("gray-8bit.png", 0, 8)
write("gray-16bit.png", 0, 16)
write("gray-alpha-8bit.png", 4, 8)
write("rgb-8bit.png", 2, 8)
write("rgb-8bit-gamma-1.0.png", 2, 8, extra=chunk(b"gAMA", struct.pack(">I", 100000)))
write("rgb-16bit.png", 2, 16)
write("rgba-8bit.png", 6, 8)
write("rgba-16bit.png", 6, 16)
write("palette-4bit-trns.png", 3, 4, palette=palette, extra=b"")
write("palette-8bit.png", 3, 8, palette=palette)
write("rgb-8bit-interlaced.png", 2, 8, interlaced=True)
# tRNS goes after PLTE: written by hand for this one.
name = "palette-4bit-trns.png"
with open(os.path.join(HERE, name), "rb") as f:
    data = f.read()
at = data.index(b"IDAT") - 4
data = data[:at] + chunk(b"tRNS", bytes(range(0, 256, 16))) + data[at:]
with open(os.path.join(HERE, name), "wb") as f:
    f.write(data)
