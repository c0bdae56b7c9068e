#!/bin/sh
# Times every filter with two vkfx builds on one machine, alternating, twice each, then the new
# build's kernel variants side by side:
#   tests/bench/compare_builds.sh OLD_VKFX NEW_VKFX [OUTDIR]
# SIZE (default 4096x4096) and REPS (default 50) set the image and the timed runs; the depth
# map the depth-of-field filters need is written to OUTDIR (default bench-out) at that size.
# Each run's table goes to OUTDIR/NAME-N.txt and to the terminal.
set -eu
if [ $# -lt 2 ]; then
    echo "usage: $0 OLD_VKFX NEW_VKFX [OUTDIR]" >&2
    exit 2
fi
old=$1 new=$2 out=${3:-bench-out}
size=${SIZE:-4096x4096}
reps=${REPS:-50}
mkdir -p "$out"
w=${size%x*} h=${size#*x}
depth="$out/depth-$size.png"
python3 "$(dirname "$0")/depth_ramp.py" "$w" "$h" "$depth"
set -- gauss:sigma=2 gauss:sigma=8 gauss:sigma=5:radius=32 gauss:sigma=2:radius=40 \
    box:radius=1 box:radius=15 box:radius=40 box3 box3:order=zorder \
    bilateral:sigma_s=4:sigma_r=0.08 sobel cartoon ripple:steps=120 histogram tonemap \
    satblur:radius=12 satblur:radius=12:shape=smooth "satdof:depth=$depth:maxcoc=12" \
    "dof:depth=$depth:maxcoc=12" "bokeh:depth=$depth:threshold=0.5:maxcoc=10"
for round in 1 2; do
    for build in old new; do
        eval bin=\$$build
        echo "== $build ($bin), round $round"
        "$bin" bench --size "$size" --reps "$reps" "$@" | tee "$out/$build-$round.txt"
    done
done
echo "== new, every kernel variant"
"$new" bench --size "$size" --reps "$reps" --variants "$@" grayscale | tee "$out/new-variants.txt"
