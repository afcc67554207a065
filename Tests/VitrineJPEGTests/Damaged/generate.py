#!/usr/bin/env python3
"""Writes the damaged-JPEG corpus in generated/ from valid pictures.

Each file is a valid picture from ../shared/fixtures/jpeg with one kind of
damage: a truncation, flipped bits, a spliced or duplicated marker, a bad
segment length, garbage where a restart marker belongs, or a harmless oddity
(stray bytes between segments, an unknown JFIF revision or Adobe transform,
a bad ICC marker). The test (DamagedCorpusTests.swift) asks djpeg for the
verdict on each file; nothing here says what the verdict should be.

Deterministic: the same sources give the same bytes (no clock, a fixed seed).
Run from anywhere:  python3 Tests/VitrineJPEGTests/Damaged/generate.py
"""
import os
import random
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPOSITORY = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
FIXTURES = os.path.normpath(os.path.join(REPOSITORY, "..", "shared", "fixtures", "jpeg"))
OUT = os.path.join(HERE, "generated")

# Small valid pictures, one per decoding path (short names keep file names short).
# The damage to header segments does not depend on the picture, so the larger
# sources (over HEADER_CASES_UP_TO bytes) get only the damage to and around the scan;
# that keeps the corpus small.
SOURCES = {
    "baseline": "ijg_testorig_baseline420.jpg",  # Huffman, 4:2:0, one scan
    "restarts": "restarts_33x33.jpg",  # DRI=5, RST0..RST3 in the scan
    "progressive": "mozilla_progressive_32.jpg",  # 10 scans, a DHT before most
    "arithmetic": "ijg_testimgari_arithmetic.jpg",  # SOF9
    "gray": "gray_1000x1.jpg",  # one component, 1000x1
    "cmyk": "cmyk_plain_1.jpg",  # four components, Adobe APP14
}


HEADER_CASES_UP_TO = 2000


def segments(data):
    """(offset, marker, total length) of every segment, scans as marker None."""
    result, i = [], 2
    while i < len(data):
        assert data[i] == 0xFF, f"source is not clean at byte {i}"
        marker = data[i + 1]
        if marker == 0xD9:
            result.append((i, marker, 2))
            break
        length = struct.unpack(">H", data[i + 2:i + 4])[0]
        result.append((i, marker, 2 + length))
        i += 2 + length
        if marker == 0xDA:
            j = i
            while not (data[j] == 0xFF and data[j + 1] != 0 and not 0xD0 <= data[j + 1] <= 0xD7):
                j += 1
            result.append((i, None, j - i))
            i = j
    return result


def first(data, marker):
    return next(s for s in segments(data) if s[1] == marker)


def scans(data):
    return [s for s in segments(data) if s[1] is None]


def eoi(data):
    return first(data, 0xD9)[0]


def restart_markers(data):
    """Offsets of the RSTn markers inside the entropy-coded data."""
    scan = scans(data)[0]
    return [i for i in range(scan[0], scan[0] + scan[2] - 1) if data[i] == 0xFF and 0xD0 <= data[i + 1] <= 0xD7]


def splice(data, at, insert=b"", remove=0):
    return data[:at] + insert + data[at + remove:]


def flip_bits(data, rng, count, start, end):
    out = bytearray(data)
    for _ in range(count):
        position = rng.randrange(start, end)
        out[position] ^= 1 << rng.randrange(8)
    return bytes(out)


