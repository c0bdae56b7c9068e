#!/bin/bash
# The device's JPEG decoder on the GPU machine (issue 42), in one call of a few minutes:
#   tests/bench/jdec_session.sh BUILD_DIR
# BUILD_DIR holds a release build's vkfx. Makes the test JPEGs from images/motorcycle_left.png
# (OpenCV resizes, vkfx writes them with libjpeg-turbo): 1920x1080 quality 90 in 4:4:4 and 4:2:0,
# 6000x4000 quality 90 in 4:2:0, uniform noise at 1920x1080 quality 100 in 4:4:4 and at
# 6000x4000 quality 90 in 4:2:0. For each: `vkfx bench --decode` (the median of 10, its passes,
# libjpeg-turbo on one core, what the synchronisation took and the bytes unlike libjpeg-turbo's),
# the decode through a run with --jpeg-codec gpu and cpu to PNG compared byte for byte, then the
# sizes of subsequences and sequences against each other, the rounds the design before needed,
# and nvJPEG on the same files. Timings stop at a graph's 1024th timestamp: where
# jpeg.rounds_recorded is near that (a decode again with every round), the ms are too low.
# Expects .gl/ (unpacked by gl_env.sh) in the checkout's root.
set -u
build=$(realpath "$1")
cd "$(dirname "$0")/../.."
W=${W:-/tmp/jdec-session}
rm -rf "$W"; mkdir -p "$W"
rm -rf /opt/vl; . tests/bench/gl_env.sh
printf '#!/bin/sh\nLD_LIBRARY_PATH=%s exec %s/vkfx "$@"\n' "$LIBS" "$build" > "$W/vkfx"
chmod +x "$W/vkfx"
V=$W/vkfx
$V --list-devices || { export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json; $V --list-devices; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; nproc

echo "=== making the files"
python3 - "$W" <<'EOF'
import sys
import cv2
import numpy as np
w = sys.argv[1]
src = cv2.imread("images/motorcycle_left.png", cv2.IMREAD_COLOR)
def cover(wd, ht):
    s = max(wd / src.shape[1], ht / src.shape[0])
    im = cv2.resize(src, (max(wd, round(src.shape[1] * s)), max(ht, round(src.shape[0] * s))),
                    interpolation=cv2.INTER_CUBIC)
    y, x = (im.shape[0] - ht) // 2, (im.shape[1] - wd) // 2
    return im[y:y + ht, x:x + wd]
cv2.imwrite(f"{w}/p1080.png", cover(1920, 1080))
cv2.imwrite(f"{w}/p24mp.png", cover(6000, 4000))
rng = np.random.default_rng(42)
cv2.imwrite(f"{w}/n1080.png", rng.integers(0, 256, (1080, 1920, 3), dtype=np.uint8))
cv2.imwrite(f"{w}/n24mp.png", rng.integers(0, 256, (4000, 6000, 3), dtype=np.uint8))
EOF
mk() { $V "$W/$1.png" -o "$W/$2.jpg" --jpeg-codec cpu -q "$3" --jpeg-subsampling "$4" || echo "FAILED to make $2"; }
mk p1080 p1080_444_q90 90 444
mk p1080 p1080_420_q90 90 420
mk p24mp p24mp_420_q90 90 420
mk n1080 noise1080_444_q100 100 444
mk n24mp noise24mp_420_q90 90 420
FILES="p1080_444_q90 p1080_420_q90 p24mp_420_q90 noise1080_444_q100 noise24mp_420_q90"
ls -l "$W"/*.jpg

for f in $FILES; do
  echo "=== $f: bench --decode, defaults"
  timeout 60 $V bench --decode "$W/$f.jpg" --reps 10 || echo "rc $?"
  echo "--- $f: a run to PNG, --jpeg-codec gpu against cpu"
  for c in gpu cpu; do
    timeout 60 $V "$W/$f.jpg" -o "$W/$f.$c.png" --jpeg-codec $c --timings 2>&1 | grep -i -E "decode|jpeg|total" | head -16
  done
  if cmp -s "$W/$f.gpu.png" "$W/$f.cpu.png"; then echo "PNGs identical"; else echo "PNGs DIFFER"; fi
done

echo "=== sizes: --sub-bits x --lanes (ms median of 10; settle turns, last moving round, decodes, bytes unlike libjpeg-turbo)"
for f in p1080_444_q90 p24mp_420_q90 noise1080_444_q100; do
  for s in 256 512 1024 2048; do
    for l in 32 64 128; do
      printf '%-20s sub %5s lanes %4s ' "$f" $s $l
      timeout 30 $V bench --decode "$W/$f.jpg" --reps 10 --sub-bits $s --lanes $l --json | python3 -c '
import json, sys
d = json.loads(sys.stdin.read()); n = d["notes"]; p = d["passes"]
print("%8.3f ms  settle %.3f link %.3f prefix %.3f entropy %.3f | turns %d last %d decodes %d subs %d differ %d" % (
    d["ms"], p.get("jpeg.settle", 0), p.get("jpeg.link", 0), p.get("jpeg.prefix", 0), p.get("jpeg.entropy", 0),
    n.get("jpeg.settle_turns", -1), n.get("jpeg.last_moving_round", -1), n.get("jpeg.decodes", -1),
    n.get("jpeg.subsequences", -1), n.get("bytes_unlike_libjpeg_turbo", -1)))' || echo "rc $?"
    done
  done
done

echo "=== the design before: one subsequence of 2048 bits per sequence (--lanes 1), rounds as needed"
timeout 90 $V bench --decode "$W/p24mp_420_q90.jpg" --reps 3 --sub-bits 2048 --lanes 1 | grep -E "^decode|jpeg\.|bytes" || echo "rc $?"

echo "=== nvJPEG (torchvision.io.decode_jpeg on cuda, median of 10 after 3)"
timeout 90 python3 - "$W" $FILES <<'EOF'
import sys, time
import torch, torchvision
from torchvision.io import decode_jpeg
w = sys.argv[1]
for f in sys.argv[2:]:
    data = torch.frombuffer(bytearray(open(f"{w}/{f}.jpg", "rb").read()), dtype=torch.uint8)
    for _ in range(3):
        decode_jpeg(data, device="cuda")
    torch.cuda.synchronize()
    t = []
    for _ in range(10):
        a = time.perf_counter()
        decode_jpeg(data, device="cuda")
        torch.cuda.synchronize()
        t.append((time.perf_counter() - a) * 1e3)
    print(f"{f:22s} nvJPEG {sorted(t)[5]:8.3f} ms")
EOF
echo "rc $?"
date -u
