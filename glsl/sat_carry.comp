#version 460
// Exclusive prefix sums along short lines of a 64-bit RGBA buffer, one
// invocation per line walking it in order: the carries between the tiles
// of the summed-area table (down each column over the tile rows, along each
// row over the tile columns). Element i of line l is at l * lstride +
// i * estride; 64 invocations per work group, consecutive lines side by
// side so that each step reads and writes neighbouring elements. Wraps
// modulo 2^64 like the table.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "scan.glsl"

layout(binding = 0) buffer Lines { i64vec4 e[]; };

layout(push_constant) uniform Push {
    uint nlines, len, estride, lstride;
} pc;

void main()
{
    uint l = gl_GlobalInvocationID.x;
    if (l >= pc.nlines)
        return;
    i64vec4 run = i64vec4(0);
    for (uint i0 = 0u; i0 < pc.len; i0 += 8u) {
        i64vec4 v[8];
        for (uint k = 0u; k < 8u; k++)
            v[k] = i0 + k < pc.len ? e[l * pc.lstride + (i0 + k) * pc.estride] : i64vec4(0);
        for (uint k = 0u; k < 8u && i0 + k < pc.len; k++) {
            e[l * pc.lstride + (i0 + k) * pc.estride] = run;
            run += v[k];
        }
    }
}
