"""Many small jobs: 20 jobs (the photos of images/ through four different
chains) as 20 separate vkfx processes, one after the other, against one
`vkfx run` of a job file holding the same 20 lines; both with a warm
pipeline cache (a first round of each is not timed). The outputs of the two
are compared byte for byte.

    python3 tests/bench/jobs.py VKFX IMAGES_DIR [RUNS]

Prints the median wall time of each (default three rounds) and the ratio."""
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

vkfx, images = sys.argv[1:3]
runs = int(sys.argv[3]) if len(sys.argv) > 3 else 3
photos = sorted(p for p in os.listdir(images)
                if p.endswith((".png", ".jpg")) and "disparity" not in p)
chains = ["gauss:sigma=2", "sobel", "box:radius=2", "cartoon"]
jobs = [(os.path.join(images, photos[i % len(photos)]), chains[i % len(chains)], f"{i:02d}.png")
        for i in range(20)]
work = tempfile.mkdtemp()
env = dict(os.environ, XDG_CACHE_HOME=os.path.join(work, "cache"))
sep, one = os.path.join(work, "separate"), os.path.join(work, "run")
with open(os.path.join(work, "jobs.txt"), "w") as f:
    for photo, chain, out in jobs:
        f.write(f"{shlex.quote(photo)} -f {shlex.quote(chain)} -o {shlex.quote(one + '/' + out)}\n")


def separate():
    for photo, chain, out in jobs:
        subprocess.run([vkfx, photo, "-f", chain, "-o", os.path.join(sep, out)], check=True,
                       env=env)


def together():
    subprocess.run([vkfx, "run", os.path.join(work, "jobs.txt")], check=True, env=env)


times = {"separate": [], "run": []}
for r in range(runs + 1):
    for name, fn, d in (("separate", separate, sep), ("run", together, one)):
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        t = time.perf_counter()
        fn()
        if r:  # the first round warms the caches
            times[name].append(time.perf_counter() - t)
for _, _, out in jobs:
    with open(os.path.join(sep, out), "rb") as a, open(os.path.join(one, out), "rb") as b:
        assert a.read() == b.read(), f"{out}: vkfx run and a separate process differ"
shutil.rmtree(work)
med = {k: sorted(v)[len(v) // 2] for k, v in times.items()}
print(f"{len(jobs)} jobs, {os.cpu_count()} cores: 20 processes {med['separate']:.3f} s, "
      f"one vkfx run {med['run']:.3f} s: {med['separate'] / med['run']:.1f}x "
      f"(medians of {runs}; separate {', '.join(f'{v:.2f}' for v in times['separate'])}; "
      f"run {', '.join(f'{v:.2f}' for v in times['run'])}); outputs identical")
