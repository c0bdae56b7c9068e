#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "variant.h"
#include "filters.h"

#include "box_fused.spv.h"
#include "box_h.spv.h"
#include "box_row.spv.h"
#include "box_v.spv.h"

typedef struct box_params {
    int32_t radius;
} box_params;

/* Push constants and specialization-constant ids, shared with the kernels. */
#include "../../glsl/box.h"
_Static_assert(sizeof(box_push) == BOX_PUSH_BYTES, "box_push is the kernels' push block");

static const vkfx_option box_options[] = {
    VKFX_OPTION_INT(box_params, radius, 1, 0, 4096,
                    "window of (2*radius+1)^2 pixels; 0 is the identity"),
    {0},
};

static const vkfx_kernel_desc box_h_kernel = VKFX_IMAGE_KERNEL(box_h, box_push);

static const vkfx_kernel_desc box_row_kernel = VKFX_IMAGE_KERNEL(box_row, box_push);

static const vkfx_kernel_desc box_fused_kernel = VKFX_IMAGE_KERNEL(box_fused, box_push);

static const vkfx_kernel_desc box_v_kernel = VKFX_IMAGE_KERNEL(box_v, box_push);

/* box_h: segments of SEG outputs, LOCAL per group, for radii beyond shared memory. box_row:
 * 64*run outputs in each of `rows` rows per group (glsl/box_row.comp), radius up to ROW_HALO;
 * single rows of 448 outputs measured faster than taller blocks (tests/bench/RESULTS.md).
 * box_v: COL_PER rows per invocation. */
enum { SEG = 64, LOCAL = 64, ROW_HALO = 512, ROW_RUN = 7, ROW_ROWS = 1, COL_PER = 16 };

/* The least shared memory Vulkan lets a device have (maxComputeSharedMemorySize). */
enum { SHARED_LEAST = 16384 };

static uint32_t row_shared_bytes(uint32_t run, uint32_t rows, uint32_t halo)
{
    return rows * (64 * run + 2 * halo) * 16;
}

/* The one-pass kernel (glsl/box_fused.comp, rgba16f only): 32 x LY groups of 32 x LY*PER
 * outputs, each group keeping the row sums of its rows and R more on each side (8 bytes a
 * pixel) in shared memory, column by column (BY_COLUMN), rounded to halves by the device's
 * conversion where it rounds to nearest (PACK_RNE). Each invocation of the row phase makes RUN
 * row sums from 1 + 2R/RUN texel reads a sum, and of the column phase PER outputs down a
 * column. The shape is the fastest measured at each radius (tests/bench/RESULTS.md): mostly
 * groups of 160 or 192 invocations, whose row phase leaves fewer of them idle than groups of
 * 256 do. Tiled runs start their tiles on multiples of the runs' strides (box_align). */
enum { FUSED_MAX = 16 };
static const uint8_t fused_shapes[FUSED_MAX + 1][3] = {
    {8, 8, 16},  /* radius 0 */
    {12, 5, 16}, /* radius 1 */
    {12, 6, 16}, /* radius 2 */
    {12, 6, 16}, /* radius 3 */
    {12, 6, 16}, /* radius 4 */
    {12, 5, 16}, /* radius 5 */
    {10, 6, 16}, /* radius 6 */
    {12, 6, 16}, /* radius 7 */
    {12, 6, 16}, /* radius 8 */
    {12, 6, 16}, /* radius 9 */
    {12, 6, 16}, /* radius 10 */
    {8, 8, 16},  /* radius 11 */
    {8, 8, 16},  /* radius 12 */
    {10, 6, 16}, /* radius 13 */
    {10, 6, 16}, /* radius 14 */
    {10, 6, 16}, /* radius 15 */
    {10, 6, 16}, /* radius 16 */
};

/* The shared tile of the row pass holds the radius rounded up to a power of two: one pipeline
 * per octave of radii, and no more shared memory than that needs. */
static uint32_t row_halo(int32_t radius)
{
    uint32_t halo = 4;
    while (halo < (uint32_t)radius)
        halo *= 2;
    return halo;
}

