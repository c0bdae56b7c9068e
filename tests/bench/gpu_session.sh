#!/bin/bash
# Every GPU-machine measurement of RESULTS.md "Around the kernels", in one run: the release
# builds build-base (the old build) and build-rel (the new one) side by side. Expects, in
# the checkout's root, .gl/ (Debian packages of the Vulkan loader and of the libraries the binaries
# link: the loader is unpacked into /, the rest under /opt/vl) and .carry/bench/peers_cpu.py
# (OpenCV reading, blurring and writing a folder of PNGs). Writes its tables under $OUT.
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/gpu-session}; mkdir -p "$OUT"
. tests/bench/gl_env.sh
for b in build-rel build-base; do
  printf '#!/bin/sh\nLD_LIBRARY_PATH=%s exec %s/%s/vkfx "$@"\n' "$LIBS" "$PWD" "$b" > /tmp/vkfx-$b; chmod +x /tmp/vkfx-$b
done
NEW=/tmp/vkfx-build-rel OLD=/tmp/vkfx-build-base
$NEW --list-devices || { export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json; $NEW --list-devices; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
echo "=== compare_builds"; sh tests/bench/compare_builds.sh $OLD $NEW /tmp/cmp > /tmp/cmp.log 2>&1; echo "rc $?"; cp /tmp/cmp/*.txt $OUT/; tail -3 /tmp/cmp.log
echo "=== startup gauss"; python3 tests/bench/startup.py $NEW images/chelsea.png gauss:sigma=2 9
echo "=== startup box0"; python3 tests/bench/startup.py $NEW images/chelsea.png box:radius=0 9
echo "=== jobs"; python3 tests/bench/jobs.py $NEW images 3
echo "=== preview"; python3 tests/bench/preview.py $NEW 100
echo "=== png batch new"; python3 tests/bench/batch.py $NEW .carry/bench/peers_cpu.py images /tmp/bb 3
echo "=== png batch old"; python3 tests/bench/batch.py $OLD .carry/bench/peers_cpu.py images /tmp/bb 3
echo "=== fsync"; python3 tests/bench/make_photos.py images /tmp/photos 48 1920x1080 2>/dev/null; python3 tests/bench/fsync.py $NEW /tmp/photos /tmp/fsync 48 7
echo "=== jpeg batch"; timeout 240 python3 tests/bench/jpeg_batch.py $NEW images /tmp/jb 3
echo "=== hashes"; python3 tests/bench/hashes.py $NEW tests/data/golden $OUT/h-new-h200.txt /tmp/hw
