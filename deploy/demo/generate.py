#!/usr/bin/env python3
"""Generate Vitrine's bundled demo playlist (deploy/demo/images/).

Requires Pillow (``pip install pillow``). Uses DejaVu Sans Bold from Debian's
``fonts-dejavu-core`` package when available, otherwise Pillow's built-in
scalable default font.

The output is deterministic (fixed random seed) and the script can be re-run
at any time; it overwrites the images in place.

Every slide carries its number ("N / 6") in large text so a screenshot of the
kiosk shows which slide is on screen. The set exercises the carousel:

  01-welcome.jpg       1920x1080 16:9 landscape
  02-portrait.jpg      1080x1440 3:4 portrait (letterboxed with "contain")
  03-exif-rotated.jpg  stored 1200x1600, EXIF Orientation 6 -> 1600x1200 upright
  04-wide.jpg          2400x800 3:1 panorama
  05-square.jpg        1200x1200 square
  06-photo-like.jpg    2048x1536 4:3, fine detail, progressive JPEG
  placeholder.jpg      1920x1080 "Image unavailable" fallback
"""

import os
import random
import sys

from PIL import Image, ImageChops, ImageDraw, ImageFilter, ImageFont, ImageOps, ImageStat

HERE = os.path.dirname(os.path.abspath(__file__))
OUT_DIR = os.path.join(HERE, "images")

FONT_PATH = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"
SEED = 20240601
JPEG_QUALITY = 82
MAX_TOTAL_BYTES = 1_500_000  # 1.5 MB budget for the whole playlist

ORIENTATION_TAG = 0x0112


# --------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------

def font(size):
    if os.path.exists(FONT_PATH):
        return ImageFont.truetype(FONT_PATH, size)
    return ImageFont.load_default(size=size)


def lerp_color(c1, c2, t):
    return tuple(round(a + (b - a) * t) for a, b in zip(c1, c2))


def gradient_mask(size, direction):
    """L-mode mask 0..255 going 'vertical' (top->bottom), 'horizontal'
    (left->right) or 'diagonal' (top-left -> bottom-right)."""
    w, h = size
    base = Image.linear_gradient("L")  # 256x256, black at top, white at bottom
    if direction == "vertical":
        return base.resize((w, h), Image.Resampling.BICUBIC)
    horiz = base.transpose(Image.Transpose.ROTATE_90)  # black left, white right
    if direction == "horizontal":
        return horiz.resize((w, h), Image.Resampling.BICUBIC)
    if direction == "diagonal":
        v = base.resize((w, h), Image.Resampling.BICUBIC)
        hz = horiz.resize((w, h), Image.Resampling.BICUBIC)
        return ImageChops.add(v, hz, scale=2.0)
    raise ValueError(direction)


def gradient(size, c1, c2, direction):
    mask = gradient_mask(size, direction)
    return Image.composite(Image.new("RGB", size, c2), Image.new("RGB", size, c1), mask)


