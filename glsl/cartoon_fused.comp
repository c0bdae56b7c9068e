#version 460
// cartoon in one dispatch, for the radii of the one-pass Gaussian: a 32 x LY
// work group makes a tile of 32 x TH outputs. The Sobel of glsl/cartoon.comp
// reads the blur one pixel around each output, clamped to the image, so the
// group blurs a tile one pixel larger on every side (BW x BH). Row phase: the
// row results of those BW columns over BH + 2R rows into shared memory, as
// gauss_fused does (rows beyond the image repeat its edge rows). Column
// phase: the float blur of every tile pixel, kept in registers until all row
// results are read, then stored over them. Last, each invocation walks PER
// outputs down its column with the rolling window of sobel.glsl, taking each
// neighbour at its position clamped to the image: the blur of a pixel beyond
// the edge is the edge pixel's, not the blur of a clamped input.
//
// Every blurred value takes the operations of the one-pass kernel's float
// tile in their order (gauss_taps.glsl), and the darkening those of
// cartoon.comp: the same bytes as the blur stored in rgba32f and
// cartoon.comp after it.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "common.glsl"
#include "gauss.h"
#include "sobel.glsl"

layout(constant_id = FUSED_SPEC_R) const int R = 6;    // at most MAX_R
layout(constant_id = FUSED_SPEC_PER) const int PER = 6;  // at most MAX_PER
layout(constant_id = FUSED_SPEC_LY) const int LY = 8;   // equals the work-group height
layout(constant_id = FUSED_SPEC_RUN) const int RUN = 8;  // divides 32, at most MAX_RUN
const int MAX_R = 16;
const int MAX_PER = 16;
const int MAX_RUN = 16;

layout(binding = 0) uniform sampler2D src;
layout(binding = 1) writeonly uniform image2D dst;

#include "gauss_push.glsl"

const int TH = LY * PER;      // output rows of the tile
const int BW = 32 + 2;        // blurred columns: the tile's and one on each side
const int BH = TH + 2;        // blurred rows
const int ROWS = BH + 2 * R;  // row results the blur needs
const int GROUP = 32 * LY;    // invocations
const int SLOTS = 32 / RUN;   // invocations per row in the row phase
const int ROWS_AT_ONCE = GROUP / SLOTS;
// Blurred pixels of the halo: the top and bottom rows, then the side columns between them.
const int HALO = 2 * BW + 2 * TH;
const int HALO_PER = (HALO + GROUP - 1) / GROUP;
const int MAX_HALO = 4;

// Column by column with an odd stride, as fusedtile.glsl's BY_COLUMN: the 32 columns of one
// row that a subgroup reads or writes at once fall on distinct banks. The blur takes the
// place of the row results once they are read.
const int STRIDE = ROWS | 1;
const int BLUR_STRIDE = BH | 1;
shared vec4 tile[BW * STRIDE];

int row_at(int r, int c)
{
    return c * STRIDE + r;
}

int blur_at(int b, int c)
{
    return c * BLUR_STRIDE + b;
}

// As fusedtile.glsl's fused_row and fused_slot: a quad takes four rows at the same columns.
int run_row(int t)
{
    return t / (4 * SLOTS) * 4 + t % 4;
}

int run_slot(int t)
{
    return t / 4 % SLOTS;
}

// Tile row and column (blurred) of halo pixel e.
ivec2 halo_at(int e)
{
    if (e < 2 * BW)
        return ivec2(e < BW ? 0 : BH - 1, e % BW);
    e -= 2 * BW;
    return ivec2(1 + e / 2, (e & 1) * (BW - 1));
}

// The blurred RGB at tile row b of tile columns l, c, r.
sobel_row blur_row(int b, int l, int c, int r)
{
    sobel_row row;
    row.l = tile[blur_at(b, l)].rgb;
    row.c = tile[blur_at(b, c)].rgb;
    row.r = tile[blur_at(b, r)].rgb;
    return row;
}

