/* satblur and satdof of FILTERS.md "Summed-area tables" and "Depth of
 * field": the table of the image (sat.c), then box means from four table
 * reads per box (glsl/satblur.comp) with a radius that is fixed, read from
 * a map, or the rounded circle of confusion of a depth map. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "error.h"
#include "filters.h"

#include "satblur.spv.h"
#include "../../glsl/satblur.h"

_Static_assert(sizeof(satblur_push) == SATBLUR_PUSH_BYTES, "satblur.comp's push block");

/* Spec constant 4 of satblur.comp. */
enum { RADIUS_FIXED, RADIUS_MAP, RADIUS_COC };
enum { SHAPE_BOX, SHAPE_SMOOTH };

static const char *const shapes[] = {"box", "smooth", NULL};

typedef struct satblur_params {
    int32_t radius;
    char *map;
    double scale;
    int shape;
} satblur_params;

typedef struct satdof_params {
    vkfx_coc_params coc;
    int shape;
} satdof_params;

#define SHAPE_OPTION(T)                                                                            \
    VKFX_OPTION_CHOICE(T, shape, SHAPE_BOX, shapes,                                                \
                       "box: one square of half-size r; smooth: the mean of three overlapped "     \
                       "boxes of half-sizes (r/2, r), (r, r/2), (3r/4, 3r/4)")

static const vkfx_option satblur_options[] = {
    VKFX_OPTION_INT(satblur_params, radius, 8, 0, 1000000,
                    "half-size r of the window [x-r, x+r] x [y-r, y+r]; any r costs the same"),
    VKFX_OPTION_PATH(satblur_params, map,
                     "per-pixel radius r = floor(m * scale + 0.5) from this image's first channel "
                     "m (8/16-bit maps in [0,1]); replaces radius"),
    VKFX_OPTION_FLOAT(satblur_params, scale, 32, 0, 1e6,
                      "radius in pixels that a map value of 1 gives"),
    SHAPE_OPTION(satblur_params),
    {0},
};

static const vkfx_option satdof_options[] = {
    VKFX_COC_OPTIONS(satdof_params, coc),
    SHAPE_OPTION(satdof_params),
    {0},
};

static const vkfx_kernel_desc satblur_kernel = {
    .name = "satblur",
    VKFX_SPV(satblur),
    .nbind = 5,
    .bind = {VKFX_BIND_SAMPLED, VKFX_BIND_SAMPLED, VKFX_BIND_STORAGE_IMAGE, VKFX_BIND_BUFFER,
             VKFX_BIND_BUFFER},
    .push_size = sizeof(satblur_push),
};

/* The kernel's reciprocals 1/n (n = 1 .. the longer side; 0 unused), rounded to float here:
 * its means are the box's sum times those of the box's width and height (glsl/satblur.comp). */
static int upload_reciprocals(vkfx_graph *g, uint32_t w, uint32_t h, vkfx_buffer **out)
{
    uint32_t n = (w > h ? w : h) + 1;
    float *r = malloc(n * sizeof(float));
    if (!r)
        return vkfx_fail(VKFX_E_NOMEM, "out of host memory for %u reciprocals", n);
    r[0] = 0.0f;
    for (uint32_t i = 1; i < n; i++)
        r[i] = (float)(1.0 / i);
    int ret = vkfx_graph_upload(g, r, n * sizeof(float), out);
    free(r);
    return ret;
}

static int lookup_record(vkfx_graph *g, vkfx_image *src, vkfx_image *dst, uint32_t mode, int shape,
                         int32_t radius, float scale, const vkfx_coc_params *coc, vkfx_buffer *map,
                         const char *label)
{
    int ret = VKFX_OK;
    uint32_t w = vkfx_graph_width(g), h = vkfx_graph_height(g);
    vkfx_kernel *k = NULL;
    vkfx_buffer *recip = NULL;
    vkfx_sat sat = {0};
    TRY(vkfx_sat_record(g, src, vkfx_sat_shift(w, h), NULL, &sat));
    TRY(upload_reciprocals(g, w, h, &recip));
    if (!map)
        TRY(vkfx_graph_buffer(g, 16, 0, &map));
    vkfx_spec spec = {.local = {16, 16, 1},
                      .nextra = VKFX_SPEC_COUNT(SATBLUR_SPEC_SMOOTH),
                      .extra = {[VKFX_SPEC(SATBLUR_SPEC_MODE)] = mode,
                                [VKFX_SPEC(SATBLUR_SPEC_SHIFT)] = (uint32_t)sat.shift,
                                [VKFX_SPEC(SATBLUR_SPEC_SMOOTH)] = shape == SHAPE_SMOOTH},
                      .half_out = vkfx_half_out(dst->format)};
    TRY(vkfx_graph_kernel(g, &satblur_kernel, &spec, &k));
    /* Radii beyond twice the image give the same means (smooth halves them). */
    int32_t big = 2 * (int32_t)(w > h ? w : h) + 1;
    satblur_push push = {{(int32_t)w, (int32_t)h}, radius > big ? big : radius, scale, 0, 0, 0, 0};
    if (coc)
        vkfx_coc_push(coc, &push.focus, &push.inv_range, &push.maxcoc, &push.disparity);
    vkfx_dispatch d = {
        .kernel = k,
        .label = label,
        .use = {{.image = sat.lo},
                {.image = sat.hi},
                {.image = dst, .write = true},
                {.buffer = map},
                {.buffer = recip}},
        .push = &push,
        .groups = {vkfx_groups(w, 16), vkfx_groups(h, 16), 1},
    };
    TRY(vkfx_graph_dispatch(g, &d));
fail:
    return ret;
}

