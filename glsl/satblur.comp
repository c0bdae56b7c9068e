#version 460
// Box means from a summed-area table (sat_tile.comp): satblur and
// satdof. Each invocation computes one pixel's radius (fixed, from a map,
// or from the circle of confusion of a depth map) and reads four table
// entries per box, one box or (SMOOTH) three overlapped ones, so its cost
// does not depend on the radius. 16x16 work groups, no shared memory; the
// technique is the summed-area-table variable blur of the seed's case study.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "coc.glsl"
#include "scan.glsl"
#include "satblur.h"

// 0: radius from the push constants, 1: floor(map * scale + 0.5),
// 2: floor(coc(depth) + 0.5).
layout(constant_id = SATBLUR_SPEC_MODE) const uint MODE = 0;
layout(constant_id = SATBLUR_SPEC_SHIFT) const int SHIFT = 24;
layout(constant_id = SATBLUR_SPEC_SMOOTH) const bool SMOOTH = false;

layout(binding = 0) uniform usampler2D sat_lo;
layout(binding = 1) uniform usampler2D sat_hi;
layout(binding = 2) uniform writeonly image2D dst;
layout(binding = 3) readonly buffer Map { float map[]; };
// recip[n] = 1/n rounded to float, from the host (1 <= n <= the longer side).
layout(binding = 4) readonly buffer Recip { float recip[]; };

i64vec4 table(int x, int y)
{
    if (x < 0 || y < 0)
        return i64vec4(0);
    ivec2 p = ivec2(x, y);
    return join32(texelFetch(sat_lo, p, 0), texelFetch(sat_hi, p, 0));
}

// Mean over [x - rx, x + rx] x [y - ry, y + ry] clipped to the image.
vec4 box_mean(ivec2 p, int rx, int ry)
{
    int x1 = max(p.x - rx - 1, -1), x2 = min(p.x + rx, pc.size.x - 1);
    int y1 = max(p.y - ry - 1, -1), y2 = min(p.y + ry, pc.size.y - 1);
    i64vec4 s = table(x2, y2) - table(x1, y2) - table(x2, y1) + table(x1, y1);
    // The sum (exact) to float, times the reciprocals of the box's width and height and
    // 2^-SHIFT, each product rounded on its own: the same bits on every device, where a
    // division may differ between them by a few units in the last place.
    precise vec4 sum = vec4(float(s.x), float(s.y), float(s.z), float(s.w));
    const float unit = uintBitsToFloat(uint(127 - SHIFT) << 23); // 2^-SHIFT
    precise vec4 mean = sum * recip[x2 - x1] * recip[y2 - y1] * unit;
    return mean;
}

void main()
{
    // Group ids run x-fastest; walk strips of STRIP groups top to bottom.
    const uint STRIP = 4u;
    uint nx = gl_NumWorkGroups.x, ny = gl_NumWorkGroups.y;
    uint id = gl_WorkGroupID.y * nx + gl_WorkGroupID.x;
    uint strip = id / (STRIP * ny);
    uint width = min(STRIP, nx - strip * STRIP);
    uint k = id - strip * STRIP * ny;
    uvec2 group = uvec2(strip * STRIP + k % width, k / width);
    ivec2 p = ivec2(group * gl_WorkGroupSize.xy + gl_LocalInvocationID.xy);
    if (any(greaterThanEqual(p, pc.size)))
        return;
    int r = pc.radius;
    if (MODE != 0u) {
        float m = map[uint(p.y) * uint(pc.size.x) + uint(p.x)];
        precise float t = MODE == 1u ? m * pc.scale
                             : coc_from_depth(m, pc.focus, pc.inv_range, pc.maxcoc,
                                              pc.disparity != 0u);
        // Radii beyond twice the image (so that the smooth shape's halves
        // still cover it) all give the whole-image mean; NaN gives 0.
        t = isnan(t) ? 0.0 : t;
        float lim = float(2 * max(pc.size.x, pc.size.y) + 1);
        r = int(clamp(floor(t + 0.5), 0.0, lim));
    }
    precise vec4 o;
    if (SMOOTH) {
        int half_r = (r + 1) / 2, three_q = (3 * r + 2) / 4;
        // The three means in this order, times 1/3 rounded to float (a division by 3 may be
        // compiled as a product by another rounding of 1/3, or not).
        precise vec4 sum = box_mean(p, half_r, r) + box_mean(p, r, half_r);
        sum += box_mean(p, three_q, three_q);
        o = sum * 0.3333333432674408;
    } else {
        o = box_mean(p, r, r);
    }
    imageStore(dst, p, to_stored(o));
}
