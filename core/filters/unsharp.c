/* unsharp of FILTERS.md: b = gauss(sigma), out = x + amount (x - b) per colour channel where
 * |x - b| > threshold, alpha kept: in the one-pass Gaussian's kernel where it applies
 * (vkfx_gauss_unsharp_record), else glsl/unsharp.comp after the Gaussian's passes. */
#include <stddef.h>

#include "error.h"
#include "filters.h"

#include "unsharp.spv.h"
#include "../../glsl/unsharp.h"

/* The work group is GROUP x GROUP outputs. */
enum { GROUP = 16 };

typedef struct unsharp_params {
    double sigma, amount, threshold;
} unsharp_params;

static const vkfx_option unsharp_options[] = {
    VKFX_OPTION_FLOAT(unsharp_params, sigma, 1, 0.1, 1000,
                      "Gaussian whose difference from the image is added back (its radius 3*sigma "
                      "rounded, as gauss)"),
    VKFX_OPTION_FLOAT(unsharp_params, amount, 1, 0, 100, "how much of the difference is added"),
    VKFX_OPTION_FLOAT(
        unsharp_params, threshold, 0, 0, 1,
        "a channel whose difference from the blur is at most this (linear light) is left as it is"),
    {0},
};

_Static_assert(sizeof(unsharp_push) == UNSHARP_PUSH_BYTES, "unsharp.comp's push block");

static const vkfx_kernel_desc unsharp_kernel = {
    .name = "unsharp",
    VKFX_SPV(unsharp),
    .nbind = 3,
    .bind = {VKFX_BIND_SAMPLED, VKFX_BIND_SAMPLED, VKFX_BIND_STORAGE_IMAGE},
    .push_size = sizeof(unsharp_push),
};

static int unsharp_record(vkfx_graph *g, const void *params, void *state, vkfx_image *src,
                          vkfx_image *dst)
{
    (void)state;
    int ret = VKFX_OK;
    const unsharp_params *p = params;
    uint32_t w = vkfx_graph_width(g), h = vkfx_graph_height(g);
    vkfx_image *blurred = NULL;
    vkfx_kernel *k = NULL;
    bool done;
    TRY(vkfx_gauss_unsharp_record(g, p->sigma, p->amount, p->threshold, src, dst, &done));
    if (done)
        return VKFX_OK;
    /* The difference from the blur is magnified by amount: the blur stays in float32 whatever
     * the chain's internal format, as cartoon's does. */
    TRY(vkfx_graph_image(g, w, h, VK_FORMAT_R32G32B32A32_SFLOAT, &blurred));
    TRY(vkfx_gauss_record(g, p->sigma, -1, src, blurred));
    vkfx_spec spec = {.local = {GROUP, GROUP, 1}, .half_out = vkfx_half_out(dst->format)};
    TRY(vkfx_graph_kernel(g, &unsharp_kernel, &spec, &k));
    unsharp_push push = {{(int32_t)w, (int32_t)h}, (float)p->amount, (float)p->threshold};
    vkfx_dispatch d = {
        .kernel = k,
        .label = "unsharp",
        .use = {{.image = src}, {.image = blurred}, {.image = dst, .write = true}},
        .push = &push,
        .groups = {vkfx_groups(w, GROUP), vkfx_groups(h, GROUP), 1},
    };
    TRY(vkfx_graph_dispatch(g, &d));
fail:
    return ret;
}

/* The blur's radius. */
static uint32_t unsharp_reach(const void *params)
{
    return (uint32_t)vkfx_gauss_default_radius(((const unsharp_params *)params)->sigma);
}

static vkfx_align unsharp_align(const void *params)
{
    return vkfx_gauss_align(vkfx_gauss_default_radius(((const unsharp_params *)params)->sigma));
}

const vkfx_filter vkfx_filter_unsharp = {
    .name = "unsharp",
    .help = "unsharp: sharpen by adding back the difference from a Gaussian blur",
    .details = "b = gauss(sigma); out = x + amount (x - b) per colour channel where |x - b| > "
               "threshold, else x; premultiplied linear light, alpha unchanged; values beyond "
               "[0, 1] are clamped only on output.",
    .fast = "the Gaussian's fast path (gauss): the device's exp and rounding; the bytes differ "
            "between devices.",
    .options = unsharp_options,
    .params_size = sizeof(unsharp_params),
    .record = unsharp_record,
    .reach = unsharp_reach,
    .align = unsharp_align,
    .variants = (const vkfx_variants *const[]){&vkfx_gauss_variants, NULL},
    .pixel_options = (const char *const[]){"sigma", NULL},
};
