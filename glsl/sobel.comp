#version 460
// Sobel edges: e from the 3x3 Sobel gradients (glsl/sobel.glsl), written as
// the straight colour e (or 1 - e) with the pixel's alpha kept. Work group
// 32 x 8; each invocation walks PER rows of one column with a rolling
// three-row window in registers (3 texel reads per output instead of 9),
// neighbouring invocations reading neighbouring columns. No shared memory.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "common.glsl"
#include "sobel.glsl"
#include "sobel.h"

layout(constant_id = SOBEL_SPEC_PER) const int PER = 8;

layout(binding = 0) uniform sampler2D src;
layout(binding = 1) writeonly uniform image2D dst;

void main()
{
    const ivec2 first = ivec2(gl_GlobalInvocationID.x, gl_GlobalInvocationID.y * PER);
    if (any(greaterThanEqual(first, pc.size)))
        return;
    sobel_row top = sobel_load_row(src, first + ivec2(0, -1), pc.size);
    sobel_row mid = sobel_load_row(src, first, pc.size);
    [[unroll]] for (int j = 0; j < PER; j++) {
        ivec2 p = first + ivec2(0, j);
        if (p.y >= pc.size.y)
            return;
        sobel_row bot = sobel_load_row(src, p + ivec2(0, 1), pc.size);
        float e = sobel_edge(top, mid, bot, pc.gain);
        if (pc.invert != 0u)
            e = 1.0 - e;
        float a = texelFetch(src, p, 0).a;
        imageStore(dst, p, to_stored(vec4(vec3(e * a), a)));
        top = mid;
        mid = bot;
    }
}
