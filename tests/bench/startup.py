"""Start-up of vkfx on one small image, as whole processes, in one call:

  floor   vkfx --init-only: the instance and device created, then exit
  list    vkfx --list-devices
  warm    the image through CHAIN with the caches of the cold run kept
  cold    the same with vkfx's pipeline cache ($XDG_CACHE_HOME/vkfx) and the
          driver's shader cache removed before each run (Mesa keeps its own
          in $XDG_CACHE_HOME/mesa_shader_cache; NVIDIA's goes to
          __GL_SHADER_DISK_CACHE_PATH, pointed into the same folder here)

    python3 tests/bench/startup.py VKFX IMAGE CHAIN [RUNS]

Prints the median wall time of each (default 9 runs, interleaved so that a
busy machine disturbs them alike), warm - floor and cold, the targets of
issue 25, and one warm run's --timings breakdown. Where another process
competes for the CPU, the CPU time (user + system, all threads) of each is
printed too."""
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

vkfx, image, chain = sys.argv[1:4]
runs = int(sys.argv[4]) if len(sys.argv) > 4 else 9
work = tempfile.mkdtemp()
cache = os.path.join(work, "cache")
env = dict(os.environ, XDG_CACHE_HOME=cache,
           __GL_SHADER_DISK_CACHE_PATH=os.path.join(cache, "nvidia"))
out = os.path.join(work, "out.png")
cmds = {
    "floor": [vkfx, "--init-only"],
    "list": [vkfx, "--list-devices"],
    "warm": [vkfx, image, "-f", chain, "-o", out],
    "cold": [vkfx, image, "-f", chain, "-o", out],
}


def run(name):
    if name == "cold":
        shutil.rmtree(cache, ignore_errors=True)
    os.makedirs(os.path.join(cache, "nvidia"), exist_ok=True)
    u0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(cmds[name], check=True, env=env, stdout=subprocess.DEVNULL)
    wall = (time.perf_counter() - t) * 1e3
    u1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (u1.ru_utime + u1.ru_stime - u0.ru_utime - u0.ru_stime) * 1e3


walls = {k: [] for k in cmds}
cpus = {k: [] for k in cmds}
run("cold")  # the caches the warm runs find
for _ in range(runs):
    for name in ("floor", "list", "warm", "cold", "warm"):
        w, c = run(name)
        walls[name].append(w)
        cpus[name].append(c)
breakdown = subprocess.run(cmds["warm"] + ["--timings"], env=env, capture_output=True,
                           text=True, check=True).stderr
shutil.rmtree(work)
med = lambda v: sorted(v)[len(v) // 2]
m = {k: med(v) for k, v in walls.items()}
c = {k: med(v) for k, v in cpus.items()}
print(f"{chain} on {os.path.basename(image)} (medians of {runs}, wall ms; CPU ms):")
for k in cmds:
    print(f"  {k:6} {m[k]:8.1f} ms   CPU {c[k]:8.1f} ms   "
          f"({', '.join(f'{v:.0f}' for v in walls[k])})")
print(f"  warm - floor {m['warm'] - m['floor']:.1f} ms (target: at most 20), "
      f"cold {m['cold']:.1f} ms (target on the GPU machine: at most 250)")
print("one warm run's --timings:")
print(breakdown, end="")
