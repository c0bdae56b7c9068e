#version 460
// Horizontal pass of the separable Gaussian: out(x) = sum_k w_k in(x+k),
// |k| <= R, clamp-to-edge, w_k = exp(-k^2/(2 sigma^2)) * norm. Work group
// TILE x 1: one row segment of TILE outputs. Shared memory holds the
// segment with its 2R halo and the R+1 weights (the shared-memory tile with
// halo of the seed's blur demo); with HALO = 0 the radius is too large for
// shared memory and each invocation reads its taps through the texture cache.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "gauss.h"
#include "gauss_taps.glsl"

layout(constant_id = H_SPEC_TILE) const uint TILE = 256; // equals the work-group width
layout(constant_id = H_SPEC_HALO) const uint HALO = 8;   // shared capacity for R (0: direct reads)

layout(binding = 0) uniform sampler2D src;
layout(binding = 1) writeonly uniform image2D dst;


shared vec4 tile[TILE + 2u * HALO];
shared float weight[HALO + 1u];

void main()
{
    const int R = pc.radius;
    const int lx = int(gl_LocalInvocationID.x);
    const int x0 = int(gl_WorkGroupID.x * TILE);
    const int y = int(gl_WorkGroupID.y);
    const int x = x0 + lx;
    if (HALO == 0u) {
        if (x >= pc.size.x)
            return;
        GAUSS_TAPS_DIRECT(acc, load_clamped(src, ivec2(x + k, y), pc.size))
        imageStore(dst, ivec2(x, y), to_stored(acc));
        return;
    }
    for (int k = lx; k <= R; k += int(TILE))
        weight[k] = GAUSS_WEIGHT(k);
    for (int i = lx; i < int(TILE) + 2 * R; i += int(TILE))
        tile[i] = load_clamped(src, ivec2(x0 - R + i, y), pc.size);
    barrier();
    if (x >= pc.size.x)
        return;
    vec4 acc = vec4(0.0);
    for (int k = -R; k <= R; k++)
        gauss_mad(acc, weight[abs(k)], tile[lx + R + k]);
    imageStore(dst, ivec2(x, y), to_stored(acc));
}
