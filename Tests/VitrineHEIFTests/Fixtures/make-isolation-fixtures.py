#!/usr/bin/env python3
"""Writes the fixtures of issue 39's isolation findings: files that libheif
1.15 reads exactly as it reads the file they are made from, but that
Vitrine's box reader once read otherwise and so left unchecked. Python's
struct only; run from anywhere:

    make-isolation-fixtures.py

From Fuzz/Regressions/heif/alpha-overlay-canvas-bomb.heic (a 97x61 primary
whose alpha plane is a grid over an overlay declaring a 24757x26758 canvas,
which libheif 1.15 allocates: 1.9 GB), its `iloc` written three other ways:

- overlay-bomb-two-extents.heic: the overlay's data split over two extents of
  6 and 193 bytes (libheif joins them; Vitrine read only the first, too short
  for the canvas size, and gave up);
- overlay-bomb-offset-size-2.heic: `offset_size` 2, with no offset fields
  (libheif 1.15 reads a field of a size other than 4 or 8 as no bytes, worth
  0; Vitrine gave up), the one nonzero extent offset moved into its base_offset;
- overlay-bomb-iloc-v1-index-size.heic: `iloc` version 1 whose index_size
  nibble says 4, with no extent_index fields (libheif 1.15 reads index_size
  in version 2 only; Vitrine read 4 index bytes an extent and lost its place).

`heif-info -d` prints each as it prints the original (the same items, the
same extents' offsets joined, the same references), and `heif-info` the same
97x61 primary with alpha: see SOURCES.md.

From plain.heic (a 1x1 grid, item 2, over one hvc1 tile, item 1):

- grid-self-reference.heic: the grid's `dimg` names the grid itself as its
  tile. libheif 1.15 reads it (heif-info prints it); decoding it hangs
  libheif's decoder, its tile threads piling up until std::terminate.

From alpha.heic (grid 2 over tile 1; its alpha, grid 4 over tile 3, `auxl` to 2):

- alpha-auxl-loop.heic: grid 2 also `auxl` to grid 4, with grid 4's alpha
  `auxC`: each is the other's alpha image. libheif 1.15 reads it (heif-info
  prints it); its decoder would decode each one's alpha before the other, without end."""
import importlib.util
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
REGRESSIONS = os.path.join(HERE, "..", "..", "..", "Fuzz", "Regressions", "heif")


# rewrite-meta.py's box reading and writing (its name is not a module name).
_spec = importlib.util.spec_from_file_location("rewrite_meta", os.path.join(HERE, "rewrite-meta.py"))
rewrite_meta = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(rewrite_meta)
parse, write, child = rewrite_meta.parse, rewrite_meta.write, rewrite_meta.child


def read_iloc(body):
    """iloc of version 1, offset/length/base_offset sizes 4, no index: [id, method, base, [(offset, length)]]."""
    assert body[0] == 1 and body[4] == 0x44 and body[5] == 0x40, "the layout libheif 1.15 writes"
    items, i = [], 8
    for _ in range(struct.unpack(">H", body[6:8])[0]):
        item, method, _, base, count = struct.unpack(">HHHIH", body[i:i + 12])
        i += 12
        extents = [struct.unpack(">II", body[i + 8 * e:i + 8 * e + 8]) for e in range(count)]
        i += 8 * count
        items.append([item, method & 0xF, base, extents])
    assert i == len(body)
    return items


def write_iloc(items, version=1, offset_size=4, sizes_low=0):
    """iloc with 4-byte lengths and base offsets; offsets of `offset_size` bytes (0 writes none)."""
    out = bytes([version, 0, 0, 0, offset_size << 4 | 4, 4 << 4 | sizes_low]) + struct.pack(">H", len(items))
    for item, method, base, extents in items:
        out += struct.pack(">HHHIH", item, method, 0, base, len(extents))
        for offset, length in extents:
            out += (struct.pack(">I", offset) if offset_size == 4 else b"") + struct.pack(">I", length)
    return out