/* What each variant records: the box of the radius from src to dst. */
typedef struct box_job {
    int32_t radius;
    box_push push;
    vkfx_image *src, *dst;
} box_job;

/* Rows of row sums the one-pass kernel keeps in shared memory, odd (glsl/fusedtile.glsl,
 * BY_COLUMN). */
static uint32_t fused_rows(int32_t radius)
{
    const uint8_t *f = fused_shapes[radius];
    return ((uint32_t)f[1] * f[0] + 2 * (uint32_t)radius) | 1;
}

static bool one_pass_applies(const vkfx_caps *caps, const void *job)
{
    const box_job *j = job;
    return j->dst->format == VK_FORMAT_R16G16B16A16_SFLOAT && j->radius <= FUSED_MAX &&
           fused_rows(j->radius) * 32 * 8 <= caps->shared_memory;
}

static int one_pass_record(vkfx_graph *g, const void *job)
{
    int ret = VKFX_OK;
    const box_job *j = job;
    const uint8_t *shape = fused_shapes[j->radius];
    const uint32_t fper = shape[0], fly = shape[1], frun = shape[2];
    bool rne;
    TRY(vkfx_graph_pack_rne(g, &rne));
    vkfx_spec fs = {.local = {32, fly, 1},
                    .nextra = VKFX_SPEC_COUNT(FUSED_SPEC_BY_COLUMN),
                    .extra = {[VKFX_SPEC(FUSED_SPEC_R)] = (uint32_t)j->radius,
                              [VKFX_SPEC(FUSED_SPEC_PER)] = fper,
                              [VKFX_SPEC(FUSED_SPEC_LY)] = fly,
                              [VKFX_SPEC(FUSED_SPEC_RUN)] = frun,
                              [VKFX_SPEC(FUSED_SPEC_BY_COLUMN)] = 1},
                    .half_out = 1,
                    .pack_rne = rne};
    TRY(vkfx_graph_pass(g, &box_fused_kernel, &fs, "box", &j->push, j->src, j->dst, 32,
                        fly * fper));
fail:
    return ret;
}

/* The row sums by kh (spec sh, groups gh) into a temporary stored like the output (rgba16f at
 * --precision 16, as every image the chain stores), then the column pass. */
static int two_passes(vkfx_graph *g, const box_job *j, const vkfx_kernel_desc *kh_desc,
                      vkfx_spec sh, const uint32_t gh[2])
{
    int ret = VKFX_OK;
    uint32_t w = vkfx_graph_width(g), h = vkfx_graph_height(g);
    vkfx_kernel *kh = NULL, *kv = NULL;
    /* The temporary is stored like the output. */
    sh.half_out = vkfx_half_out(j->dst->format);
    TRY(vkfx_graph_kernel(g, kh_desc, &sh, &kh));
    vkfx_spec sv = {.local = {32, 8, 1},
                    .nextra = VKFX_SPEC_COUNT(BOX_V_SPEC_PER),
                    .extra = {[VKFX_SPEC(BOX_V_SPEC_PER)] = COL_PER},
                    .half_out = vkfx_half_out(j->dst->format)};
    TRY(vkfx_graph_kernel(g, &box_v_kernel, &sv, &kv));
    vkfx_separable s = {
        "box.h", "box.v",        kh,
        kv,      {gh[0], gh[1]}, {vkfx_groups(w, 32), vkfx_groups(vkfx_groups(h, COL_PER), 8)},
        &j->push};
    TRY(vkfx_record_separable(g, &s, j->src, j->dst));
fail:
    return ret;
}

static bool rows_applies(const vkfx_caps *caps, const void *job)
{
    const box_job *j = job;
    return (uint32_t)j->radius <= ROW_HALO &&
           row_shared_bytes(ROW_RUN, ROW_ROWS, row_halo(j->radius)) <= caps->shared_memory;
}

