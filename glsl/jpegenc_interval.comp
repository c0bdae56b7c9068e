#version 460
// The bytes each restart interval's entropy-coded data takes, its blocks' bits (from their
// prefix sum) padded to a whole byte. One invocation per interval, work groups of 64.
#extension GL_GOOGLE_include_directive : require
#include "jpegenc.h"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(binding = 0) readonly buffer Starts { uint starts[]; };
layout(binding = 1) readonly buffer Totals { uint totals[]; };
layout(binding = 2) writeonly buffer Bytes { uint bytes[]; };

void main()
{
    uint i = gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x + gl_GlobalInvocationID.x;
    if (i >= pc.nintervals)
        return;
    uint first = i * pc.interval, next = first + pc.interval;
    uint end = next < pc.nblocks ? starts[next] : totals[JPEGENC_TOTAL_BITS];
    bytes[i] = (end - starts[first] + 7u) / 8u;
}
