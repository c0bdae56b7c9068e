#!/bin/sh
# Writes the seed corpora of the fuzz harnesses: chain texts for every filter
# and option (valid, escaped and broken), and tiny images in every variant of
# each input format, made with ImageMagick (Debian's imagemagick) from a crop
# of images/chelsea.png and with vkfx itself for OpenEXR. Run from anywhere:
#   tests/fuzz/make_seeds.sh path/to/vkfx
set -eu
here=$(cd "$(dirname "$0")" && pwd)
vkfx=${1:?usage: make_seeds.sh VKFX_BINARY}
src="$here/../../images/chelsea.png"
c="$here/corpus/chain"
d="$here/corpus/decode"
rm -rf "$c" "$d"
mkdir -p "$c" "$d"

n=0
chain() { n=$((n + 1)); printf '%s' "$1" > "$c/$(printf 'c%03d' $n)"; }
chain 'gauss:sigma=3'
chain 'gauss:sigma=0.5:radius=4,sobel:invert=1:gain=2'
chain 'box:radius=15,box3:order=zorder,box3:order=linear'
chain 'bilateral:sigma_s=3:sigma_r=0.1:radius=6'
chain 'cartoon:sigma=2:gain=4'
chain 'ripple:drops=12:seed=3:steps=120:speed=0.5:damping=0.01:strength=200'
chain 'satblur:radius=12:shape=smooth'
chain 'satblur:map=radius.png:scale=32'
chain 'satdof:depth=d.png:focus=0.75:range=0.4:maxcoc=12:kind=disparity:shape=box'
chain 'dof:depth=render.exr#ViewLayer.Depth.Z:focus=5:range=3:maxcoc=12:strength=1'
chain 'bokeh:depth=self:threshold=0.5:gain=1:blades=6:base=satdof:max=100'
chain 'histogram:out=h.json:plot=h.png,tonemap:key=0.18:white=4'
chain 'satdof:depth=my\,file\:name\=x.png'
chain 'gaus:sigma=1'
chain 'gauss:sigma=0'
chain 'gauss:sigma=abc'
chain 'gauss:sigma'
chain 'gauss:radius=1e99'
chain 'box:radius=-1,,sobel'
chain 'sobel:invert=yes:gain=nan'
chain 'gauss:sigma=1:sigma=2'
chain ',:=\'

# Images: an 8x6 crop (a 16x6 one where a format encodes long rows
# differently), in each layout the decoders distinguish.
t=$(mktemp -d)
convert "$src" -crop 16x6+100+100 +repage "$t/base16.png"
convert "$t/base16.png" -crop 8x6+0+0 +repage "$t/base.png"
# im NAME OPTIONS [SOURCE] [CODER:]
im() { convert "$t/${3:-base}.png" $2 "${4:-}$d/$1"; }
im png-rgb8.png '' base PNG24:
im png-rgba8.png '-alpha set -channel A -evaluate set 60% +channel' base PNG32:
im png-gray8.png '-colorspace gray -depth 8 -define png:color-type=0'
im png-graya8.png '-colorspace gray -alpha set -channel A -evaluate set 50% +channel -define png:color-type=4'
im png-gray16.png '-colorspace gray -depth 16 -define png:color-type=0'
im png-rgb16.png '-depth 16' base PNG48:
im png-palette-trns.png '-alpha set -channel A -fx "i%2" +channel -colors 8 -define png:color-type=3'
im png-interlaced.png '-interlace PNG' base PNG24:
im png-gray1.png '-colorspace gray -monochrome -depth 1'
im jpeg-baseline.jpg '-quality 80'
im jpeg-progressive.jpg '-interlace JPEG -quality 80'
im jpeg-gray.jpg '-colorspace gray'
im bmp-24.bmp '-type TrueColor' base BMP3:
im bmp-32.bmp '-alpha set -define bmp:format=bmp4'
im bmp-8-palette.bmp '-colors 16 -type Palette' base BMP3:
im tga-raw.tga '-type TrueColor -compress None'
im tga-rle.tga '-type TrueColor -compress RLE' base16
im tga-gray.tga '-colorspace gray -compress None'
im gif-one.gif '-colors 16'
convert "$t/base.png" "$t/base.png" -flip -delay 10 "$d/gif-two-frames.gif"
im psd-8.psd '-type TrueColor -depth 8'
im psd-16.psd '-type TrueColor -depth 16'
im hdr-rle.hdr '' base16
im hdr-flat.hdr '-crop 4x6+0+0 +repage'
"$vkfx" "$t/base.png" -f box:radius=0 -o "$d/exr-half.exr"
"$vkfx" "$t/base.png" -f box:radius=0 -o "$d/exr-float.exr" --exr-float
rm -rf "$t"
ls "$c" | wc -l
ls -l "$d"
