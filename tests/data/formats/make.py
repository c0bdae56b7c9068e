#!/usr/bin/python3
# Makes the files of this folder (README.md says what each holds) from crops of the bundled
# photos, with Debian 12's Pillow 9.4, ImageMagick 6.9 and giflib 5.2 (gifbuild), and beside
# each FILE the image it must decode to, FILE.png: Pillow's decode of FILE where Pillow reads
# it right, otherwise the pixels FILE was made from. Run from this folder: /usr/bin/python3 make.py
import os, struct, subprocess
from PIL import Image

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..')
src = Image.open(os.path.join(ROOT, 'images', 'chelsea.png')).convert('RGB').crop((120, 60, 150, 80))
W, H = src.size


def magick(args, out):
    src.save('/tmp/vkfx-formats-src.png')
    subprocess.run(['convert', '/tmp/vkfx-formats-src.png'] + args + [out], check=True)


def golden_pillow(name):
    im = Image.open(name)
    im.load()
    im.convert('RGBA' if im.mode in ('RGBA', 'LA', 'PA') or 'transparency' in im.info
               else 'L' if im.mode in ('L', '1') else 'RGB').save(name + '.png')


def golden(name, im):
    im.save(name + '.png')


def le(fmt, *v):
    return struct.pack('<' + fmt, *v)


# ---- GIF ----
q = src.quantize(64)
q.save('gif_pillow_palette.gif')
golden_pillow('gif_pillow_palette.gif')
magick(['-colors', '32', '-interlace', 'GIF'], 'gif_magick_interlaced.gif')
golden_pillow('gif_magick_interlaced.gif')
q.save('gif_pillow_transparent.gif', transparency=3)
golden_pillow('gif_pillow_transparent.gif')
q.save('gif_pillow_animated.gif', save_all=True, append_images=[src.rotate(180).quantize(64)])
golden_pillow('gif_pillow_animated.gif')

# A 6x4 screen with a 3x2 frame at (2,1): outside it the screen's background colour (index
# 2), as GIF89a defines it; Pillow leaves index 0 there, so the expected image is made here.
# The same frame with a transparent index: transparent outside, as Pillow reads it.
for name, gce in (('gif_gifbuild_background.gif', ''),
                  ('gif_gifbuild_transparent.gif',
                   'graphics control\n    transparent index 3\nend\n')):
    desc = ('screen width 6\nscreen height 4\nscreen colors 4\nscreen background 2\n'
            'pixel aspect byte 0\nscreen map\n'
            '    rgb 010 020 030 is a\n    rgb 200 100 050 is b\n    rgb 030 180 090 is c\n'
            '    rgb 250 250 250 is d\nend\n' + gce +
            'image # 0\nimage left 2\nimage top 1\nimage bits 3 by 2 ascii\naba\ndaa\n')
    with open(name, 'wb') as f:
        subprocess.run(['gifbuild'], input=desc.encode(), stdout=f, check=True)
    if gce:
        golden_pillow(name)
    else:
        im = Image.new('RGB', (6, 4), (30, 180, 90))
        for (x, y), c in {(2, 1): (10, 20, 30), (3, 1): (200, 100, 50), (4, 1): (10, 20, 30),
                          (2, 2): (250, 250, 250), (3, 2): (10, 20, 30), (4, 2): (10, 20, 30)}.items():
            im.putpixel((x, y), c)
        golden(name, im)

# ---- BMP ----
magick(['-colors', '200', '-compress', 'RLE'], 'BMP3:bmp_magick_rle8.bmp')
magick(['-colors', '16', '-compress', 'RLE'], 'BMP3:bmp_magick_rle4.bmp')
magick(['-colors', '100'], 'BMP2:bmp_magick_os2_v1.bmp')
magick(['-define', 'bmp:subtype=RGB565'], 'bmp_magick_565.bmp')
magick(['-define', 'bmp:subtype=RGB555'], 'bmp_magick_555.bmp')
for n in ('bmp_magick_rle8.bmp', 'bmp_magick_rle4.bmp', 'bmp_magick_os2_v1.bmp',
          'bmp_magick_565.bmp', 'bmp_magick_555.bmp'):
    golden_pillow(n)
