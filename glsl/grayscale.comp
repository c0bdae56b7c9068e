#version 460
// grayscale: RGB = Y = 0.2126 R + 0.7152 G + 0.0722 B of the linear premultiplied colour
// (luminance_exact: the same bits on every device at rgba16f), alpha kept. Work group 16 x 16,
// one output per invocation; no shared memory.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

layout(binding = 0) uniform sampler2D src;
layout(binding = 1) writeonly uniform image2D dst;

#include "grayscale.h"

void main()
{
    const ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (any(greaterThanEqual(p, pc.size)))
        return;
    const vec4 v = texelFetch(src, p, 0);
    imageStore(dst, p, to_stored(vec4(vec3(luminance_exact(v.rgb)), v.a)));
}
