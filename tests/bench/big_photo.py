"""One 24-megapixel photo to PNG end to end (issue 23): a 6000x4000 JPEG
(quality 90, made from a photo of images/ resized by OpenCV) through
box:radius=0 to PNG, as whole processes, for each build given; one build's
--timings once; the output sizes; the decoded pixels of every build's PNG
compared with the first's (read back with OpenCV's libpng); and OpenCV's own
imread of the JPEG for scale.

    python3 tests/bench/big_photo.py PHOTOS_DIR WORK_DIR RUNS VKFX [VKFX...]

Prints the median wall time of RUNS runs of each build (interleaved, so
that a busy machine disturbs them alike)."""
import os
import shutil
import subprocess
import sys
import time

import cv2

photos, work, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
builds = sys.argv[4:]
W, H = 6000, 4000
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
src = cv2.imread(os.path.join(photos, "motorcycle_left.png"), cv2.IMREAD_COLOR)
big = cv2.resize(src, (W, H), interpolation=cv2.INTER_CUBIC)
jpg = os.path.join(work, "big.jpg")
cv2.imwrite(jpg, big, [cv2.IMWRITE_JPEG_QUALITY, 90])
print(f"input: {W}x{H} JPEG quality 90, {os.path.getsize(jpg)} bytes; {os.cpu_count()} cores")

t = time.perf_counter()
for _ in range(3):
    cv2.imread(jpg, cv2.IMREAD_COLOR)
print(f"OpenCV imread: {(time.perf_counter() - t) / 3:.3f} s")

times = {b: [] for b in builds}
for run in range(runs):
    for i, b in enumerate(builds):
        out = os.path.join(work, f"out{i}.png")
        if os.path.exists(out):
            os.unlink(out)
        t = time.perf_counter()
        subprocess.run([b, jpg, "-f", "box:radius=0", "-o", out], check=True)
        times[b].append(time.perf_counter() - t)
ref = None
for i, b in enumerate(builds):
    out = os.path.join(work, f"out{i}.png")
    px = cv2.imread(out, cv2.IMREAD_UNCHANGED)
    same = "" if ref is None else f", pixels {'identical to' if (px == ref).all() else 'DIFFERENT from'} the first build's"
    ref = px if ref is None else ref
    med = sorted(times[b])[len(times[b]) // 2]
    print(f"{b}: median {med:.3f} s of {' '.join(f'{x:.3f}' for x in times[b])}; "
          f"{os.path.getsize(out)} bytes{same}")
print(f"--timings of {builds[-1]}:")
subprocess.run([builds[-1], jpg, "-f", "box:radius=0", "-o", os.path.join(work, "t.png"),
                "--timings"], check=True)
