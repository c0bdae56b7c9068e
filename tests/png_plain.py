"""Reads non-interlaced 8/16-bit gray and RGB PNG files in plain Python (zlib and
struct only), for scripts that must not depend on an imaging package: the HTTP test of
vkfx preview and tests/bench/preview.py."""
import struct
import zlib


def read_png(path):
    """(width, height, samples per pixel, bytes per sample, rows) of a non-interlaced
    8/16-bit gray or RGB PNG."""
    data = open(path, 'rb').read()
    i, idat = 8, b''
    while i < len(data):
        n, kind = struct.unpack('>I4s', data[i:i + 8])
        body = data[i + 8:i + 8 + n]
        if kind == b'IHDR':
            w, h, depth, colour, _, _, interlace = struct.unpack('>IIBBBBB', body)
            assert colour in (0, 2) and depth in (8, 16) and not interlace, path
        elif kind == b'IDAT':
            idat += body
        i += 12 + n
    spp, bps = (1 if colour == 0 else 3), depth // 8
    bpp, stride = spp * bps, w * spp * bps
    raw, rows, prev = zlib.decompress(idat), [], bytearray(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for k in range(stride):
            a = line[k - bpp] if k >= bpp else 0
            b, c = prev[k], prev[k - bpp] if k >= bpp else 0
            if f == 1:
                line[k] = (line[k] + a) & 255
            elif f == 2:
                line[k] = (line[k] + b) & 255
            elif f == 3:
                line[k] = (line[k] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[k] = (line[k] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, spp, bps, rows
