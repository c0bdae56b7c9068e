#version 460
// The summed-area table's two tile passes, compiled once per pass and path by
// spirv/meson.build's rows: sat_sums* with SAT_TABLE 0 and BW 4, sat_table*
// with SAT_TABLE 1 and BW 2; the _sg ones with VKFX_SUBGROUP (the band is one
// subgroup, of the size the pipeline pins), the _sg64 ones with
// VKFX_SUBGROUP64 too (64-bit subgroupInclusiveAdd, on devices with
// shaderSubgroupExtendedTypes), the others through shared memory only, for
// devices without subgroup arithmetic (and --no-subgroup-ops). S(x, y) = sum of q(i, j) over i <= x, j <= y,
// with q = round(v * 2^SHIFT) the sample in 64-bit fixed point.
//
// A band of LW invocations (one subgroup on the subgroup paths: LW is the
// subgroup size the pipeline pins) owns a tile of TW = BW LW columns and
// TH = 4 STEPS rows and walks down it 4 rows at a time, each invocation BW
// neighbouring columns. A work group holds gl_WorkGroupSize.y bands, each
// on its own tile: they share nothing but the group. Inside the tile,
// L(x, y) is the sum over the tile's pixels at or left of x and at or above
// y. An invocation adds along its BW pixels of a row in registers, the band
// scans the invocations' row totals (subgroupInclusiveAdd, or with
// VKFX_SUBGROUP undefined the shared-memory parallel prefix sum of Hillis
// and Steele), and each invocation carries its columns' sums down the tile
// in registers: one scan per BW pixels and no work-group barriers.
//
// Pixels come in and table entries go out through a staging area in shared
// memory, one per band: a band reads and writes TW neighbouring pixels of
// a row at once (coalesced), then each invocation takes its own BW from the
// staging area (entries skewed by one every 8 so that neither order meets
// a bank conflict).
//
// The sums pass (tiles of 4 LW columns) writes each tile's bottom row
// L(x, bottom), cols[tile row][x], and for each half of the tile the
// right column L(TW/2 - 1, y) and L(TW - 1, y), rows[2 tile + half][y];
// sat_carry turns them into the sums left of each half-tile row segment
// and S on the row above each tile, which the table pass (tiles of 2 LW
// columns, the halves) adds to its own L to write S, as its low and high
// 32 bits in two rgba32ui images (images, not a buffer: a table of 32 bytes
// per pixel soon exceeds the storage-buffer range some devices allow,
// 128 MiB on lavapipe). The sums pass holds 4 columns per invocation, the
// table pass 2, the fastest measured (tests/bench/RESULTS.md).
#extension GL_GOOGLE_include_directive : require
#ifdef VKFX_SUBGROUP
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#endif
#extension GL_EXT_control_flow_attributes : require
#include "common.glsl"
#include "scan.glsl"
#define SAT_TILE
#include "sat.h"

// 0: the sums pass, 1: the table pass.
const uint MODE = SAT_TABLE;
layout(constant_id = SAT_SPEC_SHIFT) const int SHIFT = 24;
layout(constant_id = SAT_SPEC_STEPS) const uint STEPS = 8;

#define BH 4

layout(binding = 0) uniform sampler2D src;
layout(binding = 1, rgba32ui) writeonly uniform uimage2D sat_lo;
layout(binding = 2, rgba32ui) writeonly uniform uimage2D sat_hi;
layout(binding = 3) buffer Cols { i64vec4 cols[]; };
layout(binding = 4) buffer Rows { i64vec4 rows[]; };
layout(binding = 5) writeonly buffer Probe { uint probe[]; };

const uint INVOCATIONS = gl_WorkGroupSize.x * gl_WorkGroupSize.y;
#ifndef VKFX_SUBGROUP
// The parallel prefix sum's scratch, one entry per invocation.
shared i64vec4 sh[INVOCATIONS];
#endif
// The bands' staging areas: BH rows (MODE 1; MODE 0 stages one) of BW
// entries per invocation, one more every 8.
const uint STAGE_ROWS = MODE == 1u ? BH : 1u;
shared uvec4 stage[STAGE_ROWS * (BW * INVOCATIONS + BW * INVOCATIONS / 8)];

// A band's own invocations meet (the band is a subgroup on the subgroup
// paths; the whole group waits on the shared-memory path).
#ifdef VKFX_SUBGROUP
#extension GL_KHR_memory_scope_semantics : require
#define BAND_SYNC()                                                                                \
    controlBarrier(gl_ScopeSubgroup, gl_ScopeSubgroup, gl_StorageSemanticsShared,                  \
                   gl_SemanticsAcquireRelease)
