#include <stdbool.h>
#include <stddef.h>

#include "filters.h"

/* Rows each invocation walks down its column. */
enum { PER = 8 };

#include "sobel.spv.h"
#include "../../glsl/sobel.h"

_Static_assert(sizeof(sobel_push) == SOBEL_PUSH_BYTES, "sobel.comp's push block");

typedef struct sobel_params {
    bool invert;
    double gain;
} sobel_params;

static const vkfx_option sobel_options[] = {
    VKFX_OPTION_BOOL(sobel_params, invert, 0, "1: dark edges on white (1 - e)"),
    VKFX_OPTION_FLOAT(sobel_params, gain, 1, 0, 1000,
                      "multiplies the edge value before clamping to [0,1]"),
    {0},
};

static const vkfx_kernel_desc sobel_kernel = VKFX_IMAGE_KERNEL(sobel, sobel_push);

static int sobel_record(vkfx_graph *g, const void *params, void *state, vkfx_image *src,
                        vkfx_image *dst)
{
    (void)state;
    const sobel_params *p = params;
    vkfx_spec spec = {.local = {32, 8, 1},
                      .nextra = VKFX_SPEC_COUNT(SOBEL_SPEC_PER),
                      .extra = {[VKFX_SPEC(SOBEL_SPEC_PER)] = PER},
                      .half_out = vkfx_half_out(dst->format)};
    sobel_push push = {
        {(int32_t)vkfx_graph_width(g), (int32_t)vkfx_graph_height(g)}, (float)p->gain, p->invert};
    return vkfx_graph_pass(g, &sobel_kernel, &spec, "sobel", &push, src, dst, 32, 8 * PER);
}

static uint32_t sobel_reach(const void *params)
{
    (void)params;
    return 1;
}

const vkfx_filter vkfx_filter_sobel = {
    .name = "sobel",
    .help = "Sobel edges: gradient magnitude as a gray level",
    .details = "Per channel 3x3 Sobel gradients of linear premultiplied RGB, magnitude "
               "weighted by luminance: e = clamp(gain*(0.2126 m_r + 0.7152 m_g + 0.0722 m_b), "
               "0, 1). Output RGB = e (1 - e with invert=1), alpha kept.",
    .options = sobel_options,
    .params_size = sizeof(sobel_params),
    .record = sobel_record,
    .reach = sobel_reach,
};