void main()
{
    float w[MAX_R + 1];
    [[unroll]] for (int k = 0; k <= R; k++)
        w[k] = gauss_tap(k);

    const int t = int(gl_LocalInvocationIndex);
    // Image position of tile pixel (0, 0) (blurred); tile column c is image column corner.x + c.
    const ivec2 corner = ivec2(gl_WorkGroupID.xy) * ivec2(32, TH) - 1;

    // Row results: tile row r is image row corner.y - R + r, clamped.
    const int cx = 1 + run_slot(t) * RUN;
    for (int r = run_row(t); r < ROWS; r += ROWS_AT_ONCE) {
        const ivec2 left =
            ivec2(corner.x + cx - R, clamp(corner.y - R + r, 0, pc.size.y - 1));
        vec4 acc[MAX_RUN];
        GAUSS_TAPS(acc, RUN, w, load_clamped(src, left + ivec2(i, 0), pc.size))
        [[unroll]] for (int j = 0; j < RUN; j++)
            tile[row_at(r, cx + j)] = acc[j];
    }
    for (int e = t; e < 2 * ROWS; e += GROUP) {
        const int r = e >> 1, c = (e & 1) * (BW - 1);
        const ivec2 left = ivec2(corner.x + c - R, clamp(corner.y - R + r, 0, pc.size.y - 1));
        vec4 acc[1];
        GAUSS_TAPS(acc, 1, w, load_clamped(src, left + ivec2(i, 0), pc.size))
        tile[row_at(r, c)] = acc[0];
    }
    barrier();

    // The blur: tile row b adds row results b .. b + 2R.
    const int lx = int(gl_LocalInvocationID.x), ly = int(gl_LocalInvocationID.y);
    vec4 acc[MAX_PER];
    GAUSS_TAPS(acc, PER, w, tile[row_at(1 + ly * PER + i, 1 + lx)])
    vec4 halo[MAX_HALO];
    [[unroll]] for (int k = 0; k < HALO_PER; k++) {
        const int e = t + k * GROUP;
        if (e < HALO) {
            const ivec2 at = halo_at(e);
            vec4 one[1];
            GAUSS_TAPS(one, 1, w, tile[row_at(at.x + i, at.y)])
            halo[k] = one[0];
        }
    }
    barrier();
    [[unroll]] for (int j = 0; j < PER; j++)
        tile[blur_at(1 + ly * PER + j, 1 + lx)] = acc[j];
    [[unroll]] for (int k = 0; k < HALO_PER; k++) {
        const int e = t + k * GROUP;
        if (e < HALO) {
            const ivec2 at = halo_at(e);
            tile[blur_at(at.x, at.y)] = halo[k];
        }
    }
    barrier();

    // The darkening, as cartoon.comp: neighbours beyond the image take the edge pixel's blur.
    const ivec2 first = corner + 1 + ivec2(lx, ly * PER);
    if (any(greaterThanEqual(first, pc.size)))
        return;
    const ivec2 last = pc.size - 1;
    const int l = max(first.x - 1, 0) - corner.x, c = first.x - corner.x,
              r = min(first.x + 1, last.x) - corner.x;
    sobel_row top = blur_row(max(first.y - 1, 0) - corner.y, l, c, r);
    sobel_row mid = blur_row(first.y - corner.y, l, c, r);
    [[unroll]] for (int j = 0; j < PER; j++) {
        const ivec2 p = first + ivec2(0, j);
        if (p.y >= pc.size.y)
            return;
        sobel_row bot = blur_row(min(p.y + 1, last.y) - corner.y, l, c, r);
        float e = sobel_edge(top, mid, bot, pc.amount);
        vec4 b = tile[blur_at(p.y - corner.y, c)];
        precise vec3 dark = b.rgb * (1.0 - e); // rounded as written on every device
        imageStore(dst, p, to_stored(vec4(dark, b.a)));
        top = mid;
        mid = bot;
    }
}
