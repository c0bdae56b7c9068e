#include <math.h>
#include <stddef.h>

#include "error.h"
#include "variant.h"
#include "filters.h"

#include "cartoon_fused.spv.h"
#include "gauss_col.spv.h"
#include "gauss_fused.spv.h"
#include "gauss_h.spv.h"
#include "gauss_mma.spv.h"
#include "gauss_row.spv.h"
#include "gauss_v.spv.h"

/* Push constants and specialization-constant ids, shared with the kernels. */
#include "../../glsl/gauss.h"
_Static_assert(sizeof(gauss_push) == GAUSS_PUSH_BYTES, "gauss_push is the kernels' push block");
enum { PUSH_TAPS = GAUSS_PUSH_TAPS };

typedef struct gauss_params {
    double sigma;
    int32_t radius;
} gauss_params;

static const vkfx_option gauss_options[] = {
    VKFX_OPTION_FLOAT(gauss_params, sigma, 1, 0.1, 1000, "standard deviation in pixels"),
    VKFX_OPTION_INT_UNSET(gauss_params, radius, "3*sigma rounded, at least 1", 1, 4096,
                          "taps on each side of the centre"),
    {0},
};

static const vkfx_kernel_desc gauss_h_kernel = VKFX_IMAGE_KERNEL(gauss_h, gauss_push);

static const vkfx_kernel_desc gauss_v_kernel = VKFX_IMAGE_KERNEL(gauss_v, gauss_push);

static const vkfx_kernel_desc gauss_row_kernel = VKFX_IMAGE_KERNEL(gauss_row, gauss_push);

static const vkfx_kernel_desc gauss_fused_kernel = VKFX_IMAGE_KERNEL(gauss_fused, gauss_push);

static const vkfx_kernel_desc gauss_col_kernel = VKFX_IMAGE_KERNEL(gauss_col, gauss_push);

/* The matrix-unit passes (glsl/gauss_mma.comp, rgba16f, devices with VK_NV_cooperative_matrix):
 * groups of 128 walk mma_seg() steps of 32 outputs; their ring of input blocks takes at most
 * 13.8 KiB (radius 32), within the 16 KiB every device allows a group. Where they apply they
 * were measured faster than the multiply-add passes at every radius the one-pass kernel leaves
 * them, their cost hardly depending on the radius (tests/bench/RESULTS.md). */
enum { MMA_MIN = 11 }; /* above the one-pass kernel's FUSED_MAX */

/* Steps per group of the matrix-unit passes, by the blocks of weights a radius needs (NK in
 * glsl/gauss_mma.comp: 3 up to radius 16, 4 up to 24, 5 up to 32): the fastest step count
 * measured for each (tests/bench/RESULTS.md). It trades groups in flight against the ring's
 * reloads; it changes which group makes which output, not what an output adds. */
static uint32_t mma_seg(int radius)
{
    return radius <= 16 ? 24 : radius <= 24 ? 32 : 48;
}

static const vkfx_kernel_desc gauss_mma_kernel = VKFX_IMAGE_KERNEL(gauss_mma, gauss_push);

/* Radii up to FIXED_MAX are unrolled with the radius as a specialization constant. The row
 * kernel's segment is 64*ROW_RUN outputs in each of ROW_ROWS rows (glsl/gauss_row.comp);
 * each column invocation makes COL_PER outputs. Run length, rows and column outputs are the
 * fastest measured (tests/bench/RESULTS.md): longer runs save texel reads and cost registers. */
enum {
    FIXED_MAX = 32,
    ROW_RUN = 5,
    ROW_ROWS = 4,
    ROW_SHARED = ROW_ROWS * (64 * ROW_RUN + 64) * 16,
    COL_PER = 8
};

/* The one-pass kernel (glsl/gauss_fused.comp): 32 x LY groups of 32 x LY*PER outputs, each
 * keeping the row results of its rows and R more on each side (8 bytes a pixel, 16 for an
 * rgba32f output) in shared memory, each invocation of the row phase making RUN of them;
 * FUSED_MAX is the largest radius where it was measured to beat the two passes. The shape by
 * radius (PER, LY, RUN: outputs down per invocation, rows of 32 invocations, row results across
 * per invocation; BY_COLUMN: row results column by column in shared memory,
 * glsl/fusedtile.glsl) is the fastest measured at each radius (tests/bench/RESULTS.md); the
 * timings follow no rule between neighbouring radii, hence a table. The shapes change which
 * invocation makes which output, not the taps an output adds, their order or their rounding
 * (glsl/gauss_taps.glsl): every shape and variant gives the same bytes. Tiles start on
 * multiples of the outputs down a column and the row results across (vkfx_gauss_align). */
