#version 460
// Exclusive prefix sums along short lines of a 64-bit RGBA buffer: the
// carries between the tiles of the summed-area table (sat_tile.comp).
// Element i of line l is at l * lstride + i * estride. A work group takes
// gl_WorkGroupSize.x neighbouring lines (so each step reads neighbouring
// elements) and cuts each into gl_WorkGroupSize.y parts of an even number
// of elements: every invocation sums its part, the parts before it come
// from shared memory, and a second walk over the part writes the exclusive
// sums. Wraps modulo 2^64 like the table.
//
// Along each row (ADD_LEFT off): element i is half-tile i of the sums pass,
// which wrote L(TW/2 - 1, y) for even i and L(TW - 1, y) for odd i, both
// from the left edge of the tile; an odd element counts its difference from
// the even one before it, the sum of its own half.
//
// Down each column (ADD_LEFT on): line l is column x = l, element i its
// tile row i, holding L(x, bottom) of that tile row's sums-pass tile; the
// sum of the rows of the tile row left of that tile, already carried in
// `left` (the even half-tile's entry on the tile row's last row in the
// image), completes the tile row's share of every S below it.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "scan.glsl"
#define SAT_CARRY
#include "sat.h"

layout(constant_id = SAT_SPEC_ADD_LEFT) const bool ADD_LEFT = false;

layout(binding = 0) buffer Lines { i64vec4 e[]; };
layout(binding = 1) readonly buffer Left { i64vec4 left[]; };

shared i64vec4 part[256];

void main()
{
    const uint NL = gl_WorkGroupSize.x, NP = gl_WorkGroupSize.y;
    uint lx = gl_LocalInvocationID.x, p = gl_LocalInvocationID.y;
    uint l = gl_WorkGroupID.x * NL + lx;
    bool live = l < pc.nlines;
    uint chunk = ((pc.len + NP - 1u) / NP + 1u) & ~1u;
    uint i0 = min(pc.len, p * chunk), i1 = min(pc.len, i0 + chunk);
    // Column x's tile reaches its left neighbours' sums through half-tile
    // 2 (x / tile_w).
    uint lbase = (l / max(pc.tile_w, 1u)) * 2u * pc.height;

    // d(i): element i's own share; `raw` the element before it.
    i64vec4 s = i64vec4(0), raw = i64vec4(0);
    if (live)
        for (uint i = i0; i < i1; i++) {
            i64vec4 v = e[l * pc.lstride + i * pc.estride];
            if (ADD_LEFT)
                s += v + left[lbase + min(pc.height - 1u, i * pc.tile_h + pc.tile_h - 1u)];
            else
                s += (i & 1u) == 1u ? v - raw : v;
            raw = v;
        }
    part[p * NL + lx] = s;
    barrier();
    i64vec4 run = i64vec4(0);
    for (uint q = 0u; q < p; q++)
        run += part[q * NL + lx];
    if (live)
        for (uint i = i0; i < i1; i++) {
            uint at = l * pc.lstride + i * pc.estride;
            i64vec4 v = e[at];
            e[at] = run;
            if (ADD_LEFT)
                run += v + left[lbase + min(pc.height - 1u, i * pc.tile_h + pc.tile_h - 1u)];
            else
                run += (i & 1u) == 1u ? v - raw : v;
            raw = v;
        }
}
