#version 460
// One pass of the separable Gaussian on the matrix units (VK_NV_cooperative_matrix), for
// rgba16f images and radii up to 32. Along the pass's axis the convolution is a product
// with banded Toeplitz matrices of weights:
//
//   out[a][n] = sum_k W[a][k] in[k][n],
//
// a over 16 outputs along the axis, n over the 4 channels of 4 pixels across it (channels 0
// and 1 of pixel p at n = 2p and 2p + 1, channels 2 and 3 at 2p + 8 and 2p + 9), k over the
// inputs from RA >= R before the first output (RA a multiple of 8, so that reads start on
// the 8 x 8 texel blocks the image is tiled in), W[a][k] = w(|k - RA - a|) within the radius.
// W is the same for every such block of outputs: NK blocks of 16 x 16 weights, held in
// registers for the whole group.
//
// A work group of 128 invocations (four subgroups of 32) walks a strip 16 pixels wide along
// the axis, SEG steps of 32 outputs. The inputs, halves that rgba16f holds exactly, sit in a
// ring of NK + 1 blocks of 16 lines in shared memory (for rows the strip is transposed on
// the way in), so that every block of inputs is a matrix the units load with one stride;
// each step brings two new blocks, read from the image during the step before.
//
// Each weight is split into a half and the half of its remainder (hi + lo), scaled by 2^14
// so that neither is subnormal: the products of halves, summed in float32, come within
// float32 rounding of the multiply-adds of gauss_row and gauss_col. Zero weights outside the
// band multiply inputs too, so an infinity or a NaN in the ring would spread: from the first
// one on, the group takes plain multiply-adds from the same ring.
//
// On the H100 Vulkan gives all the groups on an SM 48 KiB of shared memory together, which
// bounds how many fit: the ring is 11.5 KiB at radius 24, four groups (tests/bench/RESULTS.md).
// The seed's separable blur with its shared-memory tile and halo, the tile become a ring
// that slides along the axis and the taps matrix products.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_KHR_shader_subgroup_ballot : require
#include "common.glsl"
#include "gauss.h"

layout(constant_id = MMA_SPEC_R) const int R = 24;        // 1..32
layout(constant_id = MMA_SPEC_ROWS) const bool ROWS = false; // along x (else along y)
layout(constant_id = MMA_SPEC_SEG) const int SEG = 16;      // steps of 32 outputs per group

const int T = 128;                     // invocations
const int OUT = 32;                    // outputs along the axis per step
const int ACROSS = 16;                 // pixels across the axis
const int RA = (R + 7) / 8 * 8;        // R up to a multiple of 8: lines read start there
const int NK = (16 + RA + R + 15) / 16; // blocks of 16 inputs per block of 16 outputs
const int RING = NK + 1;               // the blocks a step reads
const int LINE_U4 = ACROSS / 2 + 1;    // a line: 16 texels in 8 uvec4, +1 so that the 8 lines
                                       // a matrix load reads at once hit distinct banks; per
                                       // 4 pixels, the halves of channels 0-1 (one uint a
                                       // pixel) and then those of channels 2-3, the order of n
const int BLOCK_U4 = 16 * LINE_U4;
const int NEW = 4;                     // texels each invocation brings per step: the 2 x 16
                                       // lines of ACROSS = 16 pixels, 4 side by side
const float SCALE = 16384.0;

layout(binding = 0) uniform sampler2D src;
layout(binding = 1) writeonly uniform image2D dst;

#include "gauss_push.glsl"

// The ring of input blocks; before it fills, the weight blocks and a matrix of indices.
shared uvec4 ring[RING * BLOCK_U4];
shared uint flags; // 1: an infinity or NaN came in; 2: results lie unlike TAKE expects

#define HALVES fcoopmatNV<16, gl_ScopeSubgroup, 16, 16>
#define FLOATS fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>

float weight(int d)
{
    d = abs(d);
    return d <= R ? gauss_tap(d) * SCALE : 0.0;
}

int strip0, line0; // first pixel across; first input line (RA before the first output)

ivec2 texel_of(int line, int p)
{
    return ROWS ? ivec2(line0 + line, strip0 + p) : ivec2(strip0 + p, line0 + line);
}

// The texels this invocation brings from the two blocks from b on: pixels 4 (t % 4) to
// 4 (t % 4) + 3 across on line t / 4, whose halves two uvec4 of the ring hold (one store
// each instead of a 32-bit store per texel and pair of channels).
int line_of(int b)
{
    return 16 * b + int(gl_LocalInvocationIndex) / 4;
}

