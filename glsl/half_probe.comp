#version 460
// Converts pairs of floats with packHalf2x16, for the context's check of how
// this device rounds to halves (core/gpu/halfprobe.c): Vulkan leaves it to the
// implementation. Where the conversion rounds to the nearest half, ties to
// even, kernels that ask for it (PACK_RNE in common.glsl) use it instead of
// round_half's bit arithmetic. One pair per invocation in groups of 64,
// nothing in shared memory; a check of the device, not a seed technique.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "half_probe.h"

layout(binding = 0) readonly buffer In { vec2 pair[]; } src;
layout(binding = 1) writeonly buffer Out { uint packed[]; } dst;

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i < pc.count)
        dst.packed[i] = packHalf2x16(src.pair[i]);
}
