#version 460
// Exclusive prefix sums along short lines of a 64-bit RGBA buffer: the
// carries between the tiles of the summed-area table (sat_tile_body.glsl).
// Element i of line l is at l * lstride + i * estride. A work group takes
// gl_WorkGroupSize.x neighbouring lines (so each step reads neighbouring
// elements) and cuts each into gl_WorkGroupSize.y parts: every invocation
// sums its part, the parts before it come from shared memory, and a second
// walk over the part writes the exclusive sums. Wraps modulo 2^64 like the
// table.
//
// ADD_LEFT (the sums above each tile): line l is column x = l, element i its
// tile row i, holding L(x, bottom) of that tile; the sum of the rows of tile
// row i left of x's tile, already carried in `left` (rows[tile column][y],
// y the tile row's last row in the image), completes the tile row's share of
// every S below it.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "scan.glsl"

layout(constant_id = 4) const bool ADD_LEFT = false;

layout(binding = 0) buffer Lines { i64vec4 e[]; };
layout(binding = 1) readonly buffer Left { i64vec4 left[]; };

layout(push_constant) uniform Push {
    uint nlines, len, estride, lstride;
    uint tile_w, tile_h, height;
} pc;

shared i64vec4 part[256];

i64vec4 element(uint l, uint i)
{
    i64vec4 v = e[l * pc.lstride + i * pc.estride];
    if (ADD_LEFT)
        v += left[(l / pc.tile_w) * pc.height + min(pc.height - 1u, i * pc.tile_h + pc.tile_h - 1u)];
    return v;
}

void main()
{
    const uint NL = gl_WorkGroupSize.x, NP = gl_WorkGroupSize.y;
    uint lx = gl_LocalInvocationID.x, p = gl_LocalInvocationID.y;
    uint l = gl_WorkGroupID.x * NL + lx;
    bool live = l < pc.nlines;
    uint chunk = (pc.len + NP - 1u) / NP;
    uint i0 = min(pc.len, p * chunk), i1 = min(pc.len, i0 + chunk);

    i64vec4 s = i64vec4(0);
    if (live)
        for (uint i = i0; i < i1; i++)
            s += element(l, i);
    part[p * NL + lx] = s;
    barrier();
    i64vec4 run = i64vec4(0);
    for (uint q = 0u; q < p; q++)
        run += part[q * NL + lx];
    if (live)
        for (uint i = i0; i < i1; i++) {
            i64vec4 v = element(l, i);
            e[l * pc.lstride + i * pc.estride] = run;
            run += v;
        }
}
