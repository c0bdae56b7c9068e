#version 460
// The histogram filter, compiled as histogram (shared-memory atomics only,
// for devices without subgroup arithmetic) and as histogram_sg with
// VKFX_SUBGROUP (spirv/meson.build): reads each pixel once (the chain hands the image on unchanged; nothing is
// written but the counts) and counts 256 bins for each of
// R', G', B' (the sRGB-encoded, un-premultiplied 8-bit codes, computed as
// encode.comp computes them) and luma Y' = (2126 R' + 7152 G' + 722 B') /
// 10000 of those codes, rounded, in exact integer arithmetic. 16x16 work
// groups, each invocation walking PER rows; 1024 bins in shared memory,
// merged into the global counts with integer atomics (exact, order-free).
// With VKFX_SUBGROUP a subgroup whose pixels all have one colour
// (subgroupMin = subgroupMax of the packed codes) adds its subgroupAdd count
// with one shared atomic per channel, the warp-aggregated atomics of GPU
// histogramming, which spares flat regions the contention on one bin; a
// loop over every distinct bin of a subgroup cost more than it saved.
#extension GL_GOOGLE_include_directive : require
#ifdef VKFX_SUBGROUP
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#endif
#include "common.glsl"
#include "histogram.h"

layout(constant_id = HISTOGRAM_SPEC_PER) const uint PER = 4;

layout(binding = 0) uniform sampler2D src;
layout(binding = 1) buffer Counts { uint counts[1024]; };

shared uint bins[1024];

uint code(float v)
{
    v = clamp(v, 0.0, 1.0);
    v = srgb_encode(v);
    return min(uint(floor(v * 255.0 + 0.5)), 255u);
}

// Adds one pixel of codes q and luma code y to the shared bins.
void count(uvec3 q, uint y)
{
#ifdef VKFX_SUBGROUP
    // One colour for the whole (active) subgroup, as in flat or clipped
    // regions: one shared atomic per channel adds them all.
    uint key = q.r | (q.g << 8) | (q.b << 16);
    uint first = subgroupMin(key);
    if (subgroupMax(key) == first) {
        uint n = subgroupAdd(1u);
        if (subgroupElect()) {
            atomicAdd(bins[q.r], n);
            atomicAdd(bins[256u + q.g], n);
            atomicAdd(bins[512u + q.b], n);
            atomicAdd(bins[768u + y], n);
        }
        return;
    }
#endif
    atomicAdd(bins[q.r], 1u);
    atomicAdd(bins[256u + q.g], 1u);
    atomicAdd(bins[512u + q.b], 1u);
    atomicAdd(bins[768u + y], 1u);
}

void main()
{
    uint li = gl_LocalInvocationIndex;
    uint nlocal = gl_WorkGroupSize.x * gl_WorkGroupSize.y;
    for (uint i = li; i < 1024u; i += nlocal)
        bins[i] = 0u;
    barrier();
    for (uint k = 0u; k < PER; k++) {
        ivec2 p = ivec2(gl_GlobalInvocationID.x,
                        (gl_WorkGroupID.y * PER + k) * gl_WorkGroupSize.y + gl_LocalInvocationID.y);
        if (all(lessThan(p, pc.size))) {
            vec4 c = texelFetch(src, p, 0);
            vec3 s = c.a > 0.0 ? c.rgb / c.a : vec3(0.0);
            uvec3 q = uvec3(code(s.r), code(s.g), code(s.b));
            uint y = (2126u * q.r + 7152u * q.g + 722u * q.b + 5000u) / 10000u;
            count(q, y);
        }
    }
    barrier();
    for (uint i = li; i < 1024u; i += nlocal) {
        uint n = bins[i];
        if (n != 0u)
            atomicAdd(counts[i], n);
    }
}
