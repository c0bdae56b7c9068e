#version 460
// bokeh, pass 2, one work group of 256: rows[y] becomes the exclusive
// prefix sum of the rows' hot-spot counts (where each row's spots start in
// the append buffer), and the header gets the total, how many fit in the
// buffer (kept), how many did not, and the indirect dispatch of the splat
// pass (kept groups as x <= 32768 by y). A shared-memory parallel prefix
// sum over the invocations' serial sums of their rows.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#define BOKEH_ROWS
#include "bokeh.h"

layout(binding = 0) buffer Rows { uint rows[]; };
layout(binding = 1) writeonly buffer Header {
    uint total, kept, overflow, pad;
    uint groups_x, groups_y, groups_z;
} header;

shared uint sums[256];

void main()
{
    uint t = gl_LocalInvocationIndex, n = gl_WorkGroupSize.x;
    uint per = (pc.nrows + n - 1u) / n;
    uint first = t * per, last = min(first + per, pc.nrows);
    uint mine = 0u;
    for (uint y = first; y < last; y++)
        mine += rows[y];
    sums[t] = mine;
    barrier();
    for (uint d = 1u; d < n; d <<= 1) {
        uint v = t >= d ? sums[t - d] : 0u;
        barrier();
        sums[t] += v;
        barrier();
    }
    uint run = sums[t] - mine;
    for (uint y = first; y < last; y++) {
        uint c = rows[y];
        rows[y] = run;
        run += c;
    }
    if (t == n - 1u) {
        uint total = sums[t];
        uint kept = min(total, pc.max_spots);
        header.total = total;
        header.kept = kept;
        header.overflow = total - kept;
        header.pad = 0u;
        header.groups_x = min(kept, 32768u);
        header.groups_y = (kept + 32767u) / 32768u;
        header.groups_z = kept > 0u ? 1u : 0u;
    }
}
