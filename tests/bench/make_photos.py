"""Writes N PNG photos of WxH (default 48 at 1920x1080) made from the photos
in a folder: each is resized to cover the frame and cropped, and every
further round over the photos is mirrored or flipped, so no two files are
alike. Usage: make_photos.py SRC_DIR OUT_DIR [N] [WxH]"""
import glob
import os
import sys

import cv2

src, out = sys.argv[1], sys.argv[2]
n = int(sys.argv[3]) if len(sys.argv) > 3 else 48
w, h = (int(v) for v in (sys.argv[4] if len(sys.argv) > 4 else "1920x1080").split("x"))
photos = [p for p in sorted(glob.glob(os.path.join(src, "*")))
          if p.lower().endswith((".png", ".jpg")) and "disparity" not in p]
os.makedirs(out, exist_ok=True)
for i in range(n):
    im = cv2.imread(photos[i % len(photos)], cv2.IMREAD_COLOR)
    scale = max(w / im.shape[1], h / im.shape[0])
    im = cv2.resize(im, (max(w, round(im.shape[1] * scale)), max(h, round(im.shape[0] * scale))),
                    interpolation=cv2.INTER_CUBIC)
    y, x = (im.shape[0] - h) // 2, (im.shape[1] - w) // 2
    im = im[y:y + h, x:x + w]
    turn = i // len(photos)
    if turn % 2:
        im = cv2.flip(im, 1)
    if turn % 4 >= 2:
        im = cv2.flip(im, 0)
    cv2.imwrite(os.path.join(out, "photo%02d.png" % i), im, [cv2.IMWRITE_PNG_COMPRESSION, 6])
