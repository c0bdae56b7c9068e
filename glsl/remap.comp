#version 460
// remap: output pixel p is input pixel origin + p.x step_x + p.y step_y, copied exactly (crop,
// rotate and flip, core/filters/geometry.c). Work group 16 x 16, one output per invocation;
// no shared memory.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

layout(binding = 0) uniform sampler2D src;
layout(binding = 1) writeonly uniform image2D dst;

#include "remap.h"

void main()
{
    const ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (any(greaterThanEqual(p, pc.size)))
        return;
    const ivec2 q = pc.origin + p.x * pc.step_x + p.y * pc.step_y;
    imageStore(dst, p, to_stored(texelFetch(src, q, 0)));
}
