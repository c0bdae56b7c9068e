#include <math.h>
#include <stdbool.h>
#include <stddef.h>

#include "error.h"
#include "filters.h"
#include "variant.h"

#include "bilateral.spv.h"
#include "../../glsl/bilateral.h"

_Static_assert(sizeof(bilateral_push) == BILATERAL_PUSH_BYTES, "bilateral.comp's push block");

typedef struct bilateral_params {
    double sigma_s, sigma_r;
    int32_t radius;
} bilateral_params;

static const vkfx_option bilateral_options[] = {
    /* sigma_s stops at 32: the radius it derives, floor(2 sigma_s + 0.5), stays within radius's
     * range. */
    VKFX_OPTION_FLOAT(bilateral_params, sigma_s, 3, 0.1, 32,
                      "spatial standard deviation in pixels"),
    VKFX_OPTION_FLOAT(bilateral_params, sigma_r, 0.1, 0.001, 10,
                      "range standard deviation, in linear premultiplied RGB units"),
    VKFX_OPTION_INT_UNSET(bilateral_params, radius, "2*sigma_s rounded, at least 1", 1, 64,
                          "window half-size: the window is (2 radius + 1)^2 pixels"),
    {0},
};

static const vkfx_kernel_desc bilateral_kernel = {
    .name = "bilateral",
    VKFX_SPV(bilateral),
    .nbind = 3,
    .bind = {VKFX_BIND_SAMPLED, VKFX_BIND_STORAGE_IMAGE, VKFX_BIND_BUFFER},
    .push_size = sizeof(bilateral_push),
};

/* FILTERS.md's weight table, in double rounded once to float: glsl/bilateral.h. */
static void weight_table(float table[BILATERAL_ENTRIES][2])
{
    for (int i = 0; i < BILATERAL_ENTRIES; i++) {
        double e0 = exp(-(double)i / BILATERAL_STEPS), e1 = exp(-(double)(i + 1) / BILATERAL_STEPS);
        table[i][0] = (float)e0;
        table[i][1] = (float)(e1 - e0);
    }
}

/* The work group is GROUP x GROUP invocations (glsl/bilateral.comp). */
enum { GROUP = 16 };

/* What a variant records: the filter's options on src into dst. */
typedef struct bilateral_job {
    const bilateral_params *p;
    int32_t radius;
    vkfx_image *src, *dst;
} bilateral_job;

/* A variant's kernel shape: outputs per invocation down a column, the window as packed halves,
 * the weight table in shared memory, the table's index without float-int conversions. */
typedef struct bilateral_shape {
    uint32_t rows;
    bool half_tile, shared_table, no_convert;
} bilateral_shape;

/* The kernel declares each shared array with one element where its shape does not use it. */
static uint32_t table_bytes(bool shared_table)
{
    return shared_table ? BILATERAL_ENTRIES * 8 : 8;
}

/* The shape as vkfx_pick_halo's shape argument: rows, then the two flags. */
static uint32_t shape_code(bilateral_shape s)
{
    return s.rows | (uint32_t)s.half_tile << 8 | (uint32_t)s.shared_table << 9;
}

static uint32_t tile_bytes(uint32_t halo, uint32_t code)
{
    uint32_t rows = code & 0xff;
    bool half_tile = code >> 8 & 1, shared_table = code >> 9 & 1;
    return (GROUP + 2 * halo) * (GROUP * rows + 2 * halo) * (half_tile ? 8 : 16) +
           (half_tile ? 16 : 8) + table_bytes(shared_table);
}

static int32_t bilateral_default_radius(double sigma_s)
{
    int32_t r = (int32_t)floor(2.0 * sigma_s + 0.5);
    return r < 1 ? 1 : r;
}

/* The window's capacity for the shape (0: direct reads). One output per invocation rounds it
 * up to a power of two, so that one pipeline serves a range of radii; the blocked shapes size
 * it to the radius, whose larger windows would otherwise leave fewer groups per SM. */
static uint32_t shape_halo(const vkfx_caps *caps, const bilateral_job *j, bilateral_shape s)
{
    return vkfx_pick_halo((uint32_t)j->radius, s.rows == 1 ? 4 : (uint32_t)j->radius,
                          caps->shared_memory, tile_bytes, shape_code(s));
}

static int record_shape(vkfx_graph *g, const bilateral_job *j, bilateral_shape s)
{
    int ret = VKFX_OK;
    const bilateral_params *p = j->p;
    vkfx_buffer *table = NULL;
    vkfx_kernel *k = NULL;
    float weights[BILATERAL_ENTRIES][2];
    const vkfx_caps *caps = vkfx_graph_caps(g);
    vkfx_spec spec = {
        .local = {GROUP, GROUP, 1},
        .nextra = VKFX_SPEC_COUNT(BILATERAL_SPEC_NO_CONVERT),
        .extra = {[VKFX_SPEC(BILATERAL_SPEC_HALO)] = shape_halo(caps, j, s),
                  [VKFX_SPEC(BILATERAL_SPEC_FAST)] = caps->fast,
                  [VKFX_SPEC(BILATERAL_SPEC_ROWS)] = s.rows,
                  [VKFX_SPEC(BILATERAL_SPEC_HALF_TILE)] = s.half_tile,
                  [VKFX_SPEC(BILATERAL_SPEC_SHARED_TABLE)] = s.shared_table,
                  [VKFX_SPEC(BILATERAL_SPEC_NO_CONVERT)] = s.no_convert},
        .half_out = vkfx_half_out(j->dst->format),
    };
    /* The factors of 1/(2 S^2) and 1/(2 T^2) rounded to float, times the table's steps per
     * unit (exact), as FILTERS.md rounds them. */
    bilateral_push push = {{(int32_t)vkfx_graph_width(g), (int32_t)vkfx_graph_height(g)},
                           j->radius,
                           (float)(1.0 / (2.0 * p->sigma_s * p->sigma_s)) * BILATERAL_STEPS,
                           (float)(1.0 / (2.0 * p->sigma_r * p->sigma_r)) * BILATERAL_STEPS};
    weight_table(weights);
    TRY(vkfx_graph_upload(g, weights, sizeof(weights), &table));
    TRY(vkfx_graph_kernel(g, &bilateral_kernel, &spec, &k));
    vkfx_dispatch d = {
        .kernel = k,
        .label = "bilateral",
        .use = {{.image = j->src}, {.image = j->dst, .write = true}, {.buffer = table}},
        .push = &push,
        .groups = {vkfx_groups(push.size[0], GROUP), vkfx_groups(push.size[1], GROUP * s.rows), 1},
    };
    TRY(vkfx_graph_dispatch(g, &d));
fail:
    return ret;
}