enum { FUSED_MAX = 10 };
/* PER, LY, RUN, BY_COLUMN by radius */
static const uint32_t fused_shapes[FUSED_MAX + 1][4] = {
    {8, 8, 16, 0}, {6, 8, 8, 0}, {6, 8, 8, 0}, {12, 6, 16, 1}, {12, 6, 16, 1}, {12, 6, 16, 1},
    {6, 8, 8, 0},  {6, 8, 8, 0}, {6, 8, 8, 0}, {12, 6, 16, 1}, {12, 6, 8, 1},
};

int vkfx_gauss_default_radius(double sigma)
{
    int r = (int)floor(3.0 * sigma + 0.5);
    return r < 1 ? 1 : r;
}

static uint32_t h_bytes(uint32_t halo, uint32_t tile)
{
    return (tile + 2 * halo) * 16 + (halo + 1) * 4;
}

/* shape = width | rows << 8 | ly << 16: tile of width x (ly*rows) outputs */
static uint32_t v_bytes(uint32_t halo, uint32_t shape)
{
    uint32_t w = shape & 0xff, rows = (shape >> 8) & 0xff, ly = shape >> 16;
    return (ly * rows + 2 * halo) * w * 16 + (halo + 1) * 4;
}

/* What each variant records: the Gaussian of the radius from src to dst, with the push
 * constants every kernel takes. */
typedef struct gauss_job {
    int radius;
    gauss_push push;
    uint32_t w_push; /* the weights ride in push (W_PUSH) */
    uint32_t mode;   /* how the taps are rounded (GAUSS_SPEC_MODE) */
    bool unsharp;    /* the one-pass kernel applies unsharp (push's amount, threshold) */
    vkfx_image *src, *dst;
} gauss_job;

static const VkFormat F16 = VK_FORMAT_R16G16B16A16_SFLOAT;

/* Rows of row results the one-pass kernel keeps in shared memory for a tile ly groups of
 * invocations high: odd where they lie column by column. */
static uint32_t fused_rows(int radius, uint32_t ly)
{
    const uint32_t *f = fused_shapes[radius];
    return (ly * f[0] + 2 * (uint32_t)radius) | f[3];
}

/* The one-pass kernel's rows of invocations for the job: the shape's, or for an rgba32f output,
 * whose row results take 16 bytes each rather than 8, the most that fit the device's shared
 * memory (0: none fit). The shape changes which invocation makes which output, not an output's
 * operations or their order: the same bytes whichever fits. */
static uint32_t one_pass_ly(const vkfx_caps *caps, const gauss_job *j)
{
    if (j->radius > FUSED_MAX)
        return 0;
    /* The kernel declares both tiles, the one it does not use with one entry. unsharp's blur is
     * float whatever the output. */
    const bool half = j->dst->format == F16 && !j->unsharp;
    const uint32_t bytes = half ? 8 : 16, other = half ? 16 : 8;
    for (uint32_t ly = fused_shapes[j->radius][1]; ly >= 1; ly--)
        if (fused_rows(j->radius, ly) * 32 * bytes + other <= caps->shared_memory)
            return ly;
    return 0;
}

static bool one_pass_applies(const vkfx_caps *caps, const void *job)
{
    return one_pass_ly(caps, job) > 0;
}

static int one_pass_record(vkfx_graph *g, const void *job)
{
    int ret = VKFX_OK;
    const gauss_job *j = job;
    const uint32_t *f = fused_shapes[j->radius];
    const uint32_t fper = f[0], fly = one_pass_ly(vkfx_graph_caps(g), j), frun = f[2], fcol = f[3];
    const bool half = j->dst->format == F16 && !j->unsharp;
    bool rne;
    TRY(vkfx_graph_pack_rne(g, &rne));
    vkfx_spec fs = {.local = {32, fly, 1},
                    .nextra = VKFX_SPEC_COUNT(FUSED_SPEC_FLOAT),
                    .extra = {[VKFX_SPEC(FUSED_SPEC_R)] = (uint32_t)j->radius,
                              [VKFX_SPEC(FUSED_SPEC_PER)] = fper,
                              [VKFX_SPEC(FUSED_SPEC_LY)] = fly,
                              [VKFX_SPEC(FUSED_SPEC_RUN)] = frun,
                              [VKFX_SPEC(GAUSS_SPEC_W_PUSH)] = j->w_push,
                              [VKFX_SPEC(FUSED_SPEC_BY_COLUMN)] = fcol,
                              [VKFX_SPEC(GAUSS_SPEC_MODE)] = j->mode,
                              [VKFX_SPEC(FUSED_SPEC_FLOAT)] = half ? 0 : j->unsharp ? 2 : 1},
                    .half_out = j->dst->format == F16,
                    .pack_rne = rne};
    TRY(vkfx_graph_pass(g, &gauss_fused_kernel, &fs, "gauss", &j->push, j->src, j->dst, 32,
                        fly * fper));
fail:
    return ret;
}

