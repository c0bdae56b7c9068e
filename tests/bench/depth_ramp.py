"""A diagonal ramp of every depth from 0 to 1 as an 8-bit gray PNG, for timing the depth filters
on an image of any size:

    python3 tests/bench/depth_ramp.py WIDTH HEIGHT OUT.png"""
import struct
import sys
import zlib

w, h, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
rows = b"".join(b"\0" + bytes((255 * (x + y) // max(w + h - 2, 1)) for x in range(w)) for y in range(h))


def chunk(t, d):
    return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)


with open(path, "wb") as f:
    f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 0, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows, 1)) + chunk(b"IEND", b""))
