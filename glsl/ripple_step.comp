#version 460
// Ripple height field, one time step of the damped 2D wave equation
// (FILTERS.md "Simulation", the explicit scheme of the seed's Waves demo):
// h' = k1 h_prev + k2 h + k3 (h_l + h_r + h_u + h_d) on interior cells, the
// outermost ring of cells held at 0. With init set it instead writes the
// step-0 field: 1 on every interior cell within RADIUS of a drop centre (the
// centres come from the host in a buffer, so the reference can place them
// identically), 0 elsewhere. Heights are r32f. Work group 16 x 16, one cell
// per invocation; no shared memory (four neighbour reads through the texture
// cache are cheaper than a halo for a 5-point stencil).
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#define RIPPLE_STEP
#include "ripple.h"

layout(constant_id = RIPPLE_SPEC_RADIUS) const int RADIUS = 2;

layout(binding = 0) uniform sampler2D h_prev;
layout(binding = 1) uniform sampler2D h_cur;
layout(binding = 2) writeonly uniform image2D h_next;
layout(binding = 3, std430) readonly buffer Drops {
    ivec2 centre[];
} drops;

void main()
{
    const ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (any(greaterThanEqual(p, pc.size)))
        return;
    precise float h = 0.0;
    bool interior = all(greaterThan(p, ivec2(0))) && all(lessThan(p, pc.size - 1));
    if (interior && pc.init != 0u) {
        for (uint i = 0u; i < pc.ndrops; i++) {
            ivec2 d = p - drops.centre[i];
            if (d.x * d.x + d.y * d.y <= RADIUS * RADIUS) {
                h = 1.0;
                break;
            }
        }
    } else if (interior) {
        // Interior cells have all four neighbours inside the grid: no clamping.
        precise float around = (texelFetch(h_cur, p + ivec2(-1, 0), 0).r +
                        texelFetch(h_cur, p + ivec2(1, 0), 0).r) +
                       (texelFetch(h_cur, p + ivec2(0, -1), 0).r +
                        texelFetch(h_cur, p + ivec2(0, 1), 0).r);
        h = pc.k1 * texelFetch(h_prev, p, 0).r + pc.k2 * texelFetch(h_cur, p, 0).r + pc.k3 * around;
        h = ripple_flush(h);
    }
    imageStore(h_next, p, to_stored(vec4(h, 0.0, 0.0, 0.0)));
}
