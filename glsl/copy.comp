#version 460
// The bandwidth reference for vkfx bench: reads each pixel once and writes
// it once, 16x16 work groups, nothing in shared memory. Timings of every
// filter are reported as a ratio to this kernel on the same image.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

layout(binding = 0) uniform sampler2D src;
layout(binding = 1) writeonly uniform image2D dst;

#define COPY
#include "bench.h"

void main()
{
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (any(greaterThanEqual(p, pc.size)))
        return;
    imageStore(dst, p, to_stored(texelFetch(src, p, 0)));
}