#else
#define BAND_SYNC() barrier()
#endif

uint stage_at(uint band, uint k, uint p)
{
    const uint row = BW * gl_WorkGroupSize.x + BW * gl_WorkGroupSize.x / 8u;
    return (band * STAGE_ROWS + k) * row + p + (p >> 3);
}

i64vec4 quantise(vec4 v)
{
    // NaN becomes 0; the rgba16f range bounds |q| to 2^(16 + SHIFT).
    v = clamp(mix(v, vec4(0.0), isnan(v)), vec4(-65504.0), vec4(65504.0));
    vec4 q = roundEven(v * exp2(float(SHIFT)));
    return i64vec4(int64_t(q.x), int64_t(q.y), int64_t(q.z), int64_t(q.w));
}

// Reads rows y0 .. y0 + BH - 1 of the band's TW columns from x0, each
// invocation every LW-th pixel (coalesced; 0 outside the image). All reads
// are issued at once, so that their latencies overlap.
void fetch_block(int x0, int y0, uint tx, out vec4 t[BH][BW])
{
    const uint LW = gl_WorkGroupSize.x;
    [[unroll]] for (int k = 0; k < BH; k++)
        [[unroll]] for (uint j = 0u; j < BW; j++) {
            ivec2 p = ivec2(x0 + int(j * LW + tx), y0 + k);
            t[k][j] = all(lessThan(p, pc.size)) ? texelFetch(src, p, 0) : vec4(0.0);
        }
}

// One fetched row, exchanged through the band's first staging row: this
// invocation's BW neighbouring pixels, quantised.
void take_row(vec4 t[BW], uint tx, uint band, out i64vec4 q[BW])
{
    const uint LW = gl_WorkGroupSize.x;
    [[unroll]] for (uint j = 0u; j < BW; j++)
        stage[stage_at(band, 0u, j * LW + tx)] = floatBitsToUint(t[j]);
    BAND_SYNC();
    [[unroll]] for (uint i = 0u; i < BW; i++)
        q[i] = quantise(uintBitsToFloat(stage[stage_at(band, 0u, tx * BW + i)]));
    BAND_SYNC();
}

// Writes the band's staged BH x TW block of table entries (low or high
// halves) from row y0 to image `half_`: with 32 lanes each write covers 8
// columns of 4 rows rather than 32 columns of one: blocks of rows write
// fewer partial cache lines (tests/bench/RESULTS.md).
void store_block(int x0, int y0, uint tx, uint band, int half_)
{
    const uint LW = gl_WorkGroupSize.x, TW = LW * BW;
    const uint ROWS = clamp(LW / 8u, 1u, uint(BH)), COLS = LW / ROWS, ACROSS = TW / COLS;
    [[unroll]] for (uint m = 0u; m < BW * BH; m++) {
        uint c = m % ACROSS * COLS + tx % COLS;
        uint k = m / ACROSS * ROWS + tx / COLS;
        ivec2 p = ivec2(x0 + int(c), y0 + int(k));
        uvec4 u = stage[stage_at(band, k, c)];
        if (all(lessThan(p, pc.size))) {
            if (half_ == 0)
                imageStore(sat_lo, p, u);
            else
                imageStore(sat_hi, p, u);
        }
    }
}

// Inclusive sum of v over the band's invocations up to this one (tx). Every
// invocation of the group calls it together. Inputs are sums of at most 4
// samples, below 2^(2 + 16 + SHIFT) <= 2^42 in magnitude, as
// subgroup_scan_small needs.
i64vec4 band_scan(i64vec4 v, uint tx, uint lin)
{
#ifdef VKFX_SUBGROUP
    return subgroup_scan_small(v);
#else
    sh[lin] = v;
    barrier();
    for (uint d = 1u; d < gl_WorkGroupSize.x; d <<= 1) {
        i64vec4 t = tx >= d ? sh[lin - d] : i64vec4(0);
        barrier();
        sh[lin] += t;
        barrier();
    }
    v = sh[lin];
    barrier();
    return v;
#endif
}

