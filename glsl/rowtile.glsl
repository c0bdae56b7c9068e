// Row passes of separable filters: a work group of 64 x ROWS invocations
// loads ROWS row segments (64*RUN outputs plus the halo) into shared memory
// with coalesced reads, each invocation computes RUN consecutive outputs
// from shared memory (RUN odd: reads at a stride of RUN entries hit
// distinct banks), the results go back through shared memory, and the
// group stores them coalesced. Needs HALO (shared capacity for the radius),
// RUN (at most MAX_RUN) and ROWS defined first; all three may be
// specialization constants.
const int MAX_RUN = 7;
const int ROW_CAP = 64 * RUN + 2 * HALO;
// Set when the input and the output are both rgba16f: the tile then holds
// halves, which hold those values exactly (the results rounded by to_stored
// first), in half the shared memory and half the reads (measured faster:
// tests/bench/RESULTS.md).
layout(constant_id = ROW_SPEC_HALF_TILE) const bool HALF_TILE = false;
shared vec4 row_tile32[HALF_TILE ? 1 : ROWS * ROW_CAP];
shared uvec2 row_tile16[HALF_TILE ? ROWS * ROW_CAP : 1];

void row_tile_put(int i, vec4 v)
{
    if (HALF_TILE)
        row_tile16[i] = uvec2(packHalf2x16(v.xy), packHalf2x16(v.zw));
    else
        row_tile32[i] = v;
}

vec4 row_tile_get(int i)
{
    if (HALF_TILE) {
        uvec2 u = row_tile16[i];
        return vec4(unpackHalf2x16(u.x), unpackHalf2x16(u.y));
    }
    return row_tile32[i];
}

// Loads this group's segments with a halo of r pixels; returns the x of the
// first output of the segment.
int row_tile_load(sampler2D s, ivec2 size, int r)
{
    const int lx = int(gl_LocalInvocationID.x), ly = int(gl_LocalInvocationID.y);
    const int x0 = int(gl_WorkGroupID.x) * 64 * RUN;
    const int y = int(gl_WorkGroupID.y) * ROWS + ly;
    // A trip count known at pipeline creation unrolls, so all of an
    // invocation's reads are in flight together.
    const int n = 64 * RUN + 2 * r;
    [[unroll]] for (int k = 0; k < (64 * RUN + 2 * HALO + 63) / 64; k++) {
        int i = lx + 64 * k;
        if (i < n)
            row_tile_put(ly * ROW_CAP + i,
                         load_clamped(s, ivec2(x0 - r + i, min(y, size.y - 1)), size));
    }
    barrier();
    return x0;
}

// Input i of this invocation's window: tile index RUN*lx + i, where i = 0
// is r pixels left of its first output.
vec4 row_tile_input(int i)
{
    return row_tile_get(int(gl_LocalInvocationID.y) * ROW_CAP + int(gl_LocalInvocationID.x) * RUN + i);
}

void row_tile_store(writeonly image2D img, ivec2 size, int x0, vec4 acc[MAX_RUN])
{
    const int lx = int(gl_LocalInvocationID.x), ly = int(gl_LocalInvocationID.y);
    const int y = int(gl_WorkGroupID.y) * ROWS + ly;
    barrier(); // everyone is done reading the inputs
    [[unroll]] for (int j = 0; j < RUN; j++)
        row_tile_put(ly * ROW_CAP + lx * RUN + j, to_stored(acc[j]));
    barrier();
    if (y >= size.y)
        return;
    [[unroll]] for (int k = 0; k < RUN; k++) {
        int i = lx + 64 * k;
        if (x0 + i < size.x)
            imageStore(img, ivec2(x0 + i, y), row_tile_get(ly * ROW_CAP + i));
    }
}
