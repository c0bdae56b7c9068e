// Body of tonemap_reduce.comp and tonemap_reduce_sg.comp (included after
// #version): first pass of the log-average luminance of global Reinhard.
// Each 16x16 work group sums log(1e-4 + max(Y, 0)) over its 16 x (16 PER)
// pixels, Y the luminance of the stored linear premultiplied RGB, and
// writes one float32 partial per work group (row-major group index). Sums
// in a fixed order: per invocation over its PER rows, then with
// VKFX_SUBGROUP subgroupAdd and the subgroups' sums in index order, else a
// shared-memory tree; tonemap_sum.comp adds the partials.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#define TONEMAP_REDUCE
#include "tonemap.h"

layout(constant_id = TONEMAP_SPEC_PER) const uint PER = 4;

layout(binding = 0) uniform sampler2D src;
layout(binding = 1) writeonly buffer Partials { float partials[]; };

shared float sums[256];

void main()
{
    uint li = gl_LocalInvocationIndex;
    float s = 0.0;
    for (uint k = 0u; k < PER; k++) {
        ivec2 p = ivec2(gl_GlobalInvocationID.x,
                        (gl_WorkGroupID.y * PER + k) * gl_WorkGroupSize.y + gl_LocalInvocationID.y);
        if (all(lessThan(p, pc.size)))
            s += log(1e-4 + max(luminance(texelFetch(src, p, 0).rgb), 0.0));
    }
    uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
#ifdef VKFX_SUBGROUP
    s = subgroupAdd(s);
    if (subgroupElect())
        sums[gl_SubgroupID] = s;
    barrier();
    if (li == 0u) {
        float t = 0.0;
        for (uint i = 0u; i < gl_NumSubgroups; i++)
            t += sums[i];
        partials[group] = t;
    }
#else
    sums[li] = s;
    barrier();
    for (uint stride = 128u; stride > 0u; stride >>= 1) {
        if (li < stride)
            sums[li] += sums[li + stride];
        barrier();
    }
    if (li == 0u)
        partials[group] = sums[0];
#endif
}
