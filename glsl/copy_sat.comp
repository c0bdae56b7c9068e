#version 460
// The bandwidth reference for building a summed-area table in vkfx bench:
// reads each pixel once, as the copy kernel does, and writes 32 bytes per
// pixel into two rgba32ui images, the table's layout (sat_tile.comp),
// with no arithmetic: what a table pass would cost if it only moved its
// bytes. 16x16 work groups, nothing in shared memory.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

layout(binding = 0) uniform sampler2D src;
layout(binding = 1, rgba32ui) writeonly uniform uimage2D lo;
layout(binding = 2, rgba32ui) writeonly uniform uimage2D hi;

#define COPY
#include "bench.h"

void main()
{
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (any(greaterThanEqual(p, pc.size)))
        return;
    uvec4 b = floatBitsToUint(texelFetch(src, p, 0));
    imageStore(lo, p, b);
    imageStore(hi, p, ~b);
}
