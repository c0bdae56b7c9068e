#version 460
// resize along x of an rgba16f image, one pass of two (glsl/resize.comp's vertical pass
// follows), for factors whose runs fit shared memory: each row of the work group makes as
// many neighbouring outputs of one image row as the group is wide. Its invocations first copy
// the inputs those outputs read (the span from the host's table) into shared memory as packed
// halves (exactly), neighbouring invocations reading neighbouring texels; each then sums its
// output's run from there. Reading the runs straight from the image, neighbouring invocations
// read texels a factor apart, which the texture unit serves at a fraction of its rate (on the
// GPU machine, about a third; at rgba32f the texture path is the faster there:
// tests/bench/RESULTS.md, resize).
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#define RESIZE_ROWS
#include "resize.h"

layout(binding = 0) uniform sampler2D src;
layout(binding = 1) writeonly uniform image2D dst;
layout(binding = 2) readonly buffer Table {
    uint words[];
} table;

layout(constant_id = RESIZE_SPEC_SPAN) const uint SPAN = 64;

const uint GW = gl_WorkGroupSize.x, GH = gl_WorkGroupSize.y;
shared uvec2 rows[GH * SPAN];

void put(uint i, vec4 v)
{
    rows[i] = uvec2(packHalf2x16(v.xy), packHalf2x16(v.zw));
}

vec4 get(uint i)
{
    const uvec2 h = rows[i];
    return vec4(unpackHalf2x16(h.x), unpackHalf2x16(h.y));
}

void main()
{
    const uint lx = gl_LocalInvocationID.x, ly = gl_LocalInvocationID.y;
    const uint y = gl_WorkGroupID.y * GH + ly;
    const uint x0 = table.words[pc.tiles + 2u * gl_WorkGroupID.x];
    const uint span = table.words[pc.tiles + 2u * gl_WorkGroupID.x + 1u] - x0;
    if (y < uint(pc.size.y))
        for (uint c = lx; c < span; c += GW)
            put(ly * SPAN + c, texelFetch(src, ivec2(x0 + c, y), 0));
    barrier();
    const uint ox = gl_WorkGroupID.x * GW + lx, w = uint(pc.size.x);
    if (ox >= w || y >= uint(pc.size.y))
        return;
    const uint first = table.words[2u * ox] - x0, n = table.words[2u * ox + 1u];
    vec4 sum = vec4(0.0);
    for (uint k = 0u; k < n; k++)
        sum = mad_rounded(sum, uintBitsToFloat(table.words[(2u + k) * w + ox]),
                         get(ly * SPAN + first + k));
    imageStore(dst, ivec2(ox, y), to_stored(sum));
}
