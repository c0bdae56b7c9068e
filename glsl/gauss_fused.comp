#version 460
// Both passes of the separable Gaussian in one dispatch, for small radii
// (glsl/fusedtile.glsl: the seed's shared-memory tile with halo, holding the
// row results instead of the input: halves for an rgba16f output, floats
// for an rgba32f one). Row phase: each
// invocation computes RUN consecutive row results from RUN + 2R texel reads
// through the texture cache (register blocking); rows above and below the
// image repeat its edge rows, as clamp-to-edge on a row image would. Column
// phase: each invocation makes PER outputs down one column from PER + 2R
// shared-memory reads, as gauss_col does from its image.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "common.glsl"
#include "gauss.h"
#include "gauss_taps.glsl"

layout(constant_id = FUSED_SPEC_R) const int R = 6;    // at most MAX_R
layout(constant_id = FUSED_SPEC_PER) const int PER = 8;  // at most MAX_PER
layout(constant_id = FUSED_SPEC_LY) const int LY = 8;   // equals the work-group height
layout(constant_id = FUSED_SPEC_RUN) const int RUN = 8;  // divides 32, at most MAX_RUN
const int MAX_R = 16;
const int MAX_PER = 16;
const int MAX_RUN = 16;
#include "fusedtile.glsl"

layout(binding = 0) uniform sampler2D src;
layout(binding = 1) writeonly uniform image2D dst;

#include "gauss_push.glsl"

// unsharp of the blur b and this input x (TILE_KIND 2), each operation rounded as
// glsl/unsharp.comp rounds it: the same bytes as the blur stored and unsharp.comp after it.
vec4 fused_out(vec4 b, ivec2 p)
{
    if (TILE_KIND != 2)
        return b;
    const vec4 x = texelFetch(src, p, 0);
    const vec3 d = x.rgb - b.rgb;
    precise vec3 boosted = x.rgb + pc.amount * d;
    return vec4(mix(x.rgb, boosted, greaterThan(abs(d), vec3(pc.threshold))), x.a);
}

void main()
{
    float w[MAX_R + 1];
    [[unroll]] for (int k = 0; k <= R; k++)
        w[k] = gauss_tap(k);

    const int t = int(gl_LocalInvocationIndex);
    const ivec2 tile = ivec2(gl_WorkGroupID.xy) * ivec2(32, TH);
    const int cx = fused_slot(t) * RUN;
    for (int r = fused_row(t); r < ROWS; r += ROWS_AT_ONCE) {
        const ivec2 left = ivec2(tile.x + cx - R, clamp(tile.y - R + r, 0, pc.size.y - 1));
        vec4 acc[MAX_RUN];
        GAUSS_TAPS(acc, RUN, w, load_clamped(src, left + ivec2(i, 0), pc.size))
        [[unroll]] for (int j = 0; j < RUN; j++)
            fused_put(r, cx + j, acc[j]);
    }
    barrier();

    const ivec2 first = fused_first_output();
    if (any(greaterThanEqual(first, pc.size)))
        return;
    vec4 acc[MAX_PER];
    GAUSS_TAPS(acc, PER, w, fused_get(i))
    [[unroll]] for (int j = 0; j < PER; j++) {
        ivec2 p = first + ivec2(0, j);
        if (p.y < pc.size.y)
            imageStore(dst, p, to_stored_by(fused_out(acc[j], p), opaque_zero()));
    }
}
