#version 460
// Cartoon combine: given b = gauss(sigma) of the image, darkens b by its own
// Sobel edge value, out = b.rgb * (1 - e) with b's alpha. Work group 32 x 8;
// each invocation walks PER rows of one column with the rolling three-row
// window of sobel.glsl. No shared memory.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "common.glsl"
#include "sobel.glsl"
#include "cartoon.h"

layout(constant_id = CARTOON_SPEC_PER) const int PER = 8;

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
        vec4 b = texelFetch(src, p, 0);
        precise vec3 dark = b.rgb * (1.0 - e); // rounded as written on every device
        imageStore(dst, p, to_stored(vec4(dark, b.a)));
        top = mid;
        mid = bot;
    }
}