/* cartoon in the one-pass Gaussian's dispatch (glsl/cartoon_fused.comp): 32 x LY groups of 32 x
 * LY*PER outputs, each blurring its tile and a pixel around it in float, from the row results of
 * those 34 columns over LY*PER + 2 + 2R rows (16 bytes each) in shared memory, which the blur
 * then overwrites. PER by radius keeps the row results within one pass of the row phase, 64 rows
 * with RUN 8 (LY 8): a second pass would leave most invocations idle. At radius 6 (sigma 2) PER
 * 3 measured fastest of 2 to 16 with LY 2 to 8 and RUN 4 or 8 (tests/bench/RESULTS.md), and
 * radii 4 to 7 take it; the others are first choices. Like the Gaussian's shapes they change
 * which invocation makes which output, not an output's operations. */
enum { CARTOON_RUN = 8, CARTOON_LY = 8 };
static const uint32_t cartoon_per[FUSED_MAX + 1] = {7, 7, 7, 7, 3, 3, 3, 3, 5, 5, 5};

/* The most rows of invocations whose tile fits the device's shared memory (0: none fits, or the
 * radius is beyond the one-pass kernel's). */
static uint32_t cartoon_ly(const vkfx_caps *caps, int radius)
{
    if (radius > FUSED_MAX)
        return 0;
    for (uint32_t ly = CARTOON_LY; ly >= 1; ly--)
        if (((ly * cartoon_per[radius] + 2 + 2 * (uint32_t)radius) | 1) * 34 * 16 <=
            caps->shared_memory)
            return ly;
    return 0;
}

/* The two passes of a separable variant (vkfx_record_separable): kh along rows in groups gh,
 * kv along columns in groups gv. */
static int two_passes(vkfx_graph *g, const gauss_job *j, vkfx_kernel *kh, const uint32_t gh[2],
                      vkfx_kernel *kv, const uint32_t gv[2])
{
    vkfx_separable s = {"gauss.h", "gauss.v", kh, kv, {gh[0], gh[1]}, {gv[0], gv[1]}, &j->push};
    return vkfx_record_separable(g, &s, j->src, j->dst);
}

static bool matrix_applies(const vkfx_caps *caps, const void *job)
{
    const gauss_job *j = job;
    return caps->fast && caps->matrix16 && caps->subgroup_size == 32 && j->radius >= MMA_MIN &&
           j->radius <= FIXED_MAX && j->src->format == F16 && j->dst->format == F16;
}

/* Both passes on the matrix units (glsl/gauss_mma.comp): each group walks mma_seg steps of 32
 * outputs along the axis in a strip 16 pixels wide. */
static int matrix_record(vkfx_graph *g, const void *job)
{
    int ret = VKFX_OK;
    const gauss_job *j = job;
    uint32_t w = vkfx_graph_width(g), h = vkfx_graph_height(g);
    vkfx_kernel *kh = NULL, *kv = NULL;
    bool rne;
    TRY(vkfx_graph_pack_rne(g, &rne));
    const uint32_t seg = mma_seg(j->radius);
    vkfx_spec fs = {.local = {128, 1, 1},
                    .nextra = VKFX_SPEC_COUNT(GAUSS_SPEC_MODE),
                    .extra = {[VKFX_SPEC(MMA_SPEC_R)] = (uint32_t)j->radius,
                              [VKFX_SPEC(MMA_SPEC_ROWS)] = 1,
                              [VKFX_SPEC(MMA_SPEC_SEG)] = seg,
                              [VKFX_SPEC(GAUSS_SPEC_W_PUSH)] = j->w_push,
                              [VKFX_SPEC(GAUSS_SPEC_MODE)] = j->mode},
                    .half_out = 1,
                    .pack_rne = rne};
    TRY(vkfx_graph_kernel(g, &gauss_mma_kernel, &fs, &kh));
    fs.extra[VKFX_SPEC(MMA_SPEC_ROWS)] = 0;
    TRY(vkfx_graph_kernel(g, &gauss_mma_kernel, &fs, &kv));
    TRY(two_passes(g, j, kh, (const uint32_t[2]){vkfx_groups(h, 16), vkfx_groups(w, 32 * seg)}, kv,
                   (const uint32_t[2]){vkfx_groups(w, 16), vkfx_groups(h, 32 * seg)}));
fail:
    return ret;
}

