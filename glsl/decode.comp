#version 460
// Turns file samples (8/16-bit or float, 1-4 channels, packed in 32-bit
// words as the host stores them) into linear premultiplied RGBA: sRGB
// decode unless linear, gray expanded, then premultiplied. 8-bit codes
// take their linear value from a table the host computes in double, so the
// result does not depend on the device's pow(). 16x16 work groups, one
// invocation per pixel, no shared memory. Host-side step of
// every technique: the upload half of the staging path.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#define DECODE
#include "decode.h"

layout(binding = 0) readonly buffer Src { uint words[]; };
layout(binding = 1) writeonly uniform image2D dst;
layout(binding = 2) readonly buffer Table { float srgb_table[256]; };

// Colour channels of 8-bit sRGB input go through the table (decoded there).
float fetch(uint e, bool colour)
{
    if (pc.sample_type == 0u) {
        uint code = (words[e >> 2] >> ((e & 3u) * 8u)) & 0xffu;
        return colour && pc.srgb != 0u ? srgb_table[code] : float(code) / 255.0;
    }
    if (pc.sample_type == 1u)
        return float((words[e >> 1] >> ((e & 1u) * 16u)) & 0xffffu) / 65535.0;
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
        c.rgb = vec3(fetch(base, true));
        if (pc.channels == 2u)
            c.a = fetch(base + 1u, false);
    } else {
        c.r = fetch(base, true);
        c.g = fetch(base + 1u, true);
        c.b = fetch(base + 2u, true);
        if (pc.channels == 4u)
            c.a = fetch(base + 3u, false);
    }
    if (pc.srgb != 0u && pc.sample_type != 0u)
        c.rgb = vec3(srgb_decode(c.r), srgb_decode(c.g), srgb_decode(c.b));
    if (pc.premultiply != 0u)
        c.rgb *= c.a;
    imageStore(dst, p, to_stored(c));
}
