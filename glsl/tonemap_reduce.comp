#version 460
// First pass of the log-average luminance of global Reinhard. Each 16x16 work group sums
// log(1e-4 + max(Y, 0)) over its 16 x (16 PER) pixels, Y the luminance of the stored linear
// premultiplied RGB, and writes one float32 partial per work group (row-major group index).
// The same bits on every device: portable_log for the device's log, and the sums in one fixed
// order, per invocation over its PER rows, then a shared-memory tree (subgroupAdd's order would
// follow the device's subgroup size); tonemap_sum.comp adds the partials.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "common.glsl"
#include "portable.glsl"
#define TONEMAP_REDUCE
#include "tonemap.h"

layout(constant_id = TONEMAP_SPEC_PER) const uint PER = 4;

layout(binding = 0) uniform sampler2D src;
layout(binding = 1) writeonly buffer Partials { float partials[]; };

shared float sums[256];

void main()
{
    uint li = gl_LocalInvocationIndex;
    // The invocation's logs as the sum of their log(m) and the sum of their exponents, which
    // takes its ln 2 once.
    precise float s_m = 0.0;
    int s_e = 0;
    [[unroll]] for (uint k = 0u; k < PER; k++) {
        ivec2 p = ivec2(gl_GlobalInvocationID.x,
                        (gl_WorkGroupID.y * PER + k) * gl_WorkGroupSize.y + gl_LocalInvocationID.y);
        if (all(lessThan(p, pc.size))) {
            precise float y = 1e-4 + max(luminance(texelFetch(src, p, 0).rgb), 0.0);
            int e;
            s_m += portable_log_mantissa(y, e);
            s_e += e;
        }
    }
    float s = portable_log_join(s_m, s_e);
    uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    sums[li] = s;
    barrier();
    for (uint stride = 128u; stride > 0u; stride >>= 1) {
        if (li < stride)
            sums[li] = sums[li] + sums[li + stride];
        barrier();
    }
    if (li == 0u)
        partials[group] = sums[0];
}
