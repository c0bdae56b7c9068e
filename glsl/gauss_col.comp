#version 460
// Column pass of the separable Gaussian for radii up to 32, with the radius
// a specialization constant: loops unroll and the R+1 weights live in
// registers. Each invocation produces PER consecutive outputs down one
// column, reading each of its PER + 2R inputs once through the texture cache
// and adding it to every output it touches (register blocking); the 32
// invocations of a row of the 32 x 8 work group read 32 neighbouring texels,
// so no shared memory is needed. Ports the seed's separable blur; gauss_v
// serves larger radii.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "common.glsl"
#include "gauss.h"
#include "gauss_taps.glsl"

layout(constant_id = COL_SPEC_R) const int R = 6;     // at most MAX_R
layout(constant_id = COL_SPEC_PER) const int PER = 8;   // at most MAX_PER
// Local arrays take literal sizes: arrays sized by specialization constants
// came out wrong on lavapipe.
const int MAX_R = 32;
const int MAX_PER = 16;

layout(binding = 0) uniform sampler2D src;
layout(binding = 1) writeonly uniform image2D dst;

#include "gauss_push.glsl"

void main()
{
    const ivec2 axis = ivec2(0, 1);
    const ivec2 first = ivec2(gl_GlobalInvocationID.x, gl_GlobalInvocationID.y * PER);
    if (any(greaterThanEqual(first, pc.size)))
        return;
    float w[MAX_R + 1];
    [[unroll]] for (int k = 0; k <= R; k++)
        w[k] = gauss_tap(k);
    vec4 acc[MAX_PER];
    // Input i is first + (i - R).
    GAUSS_TAPS(acc, PER, w, load_clamped(src, first + axis * (i - R), pc.size))
    [[unroll]] for (int j = 0; j < PER; j++) {
        ivec2 p = first + axis * j;
        if (all(lessThan(p, pc.size)))
            imageStore(dst, p, to_stored(acc[j]));
    }
}