def draw_text(img, xy, text, size, fill=(255, 255, 255), shadow=True, anchor="mm"):
    """Large readable text with a soft drop shadow and thin dark outline."""
    f = font(size)
    if shadow:
        layer = Image.new("L", img.size, 0)
        d = ImageDraw.Draw(layer)
        off = max(2, size // 24)
        d.text((xy[0] + off, xy[1] + off), text, font=f, fill=170, anchor=anchor,
               stroke_width=max(1, size // 30))
        layer = layer.filter(ImageFilter.GaussianBlur(max(2, size // 20)))
        img.paste((0, 0, 0), (0, 0), layer)
    d = ImageDraw.Draw(img)
    d.text(xy, text, font=f, fill=fill, anchor=anchor,
           stroke_width=max(1, size // 40), stroke_fill=(0, 0, 0))


def save_jpeg(img, name, progressive=False, exif=None):
    path = os.path.join(OUT_DIR, name)
    kwargs = dict(
        format="JPEG",
        quality=JPEG_QUALITY,
        subsampling=2,          # 4:2:0
        optimize=True,          # optimized Huffman tables (still baseline)
        progressive=progressive,
    )
    if exif is not None:
        kwargs["exif"] = exif
    # No icc_profile is passed, so none is written.
    img.convert("RGB").save(path, **kwargs)
    return path


# --------------------------------------------------------------------------
# slides
# --------------------------------------------------------------------------

def slide_welcome():
    size = (1920, 1080)
    img = gradient(size, (12, 30, 92), (18, 150, 150), "diagonal")
    draw_text(img, (960, 470), "Vitrine", 200)
    draw_text(img, (960, 650), "1 / 6 · 16:9 landscape", 64)
    return img


def slide_portrait():
    w, h = 1080, 1440
    img = gradient((w, h), (255, 176, 64), (200, 36, 40), "vertical")
    overlay = Image.new("RGBA", (w, h), (0, 0, 0, 0))
    d = ImageDraw.Draw(overlay)
    for (cx, cy, r, col) in [
        (250, 260, 200, (255, 236, 150, 150)),
        (840, 520, 260, (255, 120, 60, 140)),
        (300, 1080, 300, (140, 20, 40, 130)),
        (860, 1240, 150, (255, 210, 120, 150)),
    ]:
        d.ellipse((cx - r, cy - r, cx + r, cy + r), fill=col)
    img = Image.alpha_composite(img.convert("RGBA"), overlay).convert("RGB")
    draw_text(img, (w // 2, 640), "2 / 6", 200)
    draw_text(img, (w // 2, 820), "portrait 3:4", 72)
    draw_text(img, (w // 2, 910), "(letterboxed with contain)", 48)
    return img


SUN_CENTER = (1350, 240)  # in upright 1600x1200 coordinates
SUN_RADIUS = 130


def slide_exif_upright():
    """The upright scene a correct viewer must show."""
    w, h = 1600, 1200
    img = gradient((w, h), (70, 140, 230), (185, 225, 250), "vertical")
    d = ImageDraw.Draw(img)
    # sun top-right
    cx, cy = SUN_CENTER
    r = SUN_RADIUS
    d.ellipse((cx - r - 30, cy - r - 30, cx + r + 30, cy + r + 30), fill=(250, 235, 150))
    d.ellipse((cx - r, cy - r, cx + r, cy + r), fill=(255, 220, 0))
    # green hills
    d.ellipse((-400, 780, 900, 1700), fill=(60, 150, 60))
    d.ellipse((600, 820, 2100, 1800), fill=(40, 125, 50))
    d.ellipse((200, 950, 1300, 1600), fill=(85, 175, 70))
    # arrow pointing UP, labelled "UP"
    ax = 260
    d.polygon([(ax, 120), (ax - 110, 290), (ax - 45, 290), (ax - 45, 560),
               (ax + 45, 560), (ax + 45, 290), (ax + 110, 290)],
              fill=(255, 255, 255), outline=(0, 0, 0), width=4)
    draw_text(img, (ax, 640), "UP", 96)
    draw_text(img, (w // 2 + 60, 470), "3 / 6", 180)
    draw_text(img, (w // 2 + 60, 640), "EXIF orientation 6", 64)
    return img


def slide_wide():
    w, h = 2400, 800
    img = gradient((w, h), (90, 30, 150), (245, 110, 180), "horizontal")
    d = ImageDraw.Draw(img)
    n, bar_w = 12, 24
    step = w / n
    for i in range(n):
        x = round(step * (i + 0.5) - bar_w / 2)
        d.rectangle((x, 90, x + bar_w, h - 90), fill=(255, 255, 255))
    # darker band behind the text so it stays readable across the bars
    band = Image.new("L", (w, h), 0)
    ImageDraw.Draw(band).rounded_rectangle((520, 230, w - 520, 570), 40, fill=110)
    img.paste((30, 10, 60), (0, 0), band)
    draw_text(img, (w // 2, 340), "4 / 6", 160)
    draw_text(img, (w // 2, 490), "panorama 3:1", 72)
    return img


def slide_square():
    s = 1200
    img = Image.new("RGB", (s, s), (120, 124, 128))
    d = ImageDraw.Draw(img)
    cell = s // 8
    for row in range(8):
        for col in range(8):
            if (row + col) % 2 == 0:
                d.rectangle((col * cell, row * cell, (col + 1) * cell - 1,
                             (row + 1) * cell - 1), fill=(175, 178, 182))
    r = 380
    d.ellipse((s // 2 - r, s // 2 - r, s // 2 + r, s // 2 + r),
              fill=(30, 140, 220), outline=(255, 255, 255), width=10)
    draw_text(img, (s // 2, s // 2 - 50), "5 / 6", 180)
    draw_text(img, (s // 2, s // 2 + 110), "square", 80)
    return img


def value_noise(size, rng, octaves):
    """Smooth fractal noise (L mode) from bicubic-upscaled random grids."""
    w, h = size
    acc = None
    total = 0.0
    for (cells, weight) in octaves:
        gw, gh = cells, max(2, round(cells * h / w))
        grid = Image.frombytes("L", (gw, gh), bytes(rng.randrange(256) for _ in range(gw * gh)))
        layer = grid.resize((w, h), Image.Resampling.BICUBIC)
        if acc is None:
            acc = layer
            total = weight
        else:
            total += weight
            acc = Image.blend(acc, layer, weight / total)
    return ImageOps.autocontrast(acc, cutoff=1)


def palette_lut(stops):
    """Build a 768-entry RGB palette from (pos 0..255, color) stops."""
    lut = []
    for i in range(256):
        for (p0, c0), (p1, c1) in zip(stops, stops[1:]):
            if p0 <= i <= p1:
                lut.extend(lerp_color(c0, c1, (i - p0) / max(1, p1 - p0)))
                break
    return lut


def slide_photo_like(rng):
    w, h = 2048, 1536
    noise = value_noise((w, h), rng, [(6, 1.0), (14, 0.55), (34, 0.3), (90, 0.15)])
    pal = palette_lut([
        (0, (10, 20, 60)), (70, (20, 90, 130)), (120, (40, 160, 120)),
        (165, (230, 210, 110)), (210, (230, 110, 60)), (255, (120, 30, 60)),
    ])
    p = noise.convert("P")
    p.putpalette(pal)
    img = p.convert("RGB")
    # many small coloured dots for fine detail
    d = ImageDraw.Draw(img)
    for _ in range(2600):
        x, y = rng.randrange(w), rng.randrange(h)
        r = rng.choice((2, 3, 3, 4, 5))
        base = img.getpixel((x, y))
        col = tuple(min(255, c + 70) for c in base)
        d.ellipse((x - r, y - r, x + r, y + r), fill=col)
    # dark band for the label
    band = Image.new("L", (w, h), 0)
    ImageDraw.Draw(band).rounded_rectangle((420, 520, w - 420, 1010), 50, fill=130)
    img.paste((0, 0, 0), (0, 0), band)
    draw_text(img, (w // 2, 690), "6 / 6", 200)
    draw_text(img, (w // 2, 880), "progressive 4:3", 80)
    return img


def slide_placeholder():
    w, h = 1920, 1080
    bg = (0x20, 0x24, 0x28)
    fg = (0xB4, 0xB9, 0xBE)
    img = Image.new("RGB", (w, h), bg)
    d = ImageDraw.Draw(img)
    # picture-frame icon: rectangle outline with a mountain triangle and sun
    fw, fh = 420, 320
    x0, y0 = (w - fw) // 2, 250
    x1, y1 = x0 + fw, y0 + fh
    d.rounded_rectangle((x0, y0, x1, y1), 18, outline=fg, width=16)
    d.polygon([(x0 + 50, y1 - 40), (x0 + 170, y0 + 110), (x0 + 260, y1 - 40)], fill=fg)
    d.polygon([(x0 + 200, y1 - 40), (x0 + 290, y0 + 160), (x1 - 50, y1 - 40)], fill=fg)
    d.ellipse((x1 - 120, y0 + 50, x1 - 60, y0 + 110), fill=fg)
    d.text((w // 2, 720), "Image unavailable", font=font(96), fill=fg, anchor="mm")
    return img


# --------------------------------------------------------------------------
# main
# --------------------------------------------------------------------------

def check_orientation(path):
    raw = Image.open(path)
    orient = raw.getexif().get(ORIENTATION_TAG)
    upright = ImageOps.exif_transpose(raw).convert("RGB")
    # sample the sun's spot, in top-right relative coordinates (x 84%, y 20%)
    fx, fy = SUN_CENTER[0] / 1600, SUN_CENTER[1] / 1200

    def mean_rgb(im):
        cx, cy = round(fx * im.width), round(fy * im.height)
        stat = ImageStat.Stat(im.crop((cx - 60, cy - 60, cx + 60, cy + 60)))
        return tuple(round(v) for v in stat.mean)

    def is_yellow(c):
        return c[0] > 200 and c[1] > 170 and c[2] < 110

    r, g, b = mean_rgb(upright)
    yellow = is_yellow((r, g, b))
    # the same relative spot in the raw, un-rotated pixels must NOT be the sun
    rr, rg, rb = mean_rgb(raw.convert("RGB"))
    raw_yellow = is_yellow((rr, rg, rb))
    ok = (orient == 6 and raw.size == (1200, 1600) and upright.size == (1600, 1200)
          and yellow and not raw_yellow)
    print(f"orientation check: stored size {raw.size}, EXIF 0x0112 = {orient}, "
          f"exif_transpose -> {upright.size}, top-right (sun) mean RGB = ({r}, {g}, {b}) "
          f"{'yellow' if yellow else 'NOT yellow'}; raw (un-transposed) pixels same spot = ({rr}, {rg}, {rb}) "
          f"{'yellow' if raw_yellow else 'not yellow'} -> {'PASS' if ok else 'FAIL'}")
    return ok


def main():
    os.makedirs(OUT_DIR, exist_ok=True)
    rng = random.Random(SEED)
    if not os.path.exists(FONT_PATH):
        print(f"warning: {FONT_PATH} missing (apt-get install fonts-dejavu-core); "
              "using Pillow default font", file=sys.stderr)

    files = []
    files.append(save_jpeg(slide_welcome(), "01-welcome.jpg"))
    files.append(save_jpeg(slide_portrait(), "02-portrait.jpg"))

    exif = Image.Exif()
    exif[ORIENTATION_TAG] = 6
    stored = slide_exif_upright().transpose(Image.Transpose.ROTATE_90)  # 90° CCW
    files.append(save_jpeg(stored, "03-exif-rotated.jpg", exif=exif.tobytes()))

    files.append(save_jpeg(slide_wide(), "04-wide.jpg"))
    files.append(save_jpeg(slide_square(), "05-square.jpg"))
    files.append(save_jpeg(slide_photo_like(rng), "06-photo-like.jpg", progressive=True))
    files.append(save_jpeg(slide_placeholder(), "placeholder.jpg"))

    total = 0
    for path in files:
        with Image.open(path) as im:
            n = os.path.getsize(path)
            total += n
            prog = " progressive" if im.info.get("progressive") else ""
            print(f"{os.path.basename(path):22s} {im.size[0]:5d}x{im.size[1]:<5d} "
                  f"{n:8d} bytes{prog}")
    print(f"{'total':22s} {'':11s} {total:8d} bytes")

    ok = check_orientation(files[2])
    if total > MAX_TOTAL_BYTES:
        print(f"ERROR: total {total} bytes exceeds budget {MAX_TOTAL_BYTES}", file=sys.stderr)
        ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
