#version 460
// resize, one axis whose input is a whole number R of times its output: away from the edges,
// output i reads the T inputs from R i + pc.first on, all with the same weights (the table's
// of output pc.lo). Each invocation walks one line (a row along x, a column along y with
// vertical) through a segment of pc.seg outputs, keeping the last T inputs in registers: each
// output loads R new ones and sums all T, in input order, with the weights held in registers.
// The loop makes T / R outputs a turn, so every register index is known when it compiles and
// the inputs never move. The outputs near the edges, [0, pc.lo) and [pc.hi, size), whose runs
// are clipped, sum their own taps from the table as glsl/resize.comp does. The same bytes as
// the other variants.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "common.glsl"
#define RESIZE_RATIO
#include "resize.h"

layout(binding = 0) uniform sampler2D src;
layout(binding = 1) writeonly uniform image2D dst;
// The axis's table (glsl/resize.h).
layout(binding = 2) readonly buffer Table {
    uint words[];
} table;

layout(constant_id = RESIZE_SPEC_RATIO) const uint R = 2;
layout(constant_id = RESIZE_SPEC_TAPS) const uint T = 12;

const uint TURN = T / R;

vec4 fetch(uint line, int q)
{
    return texelFetch(src, pc.vertical != 0u ? ivec2(line, q) : ivec2(q, line), 0);
}

void store(uint line, uint j, vec4 sum)
{
    imageStore(dst, pc.vertical != 0u ? ivec2(line, j) : ivec2(j, line), to_stored(sum));
}

// Output j from its own run and weights in the table.
void one(uint line, uint j, uint n)
{
    const int first = int(table.words[2u * j]);
    const uint count = table.words[2u * j + 1u];
    vec4 sum = vec4(0.0);
    for (uint k = 0u; k < count; k++)
        sum = mad_rounded(sum, uintBitsToFloat(table.words[(2u + k) * n + j]),
                         fetch(line, first + int(k)));
    store(line, j, sum);
}

void main()
{
    const bool v = pc.vertical != 0u;
    const uint line = gl_GlobalInvocationID.x;
    if (line >= uint(v ? pc.size.x : pc.size.y))
        return;
    const uint n = uint(v ? pc.size.y : pc.size.x);
    const uint j0 = gl_GlobalInvocationID.y * pc.seg;
    const uint j1 = min(j0 + pc.seg, n);
    const uint a = clamp(j0, pc.lo, pc.hi), b = clamp(j1, pc.lo, pc.hi);
    for (uint j = j0; j < min(j1, pc.lo); j++)
        one(line, j, n);
    if (a < b) {
        float w[T];
        [[unroll]] for (uint k = 0u; k < T; k++)
            w[k] = uintBitsToFloat(table.words[(2u + k) * n + pc.lo]);
        vec4 x[T];
        const int q = int(R * a) + pc.first;
        [[unroll]] for (uint k = 0u; k < T - R; k++)
            x[k] = fetch(line, q + int(k));
        for (uint j = a; j < b; j += TURN) {
            const int p = q + int(R * (j - a));
            [[unroll]] for (uint m = 0u; m < TURN; m++) {
                if (j + m >= b)
                    break;
                [[unroll]] for (uint r = 0u; r < R; r++)
                    x[(m * R + T - R + r) % T] = fetch(line, p + int(m * R + T - R + r));
                vec4 sum = vec4(0.0);
                [[unroll]] for (uint k = 0u; k < T; k++)
                    sum = mad_rounded(sum, w[k], x[(m * R + k) % T]);
                store(line, j + m, sum);
            }
        }
    }
    for (uint j = max(j0, pc.hi); j < j1; j++)
        one(line, j, n);
}
