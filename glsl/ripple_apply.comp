#version 460
// Ripple refraction: each output pixel samples the input bilinearly at
// p + strength * (dh/dx, dh/dy), the gradient of the final height field by
// central differences (h(x+1) - h(x-1)) / 2 with clamp-to-edge, pixel centres
// at integer coordinates, the four taps clamp-to-edge, on linear
// premultiplied RGBA. The bilinear weights are computed here rather than by
// the sampler, whose fraction has only a few bits on many devices. Work group
// 16 x 16, one pixel per invocation; no shared memory.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#define RIPPLE_APPLY
#include "ripple.h"

layout(binding = 0) uniform sampler2D src;
layout(binding = 1) uniform sampler2D height;
layout(binding = 2) writeonly uniform image2D dst;

float h_at(ivec2 p)
{
    return texelFetch(height, clamp(p, ivec2(0), pc.size - 1), 0).r;
}

void main()
{
    const ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (any(greaterThanEqual(p, pc.size)))
        return;
    // Every operation below rounded on its own (NoContraction): the same bits on every device.
    precise vec2 grad = 0.5 * vec2(h_at(p + ivec2(1, 0)) - h_at(p - ivec2(1, 0)),
                                   h_at(p + ivec2(0, 1)) - h_at(p - ivec2(0, 1)));
    precise vec2 shift = pc.strength * grad;
    shift = vec2(ripple_flush(shift.x), ripple_flush(shift.y));
    // Beyond one pixel outside the image every tap clamps to the edge
    // anyway; clamping q first keeps the int conversion in range.
    precise vec2 q = clamp(vec2(p) + shift, vec2(-1.0), vec2(pc.size));
    vec2 q0 = floor(q);
    precise vec2 f = q - q0;
    ivec2 i0 = ivec2(q0);
    vec4 a = load_clamped(src, i0, pc.size);
    vec4 b = load_clamped(src, i0 + ivec2(1, 0), pc.size);
    vec4 c = load_clamped(src, i0 + ivec2(0, 1), pc.size);
    vec4 d = load_clamped(src, i0 + ivec2(1, 1), pc.size);
    precise vec4 top = a * (1.0 - f.x) + b * f.x;
    precise vec4 bot = c * (1.0 - f.x) + d * f.x;
    precise vec4 o = top * (1.0 - f.y) + bot * f.y;
    imageStore(dst, p, to_stored(o));
}
