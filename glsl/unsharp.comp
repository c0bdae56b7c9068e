#version 460
// unsharp: out = x + amount (x - b) per colour channel where |x - b| > threshold, else x, from
// the image x and its Gaussian blur b; alpha kept. Work group 16 x 16, one output per
// invocation; no shared memory.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

layout(binding = 0) uniform sampler2D src;
layout(binding = 1) uniform sampler2D blurred;
layout(binding = 2) writeonly uniform image2D dst;

#include "unsharp.h"

void main()
{
    const ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (any(greaterThanEqual(p, pc.size)))
        return;
    const vec4 x = texelFetch(src, p, 0);
    const vec3 d = x.rgb - texelFetch(blurred, p, 0).rgb;
    // The product and the sum rounded on their own (NoContraction): the same bits on every
    // device.
    precise vec3 boosted = x.rgb + pc.amount * d;
    const vec3 sharp = mix(x.rgb, boosted, greaterThan(abs(d), vec3(pc.threshold)));
    imageStore(dst, p, to_stored(vec4(sharp, x.a)));
}
