#!/bin/bash
# This round's GPU-machine measurements (RESULTS.md), in two parts of one warm machine:
#   tests/bench/round_session.sh kernels|files OLD_DIR NEW_DIR
# OLD_DIR and NEW_DIR hold a release build's vkfx (NEW_DIR also codec_times). kernels: every
# filter old against new (compare_builds.sh), resize against the copy kernel, start-up;
# files: the JPEG and PNG batches against OpenCV, the 24-megapixel photo, the thumbnails.
# Expects .gl/ (unpacked by gl_env.sh) and .carry/bench/peers_cpu.py in the checkout's root.
set -u
part=$1 old_dir=$(realpath "$2") new_dir=$(realpath "$3")
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/round-session}; mkdir -p "$OUT"
. tests/bench/gl_env.sh
for b in old new; do
  eval d=\$${b}_dir
  printf '#!/bin/sh\nLD_LIBRARY_PATH=%s exec %s/vkfx "$@"\n' "$LIBS" "$d" > /tmp/vkfx-$b; chmod +x /tmp/vkfx-$b
done
NEW=/tmp/vkfx-new OLD=/tmp/vkfx-old
$NEW --list-devices || { export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json; $NEW --list-devices; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; nproc
if [ "$part" = kernels ]; then
  echo "=== resize against copy, 4096x4096"
  $NEW bench --size 4096x4096 --reps 50 resize:scale=0.5 resize:scale=0.5:kernel=linear rotate:angle=90 unsharp
  echo "=== startup"
  for b in OLD NEW; do eval v=\$$b
    echo "--- $b gauss chelsea"; python3 tests/bench/startup.py $v images/chelsea.png gauss:sigma=2 9
  done
  echo "=== compare_builds"; REPS=30 timeout 330 sh tests/bench/compare_builds.sh $OLD $NEW /tmp/cmp > /tmp/cmp.log 2>&1
  echo "rc $?"; cp /tmp/cmp/*.txt $OUT/ 2>/dev/null; tail -45 /tmp/cmp.log
else
  echo "=== JPEG batch"; timeout 120 python3 tests/bench/jpeg_batch.py $NEW images /tmp/jb 3
  echo "=== PNG batch"; timeout 60 python3 tests/bench/batch.py $NEW .carry/bench/peers_cpu.py images /tmp/bb 3
  echo "=== 24 MP photo to PNG (old, new)"; timeout 90 python3 tests/bench/big_photo.py images /tmp/big 5 $OLD $NEW
  echo "=== JPEG decode 24 MP"; timeout 30 env LD_LIBRARY_PATH=$LIBS $new_dir/codec_times jpeg /tmp/big/big.jpg 9
  echo "=== thumbnails"; timeout 200 python3 tests/bench/thumbs.py $NEW images /tmp/th 3
fi
date -u
