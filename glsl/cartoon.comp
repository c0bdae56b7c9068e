#version 460
// Cartoon combine: given b = gauss(sigma) of the image, darkens b by its own
// Sobel edge value, out = b.rgb * (1 - e) with b's alpha. 16x16 work groups,
// one invocation per pixel, texture-cache reads as in sobel.comp.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "sobel.glsl"

layout(binding = 0) uniform sampler2D src;
layout(binding = 1) writeonly uniform image2D dst;

layout(push_constant) uniform Push {
    ivec2 size;
    float gain;
} pc;

void main()
{
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (any(greaterThanEqual(p, pc.size)))
        return;
    float e = sobel_edge(src, p, pc.size, pc.gain);
    vec4 b = texelFetch(src, p, 0);
    imageStore(dst, p, vec4(b.rgb * (1.0 - e), b.a));
}