static bool unrolled_applies(const vkfx_caps *caps, const void *job)
{
    const gauss_job *j = job;
    return j->radius <= FIXED_MAX && ROW_SHARED <= caps->shared_memory;
}

static int unrolled_record(vkfx_graph *g, const void *job)
{
    int ret = VKFX_OK;
    const gauss_job *j = job;
    uint32_t w = vkfx_graph_width(g), h = vkfx_graph_height(g);
    vkfx_kernel *kh = NULL, *kv = NULL;
    /* A tile of halves when both sides are rgba16f (glsl/rowtile.glsl); the temporary is
     * stored like the output. */
    uint32_t half_tile = vkfx_half_out(j->src->format) && vkfx_half_out(j->dst->format);
    vkfx_spec fh = {.local = {64, ROW_ROWS, 1},
                    .nextra = VKFX_SPEC_COUNT(GAUSS_SPEC_MODE),
                    .extra = {[VKFX_SPEC(ROW_SPEC_R)] = (uint32_t)j->radius,
                              [VKFX_SPEC(ROW_SPEC_RUN)] = ROW_RUN,
                              [VKFX_SPEC(ROW_SPEC_ROWS)] = ROW_ROWS,
                              [VKFX_SPEC(ROW_SPEC_HALF_TILE)] = half_tile,
                              [VKFX_SPEC(GAUSS_SPEC_W_PUSH)] = j->w_push,
                              [VKFX_SPEC(GAUSS_SPEC_MODE)] = j->mode},
                    .half_out = vkfx_half_out(j->dst->format)};
    vkfx_spec fv = {.local = {32, 8, 1},
                    .nextra = VKFX_SPEC_COUNT(GAUSS_SPEC_MODE),
                    .extra = {[VKFX_SPEC(COL_SPEC_R)] = (uint32_t)j->radius,
                              [VKFX_SPEC(COL_SPEC_PER)] = COL_PER,
                              [VKFX_SPEC(GAUSS_SPEC_W_PUSH)] = j->w_push,
                              [VKFX_SPEC(GAUSS_SPEC_MODE)] = j->mode},
                    .half_out = vkfx_half_out(j->dst->format)};
    TRY(vkfx_graph_kernel(g, &gauss_row_kernel, &fh, &kh));
    TRY(vkfx_graph_kernel(g, &gauss_col_kernel, &fv, &kv));
    TRY(two_passes(
        g, j, kh, (const uint32_t[2]){vkfx_groups(w, 64 * ROW_RUN), vkfx_groups(h, ROW_ROWS)}, kv,
        (const uint32_t[2]){vkfx_groups(w, 32), vkfx_groups(vkfx_groups(h, COL_PER), 8)}));
fail:
    return ret;
}

/* Any radius: the window in shared memory where it fits, read through the texture cache
 * where it does not. */
