#version 460
// Turns linear premultiplied RGBA into file samples: over a background where the file has no
// alpha and one is given, un-premultiply (alpha
// 0 gives RGB 0; not for OpenEXR, which stores premultiplied colour), luminance for gray outputs, then for integer samples
// clamp, sRGB encode unless linear and round to nearest (exactly: quantise). One invocation per
// 32-bit output word, so packed 8/16-bit samples never race; 256x1 work
// groups over a 2D grid of words. Host-side step of every technique: the
// read-back half of the staging path.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "portable.glsl"
#define ENCODE
#include "decode.h"

layout(binding = 0) uniform sampler2D src;
layout(binding = 1) writeonly buffer Dst { uint words[]; };
// For sRGB output: least[k] is the least float whose code is k or more (k >= 1), for the
// output's depth, from the exact curve in double (core/run/run.c).
layout(binding = 2) readonly buffer Least { float least[]; };

vec4 straight_colour(uint pixel)
{
    ivec2 p = ivec2(pixel % uint(pc.size.x), pixel / uint(pc.size.x));
    vec4 c = texelFetch(src, p, 0);
    // A file without alpha: the premultiplied colour over the background, then opaque.
    if (pc.background[3] != 0.0 && (pc.channels == 1u || pc.channels == 3u)) {
        precise vec3 under = vec3(pc.background[0], pc.background[1], pc.background[2]) *
                             (1.0 - c.a);
        precise vec3 over = c.rgb + under;
        c = vec4(over, 1.0);
    }
    // Colour times 1/alpha from portable_recip, the product rounded on its own: the same bits
    // on every device, where a division may be a few units off and a code at a threshold
    // would then differ.
    if (pc.unpremultiply != 0u) {
        precise vec3 straight = c.rgb * portable_recip(c.a);
        c.rgb = c.a > 0.0 ? straight : vec3(0.0);
    }
    return c;
}

// Gray files are written from the luminance; equal channels (a gray input
// the chain left gray) are written as they are, since the weights' sum
// rounds in the last bit of a float and a float file would keep that.
float channel_value(vec4 c, uint ch)
{
    if (pc.channels <= 2u && ch == 0u)
        return c.r == c.g && c.g == c.b ? c.r : luminance(c.rgb);
    if (pc.channels <= 2u)
        return c.a;
    return c[ch];
}

// The code of v: the device's pow() gives an estimate within a code, which the thresholds
// then make exact (the same on every device); the linear rounding is NoContraction.
uint quantise(float v, bool colour, float scale)
{
    v = clamp(v, 0.0, 1.0);
    if (colour && pc.srgb != 0u) {
        const uint top = uint(scale);
        uint k = min(uint(floor(srgb_encode(v) * scale + 0.5)), top);
        if (k > 0u && v < least[k])
            k--;
        else if (k < top && v >= least[k + 1u])
            k++;
        return k;
    }
    precise float x = v * scale + 0.5;
    return uint(floor(x));
}

void main()
{
    uint w = gl_GlobalInvocationID.y * pc.row_words + gl_GlobalInvocationID.x;
    if (w >= pc.nwords)
        return;
    uint per_word = pc.sample_type == 0u ? 4u : pc.sample_type == 1u ? 2u : 1u;
    uint total = uint(pc.size.x) * uint(pc.size.y) * pc.channels;
    uint bits = 32u / per_word;
    uint word = 0u;
    uint cached = 0xffffffffu;
    vec4 c = vec4(0.0);
    for (uint k = 0u; k < per_word; k++) {
        uint e = w * per_word + k;
        if (e >= total)
            break;
        uint pixel = e / pc.channels, ch = e % pc.channels;
        if (pixel != cached) {
            c = straight_colour(pixel);
            cached = pixel;
        }
        float v = channel_value(c, ch);
        bool colour = pc.channels <= 2u ? ch == 0u : ch < 3u;
        if (pc.sample_type == 2u)
            word = floatBitsToUint(v);
        else
            word |= quantise(v, colour, pc.sample_type == 0u ? 255.0 : 65535.0) << (k * bits);
    }
    words[w] = word;
}