rgba = src.convert('RGBA')
rgba.putalpha(Image.linear_gradient('L').resize((W, H)))
rgba.save('/tmp/vkfx-formats-rgba.png')
subprocess.run(['convert', '/tmp/vkfx-formats-rgba.png', 'bmp_magick_rgba.bmp'], check=True)
golden_pillow('bmp_magick_rgba.bmp')
subprocess.run(['convert', '/tmp/vkfx-formats-rgba.png', '-define', 'bmp:subtype=ARGB4444',
                'bmp_magick_argb4444.bmp'], check=True)
# Pillow refuses 4-4-4-4 masks, and ImageMagick reads 15 as 240: the expected image is the
# file's 4-bit fields read here, each scaled to 8 bits (times 17).
d = open('bmp_magick_argb4444.bmp', 'rb').read()
off, hs = struct.unpack_from('<I', d, 10)[0], struct.unpack_from('<I', d, 14)[0]
w, h = struct.unpack_from('<ii', d, 18)
masks = struct.unpack_from('<IIII', d, 54)
im = Image.new('RGBA', (w, abs(h)))
stride = (w * 16 + 31) // 32 * 4
for y in range(abs(h)):
    for x in range(w):
        v = struct.unpack_from('<H', d, off + stride * y + 2 * x)[0]
        im.putpixel((x, abs(h) - 1 - y if h > 0 else y),
                    tuple((v & m) // (m & -m) * 255 // ((m // (m & -m)) or 1) for m in masks))
golden('bmp_magick_argb4444.bmp', im)

pal_img = src.quantize(20)
pal = pal_img.getpalette()[:60]
idx = pal_img.tobytes()


def rows(data, w, h, bpp):
    stride = (w * bpp + 31) // 32 * 4
    out = b''
    for y in range(h - 1, -1, -1):
        r = data[y * w * bpp // 8:(y + 1) * w * bpp // 8]
        out += r + b'\0' * (stride - len(r))
    return out


def bmp(name, info, palette, pixels):
    off = 14 + len(info) + len(palette)
    with open(name, 'wb') as f:
        f.write(b'BM' + le('IHHI', off + len(pixels), 0, 0, off) + info + palette + pixels)


# OS/2 2.x, its 64-byte header, 8-bit palette of 20 colours (clrUsed).
info = le('IiiHHIIiiII', 64, W, H, 1, 8, 0, 0, 0, 0, 20, 0) + b'\0' * 24
palette = b''.join(bytes((pal[3 * i + 2], pal[3 * i + 1], pal[3 * i], 0)) for i in range(20))
bmp('bmp_hand_os2_v2.bmp', info, palette, rows(idx, W, H, 8))
golden_pillow('bmp_hand_os2_v2.bmp')
# OS/2 1.x (12-byte header) with a short palette: 20 of 256 entries, the pixels after them.
info = le('IHHHH', 12, W, H, 1, 8)
palette = b''.join(bytes((pal[3 * i + 2], pal[3 * i + 1], pal[3 * i])) for i in range(20))
bmp('bmp_hand_short_palette.bmp', info, palette, rows(idx, W, H, 8))
golden('bmp_hand_short_palette.bmp', pal_img.convert('RGB'))
# 24-bit pixels with a 16-colour palette before them, which the pixels do not use.
info = le('IiiHHIIiiII', 40, W, H, 1, 24, 0, 0, 0, 0, 16, 0)
rgb = src.tobytes()
bgr = bytes(b for i in range(0, len(rgb), 3) for b in (rgb[i + 2], rgb[i + 1], rgb[i]))
bmp('bmp_hand_24_with_palette.bmp', info, b'\x80' * 64, rows(bgr, W, H, 24))
golden_pillow('bmp_hand_24_with_palette.bmp')
# 32-bit pixels with alpha in a 56-byte (V3) header, masks in an order of their own:
# Pillow reads no 56-byte header, so the expected image is the source.
info = le('IiiHHIIiiII', 56, W, -H, 1, 32, 3, 0, 0, 0, 0, 0) + le('IIII', 0xFF, 0xFF00, 0xFF0000, 0xFF000000)
bmp('bmp_hand_v3_alpha_top_down.bmp', info, b'', rgba.tobytes())
golden('bmp_hand_v3_alpha_top_down.bmp', rgba)
# RLE8 by hand: runs, an absolute run of odd length, a line end, a delta over two pixels
# and one row, the end of the bitmap; pixels it skips are index 0, black here (as Pillow
# leaves them).
info = le('IiiHHIIiiII', 40, 8, 4, 1, 8, 1, 0, 0, 0, 4, 0)
palette = bytes((0, 0, 0, 0, 0, 0, 255, 0, 0, 255, 0, 0, 255, 0, 0, 0))
code = bytes((3, 1, 0, 3, 2, 3, 1, 0, 0, 0, 0, 2, 2, 1, 2, 3, 0, 1))
bmp('bmp_hand_rle8_delta.bmp', info, palette, code)
# Pillow 9.4 refuses RLE data that ends before the last row ("not enough image data").
im = Image.new('RGB', (8, 4))
for x, c in enumerate([(255, 0, 0)] * 3 + [(0, 255, 0), (0, 0, 255), (255, 0, 0)]):
    im.putpixel((x, 3), c)
im.putpixel((2, 1), (0, 0, 255))
im.putpixel((3, 1), (0, 0, 255))
golden('bmp_hand_rle8_delta.bmp', im)

# ---- TGA ----
src.save('tga_pillow_rle.tga', compression='tga_rle')
golden_pillow('tga_pillow_rle.tga')
# Right-to-left origins (descriptor bit 4): each row stored mirrored.
for name, top in (('tga_hand_right_to_left.tga', False), ('tga_hand_top_right.tga', True)):
    img = src.transpose(Image.FLIP_LEFT_RIGHT)
    if not top:
        img = img.transpose(Image.FLIP_TOP_BOTTOM)
    data = img.tobytes()
    data = bytes(b for i in range(0, len(data), 3) for b in (data[i + 2], data[i + 1], data[i]))
    with open(name, 'wb') as f:
        f.write(bytes((0, 0, 2)) + b'\0' * 5 + le('HHHH', 0, 0, W, H) +
                bytes((24, 0x10 | (0x20 if top else 0))) + data)
    golden_pillow(name)

# ---- PSD ----
magick([], 'psd_magick_rgb.psd')
golden_pillow('psd_magick_rgb.psd')
magick(['-colorspace', 'Gray'], 'psd_magick_gray.psd')
golden_pillow('psd_magick_gray.psd')
magick(['-compress', 'None'], 'psd_magick_raw.psd')
golden_pillow('psd_magick_raw.psd')
# Pillow reads no 16-bit PSD: compared with ImageMagick's decode.
magick(['-depth', '16', '-evaluate', 'multiply', '1.001'], 'psd_magick_16.psd')
subprocess.run(['convert', 'psd_magick_16.psd[0]', 'PNG48:psd_magick_16.psd.png'], check=True)
subprocess.run(['convert', '/tmp/vkfx-formats-rgba.png', 'psd_magick_rgba.psd'], check=True)
# ImageMagick writes a transparent composite unmatted (colour darker than a white matte
# allows), and Pillow reads it so.
golden_pillow('psd_magick_rgba.psd')

# ---- PNG orientation outside eXIf ----
from PIL import ImageOps, PngImagePlugin
# EXIF of orientation 6 as ImageMagick keeps it in a text chunk (its older releases; 6.9.11
# writes eXIf), hex after a line "exif" and a line of its length.
exif = Image.Exif()
exif[0x0112] = 6
raw = exif.tobytes()  # starts 'Exif\0\0', as ImageMagick's block does
hx = raw.hex()
info = PngImagePlugin.PngInfo()
info.add_text('Raw profile type exif', '\nexif\n%8d\n' % len(raw) +
              '\n'.join(hx[i:i + 72] for i in range(0, len(hx), 72)) + '\n', zip=True)
src.save('png_magick_text_exif6.png', pnginfo=info)
# XMP's tiff:Orientation alone, as Pillow reads it when EXIF has none.
info = PngImagePlugin.PngInfo()
info.add_itxt('XML:com.adobe.xmp',
              '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF '
              'xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description '
              'xmlns:tiff="http://ns.adobe.com/tiff/1.0/" tiff:Orientation="8"/></rdf:RDF>'
              '</x:xmpmeta>')
src.save('png_pillow_xmp_orientation8.png', pnginfo=info)
for n in ('png_magick_text_exif6.png', 'png_pillow_xmp_orientation8.png'):
    ImageOps.exif_transpose(Image.open(n)).convert('RGB').save(n + '.png')

# ---- A resolution kept in EXIF alone ----
# JFIF says only "square pixels" (unit 0, 1:1): the 300 dpi is in EXIF's IFD0.
exif = Image.Exif()
exif[0x011A] = 300.0
exif[0x011B] = 300.0
exif[0x0128] = 2
src.save('jpeg_pillow_dpi_in_exif.jpg', quality=95, exif=exif.tobytes())
