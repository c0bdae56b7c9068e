#version 460
// Row pass of the box blur for radii up to HALO: the rolling
// (sliding-window) sum of the seed's DirectCompute talk, run over a row
// segment in shared memory. Work group 64 x ROWS over ROWS segments of
// 64*RUN outputs (glsl/rowtile.glsl: coalesced loads and stores through
// shared memory); each invocation sums its first window, then for each further
// output adds the pixel that enters and subtracts the one that leaves.
// box_h serves larger radii.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "common.glsl"
#include "box.h"

// Shared capacity for the radius: a power of two the host picks, so the
// tile is no larger than the radius needs; segment shape as in gauss_row.
layout(constant_id = ROW_SPEC_R) const int HALO = 16;
layout(constant_id = ROW_SPEC_RUN) const int RUN = 7;
layout(constant_id = ROW_SPEC_ROWS) const int ROWS = 1;
#include "rowtile.glsl"

layout(binding = 0) uniform sampler2D src;
layout(binding = 1) writeonly uniform image2D dst;


void main()
{
    const int R = pc.radius;
    const int x0 = row_tile_load(src, pc.size, R);
    vec4 sum = vec4(0.0);
    for (int i = 0; i <= 2 * R; i++)
        sum += row_tile_input(i);
    vec4 acc[MAX_RUN];
    acc[0] = sum * pc.scale;
    [[unroll]] for (int j = 1; j < RUN; j++) {
        sum += row_tile_input(j + 2 * R) - row_tile_input(j - 1);
        acc[j] = sum * pc.scale;
    }
    row_tile_store(dst, pc.size, x0, acc);
}
