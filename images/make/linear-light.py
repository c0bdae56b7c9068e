# images/linear-light.png, the README's picture of blurring light against blurring encoded
# values: `python3 images/make/linear-light.py input` writes in.png (red/green and white/black
# stripes 3 pixels wide); then
#   vkfx in.png -f gauss:sigma=4 -o light.png
#   vkfx in.png -f gauss:sigma=4 -o encoded.png --no-linearize
#   python3 images/make/linear-light.py images/linear-light.png in.png light.png encoded.png
# puts the three side by side. Plain Python: zlib and struct only.
import zlib, struct, sys
def write_png(path, w, h, rows):
    raw = b''.join(b'\0' + bytes(r) for r in rows)
    def chunk(t, d): return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d) & 0xffffffff)
    open(path, 'wb').write(b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 2, 0, 0, 0)) + chunk(b'IDAT', zlib.compress(raw, 9)) + chunk(b'IEND', b''))
def read_png(path):
    d = open(path, 'rb').read(); at = 8; idat = b''
    while at < len(d):
        n, = struct.unpack('>I', d[at:at+4]); t = d[at+4:at+8]; body = d[at+8:at+8+n]
        if t == b'IHDR': w, h, depth, ctype = struct.unpack('>IIBB', body[:10])
        if t == b'IDAT': idat += body
        at += 12 + n
    assert depth == 8 and ctype == 2
    raw = zlib.decompress(idat); bpp = 3; stride = w * 3; rows = []; prev = [0] * stride; p = 0
    for y in range(h):
        f = raw[p]; line = list(raw[p+1:p+1+stride]); p += 1 + stride
        for i in range(stride):
            a = line[i-bpp] if i >= bpp else 0; b = prev[i]; c = prev[i-bpp] if i >= bpp else 0
            if f == 1: line[i] = (line[i] + a) & 255
            elif f == 2: line[i] = (line[i] + b) & 255
            elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                pr = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pr) & 255
        rows.append(line); prev = line
    return w, h, rows
if sys.argv[1] == 'input':
    w, h = 120, 90
    rows = []
    for y in range(h):
        r = []
        for x in range(w):
            if y < 45: px = (255, 0, 0) if (x // 3) % 2 == 0 else (0, 255, 0)      # red/green stripes
            else: px = (255, 255, 255) if (x // 3) % 2 == 0 else (0, 0, 0)         # white/black stripes
            r += px
        rows.append(r)
    write_png('in.png', w, h, rows)
else:
    panels = [read_png(p) for p in sys.argv[2:]]
    w, h = panels[0][0], panels[0][1]; gap = 4
    W = len(panels) * w + (len(panels) - 1) * gap
    rows = []
    for y in range(h):
        r = []
        for i, (_, _, pr) in enumerate(panels):
            if i: r += [255] * (3 * gap)
            r += pr[y]
        rows.append(r)
    write_png(sys.argv[1], W, h, rows)
