#version 460
// The read-only reference for vkfx bench: reads each pixel once, as the copy
// kernel does, and writes nothing but a flag should a pixel's sum equal the
// push constant `never` (a NaN, so it never does; the comparison keeps the
// reads alive). A pass that only reads an image (histogram) is measured
// against it. 16x16 work groups, nothing in shared memory.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

layout(binding = 0) uniform sampler2D src;
layout(binding = 1) buffer Flag { uint flag; };

#define READ
#include "bench.h"

void main()
{
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (any(greaterThanEqual(p, pc.size)))
        return;
    vec4 c = texelFetch(src, p, 0);
    if (c.x + c.y + c.z + c.w == pc.never)
        flag = 1u;
}
