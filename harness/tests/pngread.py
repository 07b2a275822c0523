"""Just enough PNG decoding (8-bit RGB/RGBA, not interlaced) to look at
a browser screenshot with the standard library."""

import struct
import zlib


class Image:
    def __init__(self, width, height, channels, rows):
        self.width, self.height = width, height
        self.channels = channels
        self.rows = rows            # list of bytearray, one per scanline

    def pixel(self, x, y):
        row, at = self.rows[y], x * self.channels
        return tuple(row[at:at + 3])


def _paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def _unfilter(kind, line, prev, bpp):
    out = bytearray(line)
    if kind == 0:
        return out
    for i in range(len(out)):
        a = out[i - bpp] if i >= bpp else 0
        b = prev[i]
        if kind == 1:
            out[i] = (out[i] + a) & 255
        elif kind == 2:
            out[i] = (out[i] + b) & 255
        elif kind == 3:
            out[i] = (out[i] + ((a + b) >> 1)) & 255
        elif kind == 4:
            c = prev[i - bpp] if i >= bpp else 0
            out[i] = (out[i] + _paeth(a, b, c)) & 255
        else:
            raise ValueError("PNG filter type %d" % kind)
    return out


def read(path):
    with open(path, "rb") as stream:
        data = stream.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("%s is not a PNG" % path)
    at, idat, header = 8, [], None
    while at < len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        body = data[at + 8:at + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        at += 12 + length
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or colour not in (2, 6) or interlace:
        raise ValueError("unsupported PNG: depth %d colour %d interlace %d"
                         % (depth, colour, interlace))
    channels = 3 if colour == 2 else 4
    raw = zlib.decompress(b"".join(idat))
    stride = width * channels
    rows, prev = [], bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        prev = _unfilter(raw[start], raw[start + 1:start + 1 + stride],
                         prev, channels)
        rows.append(prev)
    return Image(width, height, channels, rows)