def cases(name, data):
    """Yields (case name, bytes)."""
    rng = random.Random(f"vitrine-damaged-{name}")  # seeded by the source's short name
    segs = segments(data)
    scan = scans(data)[0]
    last_scan = scans(data)[-1]
    end = eoi(data)
    sof = next(s for s in segs if s[1] in (0xC0, 0xC1, 0xC2, 0xC9, 0xCA))
    dht = next((s for s in segs if s[1] == 0xC4), None)
    dqt = first(data, 0xDB)
    sof_bytes = data[sof[0]:sof[0] + sof[2]]

    # Truncations: inside the headers, inside the scan, just before EOI, EOI cut in half.
    for percent in (5, 30, 60, 90):
        yield f"truncated-{percent:02d}pct", data[:len(data) * percent // 100]
    yield "truncated-no-eoi", data[:end]
    yield "truncated-half-eoi", data[:end + 1]

    # Flipped bits in the entropy-coded data (libjpeg notices some, not all) and in the headers.
    for k in range(3):
        yield f"bitflip-scan-{k}", flip_bits(data, rng, 4, scan[0], last_scan[0] + last_scan[2])
    yield "bitflip-headers", flip_bits(data, rng, 2, 2, scan[0])

    # Zeroed run in the middle of the entropy data.
    middle = scan[0] + scan[2] // 2
    yield "zeroed-scan", splice(data, middle, bytes(min(64, scan[2] // 4)), min(64, scan[2] // 4))

    # (a) Markers that libjpeg only meets after the last scanline, in jpeg_finish_decompress.
    yield "second-sof-after-scan", splice(data, end, sof_bytes)
    yield "bogus-dht-length-after-scan", splice(data, end, b"\xFF\xC4\x00\x05\x00\x00\x00")
    yield "bogus-dqt-length-after-scan", splice(data, end, b"\xFF\xDB\x00\x04\x00\x00")
    yield "second-sos-after-scan", splice(data, end, data[first(data, 0xDA)[0]:first(data, 0xDA)[0] + first(data, 0xDA)[2]])
    # The same after a harmless warning, as issue 12 saw them: TurboJPEG then called
    # the whole decode a "warning" and the error went unnoticed.
    jfif_2 = splice(data, first(data, 0xE0)[0] + 9, b"\x02", 1)  # "unknown JFIF revision number 2.01"
    yield "jfif-2-then-second-sof-after-scan", splice(jfif_2, end, sof_bytes)
    yield "jfif-2-then-bogus-dht-length-after-scan", splice(jfif_2, end, b"\xFF\xC4\x00\x05\x00\x00\x00")
    yield "stray-bytes-then-second-sof-after-scan", splice(data, end, b"\x00\x11\x22" + sof_bytes)
    # Spliced markers inside the scan: a SOF, an EOI, a stray RST.
    yield "sof-inside-scan", splice(data, middle, sof_bytes)
    yield "eoi-inside-scan", splice(data, middle, b"\xFF\xD9")
    yield "rst-inside-scan", splice(data, middle, b"\xFF\xD0")
    # Stray bytes after the last scan: harmless where libjpeg notices them at all.
    yield "harmless-stray-bytes-before-eoi", splice(data, end, b"\x12\x34\x56\x78")

    if len(data) > HEADER_CASES_UP_TO:
        return

    # A duplicated header segment before the scan: libjpeg allows a second DQT/DHT, not a second SOF.
    yield "duplicate-dqt", splice(data, dqt[0], data[dqt[0]:dqt[0] + dqt[2]])
    yield "duplicate-sof", splice(data, sof[0], sof_bytes)

    # Bad segment lengths before the scan.
    def with_length(segment, delta):
        offset = segment[0] + 2
        length = struct.unpack(">H", data[offset:offset + 2])[0] + delta
        return splice(data, offset, struct.pack(">H", length & 0xFFFF), 2)
    yield "dqt-length-short", with_length(dqt, -1)
    yield "dqt-length-long", with_length(dqt, +1)
    yield "sof-length-short", with_length(sof, -2)
    if dht is not None:
        yield "dht-length-short", with_length(dht, -1)
        yield "dht-length-long", with_length(dht, +3)
    app0 = first(data, 0xE0)
    yield "app0-length-past-end", with_length(app0, 0x7000)
    yield "app0-length-zero", splice(data, app0[0] + 2, b"\x00\x00", 2)

    # Harmless oddities.
    yield "harmless-stray-bytes-before-dqt", splice(data, dqt[0], b"\x00\x11\x22")
    yield "harmless-fill-bytes-before-sof", splice(data, sof[0], b"\xFF\xFF\xFF")
    # JFIF major version 2: "unknown JFIF revision number".
    yield "harmless-jfif-version-2", splice(data, app0[0] + 9, b"\x02", 1)
    # An APP2 ICC_PROFILE chunk numbered 3 of 2 (djpeg reads ICC only with -icc, so libjpeg stays quiet).
    icc = b"ICC_PROFILE\x00\x03\x02" + bytes(16)
    yield "harmless-bad-icc-marker", splice(data, dqt[0], b"\xFF\xE2" + struct.pack(">H", 2 + len(icc)) + icc)
    adobe = next((s for s in segs if s[1] == 0xEE), None)
    if adobe is not None:
        # Transform code 7 in the existing Adobe APP14 (its last byte).
        yield "harmless-adobe-transform-7", splice(data, adobe[0] + adobe[2] - 1, b"\x07", 1)
    elif name != "gray":
        # An Adobe APP14 with transform code 7: "unknown Adobe color transform code".
        body = b"Adobe\x00\x64\x00\x00\x00\x00\x07"
        yield "harmless-adobe-transform-7", splice(data, dqt[0], b"\xFF\xEE" + struct.pack(">H", 2 + len(body)) + body)

    # (b) Restart markers: garbage or another marker where one belongs.
    if name == "restarts":
        rsts = restart_markers(data)
        second = rsts[1]
        yield "rst-replaced-by-garbage", splice(data, second, b"\x5A\xA5", 2)
        yield "rst-wrong-number", splice(data, second, b"\xFF\xD5", 2)
        yield "rst-replaced-by-tem", splice(data, second, b"\xFF\x01", 2)
        yield "rst-replaced-by-jpg-marker", splice(data, second, b"\xFF\xC8", 2)
        yield "rst-replaced-by-app", splice(data, second, b"\xFF\xE5\x00\x04\x00\x00", 2)
        yield "rst-replaced-by-garbage-and-tem", splice(data, second, b"\x5A\xA5\xFF\x01", 2)
        yield "rst-replaced-by-garbage-and-jpg-marker", splice(data, second, b"\x5A\xA5\xFF\xC8", 2)
        yield "rst-removed", splice(data, second, b"", 2)
        yield "rst-duplicated", splice(data, second, data[second:second + 2])
        # The case: bytes that are not entropy data right before a correct RST
        # ("extraneous bytes before marker 0xd3"), then a wrong one that makes libjpeg resync.
        yield "garbage-before-rst", splice(data, rsts[3], b"\x00\x00\x00\x00\x00\x00\x00\x00")
        yield "garbage-before-rst-then-resync", splice(splice(data, rsts[3], b"\xFF\xD6", 2), rsts[1], bytes(8))
        yield "rst-all-zeroed", bytes(b if not any(r <= i < r + 2 for r in rsts) else 0 for i, b in enumerate(data))

    # Progressive scans: duplicated, removed, with a bogus successive-approximation.
    if name == "progressive":
        all_scans = [s for s in segs if s[1] == 0xDA]
        refine = all_scans[-1]
        refine_end = scans(data)[-1][0] + scans(data)[-1][2]
        yield "progressive-duplicated-scan", splice(data, end, data[refine[0]:refine_end])
        yield "progressive-removed-first-scan", splice(data, all_scans[0][0], b"", scans(data)[0][0] + scans(data)[0][2] - all_scans[0][0])
        header = bytearray(data[refine[0]:refine[0] + refine[2]])
        header[-1] = 0x21  # Ah=2, Al=1
        yield "progressive-bogus-approximation", splice(data, refine[0], bytes(header), refine[2])


def main():
    os.makedirs(OUT, exist_ok=True)
    for stale in os.listdir(OUT):
        if stale.endswith(".jpg"):
            os.remove(os.path.join(OUT, stale))
    count = 0
    for short, file in SOURCES.items():
        with open(os.path.join(FIXTURES, file), "rb") as f:
            data = f.read()
        for case, damaged in cases(short, data):
            with open(os.path.join(OUT, f"{short}-{case}.jpg"), "wb") as f:
                f.write(damaged)
            count += 1
    print(f"wrote {count} files to {OUT}", file=sys.stderr)


if __name__ == "__main__":
    main()
