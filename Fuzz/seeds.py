#!/usr/bin/env python3
"""Writes the seed corpora under Fuzz/Corpus/ (docs/fuzzing.md). Run from the
repository root; the output is committed, so this only needs running again when
the seeds should change. Python's standard library only.

- config: the demo configuration, the YAML and JSON texts of Tests/VitrineConfigTests
  (every multi-line string literal), and a JSON document.
- jpeg:   the small fixtures of ../shared/fixtures/jpeg (if present) and Tests/VM/content,
          plus copies with an EXIF orientation (APP1) spliced in.
- png:    tiny hand-made PNGs, one per colour type and bit depth, interlaced, with tRNS.
- webp:   the WebP fixtures of Tests/VitrineWebPTests/Fixtures up to 8 KiB (lossy,
          lossless, alpha, animated, EXIF, truncated, a 16383x16383 header), and the
          animation fixtures of Tests/VitrineRuntimeTests/AnimationFixtures.
- gif:    the GIF fixtures of Tests/VitrineGIFTests/Fixtures up to 8 KiB (still,
          interlaced, animated, transparent, a frame at an offset, truncated, a
          65535x65535 header), and the animation fixtures (disposal modes, delays).
- heif:   the HEIF fixtures of Tests/VitrineHEIFTests/Fixtures up to 8 KiB (plain,
          alpha, 10-bit, AVIF, EXIF, irot, irot with imir, a 2x2 grid, truncated,
          damaged, a 20000x20000 header).
- heifdiff: for FuzzHEIFDifferential, the HEIF fixtures and real-file corpus
          (Tests/VitrineHEIFTests/Fixtures/corpus) up to 8 KiB, and the HEIF
          reproducers of Fuzz/Regressions/heif.
- evemu:  the recordings of Tests/VitrineEvdevTests/Recordings.
"""
import glob, hashlib, os, re, shutil, struct, zlib

ROOT = os.getcwd()
OUT = os.path.join(ROOT, "Fuzz", "Corpus")


def put(kind, name, data):
    with open(os.path.join(OUT, kind, name), "wb") as f:
        f.write(data)


# config
shutil.copy(os.path.join(ROOT, "deploy/demo/vitrine.yaml"), os.path.join(OUT, "config", "demo.yaml"))
for path in sorted(glob.glob(os.path.join(ROOT, "Tests/VitrineConfigTests/*.swift"))):
    text = open(path, encoding="utf-8").read()
    for n, block in enumerate(re.findall(r'"""\n(.*?)\n\s*"""', text, re.S)):
        # Swift strips the closing delimiter's indentation from every line.
        lines = block.split("\n")
        indent = min((len(l) - len(l.lstrip(" ")) for l in lines if l.strip()), default=0)
        body = "\n".join(l[indent:] for l in lines) + "\n"
        if "\\(" in body:
            continue  # interpolated: not a literal input
        put("config", f"{os.path.basename(path)[:-6]}-{n}.yaml", body.encode())
put("config", "document.json", b'{"slides": [{"path": "a.jpg", "duration": "2.5s", "fit": "cover",'
    b' "action": {"goto": 0}}, {"path": "https://example.com/b.png", "action": {"post": "http://127.0.0.1:9/t", "timeout": "1s"}}],'
    b' "interval": "5s", "loop": false, "background": "#102030", "transition": {"type": "crossfade", "duration": "250ms",'
    b' "easing": "linear"}, "indicator": {"visible": true, "position": "top-right"}, "touch": {"calibration": [1, 0, 0, 0, 1, 0]},'
    b' "output": {"display": "headless", "mode": "1920x1080@60", "rotation": 90}}\n')

# jpeg
def with_exif(jpeg, orientation):
    # A big-endian TIFF header with one IFD entry: 0x0112 Orientation, SHORT, 1.
    tiff = b"MM\x00\x2a\x00\x00\x00\x08" + struct.pack(">H", 1) + struct.pack(">HHIHH", 0x0112, 3, 1, orientation, 0) + b"\x00\x00\x00\x00"
    payload = b"Exif\x00\x00" + tiff
    return jpeg[:2] + b"\xff\xe1" + struct.pack(">H", len(payload) + 2) + payload + jpeg[2:]

jpegs = sorted(glob.glob(os.path.join(ROOT, "../shared/fixtures/jpeg/*.jpg")) + glob.glob(os.path.join(ROOT, "Tests/VM/content/*.jpg")))
for path in jpegs:
    data = open(path, "rb").read()
    if len(data) <= 8192:
        put("jpeg", os.path.basename(path), data)
small = [p for p in jpegs if os.path.basename(p) in ("restarts_33x33.jpg", "mozilla_progressive_32.jpg", "red.jpg")]
for orientation, path in zip((6, 3, 8), small):
    put("jpeg", f"exif{orientation}-{os.path.basename(path)}", with_exif(open(path, "rb").read(), orientation))

