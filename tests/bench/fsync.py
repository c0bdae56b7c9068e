"""What flushing each output to disk before its rename costs a batch
(issue 22): N PNG files through gauss:sigma=3 to PNG, with the flush (the
default) and with --no-fsync, the two alternating, RUNS times each, a new
process each time; prints each time, the medians and their ratio.

    python3 tests/bench/fsync.py VKFX INPUT_DIR WORK_DIR [N] [RUNS]

The .png files of INPUT_DIR are copied round-robin to N inputs (default 48,
RUNS 5). On the GPU machine give batch.py's 48 photos (make_photos.py's
output) as INPUT_DIR; images/ of this repository serves anywhere."""
import os
import shutil
import subprocess
import sys
import time

vkfx, photos, work = sys.argv[1:4]
n = int(sys.argv[4]) if len(sys.argv) > 4 else 48
runs = int(sys.argv[5]) if len(sys.argv) > 5 else 5
shutil.rmtree(work, ignore_errors=True)
src = os.path.join(work, "src")
os.makedirs(src)
pngs = sorted(f for f in os.listdir(photos) if f.lower().endswith(".png") and
              os.path.isfile(os.path.join(photos, f)))
for i in range(n):
    shutil.copy(os.path.join(photos, pngs[i % len(pngs)]), os.path.join(src, "in%03d.png" % i))
print(f"inputs: {n} PNG files, {sum(os.path.getsize(os.path.join(src, f)) for f in os.listdir(src))}"
      f" bytes; {os.cpu_count()} cores")

out = os.path.join(work, "out")
times = {"fsync": [], "no-fsync": []}
for run in range(runs):
    for kind in times:
        shutil.rmtree(out, ignore_errors=True)
        extra = ["--no-fsync"] if kind == "no-fsync" else []
        t = time.perf_counter()
        subprocess.run([vkfx, "-f", "gauss:sigma=3", "-o", os.path.join(out, "{stem}.png"), src]
                       + extra, check=True)
        times[kind].append(time.perf_counter() - t)
        print(f"run {run + 1} {kind}: {times[kind][-1]:.3f} s")
med = {k: sorted(v)[len(v) // 2] for k, v in times.items()}
print(f"median of {runs}: with the flush {med['fsync']:.3f} s, --no-fsync {med['no-fsync']:.3f} s:"
      f" the flush costs {(med['fsync'] / med['no-fsync'] - 1) * 100:+.1f}%")
