#version 460
// Last pass of global Reinhard: Lm = k Y with k = key / Lw from
// tonemap_sum, Ld = Lm (1 + Lm / W^2) / (1 + Lm) (inv_w2 = 0 without a
// white point), RGB scaled by Ld / Y = k (1 + Lm / W^2) / (1 + Lm), 0
// where Y <= 0; alpha kept. 16x16 work groups, nothing in shared memory.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "portable.glsl"
#define TONEMAP_APPLY
#include "tonemap.h"

layout(binding = 0) uniform sampler2D src;
layout(binding = 1) writeonly uniform image2D dst;
layout(binding = 2) readonly buffer Scale { float scale[]; };

void main()
{
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (any(greaterThanEqual(p, pc.size)))
        return;
    vec4 c = texelFetch(src, p, 0);
    float y = luminance(c.rgb);
    float k = scale[0];
    if (y > 0.0) {
        // Each operation rounded on its own, portable_recip for the division: the same bits on
        // every device.
        precise float lm = k * y;
        precise float f = k * (1.0 + lm * pc.inv_w2) * portable_recip(1.0 + lm);
        c.rgb = c.rgb * f;
    } else {
        c.rgb = vec3(0.0);
    }
    imageStore(dst, p, to_stored(c));
}
