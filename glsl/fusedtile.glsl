// One-pass separable filters (box_fused, gauss_fused): a 32 x LY work group owns a tile
// of 32 columns x LY*PER rows of outputs and keeps the row result of those
// rows, and R more above and below, in shared memory as packed halves,
// rounded to the nearest half exactly as the two-pass path stores its row
// image at rgba16f, or as floats (FLOAT_TILE: gauss_fused writing rgba32f,
// as the two-pass path stores its row image then). The row result never
// goes to device memory. The row phase reads its taps through the texture
// cache: staging the input rows in shared memory as well measured slower
// (tests/bench/RESULTS.md). Needs R, PER, LY and RUN (row results per invocation,
// dividing 32) defined first.
const int TH = LY * PER;     // output rows of the tile
const int ROWS = TH + 2 * R; // row results the tile needs
const int SLOTS = 32 / RUN;  // invocations per row in the row phase
const int ROWS_AT_ONCE = LY * 32 / SLOTS;

// How the row results lie in shared memory. Row by row (r * 32 + c), the 8-byte
// stores of a subgroup in the row phase (rows side by side at the same column)
// all fall on the same two of the 32 banks and go one by one. Column by column
// (c * STRIDE + r, STRIDE odd) those stores fall on distinct banks, and so do
// the column phase's reads (32 columns of one row); it takes one more row of
// shared memory where ROWS is even.
layout(constant_id = FUSED_SPEC_BY_COLUMN) const bool BY_COLUMN = false;
const int STRIDE = ROWS | 1;
layout(constant_id = FUSED_SPEC_FLOAT) const int TILE_KIND = 0; // tiles.h
const bool FLOAT_TILE = TILE_KIND != 0;
const int TILE_ENTRIES = BY_COLUMN ? 32 * STRIDE : 32 * ROWS;

shared uvec2 row_result[FLOAT_TILE ? 1 : TILE_ENTRIES];
shared vec4 row_result32[FLOAT_TILE ? TILE_ENTRIES : 1];

int fused_index(int r, int c)
{
    return BY_COLUMN ? c * STRIDE + r : r * 32 + c;
}

// The row phase's invocation t makes the RUN row results from column
// fused_slot(t) * RUN on of rows fused_row(t), + ROWS_AT_ONCE, ... The four
// invocations of a quad take four rows at the same columns, so that each of
// the quad's texture reads fetches four texels one above the other, not four
// texels RUN apart along a row, which the texture cache serves more slowly
// (tests/bench/RESULTS.md). Needs 4 * SLOTS to
// divide the group's invocations.
int fused_row(int t)
{
    return t / (4 * SLOTS) * 4 + t % 4;
}

int fused_slot(int t)
{
    return t / 4 % SLOTS;
}

void fused_put(int r, int c, vec4 v)
{
    if (FLOAT_TILE) {
        row_result32[fused_index(r, c)] = v;
        return;
    }
    vec4 h = PACK_RNE ? v : round_half(v); // packHalf2x16 rounds alike where PACK_RNE
    row_result[fused_index(r, c)] = uvec2(packHalf2x16(h.xy), packHalf2x16(h.zw));
}

// Row result i of this invocation's column window (i = 0 is R rows above
// its first output).
vec4 fused_get(int i)
{
    const int at = fused_index(int(gl_LocalInvocationID.y) * PER + i, int(gl_LocalInvocationID.x));
    if (FLOAT_TILE)
        return row_result32[at];
    uvec2 p = row_result[at];
    return vec4(unpackHalf2x16(p.x), unpackHalf2x16(p.y));
}

// The first of this invocation's PER outputs down its column.
ivec2 fused_first_output()
{
    return ivec2(gl_WorkGroupID.x * 32u + gl_LocalInvocationID.x,
                 gl_WorkGroupID.y * uint(TH) + gl_LocalInvocationID.y * uint(PER));
}
