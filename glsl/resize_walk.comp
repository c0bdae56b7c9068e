#version 460
// resize, one axis that shrinks (or keeps its size): each invocation walks one line (a row
// along x, a column along y with vertical) through the inputs a segment of pc.seg outputs
// reads, in order, reading each input once, and adds it, times its weight, into the running
// sums of the outputs that read it: at most SLOTS of them, in registers, the first output
// still incomplete in slot 0. The host's table says, for each input along the axis, which
// slots it feeds with which weights and whether it completes the output in slot 0 (which is
// then stored, the slots moving down one); the last input of the axis completes all that are
// left. Neighbouring invocations walk neighbouring lines in step, so each step of a warp reads
// one texel of each of its lines and one table entry. The sums take their terms in input
// order, as glsl/resize.comp's do: the same bytes. UNROLL inputs are read before they are
// added (the sweep on the GPU machine: tests/bench/RESULTS.md, resize).
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "common.glsl"
#define RESIZE_WALK
#include "resize.h"

layout(binding = 0) uniform sampler2D src;
layout(binding = 1) writeonly uniform image2D dst;
// Per input along the axis, two entries: x = 1 where it completes an output | the slots it
// feeds << 8, then the weights of slots 0-6 as floats.
layout(binding = 2) readonly buffer Steps {
    uvec4 steps[];
} table;
// Per segment: its first input, the end of its inputs, and the output in slot 0 at the first.
layout(binding = 3) readonly buffer Segments {
    uint words[];
} segs;

layout(constant_id = RESIZE_SPEC_UNROLL) const uint UNROLL = 4;

const uint SLOTS = RESIZE_WALK_SLOTS;

void main()
{
    const bool v = pc.vertical != 0u;
    const uint line = gl_GlobalInvocationID.x;
    if (line >= uint(v ? pc.size.x : pc.size.y))
        return;
    const uint j0 = gl_GlobalInvocationID.y * pc.seg;
    const uint j1 = min(j0 + pc.seg, uint(v ? pc.size.y : pc.size.x));
    uint p = segs.words[3u * gl_GlobalInvocationID.y];
    const uint p1 = segs.words[3u * gl_GlobalInvocationID.y + 1u];
    uint j = segs.words[3u * gl_GlobalInvocationID.y + 2u];
    vec4 acc[SLOTS];
    [[unroll]] for (uint s = 0u; s < SLOTS; s++)
        acc[s] = vec4(0.0);
    for (; p < p1; p += UNROLL) {
        vec4 t[UNROLL];
        [[unroll]] for (uint u = 0u; u < UNROLL; u++) {
            const int q = int(min(p + u, p1 - 1u));
            t[u] = texelFetch(src, v ? ivec2(line, q) : ivec2(q, line), 0);
        }
        [[unroll]] for (uint u = 0u; u < UNROLL; u++) {
            if (p + u >= p1)
                break;
            const uvec4 a = table.steps[2u * (p + u)];
            const vec4 b = uintBitsToFloat(table.steps[2u * (p + u) + 1u]);
            const float w[SLOTS] = float[SLOTS](uintBitsToFloat(a.y), uintBitsToFloat(a.z),
                                                uintBitsToFloat(a.w), b.x, b.y, b.z, b.w);
            [[unroll]] for (uint s = 0u; s < SLOTS; s++)
                if ((a.x & (256u << s)) != 0u)
                    acc[s] = mad_rounded(acc[s], w[s], t[u]);
            if ((a.x & 255u) != 0u) {
                if (j >= j0 && j < j1)
                    imageStore(dst, v ? ivec2(line, j) : ivec2(j, line), to_stored(acc[0]));
                [[unroll]] for (uint s = 0u; s + 1u < SLOTS; s++)
                    acc[s] = acc[s + 1u];
                acc[SLOTS - 1u] = vec4(0.0);
                j++;
            }
        }
    }
    // The last input of the axis completes every output left.
    for (; j < j1; j++) {
        if (j >= j0)
            imageStore(dst, v ? ivec2(line, j) : ivec2(j, line), to_stored(acc[0]));
        [[unroll]] for (uint s = 0u; s + 1u < SLOTS; s++)
            acc[s] = acc[s + 1u];
    }
}