static int satblur_record(vkfx_graph *g, const void *params, void *state, vkfx_image *src,
                          vkfx_image *dst)
{
    (void)state;
    int ret = VKFX_OK;
    const satblur_params *p = params;
    vkfx_buffer *map = NULL;
    if (p->map)
        TRY(vkfx_aux_load(g, "satblur", "map", p->map, &map));
    TRY(lookup_record(g, src, dst, p->map ? RADIUS_MAP : RADIUS_FIXED, p->shape, p->radius,
                      (float)p->scale, NULL, map, "satblur.lookup"));
fail:
    return ret;
}

int vkfx_satdof_record(vkfx_graph *g, const vkfx_coc_params *coc, bool smooth, vkfx_buffer *depth,
                       vkfx_image *src, vkfx_image *dst)
{
    return lookup_record(g, src, dst, RADIUS_COC, smooth ? SHAPE_SMOOTH : SHAPE_BOX, 0, 1.0f, coc,
                         depth, "satdof.lookup");
}

static int satdof_record(vkfx_graph *g, const void *params, void *state, vkfx_image *src,
                         vkfx_image *dst)
{
    (void)state;
    int ret = VKFX_OK;
    const satdof_params *p = params;
    vkfx_buffer *depth = NULL;
    TRY(vkfx_depth_load(g, "satdof", &p->coc, &depth));
    TRY(vkfx_satdof_record(g, &p->coc, p->shape == SHAPE_SMOOTH, depth, src, dst));
fail:
    return ret;
}

/* A per-pixel radius map is of the whole image's size: such a run is not tiled. */
static uint32_t satblur_reach(const void *params)
{
    const satblur_params *p = params;
    return p->map ? VKFX_REACH_ALL : (uint32_t)p->radius;
}

const vkfx_filter vkfx_filter_satblur = {
    .name = "satblur",
    .help = "box blur of any radius at constant cost from a summed-area table",
    .details =
        "Each output pixel is the mean over [x-r, x+r] x [y-r, y+r] clipped to the image "
        "(divided by the number of pixels inside; edges do not repeat), of linear "
        "premultiplied RGBA. r is radius, or floor(m * scale + 0.5) per pixel with m the first "
        "channel of map (same size as the image; 8/16-bit maps read as [0,1], float maps as "
        "they are; NaN gives 0). shape=smooth averages three boxes of half-sizes "
        "(round(r/2), r), (r, round(r/2)) and (round(3r/4), round(3r/4)), round(v) = "
        "floor(v + 0.5). The table holds 64-bit integer sums of the samples in fixed point "
        "(2^-24 steps up to 4 megapixels, coarser above, at worst 2^-18 at 268 megapixels) "
        "after clamping them to +-65504, so box means are exact to that step whatever the "
        "radius. A box's mean is its sum, converted to float, times 1/width and 1/height "
        "(each rounded to float), each product rounded on its own; smooth adds its three "
        "means in the order above and multiplies by 1/3 rounded to float: the same bytes on "
        "every device, where a division may differ.",
    .options = satblur_options,
    .params_size = sizeof(satblur_params),
    .record = satblur_record,
    .reach = satblur_reach,
    .variants = (const vkfx_variants *const[]){&vkfx_sat_variants, NULL},
    .pixel_options = (const char *const[]){"radius", "scale", NULL},
};

const vkfx_filter vkfx_filter_satdof = {
    .name = "satdof",
    .help = "depth of field: a per-pixel box blur sized by the circle of confusion",
    .details = "coc = maxcoc * clamp(|z - focus| / range, 0, 1) in pixels (in float, |z - focus| "
               "times 1/range rounded to float: the same on every device), z the depth (1 - z "
               "with kind=disparity). 8/16-bit maps are read as [0,1]; float depth (HDR, "
               "OpenEXR) is used as it is, in scene units, and focus and range are then in the "
               "same units (focus=5:range=3 for a render in metres). From an OpenEXR file: "
               "depth=render.exr takes the channel Z, else one whose last component is Z "
               "(ViewLayer.Depth.Z), else one whose name contains 'depth'; "
               "depth=render.exr#NAME takes that channel; depth=self reads the depth of the "
               "input file itself. "
               "Each pixel is then satblur's mean with radius floor(coc + 0.5). The depth map "
               "must have the image's size.",
    .options = satdof_options,
    .params_size = sizeof(satdof_params),
    .record = satdof_record,
    .variants = (const vkfx_variants *const[]){&vkfx_sat_variants, NULL},
    .pixel_options = (const char *const[]){"maxcoc", NULL},
};
