/* grayscale of FILTERS.md: RGB = Y of the linear premultiplied colour, alpha kept
 * (glsl/grayscale.comp), one pass. */
#include <stddef.h>

#include "filters.h"

#include "grayscale.spv.h"
#include "../../glsl/grayscale.h"

/* The work group is GROUP x GROUP outputs. */
enum { GROUP = 16 };

typedef struct grayscale_params {
    char unused; /* no options */
} grayscale_params;

static const vkfx_option grayscale_options[] = {
    {0},
};

_Static_assert(sizeof(grayscale_push) == GRAYSCALE_PUSH_BYTES, "grayscale.comp's push block");

static const vkfx_kernel_desc grayscale_kernel = {
    .name = "grayscale",
    VKFX_SPV(grayscale),
    .nbind = 2,
    .bind = {VKFX_BIND_SAMPLED, VKFX_BIND_STORAGE_IMAGE},
    .push_size = sizeof(grayscale_push),
};

static int grayscale_record(vkfx_graph *g, const void *params, void *state, vkfx_image *src,
                            vkfx_image *dst)
{
    (void)params;
    (void)state;
    vkfx_spec spec = {.local = {GROUP, GROUP, 1}, .half_out = vkfx_half_out(dst->format)};
    grayscale_push push = {{(int32_t)vkfx_graph_width(g), (int32_t)vkfx_graph_height(g)}};
    return vkfx_graph_pass(g, &grayscale_kernel, &spec, "grayscale", &push, src, dst, GROUP, GROUP);
}

/* Each output pixel is its input pixel's function alone. */
static uint32_t grayscale_reach(const void *params)
{
    (void)params;
    return 0;
}

const vkfx_filter vkfx_filter_grayscale = {
    .name = "grayscale",
    .help = "gray: RGB = luminance Y of linear RGB, alpha kept",
    .details = "Y = 0.2126 R + 0.7152 G + 0.0722 B of the linear premultiplied colour (so "
               "premultiplied Y); output RGB = Y, alpha unchanged. The coefficients are rounded "
               "to 13 significant bits (0.21258544921875, 0.7152099609375, 0.07220458984375, "
               "still summing to 1) and the sum taken in that order, so that rgba16f results "
               "are the same bytes on every device checked (README).",
    .options = grayscale_options,
    .params_size = sizeof(grayscale_params),
    .record = grayscale_record,
    .reach = grayscale_reach,
};