int across_of(int k)
{
    return 4 * (int(gl_LocalInvocationIndex) % 4) + k;
}

vec4 fetch(int b, int k)
{
    return load_clamped(src, texel_of(line_of(b), across_of(k)), pc.size);
}

// Ring index of the channels 0-1 of line l (from line0) at pixel p across: element p % 4 of
// that uvec4; channels 2-3 in the next.
int ring_index(int l, int p)
{
    return ((l / 16) % RING) * BLOCK_U4 + (l % 16) * LINE_U4 + (p / 4) * 2;
}

vec4 ring_texel(int l, int p)
{
    int i = ring_index(l, p);
    return vec4(unpackHalf2x16(ring[i][p % 4]), unpackHalf2x16(ring[i + 1][p % 4]));
}

// Returns whether v holds an infinity or a NaN.
bool put(int b, vec4 v[NEW])
{
    const int i = ring_index(line_of(b), across_of(0));
    ring[i] = uvec4(packHalf2x16(v[0].xy), packHalf2x16(v[1].xy), packHalf2x16(v[2].xy),
                    packHalf2x16(v[3].xy));
    ring[i + 1] = uvec4(packHalf2x16(v[0].zw), packHalf2x16(v[1].zw), packHalf2x16(v[2].zw),
                        packHalf2x16(v[3].zw));
    bool bad = false;
    [[unroll]] for (int k = 0; k < NEW; k++)
        bad = bad || any(isinf(v[k])) || any(isnan(v[k]));
    return bad;
}