static int generic_record(vkfx_graph *g, const void *job)
{
    int ret = VKFX_OK;
    const gauss_job *j = job;
    uint32_t w = vkfx_graph_width(g), h = vkfx_graph_height(g);
    uint32_t limit = vkfx_graph_caps(g)->shared_memory;
    vkfx_kernel *kh = NULL, *kv = NULL;
    const uint32_t tile = 256;
    vkfx_spec sh = {.local = {tile, 1, 1},
                    .nextra = VKFX_SPEC_COUNT(GAUSS_SPEC_MODE),
                    .extra = {[VKFX_SPEC(H_SPEC_TILE)] = tile,
                              [VKFX_SPEC(H_SPEC_HALO)] =
                                  vkfx_pick_halo((uint32_t)j->radius, 8, limit, h_bytes, tile),
                              [VKFX_SPEC(GAUSS_SPEC_MODE)] = j->mode},
                    .half_out = vkfx_half_out(j->dst->format)};
    /* Narrower tiles leave room for larger radii in shared memory. */
    static const uint32_t shapes[][3] = {{32, 4, 8}, {16, 4, 8}, {8, 8, 8}};
    vkfx_spec sv = {.nextra = VKFX_SPEC_COUNT(GAUSS_SPEC_MODE),
                    .extra = {[VKFX_SPEC(GAUSS_SPEC_MODE)] = j->mode},
                    .half_out = vkfx_half_out(j->dst->format)};
    for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
        uint32_t shape = shapes[i][0] | shapes[i][1] << 8 | shapes[i][2] << 16;
        uint32_t halo = vkfx_pick_halo((uint32_t)j->radius, 8, limit, v_bytes, shape);
        sv.local[0] = shapes[i][0];
        sv.local[1] = shapes[i][2];
        sv.local[2] = 1;
        sv.extra[VKFX_SPEC(V_SPEC_ROWS)] = shapes[i][1];
        sv.extra[VKFX_SPEC(V_SPEC_HALO)] = halo;
        if (halo)
            break;
    }
    TRY(vkfx_graph_kernel(g, &gauss_h_kernel, &sh, &kh));
    TRY(vkfx_graph_kernel(g, &gauss_v_kernel, &sv, &kv));
    uint32_t th = sv.local[1] * sv.extra[VKFX_SPEC(V_SPEC_ROWS)];
    TRY(two_passes(g, j, kh, (const uint32_t[2]){vkfx_groups(w, tile), h}, kv,
                   (const uint32_t[2]){vkfx_groups(w, sv.local[0]), vkfx_groups(h, th)}));
fail:
    return ret;
}

static const vkfx_variant gauss_variant_list[] = {
    {"one-pass", one_pass_applies, one_pass_record, NULL},
    {"matrix", matrix_applies, matrix_record, NULL},
    {"unrolled", unrolled_applies, unrolled_record, NULL},
    {"generic", vkfx_variant_always, generic_record, NULL},
    {0},
};

const vkfx_variants vkfx_gauss_variants = {"gauss", gauss_variant_list};

/* The job of the Gaussian of sigma and radius (< 0: the default) from src into an image of
 * format blur (dst's, or float where unsharp keeps its blur in float). */
static gauss_job make_job(vkfx_graph *g, double sigma, int radius, vkfx_image *src,
                          vkfx_image *dst, VkFormat blur)
{
    gauss_job j = {
        .radius = radius < 0 ? vkfx_gauss_default_radius(sigma) : radius, .src = src, .dst = dst};
    double taps[PUSH_TAPS] = {1.0}, sum = 1.0;
    for (int k = 1; k <= j.radius; k++) {
        double e = exp(-(double)k * k / (2.0 * sigma * sigma));
        sum += 2.0 * e;
        if (k < PUSH_TAPS)
            taps[k] = e;
    }
    j.push = (gauss_push){.size = {(int32_t)vkfx_graph_width(g), (int32_t)vkfx_graph_height(g)},
                          .radius = j.radius,
                          .inv_two_sigma2 = (float)(1.0 / (2.0 * sigma * sigma)),
                          .norm = (float)(1.0 / sum)};
    j.w_push = j.radius < PUSH_TAPS;
    /* Exact products where every input is a half; else each operation rounded on its own. */
    const vkfx_caps *caps = vkfx_graph_caps(g);
    j.mode = caps->fast                            ? GAUSS_FAST
             : src->format == F16 && blur == F16 ? GAUSS_EXACT
                                                   : GAUSS_ROUNDED;
    for (int k = 0; k <= j.radius && k < PUSH_TAPS; k++)
        j.push.w[k] =
            j.mode == GAUSS_EXACT ? vkfx_exact_weight(taps[k] / sum) : (float)(taps[k] / sum);
    return j;
}

int vkfx_gauss_record(vkfx_graph *g, double sigma, int radius, vkfx_image *src, vkfx_image *dst)
{
    gauss_job j = make_job(g, sigma, radius, src, dst, dst->format);
    return vkfx_variant_record(g, &vkfx_gauss_variants, &j);
}

bool vkfx_gauss_one_pass_allowed(vkfx_graph *g)
{
    char given[64];
    bool forced;
    const vkfx_variant *v = vkfx_variant_named(&vkfx_gauss_variants, vkfx_graph_forced_variants(g),
                                               given, sizeof(given), &forced);
    return !forced || v == &gauss_variant_list[0];
}

