#version 460
// Vertical pass of the rolling box sum (see box_h): each invocation walks
// SEG outputs down one column; neighbouring invocations take neighbouring
// columns, so every step reads a contiguous row segment. Work group 64 x 1
// over (columns, segments); no shared memory.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

layout(constant_id = 4) const uint SEG = 64;

layout(binding = 0) uniform sampler2D src;
layout(binding = 1) writeonly uniform image2D dst;

layout(push_constant) uniform Push {
    ivec2 size;
    int radius;
    float scale;
} pc;

void main()
{
    const int R = pc.radius;
    const int x = int(gl_GlobalInvocationID.x);
    const int y0 = int(gl_GlobalInvocationID.y * SEG);
    if (x >= pc.size.x || y0 >= pc.size.y)
        return;
    vec4 sum = vec4(0.0);
    for (int k = -R; k <= R; k++)
        sum += load_clamped(src, ivec2(x, y0 + k), pc.size);
    const int y1 = min(y0 + int(SEG), pc.size.y);
    for (int y = y0;; y++) {
        imageStore(dst, ivec2(x, y), sum * pc.scale);
        if (y + 1 >= y1)
            break;
        sum += load_clamped(src, ivec2(x, y + 1 + R), pc.size) -
               load_clamped(src, ivec2(x, y - R), pc.size);
    }
}