/* Row sums from a row tile in shared memory (glsl/box_row.comp). */
static int rows_record(vkfx_graph *g, const void *job)
{
    const box_job *j = job;
    uint32_t w = vkfx_graph_width(g), h = vkfx_graph_height(g);
    /* A tile of halves when both sides are rgba16f (glsl/rowtile.glsl); the temporary is
     * stored like the output. */
    uint32_t half_tile = vkfx_half_out(j->src->format) && vkfx_half_out(j->dst->format);
    vkfx_spec sh = {.local = {64, ROW_ROWS, 1},
                    .nextra = VKFX_SPEC_COUNT(ROW_SPEC_HALF_TILE),
                    .extra = {[VKFX_SPEC(ROW_SPEC_R)] = row_halo(j->radius),
                              [VKFX_SPEC(ROW_SPEC_RUN)] = ROW_RUN,
                              [VKFX_SPEC(ROW_SPEC_ROWS)] = ROW_ROWS,
                              [VKFX_SPEC(ROW_SPEC_HALF_TILE)] = half_tile}};
    return two_passes(g, j, &box_row_kernel, sh,
                      (const uint32_t[2]){vkfx_groups(w, 64 * ROW_RUN), vkfx_groups(h, ROW_ROWS)});
}

/* Row sums read through the texture cache, SEG outputs an invocation: any radius. */
static int segments_record(vkfx_graph *g, const void *job)
{
    const box_job *j = job;
    uint32_t w = vkfx_graph_width(g), h = vkfx_graph_height(g);
    vkfx_spec sh = {.local = {LOCAL, 1, 1},
                    .nextra = VKFX_SPEC_COUNT(BOX_H_SPEC_SEG),
                    .extra = {[VKFX_SPEC(BOX_H_SPEC_SEG)] = SEG}};
    return two_passes(g, j, &box_h_kernel, sh,
                      (const uint32_t[2]){vkfx_groups(vkfx_groups(w, SEG), LOCAL), h});
}

static const vkfx_variant box_variant_list[] = {
    {"one-pass", one_pass_applies, one_pass_record, NULL},
    {"rows", rows_applies, rows_record, NULL},
    {"segments", vkfx_variant_always, segments_record, NULL},
    {0},
};

static const vkfx_variants box_variants = {"box", box_variant_list};

static int box_record(vkfx_graph *g, const void *params, void *state, vkfx_image *src,
                      vkfx_image *dst)
{
    (void)state;
    const box_params *p = params;
    box_job j = {.radius = p->radius,
                 .push = {{(int32_t)vkfx_graph_width(g), (int32_t)vkfx_graph_height(g)},
                          p->radius,
                          (float)(1.0 / (2.0 * p->radius + 1.0))},
                 .src = src,
                 .dst = dst};
    return vkfx_variant_record(g, &box_variants, &j);
}

static uint32_t box_reach(const void *params)
{
    return (uint32_t)((const box_params *)params)->radius;
}

/* Every kernel restarts its rolling sums at fixed strides from the image's origin: the one-pass
 * kernel every RUN columns and PER rows of its shape for the radius, the row pass every ROW_RUN
 * columns (box_h, where the row tile may not fit, every SEG), the column pass every COL_PER
 * rows. Tiles start on multiples of all that may run, so that sums add in the same order. */
static vkfx_align box_align(const void *params)
{
    const box_params *p = params;
    vkfx_align a = {ROW_RUN, COL_PER};
    if (p->radius <= FUSED_MAX)
        a = vkfx_align_join(a,
                            (vkfx_align){fused_shapes[p->radius][2], fused_shapes[p->radius][0]});
    if ((uint32_t)p->radius > ROW_HALO ||
        row_shared_bytes(ROW_RUN, ROW_ROWS, row_halo(p->radius)) > SHARED_LEAST)
        a = vkfx_align_join(a, (vkfx_align){SEG, 1});
    return a;
}

const vkfx_filter vkfx_filter_box = {
    .name = "box",
    .help = "box blur: mean over a (2r+1)x(2r+1) window, rolling sums",
    .details = "Edges repeat the nearest pixel. Same as scipy.ndimage.uniform_filter(x, "
               "(2r+1, 2r+1, 1), mode='nearest'). The time per pixel does not grow with r.",
    .options = box_options,
    .params_size = sizeof(box_params),
    .record = box_record,
    .reach = box_reach,
    .align = box_align,
    .variants = (const vkfx_variants *const[]){&box_variants, NULL},
    .pixel_options = (const char *const[]){"radius", NULL},
};