def share_auxc(inner, to_item, from_item):
    """Associates `from_item`'s auxC property with `to_item` too (ipma version 0, 7-bit indices)."""
    iprp = child(inner, b"iprp")
    containers = parse(iprp[1], 0, len(iprp[1]))
    ipco, ipma = child(containers, b"ipco"), child(containers, b"ipma")
    kinds = [kind for kind, _ in parse(ipco[1], 0, len(ipco[1]))]
    entries = rewrite_meta.read_ipma(ipma[1])
    auxc = next(a for item, associations in entries if item == from_item for a in associations if kinds[(a & 0x7F) - 1] == b"auxC")
    for entry in entries:
        if entry[0] == to_item:
            entry[1].append(auxc)
    ipma[1] = rewrite_meta.write_ipma(entries)
    iprp[1] = write(containers)


def rewrite(source, destination, change_iloc=None, change_iref=None, change_meta=None):
    data = open(source, "rb").read()
    top = parse(data, 0, len(data))
    meta = child(top, b"meta")
    old_meta = 8 + len(meta[1])
    meta_at = data.index(b"meta") - 4
    inner = parse(meta[1], 4, len(meta[1]))
    iloc = child(inner, b"iloc")
    items = read_iloc(iloc[1])
    if change_meta:
        change_meta(inner)
    if change_iref:
        iref = child(inner, b"iref")
        references = parse(iref[1], 4, len(iref[1]))
        iref[1] = iref[1][:4] + write(change_iref(references))
    # Twice: the iloc's own size moves the data behind the meta box.
    for _ in range(2):
        delta = 8 + 4 + len(write(inner)) - old_meta
        moved = [[item, method, base + (delta if method == 0 and base > meta_at else 0), extents]
                 for item, method, base, extents in items]
        iloc[1] = change_iloc(moved) if change_iloc else write_iloc(moved)
    meta[1] = meta[1][:4] + write(inner)
    assert 8 + len(meta[1]) - old_meta == delta
    # Bytes after the last box (the trailing-bytes bomb) are kept as they were.
    tail = data[sum(8 + len(body) for _, body in top):]
    open(os.path.join(HERE, destination), "wb").write(write(top) + tail)


def two_extents(items):
    for entry in items:
        if entry[0] == 3:  # the overlay
            (offset, length), = entry[3]
            entry[3] = [(offset, 6), (offset + 6, length - 6)]
    return write_iloc(items)


def offset_size_2(items):
    for entry in items:
        entry[2] += sum(offset for offset, _ in entry[3][:1])
        assert all(offset == 0 for offset, _ in entry[3][1:])
        entry[3] = [(0, length) for _, length in entry[3]]
    return write_iloc(items, offset_size=2)


bomb = os.path.join(REGRESSIONS, "alpha-overlay-canvas-bomb.heic")
rewrite(bomb, "overlay-bomb-two-extents.heic", change_iloc=two_extents)
rewrite(bomb, "overlay-bomb-offset-size-2.heic", change_iloc=offset_size_2)
rewrite(bomb, "overlay-bomb-iloc-v1-index-size.heic", change_iloc=lambda items: write_iloc(items, sizes_low=4))


def self_reference(references):
    for reference in references:
        if reference[0] == b"dimg":
            source_item, count = struct.unpack(">HH", reference[1][:4])
            reference[1] = struct.pack(">HHH", source_item, 1, source_item)
    return references


def auxl_loop(references):
    return references + [[b"auxl", struct.pack(">HHH", 2, 1, 4)]]


rewrite(os.path.join(HERE, "plain.heic"), "grid-self-reference.heic", change_iref=self_reference)
rewrite(os.path.join(HERE, "alpha.heic"), "alpha-auxl-loop.heic", change_iref=auxl_loop,
        change_meta=lambda inner: share_auxc(inner, to_item=2, from_item=4))
