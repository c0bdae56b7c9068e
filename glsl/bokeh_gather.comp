#version 460
// bokeh, pass 3: appends every hot spot to the spot buffer at a stable
// position (its row's offset from bokeh_offsets plus its rank in the row,
// from a shared-memory prefix sum over 256-pixel chunks), at most
// max_spots of them, and writes the image the base blur takes: a kept hot
// spot's colour removed (alpha kept), every other pixel as it is. One work
// group of 256 per row. Row-major positions make the kept set the first
// max_spots in row-major order on every run.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

#include "bokeh_spot.glsl"

layout(binding = 0) uniform sampler2D src;
layout(binding = 1) uniform writeonly image2D base_in;
layout(binding = 2) readonly buffer Depth { float depth[]; };
layout(binding = 3) readonly buffer Rows { uint rows[]; };
layout(binding = 4) writeonly buffer Spots { Spot spots[]; };

#include "bokeh.glsl"

shared uint ranks[256];

void main()
{
    uint y = gl_WorkGroupID.x, lid = gl_LocalInvocationIndex, n = gl_WorkGroupSize.x;
    uint run = rows[y];
    for (uint x0 = 0u; x0 < uint(pc.size.x); x0 += n) {
        uint x = x0 + lid;
        bool inside = x < uint(pc.size.x);
        vec4 c = inside ? texelFetch(src, ivec2(x, y), 0) : vec4(0.0);
        float coc = inside ? pixel_coc(y * uint(pc.size.x) + x) : 0.0;
        bool hot = inside && is_hot(c, coc);
        ranks[lid] = hot ? 1u : 0u;
        barrier();
        for (uint d = 1u; d < n; d <<= 1) {
            uint v = lid >= d ? ranks[lid - d] : 0u;
            barrier();
            ranks[lid] += v;
            barrier();
        }
        uint index = run + ranks[lid] - (hot ? 1u : 0u);
        bool kept = hot && index < pc.max_spots;
        if (kept)
            spots[index] = Spot(ivec2(x, y), coc, 0.0, c);
        if (inside)
            imageStore(base_in, ivec2(x, y), kept ? vec4(0.0, 0.0, 0.0, c.a) : c);
        run += ranks[n - 1u];
        barrier();
    }
}
