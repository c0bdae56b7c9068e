#version 460
// Bilateral blur: out(p) = sum_q w(p,q) in(q) / sum_q w(p,q) over the
// (2R+1)^2 window, clamp-to-edge, w = E(|p-q|^2/(2 S^2)
// + ||in(q).rgb - in(p).rgb||^2/(2 T^2)) on linear premultiplied RGB, alpha
// averaged with the same weights, E(x) exp(-x) interpolated in the host's
// table (FILTERS.md): the device's exp differs between devices, and a
// portable one per tap doubled the time. Every operation is rounded on its
// own in the written order, so the bits are the same on every device.
// Work group 16 x 16, each invocation ROWS outputs down a column: every
// input read serves the taps of all ROWS outputs that need it, while each
// output still adds its taps in the same order (dy outer, dx inner), so
// every ROWS gives the same bytes.
// Shared memory holds the group's (16+2R) x (16 ROWS+2R) window of input
// pixels, loaded once for all its outputs (the seed's bilateral blur
// exercise with the window cached in shared memory), as packed halves where
// the input is rgba16f (exact: its texels are halves) and optionally the
// weight table; with HALO = 0 the window does not fit and each invocation
// reads its taps through the texture cache instead.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "bilateral.h"
#include "portable.glsl"

const int GROUP = 16; // equals the work-group width and height
// The shared capacity for R (0: direct reads).
layout(constant_id = BILATERAL_SPEC_HALO) const uint HALO = 8;
// --fast: the device's exp for E and its own rounding, as it likes.
layout(constant_id = BILATERAL_SPEC_FAST) const bool FAST = false;
// Outputs per invocation, down a column.
layout(constant_id = BILATERAL_SPEC_ROWS) const uint ROWS = 1;
// The window as packed halves (only for an rgba16f input).
layout(constant_id = BILATERAL_SPEC_HALF_TILE) const bool HALF_TILE = false;
// The weight table copied into shared memory.
layout(constant_id = BILATERAL_SPEC_SHARED_TABLE) const bool SHARED_TABLE = false;
// The table's index and the fraction from sums and bit operations instead of
// conversions between float and int, which some devices issue at a fraction
// of the rate of sums (the same values).
layout(constant_id = BILATERAL_SPEC_NO_CONVERT) const bool NO_CONVERT = false;

layout(binding = 0) uniform sampler2D src;
layout(binding = 1) writeonly uniform image2D dst;
layout(binding = 2) readonly buffer Table {
    vec2 table[BILATERAL_ENTRIES];
};

const uint TILE = (GROUP + 2u * HALO) * (GROUP * ROWS + 2u * HALO);
shared vec4 tile[HALF_TILE || HALO == 0u ? 1u : TILE];
shared uvec2 htile[HALF_TILE && HALO != 0u ? TILE : 1u];
shared vec2 stable[SHARED_TABLE ? BILATERAL_ENTRIES : 1];

vec2 entry(int i)
{
    return SHARED_TABLE ? stable[i] : table[i];
}

// One tap: accumulates w * q into acc (w in acc_w); the spatial and the
// range term are added so that each tap reads the table once. The push
// constants' factors hold the table's 64 steps per unit already (a product
// with a power of two, exact: the same f as scaling x afterwards).
void tap(inout vec4 acc, inout float acc_w, vec4 centre, vec4 q, int dx, int dy)
{
    if (FAST) {
        const vec3 e = q.rgb - centre.rgb;
        const float w = exp((-float(dx * dx + dy * dy) * pc.s_factor - dot(e, e) * pc.t_factor) *
                            (1.0 / float(BILATERAL_STEPS)));
        acc += w * q;
        acc_w += w;
        return;
    }
    precise vec3 d = q.rgb - centre.rgb;
    precise float f = float(dx * dx + dy * dy) * pc.s_factor +
                      ((d.r * d.r + d.g * d.g) + d.b * d.b) * pc.t_factor;
    if (!(f < float(BILATERAL_ENTRIES)))
        return; // E is 0 from the table's end on
    int i;
    precise float frac;
    if (NO_CONVERT) {
        // f < 2^11: f + 2^23 is an integer next to f, held in its low bits; one less where
        // it lies above f. Each difference is exact, so frac is f - floor(f) as below.
        precise float t = f + 8388608.0;
        precise float n = t - 8388608.0;
        const bool above = n > f;
        precise float down = n - 1.0;
        i = int(floatBitsToUint(t) & 0x7ffu) - (above ? 1 : 0);
        frac = f - (above ? down : n);
    } else {
        i = int(f);
        frac = f - float(i);
    }
    const vec2 e = entry(i);
    precise float w = e.x + frac * e.y;
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

// The input at (x, y) of the group's window, whose corner is the image's origin - R.
vec4 window(ivec2 origin, int tw, int x, int y)
{
    if (HALO == 0u)
        return load_clamped(src, origin - pc.radius + ivec2(x, y), pc.size);
    if (HALF_TILE) {
        const uvec2 h = htile[y * tw + x];
        return vec4(unpackHalf2x16(h.x), unpackHalf2x16(h.y));
    }
    return tile[y * tw + x];
}

void main()
{
    const int R = pc.radius;
    const ivec2 local = ivec2(gl_LocalInvocationID.xy);
    const ivec2 origin = ivec2(gl_WorkGroupID.xy) * ivec2(GROUP, GROUP * int(ROWS));
    // The tile is (GROUP + 2R) wide for the radius in use, at most the
    // capacity that HALO reserves.
    const int tw = GROUP + 2 * R;
    if (HALO != 0u) {
        const int th = GROUP * int(ROWS) + 2 * R;
        const int flat_id = local.y * GROUP + local.x;
        for (int i = flat_id; i < tw * th; i += GROUP * GROUP) {
            const vec4 v = load_clamped(src, origin - R + ivec2(i % tw, i / tw), pc.size);
            if (HALF_TILE)
                htile[i] = uvec2(packHalf2x16(v.rg), packHalf2x16(v.ba));
            else
                tile[i] = v;
        }
    }
    if (SHARED_TABLE)
        for (int i = local.y * GROUP + local.x; i < BILATERAL_ENTRIES; i += GROUP * GROUP)
            stable[i] = table[i];
    if (HALO != 0u || SHARED_TABLE)
        barrier();
    // This invocation's outputs are (x, y0 + k), k < ROWS; window row y0 - origin.y + r holds
    // input row y0 - R + r.
    const int x = local.x, y0 = local.y * int(ROWS);
    vec4 centre[ROWS], acc[ROWS];
    float acc_w[ROWS];
    for (int k = 0; k < int(ROWS); k++) {
        centre[k] = window(origin, tw, x + R, y0 + R + k);
        acc[k] = vec4(0.0);
        acc_w[k] = 0.0;
    }
    for (int r = 0; r < 2 * R + int(ROWS); r++)
        for (int dx = -R; dx <= R; dx++) {
            const vec4 q = window(origin, tw, x + R + dx, y0 + r);
            for (int k = 0; k < int(ROWS); k++) {
                const int dy = r - R - k;
                if (dy >= -R && dy <= R)
                    tap(acc[k], acc_w[k], centre[k], q, dx, dy);
            }
        }
    for (int k = 0; k < int(ROWS); k++) {
        const ivec2 p = origin + ivec2(x, y0 + k);
        if (all(lessThan(p, pc.size)))
            imageStore(dst, p, to_stored(mean(acc[k], acc_w[k])));
    }
}
