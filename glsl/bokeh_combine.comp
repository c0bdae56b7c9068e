#version 460
// bokeh, pass 5: output = the base depth-of-field result plus the splats
// accumulated in 32.32 fixed point (alpha from the base). 16x16 groups.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "scan.glsl"
#define BOKEH_COMBINE
#include "bokeh.h"

layout(binding = 0) uniform sampler2D base;
layout(binding = 1) uniform writeonly image2D dst;
layout(binding = 2) readonly buffer Accum { int64_t accum[]; };

void main()
{
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (any(greaterThanEqual(p, pc.size)))
        return;
    vec4 b = texelFetch(base, p, 0);
    uint at = (uint(p.y) * uint(pc.size.x) + uint(p.x)) * 3u;
    // Times 2^-32 (exact, where a division may not be), then added to the base.
    precise vec3 s = vec3(float(accum[at]), float(accum[at + 1u]), float(accum[at + 2u])) *
                     2.3283064365386963e-10;
    precise vec3 sum = b.rgb + s;
    imageStore(dst, p, to_stored(vec4(sum, b.a)));
}