int vkfx_gauss_unsharp_record(vkfx_graph *g, double sigma, double amount, double threshold,
                              vkfx_image *src, vkfx_image *dst, bool *done)
{
    gauss_job j = make_job(g, sigma, -1, src, dst, VK_FORMAT_R32G32B32A32_SFLOAT);
    j.unsharp = true;
    j.push.amount = (float)amount;
    j.push.threshold = (float)threshold;
    *done = vkfx_gauss_one_pass_allowed(g) && one_pass_applies(vkfx_graph_caps(g), &j);
    return *done ? one_pass_record(g, &j) : VKFX_OK;
}

bool vkfx_gauss_cartoon_applies(const vkfx_caps *caps, double sigma)
{
    return cartoon_ly(caps, vkfx_gauss_default_radius(sigma)) > 0;
}

static const vkfx_kernel_desc cartoon_fused_kernel = VKFX_IMAGE_KERNEL(cartoon_fused, gauss_push);

int vkfx_gauss_cartoon_record(vkfx_graph *g, double sigma, double gain, vkfx_image *src,
                              vkfx_image *dst)
{
    int ret = VKFX_OK;
    gauss_job j = make_job(g, sigma, -1, src, dst, VK_FORMAT_R32G32B32A32_SFLOAT);
    j.push.amount = (float)gain;
    const uint32_t per = cartoon_per[j.radius], ly = cartoon_ly(vkfx_graph_caps(g), j.radius);
    vkfx_spec fs = {.local = {32, ly, 1},
                    .nextra = VKFX_SPEC_COUNT(GAUSS_SPEC_MODE),
                    .extra = {[VKFX_SPEC(FUSED_SPEC_R)] = (uint32_t)j.radius,
                              [VKFX_SPEC(FUSED_SPEC_PER)] = per,
                              [VKFX_SPEC(FUSED_SPEC_LY)] = ly,
                              [VKFX_SPEC(FUSED_SPEC_RUN)] = CARTOON_RUN,
                              [VKFX_SPEC(GAUSS_SPEC_W_PUSH)] = j.w_push,
                              [VKFX_SPEC(GAUSS_SPEC_MODE)] = j.mode},
                    .half_out = vkfx_half_out(dst->format)};
    TRY(vkfx_graph_pass(g, &cartoon_fused_kernel, &fs, "cartoon", &j.push, src, dst, 32, ly * per));
fail:
    return ret;
}

static int gauss_record(vkfx_graph *g, const void *params, void *state, vkfx_image *src,
                        vkfx_image *dst)
{
    (void)state;
    const gauss_params *p = params;
    return vkfx_gauss_record(g, p->sigma, p->radius, src, dst);
}

static uint32_t gauss_reach(const void *params)
{
    const gauss_params *p = params;
    return (uint32_t)(p->radius < 0 ? vkfx_gauss_default_radius(p->sigma) : p->radius);
}

vkfx_align vkfx_gauss_align(int radius)
{
    if (radius > FUSED_MAX)
        return (vkfx_align){1, 1};
    return (vkfx_align){fused_shapes[radius][2], fused_shapes[radius][0]};
}

static vkfx_align gauss_align(const void *params)
{
    return vkfx_gauss_align((int)gauss_reach(params));
}

const vkfx_filter vkfx_filter_gauss = {
    .name = "gauss",
    .help = "separable Gaussian blur, horizontal then vertical",
    .details = "Taps exp(-k^2/(2 sigma^2)) for |k| <= radius, normalised to sum 1; edges "
               "repeat the nearest pixel. Same as scipy.ndimage.gaussian_filter(x, (s, s, 0), "
               "mode='nearest', truncate=3) on linear premultiplied RGBA. The row result is "
               "stored in the internal format (rgba16f unless --precision 32), like every "
               "image of the chain.",
    .fast = "the device's exp for the weights and its own rounding of the multiply-adds, and on "
            "NVIDIA devices the matrix units (cooperative matrices, radii 11 to 32 at rgba16f): "
            "faster, but the bytes differ between devices.",
    .options = gauss_options,
    .params_size = sizeof(gauss_params),
    .record = gauss_record,
    .reach = gauss_reach,
    .align = gauss_align,
    .variants = (const vkfx_variants *const[]){&vkfx_gauss_variants, NULL},
    .pixel_options = (const char *const[]){"sigma", "radius", NULL},
};
