#version 460
// Sobel edges: e from the 3x3 Sobel gradients (glsl/sobel.glsl), written as
// the straight colour e (or 1 - e) with the pixel's alpha kept. 16x16 work
// groups, one invocation per pixel; the nine reads overlap between
// neighbours and are served by the texture cache, so no shared memory.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "sobel.glsl"

layout(binding = 0) uniform sampler2D src;
layout(binding = 1) writeonly uniform image2D dst;

layout(push_constant) uniform Push {
    ivec2 size;
    float gain;
    uint invert;
} pc;

void main()
{
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (any(greaterThanEqual(p, pc.size)))
        return;
    float e = sobel_edge(src, p, pc.size, pc.gain);
    if (pc.invert != 0u)
        e = 1.0 - e;
    float a = texelFetch(src, p, 0).a;
    imageStore(dst, p, vec4(vec3(e * a), a));
}
