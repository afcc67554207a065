#!/usr/bin/env python3
"""Rewrites the meta box of a HEIC written by heif-enc 1.15, which has the
layout this script asserts: a primary `grid` item (a 1x1 grid that crops the
coded tile to the picture's size, its ImageGrid in `idat`), one `hvc1` tile
item, `ipma` version 0 with 7-bit property indices, and `iloc` version 1
with 4-byte offsets, lengths and base offsets. Python's struct only.

    rewrite-meta.py IN OUT [irot=A] [imir=AXIS] [clap=WIDTH,HEIGHT] [grid=ROWS,COLUMNS,WIDTH,HEIGHT] [ispe=WIDTH,HEIGHT]

irot, imir and clap add those transformative properties (ISO/IEC 23008-12 6.5.10,
6.5.12; ISO/IEC 14496-12 12.1.4.1, a centred clean aperture of whole pixels),
marked essential, to the primary item, in that order; grid rewrites its ImageGrid
and makes its `dimg` reference name the one tile ROWS x COLUMNS times; ispe
rewrites the primary item's size. Extents in the file (construction method 0)
move by as many bytes as the meta box grew."""
import struct
import sys


def parse(data, start, end):
    boxes, i = [], start
    while i < end:
        size, kind = struct.unpack(">I4s", data[i:i + 8])
        assert size >= 8, "no 64-bit or to-the-end boxes here"
        boxes.append([kind, data[i + 8:i + size]])
        i += size
    return boxes


def write(boxes):
    return b"".join(struct.pack(">I4s", 8 + len(body), kind) + body for kind, body in boxes)


def child(boxes, kind):
    return next(box for box in boxes if box[0] == kind)


def read_ipma(body):
    """ipma version 0, flags 0: item ID (16 bits), count (8), one byte a property
    (essential << 7 | index). [[item, [association, ...]], ...]"""
    assert body[:4] == b"\0\0\0\0"
    entries, i = [], 8
    for _ in range(struct.unpack(">I", body[4:8])[0]):
        item, count = struct.unpack(">HB", body[i:i + 3])
        entries.append([item, list(body[i + 3:i + 3 + count])])
        i += 3 + count
    return entries


def write_ipma(entries):
    return b"\0\0\0\0" + struct.pack(">I", len(entries)) + b"".join(struct.pack(">HB", item, len(a)) + bytes(a) for item, a in entries)


def rewrite(source, destination, irot=None, imir=None, clap=None, grid=None, ispe=None):
    data = open(source, "rb").read()
    top = parse(data, 0, len(data))
    meta = child(top, b"meta")
    old_meta = 8 + len(meta[1])
    inner = parse(meta[1], 4, len(meta[1]))
    primary = struct.unpack(">H", child(inner, b"pitm")[1][4:6])[0]
    iprp = child(inner, b"iprp")
    containers = parse(iprp[1], 0, len(iprp[1]))
    ipco, ipma = child(containers, b"ipco"), child(containers, b"ipma")
    properties = parse(ipco[1], 0, len(ipco[1]))
    added = []
    if irot is not None:
        properties.append([b"irot", bytes([irot])])
        added.append(len(properties))
    if imir is not None:
        properties.append([b"imir", bytes([imir])])
        added.append(len(properties))
    if clap is not None:
        # width N/D, height N/D, horizontal offset N/D, vertical offset N/D: centred.
        properties.append([b"clap", struct.pack(">8I", clap[0], 1, clap[1], 1, 0, 1, 0, 1)])
        added.append(len(properties))
    entries = read_ipma(ipma[1])
    for entry in entries:
        if entry[0] != primary:
            continue
        entry[1] += [0x80 | index for index in added]
        if ispe is not None:
            for association in entry[1]:
                prop = properties[(association & 0x7F) - 1]
                if prop[0] == b"ispe":
                    prop[1] = b"\0\0\0\0" + struct.pack(">II", *ispe)
    ipco[1] = write(properties)
    ipma[1] = write_ipma(entries)
    iprp[1] = write(containers)
    if grid is not None:
        rows, columns, width, height = grid
        # ImageGrid (ISO/IEC 23008-12 6.6.2.3.2): version 0, flags 0 (16-bit output size).
        child(inner, b"idat")[1] = bytes([0, 0, rows - 1, columns - 1]) + struct.pack(">HH", width, height)
        iref = child(inner, b"iref")
        references = parse(iref[1], 4, len(iref[1]))
        for reference in references:
            if reference[0] == b"dimg":
                source_item, count = struct.unpack(">HH", reference[1][:4])
                assert source_item == primary and count == 1
                reference[1] = struct.pack(">HH", primary, rows * columns) + reference[1][4:6] * (rows * columns)
        iref[1] = iref[1][:4] + write(references)
    delta = 8 + 4 + len(write(inner)) - old_meta
    iloc = child(inner, b"iloc")
    table = bytearray(iloc[1])
    assert table[0] == 1 and table[4] == 0x44 and table[5] == 0x40
    i = 8
    for _ in range(struct.unpack(">H", table[6:8])[0]):
        _, method, _, _, extents = struct.unpack(">HHHIH", table[i:i + 12])
        i += 12
        for _ in range(extents):
            if method & 0xF == 0:
                struct.pack_into(">I", table, i, struct.unpack(">I", table[i:i + 4])[0] + delta)
            i += 8
    iloc[1] = bytes(table)
    meta[1] = meta[1][:4] + write(inner)
    assert 8 + len(meta[1]) - old_meta == delta
    open(destination, "wb").write(write(top))


if __name__ == "__main__":
    options = {}
    for word in sys.argv[3:]:
        key, value = word.split("=")
        numbers = tuple(int(n) for n in value.split(","))
        options[key] = numbers if len(numbers) > 1 else numbers[0]
    rewrite(sys.argv[1], sys.argv[2], **options)