void main()
{
    const int t = int(gl_LocalInvocationIndex), lane = t % 32;
    strip0 = int(gl_WorkGroupID.x) * ACROSS;
    const int out0 = int(gl_WorkGroupID.y) * OUT * SEG;
    line0 = out0 - RA;
    const int along = ROWS ? pc.size.x : pc.size.y;
    const int steps = min(SEG, (along - out0 + OUT - 1) / OUT);

    // Reads start first: blocks 0 and 1 of the NK - 1 that precede the first step.
    vec4 queue[NEW];
    [[unroll]] for (int k = 0; k < NEW; k++)
        queue[k] = fetch(0, k);

    // The weight blocks: j (hi) and NK + j (lo), row-major 16 x 16, element (m, c) =
    // w(16 j + c - RA - m), two halves to a uint. hi is w rounded to a half bit by bit:
    // through packHalf2x16 and back the compiler may fold lo = w - hi to zero.
    for (int q = t; q < NK * 128; q += T) {
        int j = q / 128, m = (q % 128) / 8, c = 2 * (q % 8);
        vec2 w = vec2(weight(16 * j + c - RA - m), weight(16 * j + c + 1 - RA - m));
        precise vec2 hi = round_half(vec4(w, 0.0, 0.0)).xy;
        precise vec2 lo = w - hi;
        ring[j * 32 + m * 2 + (q % 8) / 4][q % 4] = packHalf2x16(hi);
        ring[(NK + j) * 32 + m * 2 + (q % 8) / 4][q % 4] = packHalf2x16(lo);
    }
    // A 16 x 16 matrix of floats holding their own indices, to check where results lie.
    const int PROBE = 2 * NK * 32;
    if (t < 64)
        ring[PROBE + t] = floatBitsToUint(vec4(4 * t, 4 * t + 1, 4 * t + 2, 4 * t + 3));
    if (t == 0)
        flags = 0u;
    barrier();
    // Named fragments, not arrays: arrays of them went to local memory. NK <= 5.
    HALVES whi0, whi1, whi2, whi3, whi4, wlo0, wlo1, wlo2, wlo3, wlo4;
#define LOAD_W(j) \
    if (NK > j) { \
        coopMatLoadNV(whi##j, ring, j * 32, 2, false); \
        coopMatLoadNV(wlo##j, ring, (NK + j) * 32, 2, false); \
    }
    LOAD_W(0) LOAD_W(1) LOAD_W(2) LOAD_W(3) LOAD_W(4)
    // Results are read out of the accumulators where NVIDIA's matrix units put them (the C
    // fragment of a 16x8x16 product, twice): element i of invocation l is row l / 4 +
    // 8 (i / 4), column 2 (l % 4) + i % 2 + 8 ((i / 2) % 2). A device that lays them out
    // otherwise takes the multiply-adds.
    {
        FLOATS probe;
        coopMatLoadNV(probe, ring, PROBE, 4, false);
        bool same = probe.length() == 8;
        [[unroll]] for (int i = 0; i < 8; i++) {
            int row = lane / 4 + 8 * (i / 4), col = 2 * (lane % 4) + i % 2 + 8 * ((i / 2) % 2);
            same = same && i < probe.length() && probe[i] == float(16 * row + col);
        }
        if (!same)
            atomicOr(flags, 2u);
    }
    barrier(); // the weights and the probe are loaded: the ring may fill

    // Blocks 0 .. NK - 2 two at a time (the last pair may reach into step 0's first block,
    // which step 0 reads again), then blocks NK - 1 and NK in flight for step 0.
    bool bad = false;
    for (int b = 0; b < NK - 1; b += 2) {
        vec4 now[NEW] = queue;
        [[unroll]] for (int k = 0; k < NEW; k++)
            queue[k] = fetch(b + 2 < NK - 1 ? b + 2 : NK - 1, k);
        if (t < 64 || b + 1 < NK - 1) // lines of block b, or of b + 1 while before step 0's
            bad = put(b, now) || bad;
    }

    // Per step, subgroup n0 makes pixels 4 n0 .. 4 n0 + 3 across, 16 outputs along in acc0
    // and the next 16 in acc1; input block 2s + i feeds acc0 with weights i and acc1 with
    // weights i - 1. Invocation l stores pixel px across at along r0, r0 + 8 (acc0), r0 + 16
    // and r0 + 24 (acc1).
    const int n0 = t / 32, r0 = lane / 4, px = 4 * n0 + lane % 4;
    for (int s = 0; s < steps; s++) {
        // Blocks 2s + NK - 1 and 2s + NK complete the ring for this step, where blocks
        // 2s - 2 and 2s - 1 were.
        bad = put(2 * s + NK - 1, queue) || bad;
        if (bad)
            atomicOr(flags, 1u);
        bad = false;
        // The next step's reads go out before the barrier, so its wait hides part of them.
        if (s + 1 < steps)
            [[unroll]] for (int k = 0; k < NEW; k++)
                queue[k] = fetch(2 * s + NK + 1, k);
        barrier();
        vec4 out4[4];
        if (subgroupBroadcastFirst(flags) == 0u) {
            FLOATS acc0 = FLOATS(0.0), acc1 = FLOATS(0.0);
            HALVES x;
#define INPUT(i) coopMatLoadNV(x, ring, ((2 * s + i) % RING) * BLOCK_U4 + n0 * 2, LINE_U4, false);
#define MMA(a, j) \
    acc##a = coopMatMulAddNV(whi##j, x, acc##a); \
    acc##a = coopMatMulAddNV(wlo##j, x, acc##a);
            INPUT(0) MMA(0, 0)
            INPUT(1) MMA(0, 1) MMA(1, 0)
            if (NK > 2) { INPUT(2) MMA(0, 2) MMA(1, 1) }
            if (NK > 3) { INPUT(3) MMA(0, 3) MMA(1, 2) }
            if (NK > 4) { INPUT(4) MMA(0, 4) MMA(1, 3) }
            if (NK == 2) { INPUT(2) MMA(1, 1) }
            if (NK == 3) { INPUT(3) MMA(1, 2) }
            if (NK == 4) { INPUT(4) MMA(1, 3) }
            if (NK == 5) { INPUT(5) MMA(1, 4) }
            // By the order of n, elements 0-3 and 4-7 of an invocation are the 4 channels
            // of its pixel at two places along.
#define TAKE(a, o) \
    out4[o] = vec4(acc##a[0], acc##a[1], acc##a[2], acc##a[3]) / SCALE; \
    out4[o + 1] = vec4(acc##a[4], acc##a[5], acc##a[6], acc##a[7]) / SCALE;
            TAKE(0, 0) TAKE(1, 2)
        } else {
            // Multiply-adds over the window, only its taps, from the ring.
            [[unroll]] for (int o = 0; o < 4; o++) {
                vec4 sum = vec4(0.0);
                for (int d = -R; d <= R; d++)
                    sum += gauss_tap(abs(d)) * ring_texel(OUT * s + r0 + 8 * o + RA + d, px);
                out4[o] = sum;
            }
        }
        [[unroll]] for (int o = 0; o < 4; o++) {
            ivec2 p = texel_of(OUT * s + r0 + 8 * o + RA, px);
            if (all(lessThan(p, pc.size)))
                imageStore(dst, p, to_stored_by(out4[o], opaque_zero()));
        }
        barrier(); // the next blocks go where this step read
    }
}
