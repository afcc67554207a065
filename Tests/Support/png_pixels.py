"""Reading one pixel of a PNG the kiosk sends (`GET /api/v1/screenshot`), with the standard
library only: 8-bit RGB or RGBA, not interlaced, as Vitrine's PNGCodec writes them. Shared by
the console test and the fleet tests; a PNG it cannot read raises ValueError with the reason."""
import struct
import zlib


def png_pixel(data, x=None, y=None):
    """The (r, g, b) of one pixel of an 8-bit RGB or RGBA PNG; without x and y, the centre one."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("the screenshot is not a PNG")
    offset, idat, header = 8, bytearray(), None
    while offset < len(data):
        length, kind = struct.unpack(">I4s", data[offset:offset + 8])
        body = data[offset + 8:offset + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
        offset += 12 + length
    width, height, depth, colour_type, _, _, interlace = header
    channels = {2: 3, 6: 4}.get(colour_type)
    if depth != 8 or channels is None or interlace:
        raise ValueError(f"unexpected PNG format: depth {depth}, colour type {colour_type}, interlace {interlace}")
    if x is None:
        x, y = width // 2, height // 2
    raw = zlib.decompress(bytes(idat))
    stride = width * channels
    previous = bytearray(stride)
    for row in range(y + 1):
        start = row * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            upper_left = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 0xFF
            elif kind == 4:
                p = left + up - upper_left
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - upper_left)
                predictor = left if pa <= pb and pa <= pc else (up if pb <= pc else upper_left)
                line[i] = (line[i] + predictor) & 0xFF
        previous = line
    return tuple(previous[x * channels:x * channels + 3])
