"""Many small jobs: 20 jobs (crops of the photos of images/, WxH, default
160x120, through four different chains) as 20 separate vkfx processes, one
after the other, against one `vkfx run` of a job file holding the same 20
lines; both with warm caches (a first round of each is not timed). The
outputs of the two are compared byte for byte.

    python3 tests/bench/jobs.py VKFX IMAGES_DIR [RUNS] [WxH]

Prints the median wall time of each (default three rounds), the ratio, and
the CPU time (user + system, all threads) of each, which a machine busy
with other work disturbs less."""
import os
import resource
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import photo_tiles  # noqa: E402 (tests/photo_tiles.py)

vkfx, images = sys.argv[1:3]
runs = int(sys.argv[3]) if len(sys.argv) > 3 else 3
w, h = (int(v) for v in (sys.argv[4] if len(sys.argv) > 4 else "160x120").split("x"))
work = tempfile.mkdtemp()
env = dict(os.environ, XDG_CACHE_HOME=os.path.join(work, "cache"))
inputs = photo_tiles.make(vkfx, images, os.path.join(work, "src"), work, 20, lambda i: (w, h), env)
chains = ["gauss:sigma=2", "sobel", "box:radius=2", "cartoon"]
jobs = [(p, chains[i % len(chains)], f"{i:02d}.png") for i, p in enumerate(inputs)]
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


def cpu():
    u = resource.getrusage(resource.RUSAGE_CHILDREN)
    return u.ru_utime + u.ru_stime


times = {"separate": [], "run": []}
cpus = {"separate": [], "run": []}
for r in range(runs + 1):
    for name, fn, d in (("separate", separate, sep), ("run", together, one)):
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        t, c = time.perf_counter(), cpu()
        fn()
        if r:  # the first round warms the caches
            times[name].append(time.perf_counter() - t)
            cpus[name].append(cpu() - c)
for _, _, out in jobs:
    with open(os.path.join(sep, out), "rb") as a, open(os.path.join(one, out), "rb") as b:
        assert a.read() == b.read(), f"{out}: vkfx run and a separate process differ"
shutil.rmtree(work)
med = {k: sorted(v)[len(v) // 2] for k, v in times.items()}
cmed = {k: sorted(v)[len(v) // 2] for k, v in cpus.items()}
print(f"{len(jobs)} jobs on {w}x{h} crops, {os.cpu_count()} cores: 20 processes "
      f"{med['separate']:.3f} s, one vkfx run {med['run']:.3f} s: "
      f"{med['separate'] / med['run']:.1f}x wall (medians of {runs}; separate "
      f"{', '.join(f'{v:.2f}' for v in times['separate'])}; run "
      f"{', '.join(f'{v:.2f}' for v in times['run'])}); CPU {cmed['separate']:.3f} s against "
      f"{cmed['run']:.3f} s: {cmed['separate'] / cmed['run']:.1f}x; outputs identical")
