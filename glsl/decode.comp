#version 460
// Turns file samples (8/16-bit or float, 1-4 channels, packed in 32-bit
// words as the host stores them) into linear premultiplied RGBA: sRGB
// decode unless linear, gray expanded, then premultiplied. 8- and 16-bit
// codes take their value from tables the host computes in double (fetch),
// the sRGB curve's or an ICC profile's (core/io/icc.c). 16x16 work groups, one
// invocation per pixel, no shared memory. Host-side step of
// every technique: the upload half of the staging path.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#define DECODE
#include "decode.h"

layout(binding = 0) readonly buffer Src { uint words[]; };
layout(binding = 1) writeonly uniform image2D dst;
layout(binding = 2) readonly buffer Table { float table[]; };

// 8- and 16-bit codes take their value from the table: colour channels from their curve (the
// first, or with an ICC profile's curves colour c's at c * levels), alpha from the linear
// curve after the colour curves. The host computes every value in double, so no result depends
// on the device's pow() or division.
float fetch(uint e, int colour)
{
    if (pc.sample_type == 2u)
        return uintBitsToFloat(words[e]);
    const bool narrow = pc.sample_type == 0u;
    const uint levels = narrow ? 256u : 65536u;
    const uint code = narrow ? (words[e >> 2] >> ((e & 3u) * 8u)) & 0xffu
                             : (words[e >> 1] >> ((e & 1u) * 16u)) & 0xffffu;
    const uint curves = pc.curves != 0u ? (pc.channels <= 2u ? 1u : 3u) : 1u;
    if (colour < 0)
        return table[curves * levels + code];
    return table[(pc.curves != 0u ? uint(colour) : 0u) * levels + code];
}

void main()
{
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (any(greaterThanEqual(p, pc.size)))
        return;
    uint base = (uint(p.y) * uint(pc.size.x) + uint(p.x)) * pc.channels;
    vec4 c = vec4(0.0, 0.0, 0.0, 1.0);
    if (pc.channels <= 2u) {
        c.rgb = vec3(fetch(base, 0));
        if (pc.channels == 2u)
            c.a = fetch(base + 1u, -1);
    } else {
        c.r = fetch(base, 0);
        c.g = fetch(base + 1u, 1);
        c.b = fetch(base + 2u, 2);
        if (pc.channels == 4u)
            c.a = fetch(base + 3u, -1);
    }
    if (pc.premultiply != 0u)
        c.rgb *= c.a;
    imageStore(dst, p, to_stored(c));
}
