// Body of sat_tile.comp and sat_tile_sg.comp (included after #version):
// the tile pass of the summed-area table S(x, y) = sum of q(i, j) over
// i <= x, j <= y, with q = round(v * 2^SHIFT) the sample in 64-bit fixed
// point. A work group of TW x TR invocations owns a tile of TW columns and
// TH = 4 TR rows; each invocation holds four rows of one column.
//
// Inside the tile: columns first (a running sum down the invocation's four
// rows, then the sums of the blocks above it from shared memory), then
// rows: with VKFX_SUBGROUP subgroupInclusiveAdd over each row segment and
// the totals of the row's earlier subgroups from shared memory (TW is a
// multiple of the subgroup size, which the pipeline pins); without, the
// shared-memory parallel prefix sum (Hillis-Steele) over each row.
//
// MODE 0 (sums) writes the tile's bottom row of column prefixes (the column
// sums, cols[tile row][x]) and its right column of in-tile sums
// (rows[tile column][y]); sat_carry and sat_lines turn those into the
// offsets that MODE 1 (table) adds to the in-tile sums to write S, as its
// low and high 32 bits in two rgba32ui images (images, not a buffer: a
// table of 32 bytes per pixel soon exceeds the storage-buffer range some
// devices allow, 128 MiB on lavapipe).
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "scan.glsl"

layout(constant_id = 4) const uint MODE = 0;
layout(constant_id = 5) const int SHIFT = 24;

#define RPT 4

layout(binding = 0) uniform sampler2D src;
layout(binding = 1, rgba32ui) writeonly uniform uimage2D sat_lo;
layout(binding = 2, rgba32ui) writeonly uniform uimage2D sat_hi;
layout(binding = 3) buffer Cols { i64vec4 cols[]; };
layout(binding = 4) buffer Rows { i64vec4 rows[]; };
layout(binding = 5) writeonly buffer Probe { uint probe[]; };

layout(push_constant) uniform Push { ivec2 size; } pc;

// 256 invocations at most; [k * 64 + subgroup] for the subgroup totals.
shared i64vec4 sh[256];

i64vec4 quantise(vec4 v)
{
    // NaN becomes 0; the rgba16f range bounds |q| to 2^(16 + SHIFT).
    v = clamp(mix(v, vec4(0.0), isnan(v)), vec4(-65504.0), vec4(65504.0));
    vec4 q = roundEven(v * exp2(float(SHIFT)));
    return i64vec4(int64_t(q.x), int64_t(q.y), int64_t(q.z), int64_t(q.w));
}

void main()
{
    const uint TW = gl_WorkGroupSize.x, TR = gl_WorkGroupSize.y, TH = TR * RPT;
#ifdef VKFX_SUBGROUP
    uint lin = gl_SubgroupID * gl_SubgroupSize + gl_SubgroupInvocationID;
#else
    uint lin = gl_LocalInvocationIndex;
#endif
    uint tx = lin % TW, ty = lin / TW;
    int x = int(gl_WorkGroupID.x * TW + tx);
    int y0 = int(gl_WorkGroupID.y * TH + ty * RPT);

    i64vec4 v[RPT];
    i64vec4 run = i64vec4(0);
    for (int k = 0; k < RPT; k++) {
        ivec2 p = ivec2(x, y0 + k);
        if (all(lessThan(p, pc.size)))
            run += quantise(texelFetch(src, p, 0));
        v[k] = run;
    }
    sh[lin] = run;
    barrier();
    i64vec4 above = i64vec4(0);
    for (uint t = 0u; t < ty; t++)
        above += sh[t * TW + tx];
    for (int k = 0; k < RPT; k++)
        v[k] += above;
    barrier();
    if (MODE == 0u && ty == TR - 1u && x < pc.size.x)
        cols[gl_WorkGroupID.y * uint(pc.size.x) + uint(x)] = v[RPT - 1];

#ifdef VKFX_SUBGROUP
    for (int k = 0; k < RPT; k++)
        v[k] = subgroup_scan_small(v[k]);
    if (gl_SubgroupInvocationID == gl_SubgroupSize - 1u)
        for (int k = 0; k < RPT; k++)
            sh[k * 64 + gl_SubgroupID] = v[k];
    barrier();
    for (uint s = ty * TW / gl_SubgroupSize; s < gl_SubgroupID; s++)
        for (int k = 0; k < RPT; k++)
            v[k] += sh[k * 64 + s];
    if (MODE == 1u && gl_WorkGroupID.xy == uvec2(0) && lin == 0u) {
        probe[0] = gl_SubgroupSize;
        probe[1] = SUBGROUP_SIZE;
        probe[2] = gl_NumSubgroups;
    }
#else
    for (int k = 0; k < RPT; k++) {
        sh[lin] = v[k];
        barrier();
        for (uint d = 1u; d < TW; d <<= 1) {
            i64vec4 t = tx >= d ? sh[lin - d] : i64vec4(0);
            barrier();
            sh[lin] += t;
            barrier();
        }
        v[k] = sh[lin];
        barrier();
    }
    if (MODE == 1u && gl_WorkGroupID.xy == uvec2(0) && lin == 0u) {
        probe[0] = 0u;
        probe[1] = 0u;
        probe[2] = 0u;
    }
#endif

    uint w = uint(pc.size.x), h = uint(pc.size.y);
    if (MODE == 0u) {
        if (tx == TW - 1u)
            for (int k = 0; k < RPT; k++)
                if (y0 + k < pc.size.y)
                    rows[gl_WorkGroupID.x * h + uint(y0 + k)] = v[k];
    } else if (x < pc.size.x) {
        i64vec4 top = cols[gl_WorkGroupID.y * w + uint(x)];
        for (int k = 0; k < RPT; k++)
            if (y0 + k < pc.size.y) {
                i64vec4 s = v[k] + top + rows[gl_WorkGroupID.x * h + uint(y0 + k)];
                imageStore(sat_lo, ivec2(x, y0 + k), low32(s));
                imageStore(sat_hi, ivec2(x, y0 + k), high32(s));
            }
    }
}
