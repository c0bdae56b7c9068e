#version 460
// Second pass of tonemap's log-average: one 256x1 work group adds the
// per-group partials of tonemap_reduce (invocation i takes partials i,
// i + 256, ... in order, then a shared-memory tree), so the sum is the same
// on every run, and stores the Reinhard scale key / Lw with
// Lw = exp(sum / pixels) for tonemap_apply to read: no host read-back.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "portable.glsl"
#define TONEMAP_SUM
#include "tonemap.h"

layout(binding = 0) readonly buffer Partials { float partials[]; };
layout(binding = 1) writeonly buffer Result { float scale[]; };

shared float sums[256];

void main()
{
    uint li = gl_LocalInvocationIndex;
    precise float s = 0.0;
    for (uint i = li; i < pc.count; i += 256u)
        s += partials[i];
    sums[li] = s;
    barrier();
    for (uint stride = 128u; stride > 0u; stride >>= 1) {
        if (li < stride)
            sums[li] = sums[li] + sums[li + stride];
        barrier();
    }
    // key / exp(mean) as key exp(-mean), the mean a product with 1/pixels from the host.
    if (li == 0u) {
        precise float mean = sums[0] * pc.inv_pixels;
        precise float k = pc.key * portable_exp(-mean);
        scale[0] = k;
    }
}
