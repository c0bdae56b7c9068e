#version 460
// Copies rows [first, first + rows) of a summed-area table (two rgba32ui
// images of low and high halves, sat_tile.comp) into a buffer of
// 64-bit RGBA, row-major: how tests read a table back. 16x16 work groups.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "scan.glsl"
#define SAT_EXPORT
#include "sat.h"

layout(binding = 0) uniform usampler2D sat_lo;
layout(binding = 1) uniform usampler2D sat_hi;
layout(binding = 2) writeonly buffer Out { i64vec4 e[]; };

void main()
{
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (p.x >= pc.size.x || p.y >= pc.rows)
        return;
    ivec2 q = ivec2(p.x, pc.first + p.y);
    e[uint(p.y) * uint(pc.size.x) + uint(p.x)] =
        join32(texelFetch(sat_lo, q, 0), texelFetch(sat_hi, q, 0));
}
