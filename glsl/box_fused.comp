#version 460
// Both passes of the box blur in one dispatch, for small radii and rgba16f
// images (glsl/fusedtile.glsl: the seed's shared-memory tile with halo,
// holding the row results instead of the input), so the row result never
// travels to device memory and back. Both phases use the rolling sums of
// the seed's DirectCompute talk, as box_row and box_v do: in the row phase
// each invocation sums the window of the first of its RUN row results from
// the texture cache, then adds the entering pixel and subtracts the leaving
// one; rows above and below the image repeat its edge rows, as clamp-to-edge
// on a row image would. The column phase does the same down PER outputs of
// one column, from shared memory.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "common.glsl"
#include "box.h"

layout(constant_id = FUSED_SPEC_R) const int R = 1;
layout(constant_id = FUSED_SPEC_PER) const int PER = 8;
layout(constant_id = FUSED_SPEC_LY) const int LY = 8;  // equals the work-group height
layout(constant_id = FUSED_SPEC_RUN) const int RUN = 8; // divides 32
#include "fusedtile.glsl"

layout(binding = 0) uniform sampler2D src;
layout(binding = 1) writeonly uniform image2D dst;


void main()
{
    const int t = int(gl_LocalInvocationIndex);
    const ivec2 tile = ivec2(gl_WorkGroupID.xy) * ivec2(32, TH);
    const int cx = fused_slot(t) * RUN;
    for (int r = fused_row(t); r < ROWS; r += ROWS_AT_ONCE) {
        const ivec2 left = ivec2(tile.x + cx - R, clamp(tile.y - R + r, 0, pc.size.y - 1));
        vec4 sum = vec4(0.0);
        [[unroll]] for (int i = 0; i <= 2 * R; i++)
            sum += load_clamped(src, left + ivec2(i, 0), pc.size);
        fused_put(r, cx, sum * pc.scale);
        [[unroll]] for (int j = 1; j < RUN; j++) {
            sum += load_clamped(src, left + ivec2(j + 2 * R, 0), pc.size) -
                   load_clamped(src, left + ivec2(j - 1, 0), pc.size);
            fused_put(r, cx + j, sum * pc.scale);
        }
    }
    barrier();

    const ivec2 first = fused_first_output();
    if (any(greaterThanEqual(first, pc.size)))
        return;
    vec4 sum = vec4(0.0);
    [[unroll]] for (int i = 0; i <= 2 * R; i++)
        sum += fused_get(i);
    const uint zero = opaque_zero_of(pc.size.x);
    imageStore(dst, first, to_stored_by(sum * pc.scale, zero));
    [[unroll]] for (int j = 1; j < PER; j++) {
        sum += fused_get(j + 2 * R) - fused_get(j - 1);
        if (first.y + j < pc.size.y)
            imageStore(dst, first + ivec2(0, j), to_stored_by(sum * pc.scale, zero));
    }
}