# png
def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

def png(width, height, depth, colour, rows, extra=b"", interlace=0):
    header = struct.pack(">IIBBBBB", width, height, depth, colour, 0, 0, interlace)
    raw = b"".join(b"\x00" + row for row in rows)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + extra + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")

def rows(width, height, channels, depth=8):
    bits = width * channels * depth
    size = (bits + 7) // 8
    return [bytes((x * 37 + y * 91) & 0xFF for x in range(size)) for y in range(height)]

put("png", "rgb8.png", png(5, 4, 8, 2, rows(5, 4, 3)))
put("png", "rgba8.png", png(4, 3, 8, 6, rows(4, 3, 4)))
put("png", "gray8.png", png(7, 2, 8, 0, rows(7, 2, 1)))
put("png", "gray1.png", png(9, 3, 1, 0, rows(9, 3, 1, 1)))
put("png", "grayalpha16.png", png(3, 3, 16, 4, rows(3, 3, 2, 16)))
put("png", "rgb16.png", png(2, 2, 16, 2, rows(2, 2, 3, 16)))
palette = bytes([0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255])
put("png", "palette4-trns.png", png(6, 2, 4, 3, [bytes([0x01, 0x23, 0x12])] * 2,
                                     extra=chunk(b"PLTE", palette) + chunk(b"tRNS", b"\x00\x80")))
put("png", "gray8-trns-gamma.png", png(3, 3, 8, 0, rows(3, 3, 1), extra=chunk(b"gAMA", struct.pack(">I", 45455)) + chunk(b"tRNS", b"\x00\x10")))
# Adam7 with a 1x1 picture: only pass 1 has a pixel, so the layout is the plain one.
put("png", "interlaced1x1.png", png(1, 1, 8, 2, [b"\x10\x20\x30"], interlace=1))
put("png", "empty-idat-size.png", png(1, 1, 8, 6, [b"\x01\x02\x03\x04"]))

# webp
for path in sorted(glob.glob(os.path.join(ROOT, "Tests/VitrineWebPTests/Fixtures/*.webp"))
                   + glob.glob(os.path.join(ROOT, "Tests/VitrineRuntimeTests/AnimationFixtures/*.webp"))):
    if os.path.getsize(path) <= 8192:
        shutil.copy(path, os.path.join(OUT, "webp", os.path.basename(path)))

# gif
for path in sorted(glob.glob(os.path.join(ROOT, "Tests/VitrineGIFTests/Fixtures/*.gif"))
                   + glob.glob(os.path.join(ROOT, "Tests/VitrineRuntimeTests/AnimationFixtures/*.gif"))):
    if os.path.getsize(path) <= 8192:
        shutil.copy(path, os.path.join(OUT, "gif", os.path.basename(path)))

# heif
for path in sorted(glob.glob(os.path.join(ROOT, "Tests/VitrineHEIFTests/Fixtures/*.hei[cf]"))
                   + glob.glob(os.path.join(ROOT, "Tests/VitrineHEIFTests/Fixtures/*.avif"))):
    if os.path.getsize(path) <= 8192:
        shutil.copy(path, os.path.join(OUT, "heif", os.path.basename(path)))

# heifdiff
for path in sorted(glob.glob(os.path.join(ROOT, "Tests/VitrineHEIFTests/Fixtures/*.hei[cf]"))
                   + glob.glob(os.path.join(ROOT, "Tests/VitrineHEIFTests/Fixtures/*.avif"))
                   + glob.glob(os.path.join(ROOT, "Tests/VitrineHEIFTests/Fixtures/corpus/*.hei[cf]"))
                   + glob.glob(os.path.join(ROOT, "Tests/VitrineHEIFTests/Fixtures/corpus/*.avif"))
                   + glob.glob(os.path.join(ROOT, "Fuzz/Regressions/heif/*"))):
    if os.path.getsize(path) <= 8192:
        folder = "corpus-" if "/corpus/" in path else "regression-" if "/Regressions/" in path else ""
        shutil.copy(path, os.path.join(OUT, "heifdiff", folder + os.path.basename(path)))

# evemu
for path in sorted(glob.glob(os.path.join(ROOT, "Tests/VitrineEvdevTests/Recordings/*.evemu"))):
    shutil.copy(path, os.path.join(OUT, "evemu", os.path.basename(path)))

for kind in ("config", "jpeg", "png", "webp", "gif", "heif", "heifdiff", "evemu"):
    files = os.listdir(os.path.join(OUT, kind))
    print(kind, len(files), "files,", sum(os.path.getsize(os.path.join(OUT, kind, f)) for f in files), "bytes")
