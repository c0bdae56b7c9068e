#version 460
// 3x3 box blur (box:radius=1): the mean of each pixel's clamp-to-edge 3x3
// neighbourhood, nine texel reads per output summed in one fixed order so
// that both thread orders give the same bits. Work group 256 x 1 x 1
// covering a 16 x 16 tile; invocation i takes pixel (i % 16, i / 16) of the
// tile (ORDER 0, row by row) or the Morton decode of i (ORDER 1, Z-order).
// No shared memory: neighbours come through the texture cache. Ports the
// seed's 3x3 blur with Morton/Z-order thread mapping.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "common.glsl"
#include "morton.glsl"
#include "box3.h"

const uint TILE = 16;
// 0: row by row, 1: Morton (Z-order).
layout(constant_id = BOX3_SPEC_ORDER) const uint ORDER = 0;

layout(binding = 0) uniform sampler2D src;
layout(binding = 1) writeonly uniform image2D dst;

void main()
{
    const uint i = gl_LocalInvocationIndex;
    const uvec2 local = ORDER == 1u ? morton_decode(i) : uvec2(i % TILE, i / TILE);
    const ivec2 p = ivec2(gl_WorkGroupID.xy * TILE + local);
    if (any(greaterThanEqual(p, pc.size)))
        return;
    vec4 sum = vec4(0.0);
    [[unroll]] for (int dy = -1; dy <= 1; dy++)
        [[unroll]] for (int dx = -1; dx <= 1; dx++)
            sum += load_clamped(src, p + ivec2(dx, dy), pc.size);
    imageStore(dst, p, to_stored(sum * (1.0 / 9.0)));
}
