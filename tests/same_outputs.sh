#!/bin/sh
# Runs every filter (each kernel variant lavapipe can take, through its options) on every photo
# of images/ with two vkfx binaries, to 8-bit/16-bit PNG and to OpenEXR (also at --precision 32),
# and fails unless every output of NEW equals OLD's byte for byte. For a change that must not
# move a single output:
#   tests/same_outputs.sh OLD_VKFX NEW_VKFX WORKDIR
# OLD's outputs are kept in WORKDIR/old and reused while WORKDIR/old/done exists.
# CHAINS, a grep -E pattern, keeps only the chains it matches; a WORKDIR/old made with another
# CHAINS is made again. A chain followed by file names runs on those photos only: bilateral's
# 81x81 window takes minutes a photo on a software device, and its two smallest photos still
# have windows both inside the image and cut by every edge.
set -eu
if [ $# -ne 3 ]; then
    echo "usage: $0 OLD_VKFX NEW_VKFX WORKDIR" >&2
    exit 2
fi
old=$1 new=$2 work=$3
root=$(cd "$(dirname "$0")/.." && pwd)
images="$root/images"
depth="depth={dir}/{name}"

chains() {
    cat <<CHAINS
gauss:sigma=0.5
gauss:sigma=2
gauss:sigma=3
gauss:sigma=8
gauss:sigma=2:radius=40
box:radius=0
box:radius=1
box:radius=7
box:radius=16
box:radius=40
box:radius=600
box3
box3:order=zorder
bilateral:sigma_s=4:sigma_r=0.08
bilateral:sigma_s=2:sigma_r=0.2:radius=40 linear-light.png chelsea.png
sobel
sobel:invert=1:gain=2
cartoon
ripple:drops=12:seed=3:steps=120:strength=200
histogram,sobel
tonemap
tonemap:key=0.36:white=2
satblur:radius=12
satblur:radius=12:shape=smooth
satblur:map={dir}/{name}:scale=8
satdof:$depth:focus=0.5:range=0.3:maxcoc=8
dof:$depth:focus=0.5:range=0.3:maxcoc=8
bokeh:$depth:threshold=0.5:maxcoc=10:focus=0:range=1:blades=6
gauss:sigma=1,sobel:invert=1
unsharp
unsharp:sigma=3:amount=2:threshold=0.02
grayscale
resize:width=300
resize:scale=0.37:kernel=mitchell
resize:longest=1500:kernel=linear
resize:width=200:height=200:fit=cover:kernel=box
crop:x=10:y=20:width=100:height=60
rotate:angle=270
flip:axis=v
CHAINS
}

# The chains this run compares.
chosen() {
    chains | grep -E -- "${CHAINS:-.}"
}

# run BINARY OUTDIR: every chosen chain on every photo, one batch per chain and output format.
run() {
    bin=$1 out=$2
    i=0
    chosen | while read -r chain photos; do
        i=$((i + 1))
        if [ -n "$photos" ]; then
            set --
            for p in $photos; do
                set -- "$@" "$images/$p"
            done
        else
            set -- "$images"/*.png "$images"/*.jpg
        fi
        for fmt in png exr exr32; do
            case $fmt in
            png) ext=png precision=16 ;;
            exr) ext=exr precision=16 ;;
            exr32) ext=exr precision=32 ;;
            esac
            dir="$out/$i-$fmt"
            mkdir -p "$dir"
            if ! "$bin" -f "$chain" --precision "$precision" -o "$dir/{stem}.$ext" "$@" \
                >"$dir/log" 2>&1; then
                echo "$bin -f '$chain' --precision $precision failed:" >&2
                cat "$dir/log" >&2
                exit 1
            fi
            echo "$chain" >"$dir/chain"
        done
    done
}

mkdir -p "$work"
chosen >"$work/chosen"
if [ ! -e "$work/old/done" ] || ! cmp -s "$work/chosen" "$work/old/done"; then
    rm -rf "$work/old"
    run "$old" "$work/old"
    cp "$work/chosen" "$work/old/done"
fi
rm -rf "$work/new"
run "$new" "$work/new"
differ=0
for f in "$work"/old/*/*.png "$work"/old/*/*.exr; do
    g="$work/new/${f#"$work"/old/}"
    if ! cmp -s "$f" "$g"; then
        d=$(dirname "$f")
        echo "differs: $(cat "$d/chain") -> ${f#"$work"/old/}" >&2
        differ=1
    fi
done
n=$(ls "$work"/old/*/*.png "$work"/old/*/*.exr | wc -l)
if [ $differ -ne 0 ]; then
    echo "same_outputs: outputs differ (of $n)" >&2
    exit 1
fi
echo "same_outputs: all $n outputs identical"
