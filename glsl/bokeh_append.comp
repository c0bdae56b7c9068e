#version 460
// bokeh, gather: every hot spot (bokeh.glsl) takes the next slot of the
// spot buffer from a global atomic counter (header.total); the first
// max_spots slots are kept and their colour removed from the image the
// base blur takes (alpha kept), every other pixel passes as it is. 16x16
// work groups. The slots' order varies from run to run, which the splats'
// order-independent sums do not see; which spots are kept when there are
// more than max_spots does depend on it, so bokeh_redo then runs the
// stable gather (bokeh_count, bokeh_offsets, bokeh_gather) instead.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

#include "bokeh_spot.glsl"

layout(binding = 0) uniform sampler2D src;
layout(binding = 1) uniform writeonly image2D base_in;
layout(binding = 2) readonly buffer Depth { float depth[]; };
layout(binding = 3) buffer Header { uint total; } header;
layout(binding = 4) writeonly buffer Spots { Spot spots[]; };

#include "bokeh.glsl"

void main()
{
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (any(greaterThanEqual(p, pc.size)))
        return;
    vec4 c = texelFetch(src, p, 0);
    float coc = pixel_coc(uint(p.y) * uint(pc.size.x) + uint(p.x));
    bool kept = false;
    if (is_hot(c, coc)) {
        uint slot = atomicAdd(header.total, 1u);
        if (slot < pc.max_spots) {
            spots[slot] = Spot(p, coc, 0.0, c);
            kept = true;
        }
    }
    imageStore(base_in, p, kept ? vec4(0.0, 0.0, 0.0, c.a) : c);
}
