#!/bin/bash
# Issue 44 on the GPU machine, one call of about five minutes: do the default outputs give the
# same bytes there as on lavapipe, and what do the deterministic paths and --fast cost?
#   tests/bench/det_session.sh BUILD_DIR [OLD_BUILD_DIR]
# BUILD_DIR holds a release build of this checkout (its vkfx); OLD_BUILD_DIR, if given, a
# release build of the code before (its times for the same chains, in the same call).
# Expects .gl/ in the checkout's root (gl_env.sh). Writes under $OUT (default /tmp/det-session):
#   hashes-h200.txt       every hashes.py output (both precisions) from this device
#   compare.txt           hashes.py --compare of tests/data/hashes-exact.txt (lavapipe) with it
#   hashes-h200-fast.txt  gauss:sigma=2's and bilateral's outputs with --fast
#   bench-*.txt           vkfx bench tables, default and --fast, rgba16f and rgba32f
set -u
build=$(realpath "$1")
old=${2:+$(realpath "$2")}
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/det-session}; mkdir -p "$OUT"
rm -rf /opt/vl; . tests/bench/gl_env.sh
wrap() { # a vkfx of build dir $1 that finds the unpacked libraries, as /tmp/vkfx-det-$2
  printf '#!/bin/sh\nLD_LIBRARY_PATH=%s exec %s/vkfx "$@"\n' "$LIBS" "$1" > /tmp/vkfx-det-$2
  chmod +x /tmp/vkfx-det-$2
}
wrap "$build" new; [ -n "$old" ] && wrap "$old" old
V=/tmp/vkfx-det-new
$V --list-devices || { export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json; $V --list-devices; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u

echo "=== 1. hashes.py, every chain at both precisions, this device against lavapipe"
echo "    (tests/data/hashes-exact.txt: made on lavapipe, which the suite checks at widths 4, 8 and 16;"
echo "    want N of N identical)"
s=$(date +%s)
timeout 230 python3 tests/bench/hashes.py $V tests/data/golden "$OUT/hashes-h200.txt" /tmp/det-hw
echo "rc $? in $(( $(date +%s) - s )) s"
python3 tests/bench/hashes.py --compare tests/data/hashes-exact.txt "$OUT/hashes-h200.txt" > "$OUT/compare.txt"
echo "rc $? (0: every output identical)"; tail -1 "$OUT/compare.txt"
echo "--- outputs that differ, by chain (none listed: all the same)"
grep '^differs:' "$OUT/compare.txt" | awk '{print $2}' | sort | uniq -c | sort -rn | head -40
echo "--- missing from one side (chains the other set lacks)"
python3 - tests/data/hashes-exact.txt "$OUT/hashes-h200.txt" <<'PY'
import sys
a, b = ({tuple(l.split()[:2]) for l in open(p) if l.strip()} for p in sys.argv[1:3])
print(f"only lavapipe's: {len(a - b)}, only this device's: {len(b - a)}")
PY

echo "=== 2. gauss:sigma=2 and bilateral with --fast: how many of their outputs --fast changes here"
timeout 40 python3 tests/bench/hashes.py --fast --only gauss:sigma=2,bilateral:sigma_s \
  $V tests/data/golden "$OUT/hashes-h200-fast.txt" /tmp/det-hwf
python3 tests/bench/hashes.py --compare "$OUT/hashes-h200-fast.txt" "$OUT/hashes-h200.txt" | tail -1

echo "=== 3. times, 4096x4096, median of 30 runs; 'x copy' against the copy kernel of the same call"
python3 tests/bench/depth_ramp.py 4096 4096 /tmp/det-depth.png
chains="gauss:sigma=1 gauss:sigma=2 gauss:sigma=3 gauss:sigma=8 unsharp cartoon bilateral
  bilateral:sigma_s=4:sigma_r=0.08 bokeh:depth=/tmp/det-depth.png:threshold=0.5:maxcoc=10:blades=6
  bokeh:depth=/tmp/det-depth.png:threshold=0.5:maxcoc=10 resize:scale=0.5 resize:width=1024 grayscale"
for p in 16 32; do
  for mode in default fast; do
    flag=; [ $mode = fast ] && flag=--fast
    echo "--- rgba${p}f, $mode"
    timeout 90 $V bench --size 4096x4096 --reps 30 --precision $p $flag $chains | tee "$OUT/bench-$p-$mode.txt"
  done
done
echo "--- rgba16f, each Gaussian variant (all give the same bytes; the first is the default)"
timeout 60 $V bench --size 4096x4096 --reps 30 --variants gauss:sigma=2 unsharp cartoon | tee "$OUT/bench-variants.txt"
if [ -n "$old" ]; then
  echo "--- rgba16f, the build before (OLD_BUILD_DIR), same chains"
  timeout 60 /tmp/vkfx-det-old bench --size 4096x4096 --reps 30 $chains | tee "$OUT/bench-16-old.txt"
fi
echo "=== 4. what --fast saves per filter (rgba16f, median ms default -> --fast)"
python3 - "$OUT/bench-16-default.txt" "$OUT/bench-16-fast.txt" <<'PY'
import sys
def rows(p):
    out = {}
    for line in open(p):
        f = line.split()
        if len(f) >= 5 and f[0] not in ("device:", "case"):
            try:
                out[f[0]] = (float(f[1]), float(f[-1]))
            except ValueError:
                pass
    return out
d, f = rows(sys.argv[1]), rows(sys.argv[2])
print("| chain | default ms (x copy) | --fast ms (x copy) | saved |")
print("|---|---|---|---|")
for k in d:
    if k in f and k not in ("copy", "read", "copy-sat"):
        print(f"| `{k}` | {d[k][0]:.4f} ({d[k][1]:.2f}) | {f[k][0]:.4f} ({f[k][1]:.2f}) | "
              f"{100 * (1 - f[k][0] / d[k][0]):.1f}% |")
PY
date -u
