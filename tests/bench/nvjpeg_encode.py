"""nvJPEG's encoder through torchvision, the JPEG encoding issue's peer, on the GPU machine:
480 1080p images (the first 48 JPEGs of a folder, decoded on the GPU, ten times over) in one
batched call, and one 6000x4000 image; median ms, quality 90.

    python3 tests/bench/nvjpeg_encode.py DIR_OF_1080P_JPEGS ONE_6000x4000.jpg

The folder is jpeg_batch.py's WORK/jpg48, the photo one of thumbs.py's WORK/distinct."""
import glob
import statistics
import sys
import time

import torch
from torchvision.io import decode_jpeg, encode_jpeg, read_file

small = sorted(glob.glob(sys.argv[1] + "/*.jpg"))[:48]
imgs = [decode_jpeg(read_file(f), device="cuda") for f in small] * 10
big = decode_jpeg(read_file(sys.argv[2]), device="cuda")
torch.cuda.synchronize()


def timed(fn, n):
    for _ in range(2):
        fn()
        torch.cuda.synchronize()
    ts = []
    for _ in range(n):
        s = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        ts.append((time.perf_counter() - s) * 1e3)
    return statistics.median(ts), min(ts)


m, lo = timed(lambda: encode_jpeg(imgs, quality=90), 5)
print(f"nvJPEG encode {len(imgs)} x 1920x1080 batched: {m:.1f} ms median, min {lo:.1f}")
m, lo = timed(lambda: encode_jpeg(big, quality=90), 20)
print(f"nvJPEG encode 6000x4000: {m:.2f} ms median, min {lo:.2f}")
