#version 460
// Vertical pass of the separable Gaussian (same weights as gauss_h). Work
// group 32 x LY: a tile of 32 columns and LY*ROWS rows; each invocation
// produces ROWS consecutive outputs of one column, reading each of its
// ROWS + 2R inputs from shared memory once and adding it to every output
// it touches (register blocking). Shared memory holds the tile with its
// 2R halo rows and the weights: the seed's shared-memory tile with halo,
// turned on its side. HALO = 0: direct reads for radii too large to share.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "gauss.h"
#include "gauss_taps.glsl"

layout(constant_id = V_SPEC_ROWS) const uint ROWS = 4;  // outputs per invocation
layout(constant_id = V_SPEC_HALO) const uint HALO = 8;  // shared capacity for R (0: direct reads)

layout(binding = 0) uniform sampler2D src;
layout(binding = 1) writeonly uniform image2D dst;


const uint W = gl_WorkGroupSize.x;
const uint TH = gl_WorkGroupSize.y * ROWS;
shared vec4 tile[(TH + 2u * HALO) * W];
shared float weight[HALO + 1u];

void main()
{
    const int R = pc.radius;
    const int lx = int(gl_LocalInvocationID.x), ly = int(gl_LocalInvocationID.y);
    const int x = int(gl_WorkGroupID.x * W) + lx;
    const int y0 = int(gl_WorkGroupID.y * TH);
    const int first = y0 + ly * int(ROWS);
    if (HALO == 0u) {
        if (x >= pc.size.x)
            return;
        for (int j = 0; j < int(ROWS); j++) {
            int y = first + j;
            if (y >= pc.size.y)
                return;
            GAUSS_TAPS_DIRECT(acc, load_clamped(src, ivec2(x, y + k), pc.size))
            imageStore(dst, ivec2(x, y), to_stored(acc));
        }
        return;
    }
    const int lid = int(gl_LocalInvocationIndex);
    const int nthreads = int(W * gl_WorkGroupSize.y);
    for (int k = lid; k <= R; k += nthreads)
        weight[k] = GAUSS_WEIGHT(k);
    const int rows = int(TH) + 2 * R;
    for (int i = lid; i < rows * int(W); i += nthreads) {
        int r = i / int(W), c = i % int(W);
        tile[i] = load_clamped(src, ivec2(int(gl_WorkGroupID.x * W) + c, y0 - R + r), pc.size);
    }
    barrier();
    if (x >= pc.size.x || first >= pc.size.y)
        return;
    vec4 acc[ROWS];
    GAUSS_TAPS_ZERO(GAUSS_TAPS_NO_ATTR, acc, int(ROWS))
    // Input i is row first + i - R.
    const int base = ly * int(ROWS);
    GAUSS_TAPS_ADD(GAUSS_TAPS_NO_ATTR, acc, int(ROWS), weight, tile[(base + i) * int(W) + lx])
    for (int j = 0; j < int(ROWS); j++)
        if (first + j < pc.size.y)
            imageStore(dst, ivec2(x, first + j), to_stored(acc[j]));
}
