"""The JPEG batch benchmark of issue 23: 48 and 480 JPEG photos at 1920x1080,
quality 90, through gauss:sigma=3 and back to JPEG quality 90, vkfx against
OpenCV (imread, GaussianBlur sigma 3 with BORDER_REPLICATE, imwrite quality 90
in a pool of one thread per core) in the same run on the same files; the 480
are ten rounds of the 48 under other names. Also vkfx's start-up: one 16x16
PNG through box:radius=0.

    python3 tests/bench/jpeg_batch.py VKFX PHOTOS_DIR WORK_DIR [RUNS] [ROUNDS]

(ROUNDS, default 10, makes the larger set: 48 x ROUNDS files.)

PHOTOS_DIR is images/ of this repository. The inputs are the frames of
make_photos.py (OpenCV), written as JPEG quality 90 by vkfx (libjpeg-turbo,
4:4:4). Without OpenCV (a machine without python3-opencv) the inputs are one
synthetic frame under 48 names and only vkfx is timed: a check that the
script runs, not a measurement. Prints the wall time of each run (a new
process each time, default three runs; the median counts), files per second
and the ratios the issue asks about."""
import os
import shutil
import subprocess
import sys
import time
import zlib

vkfx, photos, work = (os.path.abspath(a) for a in sys.argv[1:4])
runs = int(sys.argv[4]) if len(sys.argv) > 4 else 3
here = os.path.dirname(os.path.abspath(__file__))
cores = os.cpu_count()
W, H, N = 1920, 1080, 48
ROUNDS = int(sys.argv[5]) if len(sys.argv) > 5 else 10

try:
    import cv2
except ImportError:
    cv2 = None


def png_bytes(w, h, rows):
    """An 8-bit RGB PNG of rows (each a filter byte and 3w samples)."""
    def chunk(kind, data):
        return (len(data).to_bytes(4, "big") + kind + data +
                zlib.crc32(kind + data).to_bytes(4, "big"))

    ihdr = w.to_bytes(4, "big") + h.to_bytes(4, "big") + bytes((8, 2, 0, 0, 0))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) +
            chunk(b"IDAT", zlib.compress(b"".join(rows), 6)) + chunk(b"IEND", b""))


def synthetic_png(path):
    """A smooth 1920x1080 RGB frame with a little texture."""
    rows = []
    for y in range(H):
        row = bytearray(1 + 3 * W)
        for x in range(0, W):
            v = (x * 255 // W + (x * y >> 9)) & 255
            row[1 + 3 * x:4 + 3 * x] = bytes((v, (y * 255 // H) ^ (x & 15), (v + y) & 255))
        rows.append(bytes(row))
    with open(path, "wb") as f:
        f.write(png_bytes(W, H, rows))


def median(xs):
    return sorted(xs)[len(xs) // 2]


shutil.rmtree(work, ignore_errors=True)
pngs = os.path.join(work, "png")
os.makedirs(pngs)
if cv2:
    subprocess.run([sys.executable, os.path.join(here, "make_photos.py"), photos, pngs, str(N),
                    f"{W}x{H}"], check=True, stderr=subprocess.DEVNULL)
else:
    print("OpenCV is not installed: one synthetic frame under 48 names, vkfx alone")
    synthetic_png(os.path.join(pngs, "photo00.png"))
    for i in range(1, N):
        shutil.copy(os.path.join(pngs, "photo00.png"), os.path.join(pngs, "photo%02d.png" % i))
set48 = os.path.join(work, "jpg48")
os.makedirs(set48)
subprocess.run([vkfx, "-f", "box:radius=0", "-q", "90", "-o", os.path.join(set48, "{stem}.jpg"),
                pngs], check=True)
set480 = os.path.join(work, "jpg_rounds")
os.makedirs(set480)
for r in range(ROUNDS):
    for f in sorted(os.listdir(set48)):
        os.link(os.path.join(set48, f), os.path.join(set480, "r%d_%s" % (r, f)))
tiny_src = os.path.join(work, "tiny.png")
with open(tiny_src, "wb") as f:
    f.write(png_bytes(16, 16, [bytes(1 + 3 * 16)] * 16))
print(f"inputs: {N} and {N * ROUNDS} JPEG files at {W}x{H} quality 90, "
      f"{sum(os.path.getsize(os.path.join(set48, f)) for f in os.listdir(set48))} bytes per "
      f"{N}; {cores} cores")


def opencv_run(src, out):
    from multiprocessing.pool import ThreadPool

    os.makedirs(out)

    def one(name):
        im = cv2.imread(os.path.join(src, name), cv2.IMREAD_COLOR)
        im = cv2.GaussianBlur(im, (0, 0), 3, borderType=cv2.BORDER_REPLICATE)
        cv2.imwrite(os.path.join(out, name), im, [cv2.IMWRITE_JPEG_QUALITY, 90])

    names = sorted(os.listdir(src))
    t = time.perf_counter()
    with ThreadPool(cores) as pool:
        pool.map(one, names)
    return time.perf_counter() - t


def vkfx_run(args, out):
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    t = time.perf_counter()
    subprocess.run([vkfx] + args, check=True)
    return time.perf_counter() - t


startup = median([vkfx_run(["-f", "box:radius=0", "-o", os.path.join(work, "t", "t.png"),
                            tiny_src], os.path.join(work, "t")) for _ in range(runs)])
print(f"vkfx start-up (one 16x16 PNG), median of {runs}: {startup:.3f} s")
for src in (set48, set480):
    n = len(os.listdir(src))
    out = os.path.join(work, "out_vkfx")
    times = []
    for run in range(runs):
        times.append(vkfx_run(["-f", "gauss:sigma=3", "-q", "90", "-o",
                               os.path.join(out, "{stem}.jpg"), src], out))
        print(f"{n} files, vkfx run {run + 1}: {times[-1]:.3f} s")
    vk = median(times)
    assert len(os.listdir(out)) == n
    line = f"{n} files: vkfx {vk:.3f} s ({n / vk:.1f} files/s)"
    if cv2:
        cvt = []
        for run in range(runs):
            cv_out = os.path.join(work, "out_opencv")
            shutil.rmtree(cv_out, ignore_errors=True)
            cvt.append(opencv_run(src, cv_out))
            print(f"{n} files, OpenCV run {run + 1}: {cvt[-1]:.3f} s")
        cv = median(cvt)
        line += (f", OpenCV {cores} threads {cv:.3f} s ({n / cv:.1f} files/s): "
                 f"vkfx {cv / vk:.2f}x OpenCV's throughput; vkfx minus start-up "
                 f"{vk - startup:.3f} s vs OpenCV {cv:.3f} s")
    print(line)
