#version 460
// resize, one axis: each output is the weighted sum of a run of inputs along x (or y with
// vertical), first index, count and weights read from a table the host computed (Pillow's
// ImagingResample scheme, core/filters/resize.c). Work group 16 x 16 (8 x 32 along y), one
// output per invocation; no shared memory (the taps of neighbouring outputs overlap in the
// texture cache). The passes where glsl/resize_walk.comp does not apply: along y, and along x
// where glsl/resize_rows.comp does not apply either. Making two to eight neighbouring outputs
// per invocation, each texel of their runs read once, measured slower on the GPU machine
// (tests/bench/RESULTS.md, resize).
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#define RESIZE_AXIS
#include "resize.h"

layout(binding = 0) uniform sampler2D src;
layout(binding = 1) writeonly uniform image2D dst;
layout(binding = 2) readonly buffer Table {
    uint words[];
} table;


void main()
{
    const ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (any(greaterThanEqual(p, pc.size)))
        return;
    const bool v = pc.vertical != 0u;
    const uint i = uint(v ? p.y : p.x);
    const int first = int(table.words[2u * i]);
    const uint count = table.words[2u * i + 1u];
    const uint n = v ? uint(pc.size.y) : uint(pc.size.x);
    const uint base = 2u * n + i;
    vec4 sum = vec4(0.0);
    for (uint k = 0u; k < count; k++) {
        const float w = uintBitsToFloat(table.words[base + k * n]);
        const ivec2 q = v ? ivec2(p.x, first + int(k)) : ivec2(first + int(k), p.y);
        sum = mad_rounded(sum, w, texelFetch(src, q, 0));
    }
    imageStore(dst, p, to_stored(sum));
}
