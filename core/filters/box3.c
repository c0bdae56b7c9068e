#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "filters.h"

/* Each work group covers a TILE x TILE block of pixels with TILE^2 invocations. */
enum { TILE = 16 };

/* The thread orders, in the order of box3_orders (BOX3_SPEC_ORDER of glsl/box3.h). */
enum { ORDER_LINEAR, ORDER_ZORDER };

#include "box3.spv.h"
#include "../../glsl/box3.h"

_Static_assert(sizeof(box3_push) == BOX3_PUSH_BYTES, "box3.comp's push block");

typedef struct box3_params {
    int order;
} box3_params;

static const char *const box3_orders[] = {"linear", "zorder", NULL};

static const vkfx_option box3_options[] = {
    VKFX_OPTION_CHOICE(box3_params, order, ORDER_LINEAR, box3_orders,
                       "how a work group's invocations walk its 16x16 tile: row by row (linear) or "
                       "along a Morton curve (zorder); the output is the same"),
    {0},
};

static const vkfx_kernel_desc box3_kernel = VKFX_IMAGE_KERNEL(box3, box3_push);

static int box3_record(vkfx_graph *g, const void *params, void *state, vkfx_image *src,
                       vkfx_image *dst)
{
    (void)state;
    const box3_params *p = params;
    vkfx_spec spec = {.local = {TILE * TILE, 1, 1},
                      .nextra = VKFX_SPEC_COUNT(BOX3_SPEC_ORDER),
                      .extra = {[VKFX_SPEC(BOX3_SPEC_ORDER)] = (uint32_t)p->order},
                      .half_out = vkfx_half_out(dst->format)};
    box3_push push = {{(int32_t)vkfx_graph_width(g), (int32_t)vkfx_graph_height(g)}};
    return vkfx_graph_pass(g, &box3_kernel, &spec,
                           p->order == ORDER_ZORDER ? "box3.zorder" : "box3.linear", &push, src,
                           dst, TILE, TILE);
}

static uint32_t box3_reach(const void *params)
{
    (void)params;
    return 1;
}

const vkfx_filter vkfx_filter_box3 = {
    .name = "box3",
    .help = "3x3 box blur in 16x16 tiles, row-major or Morton (Z-order) thread mapping",
    .details = "The mean over each pixel's 3x3 neighbourhood, edges repeating the nearest "
               "pixel: the same result as box:radius=1 (scipy.ndimage.uniform_filter(x, "
               "(3, 3, 1), mode='nearest')), computed directly from nine reads per pixel. "
               "Each work group of 256 invocations covers a 16x16 tile; order only changes "
               "which invocation computes which pixel, never the output (bit for bit), so "
               "`vkfx bench box3:order=linear box3:order=zorder` compares the two mappings.",
    .options = box3_options,
    .params_size = sizeof(box3_params),
    .record = box3_record,
    .reach = box3_reach,
};