/* The variants: every shape gives the same bytes (each output adds its taps in one order). The
 * half window needs an rgba16f input (exact only there) and a window that fits; the others
 * read through the texture cache where it does not. */
#define SHAPE_VARIANT(fn, ROWS, HALF, TABLE, NO_CONVERT)                                           \
    static bool fn##_applies(const vkfx_caps *caps, const void *job)                               \
    {                                                                                              \
        const bilateral_job *j = job;                                                              \
        bilateral_shape s = {ROWS, HALF, TABLE, NO_CONVERT};                                       \
        return table_bytes(TABLE) <= caps->shared_memory &&                                        \
               (!HALF ||                                                                           \
                (j->src->format == VK_FORMAT_R16G16B16A16_SFLOAT && shape_halo(caps, j, s) != 0)); \
    }                                                                                              \
    static int fn##_record(vkfx_graph *g, const void *job)                                         \
    {                                                                                              \
        return record_shape(g, job, (bilateral_shape){ROWS, HALF, TABLE, NO_CONVERT});             \
    }

SHAPE_VARIANT(r4_half_lds, 4, true, true, false)
SHAPE_VARIANT(r4_half_lds_nocvt, 4, true, true, true)
SHAPE_VARIANT(r4_half, 4, true, false, false)
SHAPE_VARIANT(r2_half_lds, 2, true, true, false)
SHAPE_VARIANT(r2_lds, 2, false, true, false)
SHAPE_VARIANT(r2_lds_nocvt, 2, false, true, true)
SHAPE_VARIANT(r4_lds, 4, false, true, false)
SHAPE_VARIANT(r2, 2, false, false, false)
SHAPE_VARIANT(r1_lds, 1, false, true, false)

static int r1_record(vkfx_graph *g, const void *job)
{
    return record_shape(g, job, (bilateral_shape){1, false, false, false});
}

static const vkfx_variant bilateral_variant_list[] = {
    {"r4-half-lds", r4_half_lds_applies, r4_half_lds_record, NULL},
    {"r4-half-lds-nocvt", r4_half_lds_nocvt_applies, r4_half_lds_nocvt_record, NULL},
    {"r4-half", r4_half_applies, r4_half_record, NULL},
    {"r2-half-lds", r2_half_lds_applies, r2_half_lds_record, NULL},
    {"r2-lds", r2_lds_applies, r2_lds_record, NULL},
    {"r2-lds-nocvt", r2_lds_nocvt_applies, r2_lds_nocvt_record, NULL},
    {"r4-lds", r4_lds_applies, r4_lds_record, NULL},
    {"r2", r2_applies, r2_record, NULL},
    {"r1-lds", r1_lds_applies, r1_lds_record, NULL},
    {"r1", vkfx_variant_always, r1_record, NULL},
    {0},
};

static const vkfx_variants bilateral_variants = {"bilateral", bilateral_variant_list};

static int bilateral_record(vkfx_graph *g, const void *params, void *state, vkfx_image *src,
                            vkfx_image *dst)
{
    (void)state;
    const bilateral_params *p = params;
    bilateral_job j = {p, p->radius >= 0 ? p->radius : bilateral_default_radius(p->sigma_s), src,
                       dst};
    return vkfx_variant_record(g, &bilateral_variants, &j);
}

static uint32_t bilateral_reach(const void *params)
{
    const bilateral_params *p = params;
    return (uint32_t)(p->radius >= 0 ? p->radius : bilateral_default_radius(p->sigma_s));
}

const vkfx_filter vkfx_filter_bilateral = {
    .name = "bilateral",
    .help = "edge-preserving bilateral blur",
    .details = "out(p) = sum_q w(p,q) in(q) / sum_q w(p,q) over the (2 radius + 1)^2 window, "
               "edges repeating the nearest pixel, with w = E(|p-q|^2/(2 sigma_s^2) + "
               "||in(q)-in(p)||^2/(2 sigma_r^2)), E(x) exp(-x) interpolated linearly between "
               "x = i/64 (0 from x = 24 on: within 1 code of exp on 8-bit files); the range "
               "distance is taken over linear "
               "premultiplied RGB and alpha is averaged with the same weights. The default "
               "radius is floor(2 sigma_s + 0.5), at least 1. A large sigma_r approaches the "
               "Gaussian-weighted window mean.",
    .fast = "the device's exp per tap instead of the table, and its own division and rounding: the "
            "bytes differ between devices.",
    .options = bilateral_options,
    .params_size = sizeof(bilateral_params),
    .record = bilateral_record,
    .reach = bilateral_reach,
    .variants = (const vkfx_variants *const[]){&bilateral_variants, NULL},
    .pixel_options = (const char *const[]){"sigma_s", "radius", NULL},
};
