#!/usr/bin/env python3
"""The HTTP interface of `vkfx preview`: the address line, the token, the Host
check, a bad chain, render sizes, concurrent renders, focus, save, what cannot
wedge the server (maps that are FIFOs or devices, a render past --time-limit,
one whose client left or that a newer one overtook), and the end by SIGTERM
and SIGINT. Usage: test_preview_http.py VKFX SOURCE_ROOT."""
import http.client
import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from png_plain import read_png  # noqa: E402

VKFX, ROOT = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
IMAGE = 'images/motorcycle_left.png'
MAP = 'images/motorcycle_disparity16.png'
WIDTH, HEIGHT = 741, 500
failures = []


def check(ok, what):
    print(('ok   ' if ok else 'FAIL ') + what, flush=True)
    if not ok:
        failures.append(what)


class Server:
    def __init__(self, *args, cwd=ROOT):
        self.proc = subprocess.Popen([VKFX, 'preview', *args, '--no-browser'], cwd=cwd,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.line = self.proc.stdout.readline().rstrip('\n')
        m = re.fullmatch(r'http://127\.0\.0\.1:(\d+)/\?token=([0-9a-f]{32})', self.line)
        if not m:
            self.proc.kill()
            raise SystemExit('first line on stdout is not the address: %r; stderr: %s'
                             % (self.line, self.proc.stderr.read()))
        self.port, self.token = int(m.group(1)), m.group(2)

    def request(self, method, path, params=None, host=None, token=True, headers=None,
                timeout=300):
        params = dict(params or {})
        if token:
            params['token'] = self.token
        query = urllib.parse.urlencode(params, quote_via=urllib.parse.quote)
        c = http.client.HTTPConnection('127.0.0.1', self.port, timeout=timeout)
        h = {'Host': host or '127.0.0.1:%d' % self.port}
        h.update(headers or {})
        c.request(method, path + ('?' + query if query else ''), headers=h)
        r = c.getresponse()
        body = r.read()
        c.close()
        return r.status, dict(r.getheaders()), body

    def stop(self, sig=signal.SIGTERM):
        self.proc.send_signal(sig)
        try:
            rc = self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            rc = 'hung'
        err = self.proc.stderr.read()
        return rc, err


def jpeg_size(data):
    """Width and height from the first start-of-frame marker of a JPEG."""
    if data[:2] != b'\xff\xd8':
        return None
    i = 2
    while i + 4 <= len(data):
        if data[i] != 0xFF:
            return None
        marker, length = data[i + 1], struct.unpack('>H', data[i + 2:i + 4])[0]
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            h, w = struct.unpack('>HH', data[i + 5:i + 9])
            return w, h
        i += 2 + length
    return None


def cli_error_line(chain):
    """The line `vkfx INPUT -f CHAIN -o OUT` prints for a bad chain."""
    with tempfile.TemporaryDirectory() as tmp:
        r = subprocess.run([VKFX, IMAGE, '-f', chain, '-o', os.path.join(tmp, 'x.png')],
                           cwd=ROOT, capture_output=True, text=True)
    return r.returncode, r.stderr.strip()


def png_u16(path, x, y):
    """Sample (x, y) of a 16-bit gray PNG."""
    w, _, spp, bps, rows = read_png(path)
    assert spp == 1 and bps == 2
    return struct.unpack('>H', rows[y][2 * x:2 * x + 2])[0]


def main():
    tmp = tempfile.mkdtemp(prefix='vkfx-preview-test-')
    try:
        run(tmp)
    finally:
        shutil.rmtree(tmp)
    if failures:
        print('%d check(s) failed: %s' % (len(failures), '; '.join(failures)))
        sys.exit(1)


def run(tmp):
    # The map in a folder of its own, so that the test can take it away once
    # the server has read it.
    depth = os.path.join(tmp, 'depth.png')
    shutil.copy(os.path.join(ROOT, MAP), depth)
    chain = 'dof:depth=%s:kind=disparity:focus=0.75:range=0.4:maxcoc=12' % depth
    saved = os.path.join(tmp, 'saved.png')
    s = Server(IMAGE, '-f', chain, '-o', saved)
    try:
        base = '127.0.0.1:%d' % s.port

        # Token: none, wrong, in the query, in the cookie the page sets.
        st, _, _ = s.request('GET', '/info', token=False)
        check(st == 403, 'no token: 403 (got %d)' % st)
        st, _, _ = s.request('GET', '/info', {'token': '0' * 32}, token=False)
        check(st == 403, 'wrong token: 403 (got %d)' % st)
        st, hdr, page = s.request('GET', '/')
        cookie = hdr.get('Set-Cookie', '')
        check(st == 200 and b'<html' in page, 'GET / with the token: the page')
        check('HttpOnly' in cookie and 'SameSite=Strict' in cookie and s.token in cookie,
              'the page sets an HttpOnly, SameSite=Strict cookie with the token: ' + cookie)
        st, _, _ = s.request('GET', '/info', token=False,
                             headers={'Cookie': 'vkfx_token=' + s.token})
        check(st == 200, 'the cookie carries the token (got %d)' % st)
        check(not any(k.lower().startswith('access-control') for k in hdr), 'no CORS headers')

        # Host: only 127.0.0.1:PORT and localhost:PORT.
        for host, want in (('localhost:%d' % s.port, 200), ('evil.example:%d' % s.port, 421),
                           ('127.0.0.1', 421), ('127.0.0.1:%d' % (s.port + 1), 421)):
            st, _, _ = s.request('GET', '/info', host=host)
            check(st == want, 'Host %s: %d (got %d)' % (host, want, st))

        # /info: the image and the registry.
        st, _, body = s.request('GET', '/info')
        import json
        info = json.loads(body)
        check(info['width'] == WIDTH and info['height'] == HEIGHT, '/info has the image size')
        # With the span of its values, for the page's focus and range sliders.
        _, _, _, _, rows = read_png(depth)
        values = [struct.unpack('>H', r[i:i + 2])[0] for r in rows for i in range(0, len(r), 2)]
        span = {'min': float('%.9g' % (min(values) / 65535)),
                'max': float('%.9g' % (max(values) / 65535)), 'float': False}
        check(info['maps'] == [dict(filter='dof', option='depth', path=depth, **span)],
              '/info lists the map with its span %r: %r' % (span, info['maps']))
        dof = next(f for f in info['filters'] if f['name'] == 'dof')
        focus = next(o for o in dof['options'] if o['name'] == 'focus')
        check(focus['type'] == 'float' and focus['default'] == 0.5, '/info has dof focus')
        # Lengths in pixels are marked: the page's px unit, what a draft scales.
        gauss = next(f for f in info['filters'] if f['name'] == 'gauss')
        check(next(o for o in dof['options'] if o['name'] == 'maxcoc').get('pixels') is True and
              'pixels' not in focus and
              all(o.get('pixels') is True for o in gauss['options']),
              '/info marks maxcoc, gauss sigma and radius as pixels, not focus')
        # /span: the span of a map the chain names, for maps set on the page.
        st, _, body = s.request('GET', '/span', {'chain': 'gauss,' + chain})
        check(st == 200 and json.loads(body) == {'links': [dict(index=1, **span)]},
              '/span gives the map\'s span for its link: %d %r' % (st, body))
        # A float map (Radiance HDR, as vkfx writes it) is in scene units, not 0..1.
        hdr = os.path.join(tmp, 'depth.hdr')
        subprocess.run([VKFX, depth, '-o', hdr], check=True)
        st, _, body = s.request('GET', '/span', {'chain': 'dof:depth=' + hdr})
        got = json.loads(body)['links'] if st == 200 else []
        check(len(got) == 1 and got[0]['float'] is True and got[0]['max'] > got[0]['min'],
              '/span of a float map says so: %d %r' % (st, body))
        st, _, body = s.request('GET', '/span', {'chain': 'dof:depth=%s/missing.png' % tmp})
        check(st == 400 and b'missing.png' in body, '/span of a missing map: 400 naming it')
        help_text = subprocess.run([VKFX, '--help-filter', 'dof'], capture_output=True,
                                   text=True).stdout
        check(dof['describe'] == help_text, '/info describes dof as --help-filter does')

        # Bad chains: 400 with the command line's own message.
        for bad in ('gauss:sigma=0', 'gaus', 'dof:depth=%s/missing.png' % tmp):
            rc, line = cli_error_line(bad)
            st, _, body = s.request('GET', '/render', {'chain': bad, 'width': 100})
            check(st == 400 and body.decode().strip() == line,
                  'bad chain %r: 400 with %r (got %d %r)' % (bad, line, st, body))
        st, _, _ = s.request('GET', '/render', {'chain': chain, 'width': 'x'})
        check(st == 400, 'bad width: 400')

        # Render sizes: the width asked, the height in proportion; at most full size.
        for w, want in ((200, (200, 135)), (WIDTH, (WIDTH, HEIGHT)), (5000, (WIDTH, HEIGHT)),
                        (1, (1, 1))):
            st, hdr, body = s.request('GET', '/render', {'chain': chain, 'width': w})
            check(st == 200 and hdr.get('Content-Type') == 'image/jpeg' and
                  jpeg_size(body) == want,
                  'render width %d: %dx%d JPEG (got %d %s)' % (w, *want, st, jpeg_size(body)))
            timing = hdr.get('Server-Timing', '')
            check(re.search(r'gpu;dur=[\d.]+, render;dur=[\d.]+', timing) is not None,
                  'Server-Timing gives gpu and render ms: ' + timing)

        # A view (the default) and a draft of the same width: the same size; a PNG
        # when asked; anything else for draft and format refused.
        for params, kind in (({'draft': 1}, 'image/jpeg'), ({'format': 'png'}, 'image/png'),
                             ({'draft': 0, 'format': 'jpeg'}, 'image/jpeg')):
            st, hdr, body = s.request('GET', '/render', dict(chain=chain, width=200, **params))
            size = jpeg_size(body) if kind == 'image/jpeg' else struct.unpack('>II', body[16:24])
            check(st == 200 and hdr.get('Content-Type') == kind and tuple(size) == (200, 135),
                  'render %r: a 200x135 %s (got %d %s)' % (params, kind, st, size))
        for params in ({'draft': 'yes'}, {'format': 'gif'}):
            st, _, body = s.request('GET', '/render', dict(chain=chain, width=200, **params))
            check(st == 400 and b'draft must be 0 or 1' in body,
                  'render %r: 400 (got %d %r)' % (params, st, body))
        # The page's Fast box: fast=1 renders the fast paths, fast=0 (or none) the default.
        got = {}
        for fast in ('0', '1', None):
            q = dict(chain='gauss:sigma=2', width=200, format='png')
            if fast is not None:
                q['fast'] = fast
            st, _, got[fast] = s.request('GET', '/render', q)
            check(st == 200, 'render fast=%r: 200 (got %d)' % (fast, st))
        check(got['0'] == got[None] and got['0'] != got['1'],
              'fast=1 renders other bytes than fast=0, which renders as no fast')
        st, _, body = s.request('GET', '/render', dict(chain=chain, width=200, fast='yes'))
        check(st == 400 and b'fast must be 0 or 1' in body,
              'render fast=yes: 400 (got %d %r)' % (st, body))

        # The map was decoded once: renders go on without its file.
        os.unlink(depth)
        st, _, body = s.request('GET', '/render', {'chain': chain.replace('0.75', '0.3'),
                                                   'width': 300})
        check(st == 200 and jpeg_size(body) == (300, 202),
              'after the map file is gone, renders still use the map read at the start')
        shutil.copy(os.path.join(ROOT, MAP), depth)

        # Concurrent renders: each answered, latest wins, the rest dropped.
        results = [None] * 8
        barrier = threading.Barrier(len(results))

        def one(i):
            barrier.wait()
            c = chain.replace('focus=0.75', 'focus=0.%d' % (i + 1))
            st, _, body = s.request('GET', '/render', {'chain': c, 'width': 400})
            results[i] = (st, jpeg_size(body) if st == 200 else body)

        threads = [threading.Thread(target=one, args=(i,)) for i in range(len(results))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        codes = [r[0] for r in results]
        check(all(c in (200, 409) for c in codes) and codes.count(200) >= 1 and
              codes.count(409) >= 1,
              'concurrent renders: 200 or 409 (superseded), some of each: %s' % codes)
        check(all(r[1] == (400, 270) for r in results if r[0] == 200),
              'concurrent renders that ran have the size asked')
        check(all(r[1].startswith(b'vkfx: superseded') for r in results if r[0] == 409),
              '409 says it was superseded')

        # Focus: the disparity map's value under a pixel, flipped, as the filter compares it.
        x, y = 370, 300
        st, _, body = s.request('GET', '/focus', {'chain': chain, 'x': x, 'y': y})
        got = json.loads(body)['links']
        z = struct.unpack('f', struct.pack('f', png_u16(os.path.join(ROOT, MAP), x, y) / 65535))[0]
        want = struct.unpack('f', struct.pack('f', 1 - z))[0]
        ok = (st == 200 and len(got) == 1 and got[0]['index'] == 0 and
              struct.unpack('f', struct.pack('f', float(got[0]['focus'])))[0] == want)
        check(ok, 'focus at (%d, %d) is 1 - disparity there: %r vs %r' % (x, y, got, want))
        st, _, _ = s.request('GET', '/focus', {'chain': chain, 'x': WIDTH, 'y': 0})
        check(st == 400, 'focus outside the image: 400')

        # Save: the file the command line writes, byte for byte.
        focused = chain.replace('focus=0.75', 'focus=' + got[0]['focus'])
        st, _, body = s.request('POST', '/save', {'chain': focused})
        check(st == 200 and os.path.exists(saved), 'POST /save writes the -o file')
        st, _, _ = s.request('GET', '/save', {'chain': focused})
        check(st == 405, 'GET /save: 405')
        cli_out = os.path.join(tmp, 'cli.png')
        subprocess.run([VKFX, IMAGE, '-f', focused, '-o', cli_out], cwd=ROOT, check=True)
        check(open(saved, 'rb').read() == open(cli_out, 'rb').read(),
              'the saved file is the command line\'s, byte for byte')
        check(not [n for n in os.listdir(tmp) if n.startswith('.')], 'no temporary left')
        # A second Save does not replace the file unasked.
        before = open(saved, 'rb').read()
        st, _, body = s.request('POST', '/save', {'chain': chain})
        check(st == 409 and b'exists' in body and b'replace=1' in body and
              open(saved, 'rb').read() == before,
              'a second Save over the file: 409, the file untouched (%d %r)' % (st, body))
        st, _, body = s.request('POST', '/save', {'chain': chain, 'replace': 1})
        check(st == 200 and open(saved, 'rb').read() != before,
              'a second Save with replace=1 replaces it (%d %r)' % (st, body))
        # /check: the command line's verdict on a chain, maps not read.
        st, _, body = s.request('GET', '/check', {'chain': chain})
        check(st == 200, '/check of a good chain: 200 (%d %r)' % (st, body))
        for bad in ('gauss:sigma=0', 'gaus'):
            rc, line = cli_error_line(bad)
            st, _, body = s.request('GET', '/check', {'chain': bad})
            check(st == 400 and body.decode().strip() == line,
                  '/check %r: 400 with %r (got %d %r)' % (bad, line, st, body))
        st, _, body = s.request('POST', '/save', {'chain': 'gauss:sigma=0', 'replace': 1})
        check(st == 400, 'save with a bad chain: 400')
        shutil.copy(depth, saved)
        st, _, body = s.request('POST', '/save', {'chain': chain.replace(depth, saved),
                                                  'replace': 1})
        check(st == 400 and b'would overwrite' in body and b'(dof:depth of' in body,
              'save refuses to write over a map the chain reads: %d %r' % (st, body))
        os.unlink(saved)
        written = os.path.join(tmp, 'counts.json')
        st, _, body = s.request('POST', '/save', {'chain': 'histogram:out=' + written + ',' + chain})
        check(st == 400 and b'Save writes only the files' in body and not os.path.exists(written),
              'save refuses a file to write that the page named: %d %r' % (st, body))
    finally:
        rc, err = s.stop(signal.SIGTERM)
    check(rc == 0, 'SIGTERM: exit status 0 (got %s; stderr %r)' % (rc, err))

    # SIGINT too, and a server started without -o refuses to save.
    s = Server(IMAGE)
    st, _, body = s.request('POST', '/save', {'chain': 'gauss'})
    check(st == 400 and b'-o' in body, 'without -o, save is refused: %r' % body)
    rc, err = s.stop(signal.SIGINT)
    check(rc == 0, 'SIGINT: exit status 0 (got %s; stderr %r)' % (rc, err))

    # A connection left open does not hold the end up.
    s = Server(IMAGE)
    idle = http.client.HTTPConnection('127.0.0.1', s.port, timeout=60)
    idle.connect()
    rc, err = s.stop(signal.SIGTERM)
    idle.close()
    check(rc == 0, 'SIGTERM with an idle connection open: exit status 0 (got %s)' % rc)

    wedges(tmp)

    # A starting chain whose map cannot be read ends it as the file run ends.
    bad = 'dof:depth=%s/missing.png' % tmp
    rc, line = cli_error_line(bad)
    r = subprocess.run([VKFX, 'preview', IMAGE, '-f', bad, '--no-browser'], cwd=ROOT,
                       capture_output=True, text=True, timeout=120)
    check(r.returncode == rc == 1 and r.stdout == '' and r.stderr.strip() == line,
          'a missing map at start: exit %d with %r (got %d, %r)' % (rc, line, r.returncode,
                                                                    r.stderr))

    # Start-up mistakes are usage errors before anything is served.
    for args, what in ((['preview'], 'no input'),
                       (['preview', IMAGE, '--port', '70000'], 'bad port'),
                       (['preview', IMAGE, '--time-limit', '0'], 'bad time limit'),
                       (['preview', IMAGE, '-f', 'gauss:sigma=0'], 'bad chain'),
                       (['preview', IMAGE, '-o', IMAGE], 'output over the input'),
                       (['preview', IMAGE, '-f', 'dof:depth=' + MAP, '-o', MAP],
                        'output over the map')):
        r = subprocess.run([VKFX, *args, '--no-browser'], cwd=ROOT, capture_output=True,
                           text=True, timeout=120)
        check(r.returncode == 2 and r.stdout == '' and r.stderr.count('\n') <= 2,
              '%s: exit 2 with a message (%d, %r)' % (what, r.returncode, r.stderr))


def wedges(tmp):
    """What could hold the one device from every later request."""
    import json
    fifo = os.path.join(tmp, 'fifo')
    os.mkfifo(fifo)
    # Many short passes (on the CPU device, about a second each at most),
    # far longer in all than any bound below.
    slow = ','.join(['bilateral:radius=12'] * 300)
    slow_save = ','.join(['gauss:sigma=3'] * 400)
    s = Server(IMAGE, '-o', os.path.join(tmp, 'wedge.png'), '--time-limit', '1')
    try:
        for path in (fifo, '/dev/zero'):
            m = 'dof:depth=%s:kind=disparity' % path
            for method, url, params in (('GET', '/render', {'chain': m, 'width': 100}),
                                        ('GET', '/focus', {'chain': m, 'x': 1, 'y': 1}),
                                        ('POST', '/save', {'chain': m})):
                st, _, body = s.request(method, url, params, timeout=30)
                check(st == 400 and b'not a regular file' in body,
                      '%s %s with depth=%s: 400 at once (got %d %r)' % (method, url, path, st,
                                                                         body))
        st, _, body = s.request('GET', '/info')
        check(st == 200 and json.loads(body)['time_limit'] == 1, '/info gives the time limit')
        for method, url, chain, what in (('GET', '/render', slow, 'render'),
                                         ('POST', '/save', slow_save, 'Save')):
            t0 = time.monotonic()
            st, _, body = s.request(method, url, {'chain': chain, 'width': 300})
            took = time.monotonic() - t0
            check(st == 503 and b'--time-limit' in body and took < 30,
                  'a %s past --time-limit 1 is stopped: 503 after %.1f s (%d %r)'
                  % (what, took, st, body[:80]))
        check(not os.path.exists(os.path.join(tmp, 'wedge.png')), 'a stopped Save writes nothing')
        st, _, _ = s.request('GET', '/render', {'chain': 'gauss', 'width': 100})
        check(st == 200, 'renders go on after a stop (got %d)' % st)
    finally:
        rc, err = s.stop(signal.SIGTERM)
    check(rc == 0, 'SIGTERM after the stops: exit status 0 (got %s; stderr %r)' % (rc, err))

    s = Server(IMAGE)
    try:
        # The client leaves: the render is stopped at its next pass.
        raw = socket.create_connection(('127.0.0.1', s.port))
        query = urllib.parse.urlencode({'chain': slow, 'width': 300, 'token': s.token},
                                       quote_via=urllib.parse.quote)
        raw.sendall(('GET /render?%s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n'
                     % (query, s.port)).encode())
        time.sleep(1)
        raw.close()
        t0 = time.monotonic()
        st, _, _ = s.request('GET', '/render', {'chain': 'gauss', 'width': 100})
        took = time.monotonic() - t0
        check(st == 200 and took < 20,
              'a render whose client left is stopped: the next one came in %.1f s' % took)

        # A newer render overtakes a running one, which answers 409.
        got = {}
        t = threading.Thread(target=lambda: got.update(
            long=s.request('GET', '/render', {'chain': slow, 'width': 300})[0]))
        t.start()
        time.sleep(1)
        t0 = time.monotonic()
        st, _, _ = s.request('GET', '/render', {'chain': 'gauss', 'width': 100})
        took = time.monotonic() - t0
        t.join(timeout=300)
        check(st == 200 and got.get('long') == 409 and took < 20,
              'a running render overtaken: 409, the newer one in %.1f s (%d, %s)'
              % (took, st, got.get('long')))
    finally:
        rc, err = s.stop(signal.SIGTERM)
    check(rc == 0, 'SIGTERM after the stops: exit status 0 (got %s; stderr %r)' % (rc, err))


main()