void main()
{
    const uint LW = gl_WorkGroupSize.x;
    const uint TW = LW * BW, TH = STEPS * BH;
#ifdef VKFX_SUBGROUP
    // Full subgroups of LW lanes: subgroup i is band i.
    uint tx = gl_SubgroupInvocationID, band = gl_SubgroupID;
#else
    uint tx = gl_LocalInvocationID.x, band = gl_LocalInvocationID.y;
#endif
    uint lin = band * LW + tx;
    uint ti = gl_WorkGroupID.x * gl_WorkGroupSize.y + band, tj = gl_WorkGroupID.y;
    int tile_x = int(ti * TW), x0 = tile_x + int(tx * BW);
    int tile_y = int(tj * TH);
    uint w = uint(pc.size.x), h = uint(pc.size.y);
    // The group's last bands may lie wholly right of the image: they read
    // zeros and write nothing, but take part in the group's barriers.
    bool live = tile_x < pc.size.x;

    // acc[i]: down column x0 + i, the sum at or left of it and above the row
    // being done (in MODE 1 from the top of the image, in MODE 0 from the
    // top of the tile).
    i64vec4 acc[BW];
    [[unroll]] for (int i = 0; i < BW; i++)
        acc[i] = MODE == 1u && x0 + i < pc.size.x ? cols[tj * w + uint(x0 + i)] : i64vec4(0);
    if (MODE == 1u && gl_WorkGroupID.xy == uvec2(0) && lin == 0u) {
#ifdef VKFX_SUBGROUP
        probe[0] = gl_SubgroupSize;
        probe[1] = SUBGROUP_SIZE;
        probe[2] = gl_NumSubgroups;
#else
        probe[0] = 0u;
        probe[1] = 0u;
        probe[2] = 0u;
#endif
    }
    for (uint step = 0u; step < STEPS; step++) {
        int y0 = tile_y + int(step * BH);
        vec4 t[BH][BW];
        fetch_block(tile_x, y0, tx, t);
        // MODE 1 takes all BH rows in before its first row goes out through
        // the same staging rows; MODE 0 takes one row at a time, holding
        // fewer registers, which measured faster for MODE 0 and slower for
        // MODE 1, whose pixels need a staging row of their own
        // (tests/bench/RESULTS.md).
        i64vec4 q[BH][BW];
        if (MODE == 1u)
            [[unroll]] for (int k = 0; k < BH; k++)
                take_row(t[k], tx, band, q[k]);
        uvec4 hi[BH][BW];
        [[unroll]] for (int k = 0; k < BH; k++) {
            i64vec4 p[BW];
            if (MODE == 0u)
                take_row(t[k], tx, band, q[k]);
            p[0] = q[k][0];
            [[unroll]] for (int i = 1; i < BW; i++)
                p[i] = p[i - 1] + q[k][i];
            i64vec4 along = band_scan(p[BW - 1], tx, lin);
            i64vec4 before = along - p[BW - 1];
            int y = y0 + k;
            [[unroll]] for (int i = 0; i < BW; i++)
                acc[i] += p[i] + before;
            if (MODE == 0u) {
                // The invocations in the middle and at the end of the band
                // hold L(TW/2 - 1, y) and L(TW - 1, y).
                if (y < pc.size.y) {
                    if (live && tx == LW / 2u - 1u)
                        rows[2u * ti * h + uint(y)] = acc[BW - 1];
                    if (tile_x + int(TW / 2u) < pc.size.x && tx == LW - 1u)
                        rows[(2u * ti + 1u) * h + uint(y)] = acc[BW - 1];
                }
            } else {
                i64vec4 side = live && y < pc.size.y ? rows[ti * h + uint(y)] : i64vec4(0);
                [[unroll]] for (int i = 0; i < BW; i++) {
                    i64vec4 e = acc[i] + side;
                    stage[stage_at(band, uint(k), tx * BW + uint(i))] = low32(e);
                    hi[k][i] = high32(e);
                }
            }
        }
        if (MODE == 1u) {
            BAND_SYNC();
            store_block(tile_x, y0, tx, band, 0);
            BAND_SYNC();
            [[unroll]] for (int k = 0; k < BH; k++)
                [[unroll]] for (int i = 0; i < BW; i++)
                    stage[stage_at(band, uint(k), tx * BW + uint(i))] = hi[k][i];
            BAND_SYNC();
            store_block(tile_x, y0, tx, band, 1);
            BAND_SYNC();
        }
    }
    if (MODE == 0u)
        [[unroll]] for (int i = 0; i < BW; i++)
            if (x0 + i < pc.size.x)
                cols[tj * w + uint(x0 + i)] = acc[i];
}
