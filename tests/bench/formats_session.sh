#!/bin/bash
# The GPU-machine measurements of RESULTS.md "Codecs and the batch pipeline" (issue 23), in one
# run: DIR/build-rel (the new release build, with codec_times), DIR/base (the old one) side by
# side, DIR/bench (tests/bench) and DIR/images. Expects, in the checkout's root, .gl/ (Debian
# packages of the Vulkan loader and of the libraries the binaries link, unpacked as
# gpu_session.sh does) and .carry/bench/peers_cpu.py (OpenCV's PNG batch).
#
#     tests/bench/formats_session.sh DIR
set -u
cd "$(dirname "$0")/../.." 2>/dev/null || true
D=${1:-.dev-tp}
OUT=${OUT:-/tmp/formats-session}; mkdir -p "$OUT"
. "$(dirname "$0")/gl_env.sh"
for b in build-rel base; do
  printf '#!/bin/sh\nLD_LIBRARY_PATH=%s exec %s/%s/vkfx "$@"\n' "$LIBS" "$PWD/$D" "$b" > /tmp/vkfx-$b
  chmod +x /tmp/vkfx-$b
done
NEW=/tmp/vkfx-build-rel OLD=/tmp/vkfx-base
CT="env LD_LIBRARY_PATH=$LIBS $D/build-rel/codec_times"
$NEW --list-devices || { export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json; $NEW --list-devices; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; nproc
echo "=== 24 MP photo to PNG (old, new)"
timeout 90 python3 $D/bench/big_photo.py $D/images /tmp/big 5 $OLD $NEW
echo "=== JPEG decode, 24 MP"; timeout 30 $CT jpeg /tmp/big/big.jpg 9
echo "=== PNG encode, 24 MP"; timeout 40 $CT png /tmp/big/big.jpg 3 6
echo "=== JPEG batch (new)"; timeout 100 python3 $D/bench/jpeg_batch.py $NEW $D/images /tmp/jb 3
echo "=== JPEG decode, 1920x1080"; timeout 10 $CT jpeg /tmp/jb/jpg48/photo00.jpg 21
for b in $OLD $NEW; do
  echo "=== 480 JPEG, --timings: $b"; rm -rf /tmp/jbo; mkdir /tmp/jbo
  /usr/bin/time -f "%e s wall, %U s user, %S s system" timeout 30 $b -f gauss:sigma=3 -q 90 \
    -o '/tmp/jbo/{stem}.jpg' /tmp/jb/jpg_rounds --timings 2>&1 | tail -16
done
echo "=== 48 JPEG, --timings, new"; rm -rf /tmp/jn; mkdir /tmp/jn
$NEW -f gauss:sigma=3 -q 90 -o '/tmp/jn/{stem}.jpg' /tmp/jb/jpg48 --timings 2>&1 | tail -16
rm -rf /tmp/jo; mkdir /tmp/jo; $OLD -f gauss:sigma=3 -q 90 -o '/tmp/jo/{stem}.jpg' /tmp/jb/jpg48
cmp -s <(cd /tmp/jn && cat $(ls)) <(cd /tmp/jo && cat $(ls)) && echo "48 JPEG outputs: old and new the same bytes" || echo "48 JPEG outputs DIFFER"
echo "=== PNG batch (new)"; timeout 100 python3 $D/bench/batch.py $NEW .carry/bench/peers_cpu.py $D/images /tmp/bb 3
rm -rf /tmp/bo; mkdir /tmp/bo; $OLD -f gauss:sigma=3 -o '/tmp/bo/{stem}.png' /tmp/bb/src
cmp -s <(cd /tmp/bb/vkfx && cat $(ls)) <(cd /tmp/bo && cat $(ls)) && echo "PNG batch outputs: old and new the same bytes" || echo "PNG batch outputs DIFFER"
date -u
