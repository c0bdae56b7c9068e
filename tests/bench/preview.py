"""End-to-end time of `vkfx preview` renders as an artist's focus changes:
a photo with its depth map, dof, focus different at every request, each
render as the page asks for it: the chain at the photo's full size, scaled to
the 1280-wide view (what Save writes, scaled). Prints the medians of the
server's own Server-Timing numbers (render: GPU, read-back and JPEG encode;
gpu: the passes' device time) and the median and worst end-to-end time seen
by this client.

    python3 tests/bench/preview.py VKFX [RENDERS] [PHOTO DEPTH] [--size WxH]

Without PHOTO and DEPTH it makes the pair from images/motorcycle_left.png and
its disparity map: a 16:9 crop scaled to WxH (default 1920x1080; the speed
target of issue 46 is for 3840x2160), nearest pixel, in a temporary folder.
Plain Python, no packages."""
import http.client
import os
import re
import signal
import struct
import subprocess
import sys
import tempfile
import time
import urllib.parse
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, 'tests'))
from png_plain import read_png  # noqa: E402
W, H, PREVIEW = 1920, 1080, 1280
if '--size' in sys.argv:
    at = sys.argv.index('--size')
    W, H = (int(v) for v in sys.argv[at + 1].split('x'))
    del sys.argv[at:at + 2]


def write_png(path, w, h, colour, depth, rows):
    def chunk(kind, body):
        return struct.pack('>I', len(body)) + kind + body + struct.pack(
            '>I', zlib.crc32(kind + body) & 0xffffffff)
    raw = b''.join(b'\0' + r for r in rows)
    with open(path, 'wb') as f:
        f.write(b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, depth, colour,
                                                                   0, 0, 0)) +
                chunk(b'IDAT', zlib.compress(raw, 1)) + chunk(b'IEND', b''))


def scaled(src, out):
    """The centred 16:9 crop of src at 1920x1080, each pixel the nearest source pixel."""
    w, h, spp, bps, rows = read_png(src)
    ch = w * 9 // 16
    y0 = (h - ch) // 2
    px = spp * bps
    xs = [(x * w // W) * px for x in range(W)]
    out_rows = []
    for y in range(H):
        r = rows[y0 + y * ch // H]
        out_rows.append(b''.join(r[i:i + px] for i in xs))
    write_png(out, W, H, 0 if spp == 1 else 2, 8 * bps, out_rows)


def main():
    vkfx = os.path.abspath(sys.argv[1])
    renders = int(sys.argv[2]) if len(sys.argv) > 2 else 50
    tmp = tempfile.mkdtemp(prefix='vkfx-bench-preview-')
    if len(sys.argv) > 4:
        photo, depth = os.path.abspath(sys.argv[3]), os.path.abspath(sys.argv[4])
    else:
        photo, depth = os.path.join(tmp, 'photo.png'), os.path.join(tmp, 'depth.png')
        scaled(os.path.join(ROOT, 'images/motorcycle_left.png'), photo)
        scaled(os.path.join(ROOT, 'images/motorcycle_disparity16.png'), depth)
    chain = 'dof:depth=%s:kind=disparity:range=0.4:maxcoc=12:focus=%s'
    server = subprocess.Popen([vkfx, 'preview', photo, '-f', chain % (depth, '0.5'),
                               '--no-browser'], stdout=subprocess.PIPE, text=True)
    line = server.stdout.readline().strip()
    m = re.fullmatch(r'http://127\.0\.0\.1:(\d+)/\?token=([0-9a-f]{32})', line)
    if not m:
        server.kill()
        sys.exit('vkfx preview did not print its address (got %r)' % line)
    port, token = int(m.group(1)), m.group(2)
    conn = http.client.HTTPConnection('127.0.0.1', port, timeout=600)

    def render(focus):
        q = urllib.parse.urlencode({'token': token, 'width': PREVIEW,
                                    'chain': chain % (depth, focus)},
                                   quote_via=urllib.parse.quote)
        t = time.perf_counter()
        conn.request('GET', '/render?' + q, headers={'Host': '127.0.0.1:%d' % port})
        r = conn.getresponse()
        body = r.read()
        wall = (time.perf_counter() - t) * 1e3
        if r.status != 200:
            sys.exit('render: %d %s' % (r.status, body.decode(errors='replace')))
        timing = dict((k, float(v)) for k, v in
                      re.findall(r'(\w+);dur=([\d.]+)', r.getheader('Server-Timing', '')))
        return timing['render'], timing['gpu'], wall

    try:
        for i in range(3):  # the input and map are uploaded, kernels compiled
            render('0.%d' % (i + 1))
        runs = [render('%.4f' % (0.05 + 0.9 * i / renders)) for i in range(renders)]
    finally:
        conn.close()
        server.send_signal(signal.SIGTERM)
        server.wait()
        for name in os.listdir(tmp):
            os.unlink(os.path.join(tmp, name))
        os.rmdir(tmp)
    med = lambda v: sorted(v)[len(v) // 2]
    p90 = lambda v: sorted(v)[int(len(v) * 0.9)]
    server_ms, gpu_ms, wall_ms = zip(*runs)
    print('vkfx preview, dof on %dx%d at full size, scaled to a %d-wide view, focus changed at '
          'each of %d renders: server %.2f ms median (min %.2f, p90 %.2f), GPU %.2f ms, end to '
          'end %.2f ms median, %.2f ms worst'
          % (W, H, PREVIEW, renders, med(server_ms), min(server_ms), p90(server_ms),
             med(gpu_ms), med(wall_ms), max(wall_ms)))


main()
