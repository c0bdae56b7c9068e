#version 460
// bokeh, pass 4, dispatched indirectly from the header bokeh_offsets wrote
// (the count never visits the host): one work group of 256 per kept hot
// spot spreads gain times its colour uniformly over the in-image pixels of
// its shape (bokeh_shape.glsl, radius floor(coc + 0.5)), so the energy that
// lands in the image is gain times the colour. Accumulates with 64-bit
// integer atomics in 32.32 fixed point, whose sum does not depend on the
// order the splats arrive in: the output is the same on every run.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_atomic_int64 : require
#include "common.glsl"
#include "bokeh_shape.glsl"
#include "portable.glsl"
#include "scan.glsl"

#include "bokeh_spot.glsl"
#define BOKEH_SPLAT
#include "bokeh.h"

layout(binding = 0) readonly buffer Spots { Spot spots[]; };
layout(binding = 1) readonly buffer Header { uint total, kept; } header;
layout(binding = 2) buffer Accum { uint64_t accum[]; };

shared uint covered;

void main()
{
    uint index = gl_WorkGroupID.y * 32768u + gl_WorkGroupID.x;
    if (index >= header.kept)
        return;
    uint lid = gl_LocalInvocationIndex, n = gl_WorkGroupSize.x;
    Spot s = spots[index];
    int R = int(floor(s.coc + 0.5));
    int side = 2 * R + 1;
    uint area = uint(side * side);
    if (lid == 0u)
        covered = 0u;
    barrier();
    uint mine = 0u;
    for (uint i = lid; i < area; i += n) {
        ivec2 d = ivec2(int(i % uint(side)), int(i / uint(side))) - R;
        ivec2 q = s.pos + d;
        if (all(greaterThanEqual(q, ivec2(0))) && all(lessThan(q, pc.size)) &&
            in_shape(d, R, pc.blades, pc.cos_step, pc.sin_step))
            mine++;
    }
    atomicAdd(covered, mine);
    barrier();
    // Each product rounded on its own, 1/covered from portable_recip: the same integers on
    // every device.
    precise vec3 v = pc.gain * s.colour.rgb * portable_recip(float(covered)) * 4294967296.0;
    uint64_t f[3] = uint64_t[3](uint64_t(int64_t(roundEven(v.r))), uint64_t(int64_t(roundEven(v.g))),
                                uint64_t(int64_t(roundEven(v.b))));
    for (uint i = lid; i < area; i += n) {
        ivec2 d = ivec2(int(i % uint(side)), int(i / uint(side))) - R;
        ivec2 q = s.pos + d;
        if (all(greaterThanEqual(q, ivec2(0))) && all(lessThan(q, pc.size)) &&
            in_shape(d, R, pc.blades, pc.cos_step, pc.sin_step)) {
            uint at = (uint(q.y) * uint(pc.size.x) + uint(q.x)) * 3u;
            atomicAdd(accum[at], f[0]);
            atomicAdd(accum[at + 1u], f[1]);
            atomicAdd(accum[at + 2u], f[2]);
        }
    }
}
