"""Schemathesis hooks for the Vitrine API (loaded through SCHEMATHESIS_HOOKS).

`POST /api/v1/assets` takes the raw bytes of a JPEG, PNG, WebP, GIF or HEIF picture. JSON Schema
can say only "a string of bytes" (`format: binary`), so Schemathesis would send
random bytes as *valid* data, which the kiosk rightly refuses (415 or 422, both
documented). Here valid data for those media types is what the spec's prose
says it is: whole pictures, generated so that each is new bytes.
"""
import os
import struct
import zlib

import schemathesis
from hypothesis import strategies as st

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
JPEGS = [open(os.path.join(ROOT, "Tests/VM/content", name), "rb").read() for name in ("red.jpg", "blue.jpg")]
# An extended-format WebP (RIFF, VP8X, ALPH, VP8), which may carry chunks a decoder skips.
WEBP = open(os.path.join(ROOT, "Tests/VitrineWebPTests/Fixtures/alpha-lossy.webp"), "rb").read()
# A GIF89a with a Graphic Control Extension (a transparent index), which may carry comments a decoder skips.
GIF = open(os.path.join(ROOT, "Tests/VitrineGIFTests/Fixtures/transparent.gif"), "rb").read()
# A HEIC (ftyp heic, a grid over one HEVC tile, turned by irot), after whose boxes a `free` box may follow.
HEIF = open(os.path.join(ROOT, "Tests/VitrineHEIFTests/Fixtures/irot-exif-6.heic"), "rb").read()
AVIF = open(os.path.join(ROOT, "Tests/VitrineHEIFTests/Fixtures/plain.avif"), "rb").read()


def _chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


@st.composite
def png_pictures(draw):
    """A PNG of 1 to 40 pixels a side, 8-bit RGB or RGBA, with random pixels."""
    width = draw(st.integers(1, 40))
    height = draw(st.integers(1, 40))
    alpha = draw(st.booleans())
    channels = 4 if alpha else 3
    row = width * channels
    pixels = draw(st.binary(min_size=row * height, max_size=row * height))
    raw = b"".join(b"\x00" + pixels[y * row:(y + 1) * row] for y in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 6 if alpha else 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header) + _chunk(b"IDAT", zlib.compress(raw)) + _chunk(b"IEND", b"")


@st.composite
def jpeg_pictures(draw):
    """One of the fixture JPEGs with a random comment (COM) segment after SOI: new bytes, the same picture."""
    picture = draw(st.sampled_from(JPEGS))
    comment = draw(st.binary(min_size=0, max_size=200))
    return picture[:2] + b"\xff\xfe" + struct.pack(">H", len(comment) + 2) + comment + picture[2:]


@st.composite
def webp_pictures(draw):
    """The fixture WebP with an unknown chunk of random bytes after its image data: new bytes, the same picture."""
    payload = draw(st.binary(min_size=0, max_size=200))
    chunk = b"ZZZZ" + struct.pack("<I", len(payload)) + payload + (b"\x00" if len(payload) % 2 else b"")
    body = WEBP[12:] + chunk
    return b"RIFF" + struct.pack("<I", 4 + len(body)) + b"WEBP" + body


@st.composite
def gif_pictures(draw):
    """The fixture GIF with a comment extension of random bytes before its trailer: new bytes, the same picture."""
    text = draw(st.binary(min_size=1, max_size=200))
    assert GIF.endswith(b"\x3b")
    return GIF[:-1] + b"\x21\xfe" + bytes([len(text)]) + text + b"\x00\x3b"


def _with_free_box(picture):
    @st.composite
    def pictures(draw):
        """The fixture with a top-level `free` box of random bytes after its last box: new bytes, the same picture."""
        payload = draw(st.binary(min_size=0, max_size=200))
        return picture + struct.pack(">I", 8 + len(payload)) + b"free" + payload
    return pictures()


def heif_pictures():
    return _with_free_box(HEIF)


def avif_pictures():
    return _with_free_box(AVIF)


schemathesis.openapi.media_type("image/png", png_pictures())
schemathesis.openapi.media_type("image/jpeg", jpeg_pictures())
schemathesis.openapi.media_type("image/webp", webp_pictures())
schemathesis.openapi.media_type("image/gif", gif_pictures())
schemathesis.openapi.media_type("image/heif", heif_pictures())
schemathesis.openapi.media_type("image/heic", heif_pictures())
schemathesis.openapi.media_type("image/avif", avif_pictures())
schemathesis.openapi.media_type("application/octet-stream",
                                st.one_of(png_pictures(), jpeg_pictures(), webp_pictures(), gif_pictures(), heif_pictures(), avif_pictures()))


