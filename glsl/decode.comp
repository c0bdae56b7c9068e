#version 460
// Turns file samples (8/16-bit or float, 1-4 channels, packed in 32-bit
// words as the host stores them) into linear premultiplied RGBA: sRGB
// decode unless linear, gray expanded, then premultiplied. 8-bit codes
// take their linear value from a table the host computes in double, so the
// result does not depend on the device's pow(); with curves, 8 and 16-bit
// colour codes take it from the table of an ICC profile's curves the host
// made (core/icc.c), colour c's code k at c * levels + k. 16x16 work groups, one
// invocation per pixel, no shared memory. Host-side step of
// every technique: the upload half of the staging path.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#define DECODE
#include "decode.h"

layout(binding = 0) readonly buffer Src { uint words[]; };
layout(binding = 1) writeonly uniform image2D dst;
layout(binding = 2) readonly buffer Table { float table[]; };

// Colour channels of 8-bit sRGB input, and of 8/16-bit input with curves, go
// through the table (decoded there); colour is the channel's curve, or -1.
float fetch(uint e, int colour)
{
    if (pc.sample_type == 0u) {
        uint code = (words[e >> 2] >> ((e & 3u) * 8u)) & 0xffu;
        if (colour >= 0 && pc.curves != 0u)
            return table[uint(colour) * 256u + code];
        return colour >= 0 && pc.srgb != 0u ? table[code] : float(code) / 255.0;
    }
    if (pc.sample_type == 1u) {
        uint code = (words[e >> 1] >> ((e & 1u) * 16u)) & 0xffffu;
        if (colour >= 0 && pc.curves != 0u)
            return table[uint(colour) * 65536u + code];
        return float(code) / 65535.0;
    }
    return uintBitsToFloat(words[e]);
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
    if (pc.srgb != 0u && pc.sample_type != 0u)
        c.rgb = vec3(srgb_decode(c.r), srgb_decode(c.g), srgb_decode(c.b));
    if (pc.premultiply != 0u)
        c.rgb *= c.a;
    imageStore(dst, p, to_stored(c));
}
