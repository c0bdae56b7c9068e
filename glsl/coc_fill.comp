#version 460
// One pass of the hole fill of FILTERS.md "Holes in a depth map": along rows
// (then, a second time, along columns of the row result), a pixel that holds
// the hole value takes the farther of the nearest known values before and
// after it on its line, or the one there is; a line without one stays as it
// is. Values are copied, never computed, so every device gives the same map.
#extension GL_GOOGLE_include_directive : require
#include "coc_fill.h"

layout(local_size_x = 64) in;
layout(binding = 0) readonly buffer Src { float src[]; };
layout(binding = 1) writeonly buffer Dst { float dst[]; };

void main()
{
    uint w = uint(pc.size.x), h = uint(pc.size.y);
    uint x = gl_GlobalInvocationID.x, y = gl_GlobalInvocationID.y;
    if (x >= w || y >= h)
        return;
    uint i = y * w + x;
    float z = src[i];
    if (z != pc.hole) {
        dst[i] = z;
        return;
    }
    bool vertical = pc.vertical != 0u;
    uint n = vertical ? h : w, pos = vertical ? y : x, stride = vertical ? w : 1u;
    uint start = i - pos * stride;
    bool has_before = false, has_after = false;
    float before = z, after = z;
    for (uint k = pos; k > 0u; k--) {
        float v = src[start + (k - 1u) * stride];
        if (v != pc.hole) {
            before = v;
            has_before = true;
            break;
        }
    }
    for (uint k = pos + 1u; k < n; k++) {
        float v = src[start + k * stride];
        if (v != pc.hole) {
            after = v;
            has_after = true;
            break;
        }
    }
    float r = z;
    if (has_before && has_after)
        r = pc.larger_farther != 0u ? max(before, after) : min(before, after);
    else if (has_before)
        r = before;
    else if (has_after)
        r = after;
    dst[i] = r;
}
