"""The thumbnail benchmark of issue 29: 480 JPEG photos of 24 megapixels (6000x4000, quality 90)
to 1024-wide JPEG thumbnails (quality 90), vkfx in one batch command (resize:width=1024,
lanczos3 in linear light; each photo decoded at full size, on a GPU by the device; set
VKFX_JPEG_CODEC=cpu for libjpeg-turbo's shrink-on-load) against OpenCV in a pool of 16 threads, once with
IMREAD_REDUCED_COLOR_4 (OpenCV's shrink-on-load) and once with full decodes, both resizing with
INTER_AREA, and once more with IMREAD_REDUCED_COLOR_2, the depth vkfx decodes these photos to;
all in the same run on the same files.

    python3 tests/bench/thumbs.py VKFX PHOTOS_DIR WORK_DIR [RUNS] [ROUNDS] [WxH] [DISTINCT]

PHOTOS_DIR is images/ of this repository. The DISTINCT (default 48) photos are made by vkfx
itself from the photos there: each resized to cover the frame (WxH, default 6000x4000) and
cropped, at a different offset and mirrored or turned for every further round over them;
ROUNDS (default 10) copies under other names make the set (480 files). Each case runs RUNS
times (default 3; the median counts). Without OpenCV (python3-opencv) only vkfx is timed.
Prints seconds, files per second and the ratios the issue asks for: vkfx at least OpenCV's
throughput with shrink-on-load, and at least 3x its throughput with full decodes."""
import glob
import os
import shutil
import statistics
import struct
import subprocess
import sys
import time

vkfx, photos, work = (os.path.abspath(a) for a in sys.argv[1:4])
runs = int(sys.argv[4]) if len(sys.argv) > 4 else 3
rounds = int(sys.argv[5]) if len(sys.argv) > 5 else 10
W, H = (int(v) for v in (sys.argv[6] if len(sys.argv) > 6 else "6000x4000").split("x"))
distinct = int(sys.argv[7]) if len(sys.argv) > 7 else 48
THUMB, QUALITY, THREADS = 1024, 90, 16
# The variants of every further round over the photos: mirrored, turned, flipped.
VARIANTS = ["", ",flip:axis=h", ",rotate:angle=180", ",flip:axis=v"]


def size_of(path):
    """Width and height from a PNG's IHDR or a JPEG's frame header."""
    data = open(path, "rb").read()
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return struct.unpack(">II", data[16:24])
    i = 2
    while i + 9 < len(data):
        marker, length = data[i + 1], struct.unpack(">H", data[i + 2:i + 4])[0]
        if marker in (0xC0, 0xC1, 0xC2):
            h, w = struct.unpack(">HH", data[i + 5:i + 9])
            return w, h
        i += 2 + length
    raise ValueError("%s: no size found" % path)


def make_photos():
    src = [p for p in sorted(glob.glob(os.path.join(photos, "*")))
           if p.lower().endswith((".png", ".jpg")) and "disparity" not in p and "preview" not in p]
    one = os.path.join(work, "distinct")
    shutil.rmtree(one, ignore_errors=True)
    os.makedirs(one)
    for i in range(distinct):
        path = src[i % len(src)]
        turn = i // len(src)
        w, h = size_of(path)
        scale = max(W / w, H / h) * (1 + 0.1 * (turn % 3))
        rw, rh = max(W, round(w * scale)), max(H, round(h * scale))
        x, y = (rw - W) * (turn % 3) // 2, (rh - H) * ((turn + 1) % 3) // 2
        chain = "resize:width=%d:height=%d,crop:x=%d:y=%d:width=%d:height=%d%s" % (
            rw, rh, x, y, W, H, VARIANTS[turn % len(VARIANTS)])
        subprocess.run([vkfx, path, "-f", chain, "-o", os.path.join(one, "p%02d.jpg" % i),
                        "-q", str(QUALITY)], check=True)
    inputs = os.path.join(work, "in")
    shutil.rmtree(inputs, ignore_errors=True)
    os.makedirs(inputs)
    for r in range(rounds):
        for i in range(distinct):
            os.link(os.path.join(one, "p%02d.jpg" % i), os.path.join(inputs, "r%d-p%02d.jpg" % (r, i)))
    return sorted(glob.glob(os.path.join(inputs, "*.jpg")))


def timed(fn):
    times = []
    for _ in range(runs):
        out = os.path.join(work, "out")
        shutil.rmtree(out, ignore_errors=True)
        os.makedirs(out)
        t = time.perf_counter()
        fn(out)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def run_vkfx(out):
    subprocess.run([vkfx, "-f", "resize:width=%d" % THUMB, "-q", str(QUALITY), "-o",
                    os.path.join(out, "{stem}.jpg"), os.path.join(work, "in")], check=True)


def opencv_case(files, flag):
    import cv2
    from concurrent.futures import ThreadPoolExecutor

    def one(path, out):
        im = cv2.imread(path, flag)
        h = round(im.shape[0] * THUMB / im.shape[1])
        im = cv2.resize(im, (THUMB, h), interpolation=cv2.INTER_AREA)
        cv2.imwrite(os.path.join(out, os.path.basename(path)), im,
                    [cv2.IMWRITE_JPEG_QUALITY, QUALITY])

    def run(out):
        with ThreadPoolExecutor(THREADS) as pool:
            list(pool.map(lambda p: one(p, out), files))
    return run


def main():
    os.makedirs(work, exist_ok=True)
    files = make_photos()
    n = len(files)
    print("%d JPEG photos of %dx%d (%d distinct), quality %d, to %d-wide thumbnails"
          % (n, W, H, distinct, QUALITY, THUMB))
    results = {"vkfx": timed(run_vkfx)}
    try:
        import cv2
        cv2.setNumThreads(1)
        results["opencv shrink-on-load"] = timed(opencv_case(files, cv2.IMREAD_REDUCED_COLOR_4))
        results["opencv full decode"] = timed(opencv_case(files, cv2.IMREAD_COLOR))
        # The depth vkfx decodes these photos to (1/2: within 2 codes of the full decode).
        results["opencv at 1/2"] = timed(opencv_case(files, cv2.IMREAD_REDUCED_COLOR_2))
    except ImportError:
        print("(no OpenCV here: vkfx alone, no ratios)")
    for name, s in results.items():
        print("%-24s %8.3f s %9.1f files/s" % (name, s, n / s))
    if len(results) == 4:
        v = n / results["vkfx"]
        print("vkfx / opencv shrink-on-load: %.2fx (target at least 1)"
              % (v / (n / results["opencv shrink-on-load"])))
        print("vkfx / opencv full decode:    %.2fx (target at least 3)"
              % (v / (n / results["opencv full decode"])))
        print("vkfx / opencv at 1/2:         %.2fx (both decoding to the same depth)"
              % (v / (n / results["opencv at 1/2"])))


main()