# A pushed configuration may name only assets that are on the kiosk
# (`asset:<id>`), and a tap action's `goto` only a slide of the same playlist;
# JSON Schema can say neither. Before each PUT /api/v1/config, every
# `asset:<64 hex>` reference is pointed at a picture uploaded for it, and every
# in-range `goto` past the playlist's end at a slide it has. Values outside what
# the schema allows are left alone, so negative cases stay negative.
import json
import re
import urllib.request

ASSET_REF = re.compile(r"^asset:[0-9a-f]{64}$")


def _upload_fresh_asset():
    """A new picture (new bytes every time, so no other request can have deleted it): its ref.
    One pixel, so that no `decode.maxPixels` a fuzzed configuration set can refuse it."""
    text = b"fuzz\x00" + os.urandom(8).hex().encode()
    picture = (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)) + _chunk(b"tEXt", text)
               + _chunk(b"IDAT", zlib.compress(b"\x00" + os.urandom(3))) + _chunk(b"IEND", b""))
    request = urllib.request.Request(os.environ["VITRINE_URL"] + "/api/v1/assets?name=fuzz.jpg", data=picture, method="POST",
                                     headers={"Authorization": "Bearer " + os.environ["VITRINE_TOKEN"]})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())["ref"]


def _point_references(configuration):
    ref = None
    slides = configuration.get("slides")
    slides = slides if isinstance(slides, list) else []

    def asset(value):
        nonlocal ref
        if isinstance(value, str) and ASSET_REF.match(value):
            ref = ref or _upload_fresh_asset()
            return ref
        return value

    if "placeholder" in configuration:
        configuration["placeholder"] = asset(configuration["placeholder"])
    for index, slide in enumerate(slides):
        if isinstance(slide, dict):
            if "path" in slide:
                slide["path"] = asset(slide["path"])
            action = slide.get("action")
            if isinstance(action, dict) and type(action.get("goto")) is int and len(slides) <= action["goto"] <= 1_000_000:
                action["goto"] = action["goto"] % len(slides)
        else:
            slides[index] = asset(slide)


# A schedule's entries name its playlists, two entries of one kind and priority
# must not overlap, and its dates must exist (no 2026-02-30): JSON Schema can
# say none of that. A schedule in a *valid* generated configuration is replaced
# by a small valid one; an invalid one is left alone, so negative cases stay
# negative. Schedules themselves are tested in VitrineConfigTests. (The schema
# cannot say either that `slides` must be empty beside a schedule.)
VALID_SCHEDULE = {"timezone": "UTC", "playlists": {"day": []}, "entries": [], "otherwise": "day"}


def _valid_schedule(configuration, case):
    meta = case.meta
    if isinstance(configuration.get("schedule"), dict) and meta is not None and meta.generation.mode.is_positive:
        configuration["schedule"] = json.loads(json.dumps(VALID_SCHEDULE))
        # With a schedule its playlists say what shows: the top-level slides must be empty.
        configuration["slides"] = []


# `sync.epoch` must be a real date and time (no 2026-02-30, no 25:00), which a
# pattern cannot say: in a *valid* generated configuration it is replaced by
# one; an invalid one is left alone. Epochs are tested in VitrineConfigTests.
def _valid_sync(configuration, case):
    meta = case.meta
    sync = configuration.get("sync")
    if isinstance(sync, dict) and "epoch" in sync and meta is not None and meta.generation.mode.is_positive:
        sync["epoch"] = "2026-01-01T00:00:00Z"


# A slide meant only for nobody (`attractOnly`) needs attract mode, and a
# playlist needs one slide that is not one: JSON Schema can say neither. In a
# *valid* generated configuration with such a slide, attract mode is switched
# on (home 0, which every playlist has) and the last slide left for visitors.
# Invalid cases are left alone. The rule is tested in VitrineConfigTests.
def _valid_attract_only(configuration, case):
    meta = case.meta
    slides = configuration.get("slides")
    if meta is None or not meta.generation.mode.is_positive or not isinstance(slides, list):
        return
    marked = [slide for slide in slides if isinstance(slide, dict) and slide.get("attractOnly") is True]
    if not marked:
        return
    touch = configuration.get("touch")
    if not isinstance(touch, dict):
        touch = configuration["touch"] = {}
    touch["attract"] = {"after": "30s", "home": 0}
    if len(marked) == len(slides):
        slides[-1]["attractOnly"] = False


# A Ken Burns rectangle `[x, y, w, h]` must lie inside the framed picture, have
# the output's shape (w = h) and zoom at most 2x (w >= 0.5): JSON Schema can say
# only "four numbers from 0 to 1". In a *valid* generated configuration or
# override, each `from` and `to` is made such a rectangle from its own numbers
# (the larger side, at least 0.5; the corner moved in as far as it must).
# Invalid cases are left alone. The rules are tested in VitrineConfigTests.
def _valid_rectangle(value):
    if not (isinstance(value, list) and len(value) == 4 and all(type(v) in (int, float) for v in value)):
        return value
    x, y, w, h = value
    side = min(1.0, max(0.5, w, h))
    return [min(x, 1.0 - side), min(y, 1.0 - side), side, side]


