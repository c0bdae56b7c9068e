"""Test images cut from the photos of images/: each photo converted to BMP by
vkfx (one `vkfx run`), then crops of it of any size, wrapping around its
edges, written as 24-bit BMP, so that no imaging module is needed."""
import os
import shlex
import struct
import subprocess

PHOTOS = ["astronaut.png", "camera.png", "chelsea.png", "coffee.png", "motorcycle_left.png",
          "hubble_deep_field.jpg", "rocket.jpg"]


def read_bmp(path):
    """Width, height and the rows top-down (3 bytes a pixel) of a 24-bit BMP."""
    data = open(path, "rb").read()
    offset, = struct.unpack_from("<I", data, 10)
    w, h, _, bits = struct.unpack_from("<iiHH", data, 18)
    if bits != 24:
        raise ValueError(f"{path}: {bits}-bit BMP, expected 24")
    stride = (w * 3 + 3) & ~3
    rows = [data[offset + (abs(h) - 1 - y) * stride:][:w * 3] for y in range(abs(h))]
    return w, abs(h), rows if h > 0 else rows[::-1]


def write_bmp(path, w, h, rows):
    stride = (w * 3 + 3) & ~3
    pad = b"\0" * (stride - w * 3)
    body = b"".join(rows[y] + pad for y in range(h - 1, -1, -1))
    header = struct.pack("<2sIHHI", b"BM", 54 + len(body), 0, 0, 54)
    info = struct.pack("<IiiHHIIiiII", 40, w, h, 1, 24, 0, len(body), 2835, 2835, 0, 0)
    with open(path, "wb") as f:
        f.write(header + info + body)


def crop(photo, x, y, w, h):
    """The w x h region at (x, y) of a photo, wrapping around its edges."""
    pw, ph, rows = photo
    out = []
    for j in range(h):
        row = rows[(y + j) % ph]
        line = b"".join(row[((x + i) % pw) * 3:((x + i) % pw) * 3 + 3] for i in range(min(w, pw)))
        out.append((line * (w // pw + 1))[:w * 3])
    return out


def make(vkfx, images, src, out, count, size, env=None):
    """Writes out/img00.bmp ... (count of them, image i size(i) = (w, h)),
    cut from the photos in images through BMP copies in src; returns their
    paths."""
    os.makedirs(src, exist_ok=True)
    jobs = os.path.join(src, "photos.jobs")
    with open(jobs, "w") as f:
        for i, p in enumerate(PHOTOS):
            f.write(f"{shlex.quote(os.path.join(images, p))} -f box:radius=0 "
                    f"-o {shlex.quote(os.path.join(src, f'{i}.bmp'))}\n")
    subprocess.run([vkfx, "run", jobs], check=True, env=env)
    photos = [read_bmp(os.path.join(src, f"{i}.bmp")) for i in range(len(PHOTOS))]
    paths = []
    for i in range(count):
        w, h = size(i)
        paths.append(os.path.join(out, f"img{i:02d}.bmp"))
        write_bmp(paths[-1], w, h, crop(photos[i % len(photos)], 37 * i, 23 * i, w, h))
    return paths
