#version 460
// The exclusive prefix sum of n words, in place, and their total into totals[slot]: one work
// group, each invocation summing a run of consecutive words, the runs' sums scanned in
// shared memory, then each run rewritten from its start.
#extension GL_GOOGLE_include_directive : require
#include "jpegenc.h"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(binding = 0) buffer Data { uint data[]; };
layout(binding = 1) buffer Totals { uint totals[]; };

shared uint sums[gl_WorkGroupSize.x];

void main()
{
    uint lid = gl_LocalInvocationID.x;
    const uint size = gl_WorkGroupSize.x;
    // The 0xFF counts are as many as the worst case's chunks; only those the data fills count.
    uint n = pc.n;
    if (pc.slot == JPEGENC_TOTAL_FF)
        n = min(n, (totals[JPEGENC_TOTAL_BYTES] + JPEGENC_CHUNK - 1u) / JPEGENC_CHUNK);
    uint run = (n + size - 1u) / size;
    uint begin = min(lid * run, n), end = min(begin + run, n);
    uint own = 0u;
    for (uint i = begin; i < end; i++)
        own += data[i];
    sums[lid] = own;
    barrier();
    for (uint off = 1u; off < size; off <<= 1) {
        uint add = lid >= off ? sums[lid - off] : 0u;
        barrier();
        sums[lid] += add;
        barrier();
    }
    uint at = sums[lid] - own;
    for (uint i = begin; i < end; i++) {
        uint v = data[i];
        data[i] = at;
        at += v;
    }
    if (lid == size - 1u)
        totals[pc.slot] = sums[size - 1u];
}