def _valid_ken_burns(body, case):
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive or not isinstance(body, dict):
        return
    slides = body.get("slides")
    holders = [body] + [slide for slide in (slides if isinstance(slides, list) else []) if isinstance(slide, dict)]
    for holder in holders:
        motion = holder.get("kenBurns")
        if isinstance(motion, dict):
            for key in ("from", "to"):
                if key in motion:
                    motion[key] = _valid_rectangle(motion[key])


# An override must show at once, so its pictures must be on the kiosk and its
# end ahead of the kiosk's clock (at most 7 days): JSON Schema can say neither,
# nor that `duration`/`until` in the query go with a picture body only. In a
# *valid* generated request, asset references point at uploaded pictures,
# absolute paths at a picture in the kiosk's content directory (the kiosk runs
# here and refuses local files outside it), `until`
# an hour ahead, and the query's end is kept for a picture body only (one is
# added when it has none). Invalid cases are left alone.
PICTURE_ON_KIOSK = os.path.join(os.environ.get("VITRINE_CONTENT", os.path.join(ROOT, "Tests/VM/content")), "red.jpg")


def _valid_override(case):
    import datetime
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive:
        return
    in_an_hour = (datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    query = case.query if isinstance(case.query, dict) else {}
    if isinstance(case.body, dict):
        for key in ("duration", "until", "name"):
            query.pop(key, None)
        _point_references(case.body)
        slides = case.body.get("slides")
        for index, slide in enumerate(slides if isinstance(slides, list) else []):
            if isinstance(slide, str) and slide.startswith("/"):
                slides[index] = PICTURE_ON_KIOSK
            elif isinstance(slide, dict) and isinstance(slide.get("path"), str) and slide["path"].startswith("/"):
                slide["path"] = PICTURE_ON_KIOSK
        if "until" in case.body:
            case.body["until"] = in_an_hour
    elif isinstance(case.body, (bytes, bytearray)):
        if "until" in query and "duration" not in query:
            query["until"] = in_an_hour
        else:
            query.pop("until", None)
            query.setdefault("duration", "5m")
    case.query = query


# `from` and `until` on a pushed slide belong to one output's own playlist
# (`OutputSlides`, sent with `?output=NAME`); for the whole kiosk's
# configuration they are unknown keys (422). JSON Schema cannot tie a body's
# shape to a query parameter, so in a *valid* generated push without `output`
# they are taken off the slides. Invalid cases are left alone.
def _valid_output_slides(configuration, case):
    meta = case.meta
    query = case.query if isinstance(case.query, dict) else {}
    if meta is None or not meta.generation.mode.is_positive or "output" in query:
        return
    slides = configuration.get("slides")
    for slide in slides if isinstance(slides, list) else []:
        if isinstance(slide, dict):
            slide.pop("from", None)
            slide.pop("until", None)


# `loop: true` makes a video slide loop for its `duration`, so it needs one
# (OpenAPI 3.0 has no `if`/`then` to say so). In a *valid* generated body, a
# looping slide without a duration gets one. Invalid cases are left alone.
def _valid_video_loop(body, case):
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive or not isinstance(body, dict):
        return
    slides = body.get("slides")
    for slide in slides if isinstance(slides, list) else []:
        if isinstance(slide, dict) and slide.get("loop") is True and "duration" not in slide:
            slide["duration"] = "30s"


@schemathesis.hook
def before_call(ctx, case, kwargs):
    _relabel_mixed_cases(case)
    if case.operation.method.upper() == "PUT" and case.operation.path == "/api/v1/config" and isinstance(case.body, dict):
        _valid_output_slides(case.body, case)
        _valid_video_loop(case.body, case)
        _point_references(case.body)
        _valid_schedule(case.body, case)
        _valid_sync(case.body, case)
        _valid_attract_only(case.body, case)
        _valid_ken_burns(case.body, case)
    if case.operation.method.upper() == "POST" and case.operation.path == "/api/v1/override":
        _valid_override(case)
        _valid_video_loop(case.body, case)
        _valid_ken_burns(case.body, case)


def _relabel_mixed_cases(case):
    """Schemathesis 4.32.5's coverage phase can label a case positive while one of
    its components was generated negative (seen: `If-Match: 0` against the header's
    pattern, sent with a valid body, labelled positive). Such a request is not
    schema-valid as a whole, so it is judged as the negative case it is
    (`negative_data_rejection` still checks that the value really breaks the schema)."""
    from schemathesis.generation import GenerationMode

    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive:
        return
    if any(component.mode.is_negative for component in meta.components.values()):
        meta.generation.mode = GenerationMode.NEGATIVE
