// Body of sat_lines.comp and sat_lines_sg.comp (included after #version):
// inclusive prefix sums, modulo 2^64, along long contiguous lines of a
// 64-bit RGBA buffer (line l holds elements l * len .. l * len + len - 1):
// the summed-area table's offsets along the full width. One work group of
// 256 invocations per line walks it in chunks of 256, carrying the running
// total. With VKFX_SUBGROUP each chunk is scanned by subgroupInclusiveAdd
// and the subgroups' totals from shared memory; without, by the
// shared-memory parallel prefix sum (Hillis-Steele).
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "scan.glsl"

layout(binding = 0) buffer Lines { i64vec4 e[]; };

layout(push_constant) uniform Push { uint len; } pc;

shared i64vec4 sh[256];

void main()
{
    const uint N = gl_WorkGroupSize.x;
#ifdef VKFX_SUBGROUP
    uint lin = gl_SubgroupID * gl_SubgroupSize + gl_SubgroupInvocationID;
#else
    uint lin = gl_LocalInvocationIndex;
#endif
    uint base = gl_WorkGroupID.x * pc.len;
    i64vec4 carry = i64vec4(0);
    for (uint c = 0u; c < pc.len; c += N) {
        uint i = c + lin;
        i64vec4 v = i < pc.len ? e[base + i] : i64vec4(0);
#ifdef VKFX_SUBGROUP
        v = subgroup_scan_wrap(v);
        if (gl_SubgroupInvocationID == gl_SubgroupSize - 1u)
            sh[gl_SubgroupID] = v;
        barrier();
        i64vec4 total = i64vec4(0);
        for (uint s = 0u; s < gl_NumSubgroups; s++) {
            if (s < gl_SubgroupID)
                v += sh[s];
            total += sh[s];
        }
#else
        sh[lin] = v;
        barrier();
        for (uint d = 1u; d < N; d <<= 1) {
            i64vec4 t = lin >= d ? sh[lin - d] : i64vec4(0);
            barrier();
            sh[lin] += t;
            barrier();
        }
        v = sh[lin];
        i64vec4 total = sh[N - 1u];
#endif
        if (i < pc.len)
            e[base + i] = v + carry;
        carry += total;
        barrier();
    }
}
