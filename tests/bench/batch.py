"""The batch benchmark of issue 7: 48 PNG photos at 1920x1080 through
gauss:sigma=3 and back to PNG, vkfx against OpenCV in a thread pool
(PEERS_CPU_PY, a script that takes a folder of PNG files and an output
folder, runs imread, GaussianBlur sigma 3 with BORDER_REPLICATE and imwrite at
PNG level 6 in a thread pool, and prints its timings as JSON), in the same run
on the same files; PHOTOS_DIR is images/ of this repository.

    python3 tests/bench/batch.py VKFX PEERS_CPU_PY PHOTOS_DIR WORK_DIR [RUNS]

Prints the wall time of each vkfx run (a new process each time, default
three runs), OpenCV's, files per second, the ratio, and the output sizes."""
import json
import os
import shutil
import subprocess
import sys
import time

vkfx, peers, photos, work = sys.argv[1:5]
runs = int(sys.argv[5]) if len(sys.argv) > 5 else 3
here = os.path.dirname(os.path.abspath(__file__))
shutil.rmtree(work, ignore_errors=True)
src = os.path.join(work, "src")
subprocess.run([sys.executable, os.path.join(here, "make_photos.py"), photos, src, "48",
                "1920x1080"], check=True, stderr=subprocess.DEVNULL)
files = sorted(os.listdir(src))
print(f"inputs: {len(files)} PNG files, {sum(os.path.getsize(os.path.join(src, f)) for f in files)}"
      f" bytes; {os.cpu_count()} cores")

cv_out = os.path.join(work, "opencv")
res = json.loads(subprocess.run([sys.executable, peers, src, cv_out], check=True,
                                capture_output=True, text=True).stdout)
print("OpenCV:", json.dumps(res))
cv = res[f"batch_gauss3_png_{os.cpu_count()}w_s"]

vk_out = os.path.join(work, "vkfx")
times = []
for run in range(runs):
    shutil.rmtree(vk_out, ignore_errors=True)
    os.makedirs(vk_out)
    t = time.perf_counter()
    subprocess.run([vkfx, "-f", "gauss:sigma=3", "-o", os.path.join(vk_out, "{stem}.png"), src],
                   check=True)
    times.append(time.perf_counter() - t)
    print(f"vkfx run {run + 1}: {times[-1]:.3f} s")


def size(d):
    return sum(os.path.getsize(os.path.join(d, f)) for f in os.listdir(d))


assert sorted(os.listdir(vk_out)) == sorted(os.listdir(cv_out)) == files
vk = sorted(times)[len(times) // 2]
sv, sc = size(vk_out), size(cv_out)
print(f"OpenCV, {os.cpu_count()} threads: {cv:.3f} s, {len(files) / cv:.1f} files/s")
print(f"vkfx, median of {runs}: {vk:.3f} s, {len(files) / vk:.1f} files/s: "
      f"{cv / vk:.2f}x OpenCV's throughput")
print(f"output bytes: vkfx {sv}, OpenCV {sc}: vkfx/OpenCV {sv / sc:.4f}")
