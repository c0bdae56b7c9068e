/* dof of FILTERS.md "Depth of field": diffusion depth of field, one
 * alternating-direction implicit step, rows then columns of the row result,
 * each line's tridiagonal system solved by cyclic reduction in one work
 * group (glsl/dof.comp). Device memory beyond the input and output: the
 * row result (one image in the internal format) and the depth map (one
 * float per pixel). */
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "filters.h"

#include "dof.spv.h"
#include "../../glsl/dof.h"

_Static_assert(sizeof(dof_push) == DOF_PUSH_BYTES, "dof.comp's push block");

/* Rows per invocation at most (MAXL in glsl/dof.comp). */
enum { MAXL = 16, LARGE_GROUP = 1024 };

typedef struct dof_params {
    vkfx_coc_params coc;
    double strength;
} dof_params;

static const vkfx_option dof_options[] = {
    VKFX_COC_OPTIONS(dof_params, coc),
    VKFX_OPTION_FLOAT(dof_params, strength, 1, 0, 100,
                      "diffusion per pixel of circle of confusion: beta = (strength * coc)^2"),
    {0},
};

static const vkfx_kernel_desc dof_kernel = {
    .name = "dof",
    VKFX_SPV(dof),
    .nbind = 3,
    .bind = {VKFX_BIND_SAMPLED, VKFX_BIND_STORAGE_IMAGE, VKFX_BIND_BUFFER},
    .push_size = sizeof(dof_push),
};

/* One direction: lines of n pixels, one work group each. */
static int dof_pass(vkfx_graph *g, const vkfx_coc_params *coc, double strength, bool vertical,
                    vkfx_buffer *depth, vkfx_image *src, vkfx_image *dst)
{
    int ret = VKFX_OK;
    uint32_t w = vkfx_graph_width(g), h = vkfx_graph_height(g);
    uint32_t n = vertical ? h : w, lines = vertical ? w : h;
    /* The seed's 4-to-1 first reduction: a quarter of the line's length in
     * invocations (a multiple of 32), up to 1024, beyond which each takes
     * more rows; the largest groups measured fastest (tests/bench/RESULTS.md). */
    uint32_t group = (vkfx_groups(n, 4) + 31) / 32 * 32;
    if (group > LARGE_GROUP)
        group = LARGE_GROUP;
    if (n > LARGE_GROUP * MAXL)
        return vkfx_fail(VKFX_E_LIMIT, "dof: lines of %u pixels; at most %u are supported", n,
                         LARGE_GROUP * MAXL);
    vkfx_kernel *k = NULL;
    vkfx_spec spec = {.local = {group, 1, 1},
                      .nextra = VKFX_SPEC_COUNT(DOF_SPEC_VERTICAL),
                      .extra = {[VKFX_SPEC(DOF_SPEC_VERTICAL)] = vertical},
                      .half_out = vkfx_half_out(dst->format)};
    TRY(vkfx_graph_kernel(g, &dof_kernel, &spec, &k));
    dof_push push = {{(int32_t)w, (int32_t)h},      0, 0, 0, (float)strength, 0,
                     (int32_t)vkfx_groups(n, group)};
    vkfx_coc_push(coc, &push.focus, &push.inv_range, &push.maxcoc, &push.disparity);
    vkfx_dispatch d = {
        .kernel = k,
        .label = vertical ? "dof.columns" : "dof.rows",
        .use = {{.image = src}, {.image = dst, .write = true}, {.buffer = depth}},
        .push = &push,
        .groups = {lines, 1, 1},
    };
    TRY(vkfx_graph_dispatch(g, &d));
fail:
    return ret;
}

int vkfx_dof_record(vkfx_graph *g, const vkfx_coc_params *coc, double strength, vkfx_buffer *depth,
                    vkfx_image *src, vkfx_image *dst)
{
    int ret = VKFX_OK;
    vkfx_image *rows = NULL;
    TRY(vkfx_graph_image(g, vkfx_graph_width(g), vkfx_graph_height(g), vkfx_graph_format(g),
                         &rows));
    TRY(dof_pass(g, coc, strength, false, depth, src, rows));
    TRY(dof_pass(g, coc, strength, true, depth, rows, dst));
fail:
    return ret;
}

static int dof_record(vkfx_graph *g, const void *params, void *state, vkfx_image *src,
                      vkfx_image *dst)
{
    (void)state;
    int ret = VKFX_OK;
    const dof_params *p = params;
    vkfx_buffer *depth = NULL;
    TRY(vkfx_depth_load(g, "dof", &p->coc, &depth));
    TRY(vkfx_dof_record(g, &p->coc, p->strength, depth, src, dst));
fail:
    return ret;
}

const vkfx_filter vkfx_filter_dof = {
    .name = "dof",
    .help = "depth of field by diffusion: implicit heat steps along rows, then columns",
    .details =
        "coc = maxcoc * clamp(|z - focus| / range, 0, 1) in pixels (in float, |z - focus| times "
        "1/range rounded to float: the same on every device) from the depth z (1 - z with "
        "kind=disparity; 8/16-bit maps read as [0,1], float depth (HDR, OpenEXR: Z, *.Z, "
        "*depth*, FILE.exr#NAME, or self for the input's own) in scene units, focus and range "
        "then in the same units). Each row, then each column of the row result, is one "
        "implicit step of the heat equation: -beta(i-1/2) y(i-1) + (1 + beta(i-1/2) + "
        "beta(i+1/2)) y(i) - beta(i+1/2) y(i+1) = x(i), beta(i+1/2) = (strength * min(coc(i), "
        "coc(i+1)))^2, no flow across the image's edges. A coc of 0 everywhere leaves the image "
        "unchanged, a constant image stays constant, and each line keeps its sum. Solved by "
        "cyclic reduction, one work group per line; lines up to 16384 pixels. The same bytes "
        "on every device: each operation rounded on its own in the order written, each "
        "division a product with a reciprocal every device computes alike, values below "
        "2^-60 in a float image written as 0.",
    .options = dof_options,
    .params_size = sizeof(dof_params),
    .record = dof_record,
    .pixel_options = (const char *const[]){"maxcoc", NULL},
};
