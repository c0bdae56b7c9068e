#version 460
// Column pass of the rolling box sum (see box_row): each invocation walks
// PER outputs down one column, summing its first window and then adding the
// pixel that enters and subtracting the one that leaves, so the cost per
// output does not grow with R. Work group 32 x 8: the 32 invocations of a
// row read neighbouring texels through the texture cache. No shared memory.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "common.glsl"
#include "box.h"

layout(constant_id = BOX_V_SPEC_PER) const int PER = 16;

layout(binding = 0) uniform sampler2D src;
layout(binding = 1) writeonly uniform image2D dst;


void main()
{
    const int R = pc.radius;
    const ivec2 first = ivec2(gl_GlobalInvocationID.x, gl_GlobalInvocationID.y * PER);
    if (any(greaterThanEqual(first, pc.size)))
        return;
    vec4 sum = vec4(0.0);
    for (int k = -R; k <= R; k++)
        sum += load_clamped(src, first + ivec2(0, k), pc.size);
    [[unroll]] for (int j = 0; j < PER; j++) {
        ivec2 p = first + ivec2(0, j);
        if (p.y >= pc.size.y)
            return;
        imageStore(dst, p, to_stored(sum * pc.scale));
        sum += load_clamped(src, p + ivec2(0, R + 1), pc.size) -
               load_clamped(src, p + ivec2(0, -R), pc.size);
    }
}
