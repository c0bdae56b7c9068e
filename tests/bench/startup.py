"""Cold and warm start of vkfx on one small image: the wall time of whole
processes, with the pipeline cache ($XDG_CACHE_HOME/vkfx) removed before
each cold run and kept for the warm ones.

    python3 tests/bench/startup.py VKFX IMAGE CHAIN [RUNS]

Set the driver's own shader cache off in the environment to see vkfx's
cache alone (NVIDIA: __GL_SHADER_DISK_CACHE=0; Mesa:
MESA_SHADER_CACHE_DISABLE=true)."""
import os
import shutil
import subprocess
import sys
import tempfile
import time

vkfx, image, chain = sys.argv[1:4]
runs = int(sys.argv[4]) if len(sys.argv) > 4 else 5
work = tempfile.mkdtemp()
env = dict(os.environ, XDG_CACHE_HOME=os.path.join(work, "cache"))
out = os.path.join(work, "out.png")


def run():
    t = time.perf_counter()
    subprocess.run([vkfx, image, "-f", chain, "-o", out], check=True, env=env)
    return (time.perf_counter() - t) * 1e3


cold, warm = [], []
for _ in range(runs):
    shutil.rmtree(os.path.join(work, "cache"), ignore_errors=True)
    cold.append(run())
    warm.append(run())
shutil.rmtree(work)
med = lambda v: sorted(v)[len(v) // 2]
print(f"{chain} on {os.path.basename(image)}: cold {med(cold):.1f} ms, warm {med(warm):.1f} ms "
      f"(medians of {runs}; cold {', '.join(f'{v:.0f}' for v in cold)}; "
      f"warm {', '.join(f'{v:.0f}' for v in warm)})")
