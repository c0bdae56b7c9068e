#version 460
// Bilateral blur: out(p) = sum_q w(p,q) in(q) / sum_q w(p,q) over the
// (2R+1)^2 window, clamp-to-edge, w = E(|p-q|^2/(2 S^2)
// + ||in(q).rgb - in(p).rgb||^2/(2 T^2)) on linear premultiplied RGB, alpha
// averaged with the same weights, E(x) exp(-x) interpolated in the host's
// table (FILTERS.md): the device's exp differs between devices, and a
// portable one per tap doubled the time. Every operation is rounded on its
// own in the written order, so the bits are the same on every device.
// Work group 16 x 16, one output each.
// Shared memory holds the group's (16+2R)^2 window of input pixels, loaded
// once for the 256 outputs (the seed's bilateral blur exercise with the
// window cached in shared memory); with HALO = 0 the window does not fit and
// each invocation reads its taps through the texture cache instead.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "bilateral.h"
#include "portable.glsl"

const int GROUP = 16; // equals the work-group width and height
// The shared capacity for R (0: direct reads).
layout(constant_id = BILATERAL_SPEC_HALO) const uint HALO = 8;
// --fast: the device's exp for E and its own rounding, as it likes.
layout(constant_id = BILATERAL_SPEC_FAST) const bool FAST = false;

layout(binding = 0) uniform sampler2D src;
layout(binding = 1) writeonly uniform image2D dst;
layout(binding = 2) readonly buffer Table {
    vec2 table[BILATERAL_ENTRIES];
};

shared vec4 tile[(GROUP + 2u * HALO) * (GROUP + 2u * HALO)];

// One tap: accumulates w * q into acc (w in acc_w); the spatial and the
// range term are added so that each tap reads the table once.
void tap(inout vec4 acc, inout float acc_w, vec4 centre, vec4 q, int dx, int dy)
{
    if (FAST) {
        const vec3 e = q.rgb - centre.rgb;
        const float w = exp(-float(dx * dx + dy * dy) * pc.inv_two_s2 - dot(e, e) * pc.inv_two_t2);
        acc += w * q;
        acc_w += w;
        return;
    }
    precise vec3 d = q.rgb - centre.rgb;
    precise float x = float(dx * dx + dy * dy) * pc.inv_two_s2 +
                      ((d.r * d.r + d.g * d.g) + d.b * d.b) * pc.inv_two_t2;
    precise float f = x * float(BILATERAL_STEPS);
    if (!(f < float(BILATERAL_ENTRIES)))
        return; // E is 0 from the table's end on
    const int i = int(f);
    const vec2 e = table[i];
    precise float w = e.x + (f - float(i)) * e.y;
    precise vec4 a = acc + w * q;
    precise float s = acc_w + w;
    acc = a;
    acc_w = s;
}

// The weighted mean: a product with portable_recip, the same on every device (the centre's
// weight is 1, so the sum is at least 1).
vec4 mean(vec4 acc, float acc_w)
{
    if (FAST)
        return acc / acc_w;
    precise vec4 m = acc * portable_recip(acc_w);
    return m;
}

void main()
{
    const int R = pc.radius;
    const ivec2 local = ivec2(gl_LocalInvocationID.xy);
    const ivec2 origin = ivec2(gl_WorkGroupID.xy) * GROUP;
    const ivec2 p = origin + local;
    if (HALO == 0u) {
        if (any(greaterThanEqual(p, pc.size)))
            return;
        const vec4 centre = texelFetch(src, p, 0);
        vec4 acc = vec4(0.0);
        float acc_w = 0.0;
        for (int dy = -R; dy <= R; dy++)
            for (int dx = -R; dx <= R; dx++)
                tap(acc, acc_w, centre, load_clamped(src, p + ivec2(dx, dy), pc.size), dx, dy);
        imageStore(dst, p, to_stored(mean(acc, acc_w)));
        return;
    }
    // The tile is (GROUP + 2R) wide for the radius in use, at most the
    // capacity that HALO reserves.
    const int tw = GROUP + 2 * R;
    const int flat_id = local.y * GROUP + local.x;
    for (int i = flat_id; i < tw * tw; i += GROUP * GROUP)
        tile[i] = load_clamped(src, origin - R + ivec2(i % tw, i / tw), pc.size);
    barrier();
    if (any(greaterThanEqual(p, pc.size)))
        return;
    const int c = (local.y + R) * tw + local.x + R;
    const vec4 centre = tile[c];
    vec4 acc = vec4(0.0);
    float acc_w = 0.0;
    for (int dy = -R; dy <= R; dy++)
        for (int dx = -R; dx <= R; dx++)
            tap(acc, acc_w, centre, tile[c + dy * tw + dx], dx, dy);
    imageStore(dst, p, to_stored(mean(acc, acc_w)));
}
