#version 460
// Horizontal pass of the box blur as a rolling (sliding-window) sum, the
// seed's DirectCompute technique: each invocation walks SEG outputs of one
// row, adding the pixel that enters the window and subtracting the one that
// leaves, so the cost per output does not grow with R. Work group 64 x 1
// over (segments, rows); no shared memory: consecutive reads of one
// invocation hit the same cache lines. Segments restart the sum, which
// bounds float drift. Output is the window sum times 1/(2R+1).
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "box.h"

layout(constant_id = BOX_H_SPEC_SEG) const uint SEG = 64;

layout(binding = 0) uniform sampler2D src;
layout(binding = 1) writeonly uniform image2D dst;


void main()
{
    const int R = pc.radius;
    const int y = int(gl_GlobalInvocationID.y);
    const int x0 = int(gl_GlobalInvocationID.x * SEG);
    if (y >= pc.size.y || x0 >= pc.size.x)
        return;
    vec4 sum = vec4(0.0);
    for (int k = -R; k <= R; k++)
        sum += load_clamped(src, ivec2(x0 + k, y), pc.size);
    const int x1 = min(x0 + int(SEG), pc.size.x);
    for (int x = x0;; x++) {
        imageStore(dst, ivec2(x, y), to_stored(sum * pc.scale));
        if (x + 1 >= x1)
            break;
        sum += load_clamped(src, ivec2(x + 1 + R, y), pc.size) -
               load_clamped(src, ivec2(x - R, y), pc.size);
    }
}
