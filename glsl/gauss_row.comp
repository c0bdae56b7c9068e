#version 460
// Row pass of the separable Gaussian for radii up to 32, the radius a
// specialization constant (loops unroll, weights in registers). Work group
// 64 x ROWS over ROWS row segments of 64*RUN outputs: the segments and
// their halo come into shared memory with coalesced reads, each invocation
// computes RUN consecutive outputs reading each of its RUN + 2R inputs once
// (register blocking), and results leave through shared memory with
// coalesced stores (glsl/rowtile.glsl). The seed's shared-memory tile with
// halo; gauss_h serves larger radii.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "common.glsl"
#include "gauss.h"
#include "gauss_taps.glsl"

layout(constant_id = ROW_SPEC_R) const int R = 6; // at most MAX_HALO

layout(constant_id = ROW_SPEC_RUN) const int RUN = 7;
layout(constant_id = ROW_SPEC_ROWS) const int ROWS = 2;
const int MAX_HALO = 32;
const int HALO = R;
#include "rowtile.glsl"

layout(binding = 0) uniform sampler2D src;
layout(binding = 1) writeonly uniform image2D dst;

#include "gauss_push.glsl"

void main()
{
    float w[MAX_HALO + 1];
    [[unroll]] for (int k = 0; k <= R; k++)
        w[k] = gauss_tap(k);
    const int x0 = row_tile_load(src, pc.size, R);
    vec4 acc[MAX_RUN];
    GAUSS_TAPS(acc, RUN, w, row_tile_input(i))
    row_tile_store(dst, pc.size, x0, acc);
}
