#version 460
// bokeh, pass 1: counts each row's hot spots (bokeh.glsl) into rows[y]. One
// work group of 256 per row; the count is order-independent (a shared
// atomic counter).
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

layout(binding = 0) uniform sampler2D src;
layout(binding = 1) readonly buffer Depth { float depth[]; };
layout(binding = 2) writeonly buffer Rows { uint rows[]; };

#include "bokeh.glsl"

shared uint count;

void main()
{
    uint y = gl_WorkGroupID.x, lid = gl_LocalInvocationIndex;
    if (lid == 0u)
        count = 0u;
    barrier();
    uint n = 0u;
    for (uint x = lid; x < uint(pc.size.x); x += gl_WorkGroupSize.x) {
        uint index = y * uint(pc.size.x) + x;
        if (is_hot(texelFetch(src, ivec2(x, y), 0), pixel_coc(index)))
            n++;
    }
    atomicAdd(count, n);
    barrier();
    if (lid == 0u)
        rows[y] = count;
}
