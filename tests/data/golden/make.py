"""Makes this folder's inputs of tests/bench/hashes.py from the bundled photos in images/:
a piece of each, of an awkward size (none a power of two, most no multiple of 8 or 16; one
wider than 512 and one on 16-pixel bounds), so that the golden runs keep every decoder,
colour profile and metadata path of the photos at a third of their pixels.

    /usr/bin/python3 tests/data/golden/make.py   (Pillow; jpegtran from libjpeg-turbo-progs)

PNGs are cut with Pillow and keep every chunk of the photo but the pixels (profile, text,
XMP, resolution) in its place; JPEGs are cut by jpegtran without decoding (the same DCT
blocks, every marker kept). The motorcycle and its disparity map are cut alike."""
import io
import os
import struct
import subprocess
import zlib

from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
IMAGES = os.path.join(HERE, "..", "..", "..", "images")
# name: (width, height, left, top); JPEG corners on the 16-pixel blocks of their coding.
CUTS = {
    "astronaut.png": (288, 264, 112, 40),
    "camera.png": (256, 272, 128, 48),
    "chelsea.png": (331, 220, 60, 40),
    "coffee.png": (360, 250, 120, 75),
    "hubble_deep_field.jpg": (600, 437, 192, 208),
    "rocket.jpg": (400, 267, 112, 80),
    "motorcycle_left.png": (449, 300, 200, 150),
    "motorcycle_disparity16.png": (449, 300, 200, 150),
}


def chunks(data):
    pos, out = 8, []
    while pos < len(data):
        n = struct.unpack(">I", data[pos:pos + 4])[0]
        out.append((data[pos + 4:pos + 8], data[pos + 8:pos + 8 + n]))
        pos += 12 + n
    return out


def chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def cut_png(src, dst, w, h, x, y):
    original = open(src, "rb").read()
    buf = io.BytesIO()
    Image.open(src).crop((x, y, x + w, y + h)).save(buf, "PNG")
    cut = chunks(buf.getvalue())
    ihdr = [c for c in cut if c[0] == b"IHDR"]
    idat = [c for c in cut if c[0] == b"IDAT"]
    old = chunks(original)
    first_idat = next(i for i, c in enumerate(old) if c[0] == b"IDAT")
    before = [c for c in old[:first_idat] if c[0] != b"IHDR"]
    after = [c for c in old[first_idat:] if c[0] not in (b"IDAT", b"IEND")]
    with open(dst, "wb") as f:
        f.write(original[:8])
        for kind, body in ihdr + before + idat + after + [(b"IEND", b"")]:
            f.write(chunk(kind, body))


def main():
    for name, (w, h, x, y) in CUTS.items():
        src, dst = os.path.join(IMAGES, name), os.path.join(HERE, name)
        if name.endswith(".jpg"):
            subprocess.run(["jpegtran", "-copy", "all", "-crop", "%dx%d+%d+%d" % (w, h, x, y),
                            "-outfile", dst, src], check=True)
        else:
            cut_png(src, dst, w, h, x, y)


if __name__ == "__main__":
    main()
