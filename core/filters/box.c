#include <stddef.h>

#include "../error.h"
#include "filters.h"

#include "box_h.spv.h"
#include "box_v.spv.h"

typedef struct box_params {
    int32_t radius;
} box_params;

static const vkfx_option box_options[] = {
    {.name = "radius", .type = VKFX_OPT_INT, .offset = offsetof(box_params, radius), .def = 1,
     .min = 0, .max = 4096, .help = "window of (2*radius+1)^2 pixels; 0 is the identity"},
    {0},
};

static const vkfx_kernel_desc box_h_kernel = {
    .name = "box_h",
    VKFX_SPV(box_h),
    .nbind = 2,
    .bind = {VKFX_BIND_SAMPLED, VKFX_BIND_STORAGE_IMAGE},
    .push_size = 16,
};

static const vkfx_kernel_desc box_v_kernel = {
    .name = "box_v",
    VKFX_SPV(box_v),
    .nbind = 2,
    .bind = {VKFX_BIND_SAMPLED, VKFX_BIND_STORAGE_IMAGE},
    .push_size = 16,
};

enum { SEG = 64, LOCAL = 64 };

static int box_record(vkfx_graph *g, const void *params, void *state, vkfx_image *src,
                      vkfx_image *dst)
{
    (void)state;
    int ret = VKFX_OK;
    const box_params *p = params;
    vkfx_context *ctx = vkfx_graph_context(g);
    uint32_t w = vkfx_graph_width(g), h = vkfx_graph_height(g);
    vkfx_image *tmp = NULL;
    vkfx_kernel *kh = NULL, *kv = NULL;
    vkfx_spec spec = {.local = {LOCAL, 1, 1}, .nextra = 1, .extra = {SEG}};
    TRY(vkfx_kernel_get(ctx, &box_h_kernel, &spec, &kh));
    TRY(vkfx_kernel_get(ctx, &box_v_kernel, &spec, &kv));
    TRY(vkfx_graph_image(g, w, h, vkfx_graph_format(g), &tmp));
    struct {
        int32_t size[2];
        int32_t radius;
        float scale;
    } push = {{(int32_t)w, (int32_t)h}, p->radius, (float)(1.0 / (2.0 * p->radius + 1.0))};
    vkfx_dispatch dh = {
        .kernel = kh,
        .label = "box.h",
        .use = {{.image = src}, {.image = tmp, .write = true}},
        .push = &push,
        .groups = {vkfx_groups(vkfx_groups(w, SEG), LOCAL), h, 1},
    };
    TRY(vkfx_graph_dispatch(g, &dh));
    vkfx_dispatch dv = {
        .kernel = kv,
        .label = "box.v",
        .use = {{.image = tmp}, {.image = dst, .write = true}},
        .push = &push,
        .groups = {vkfx_groups(w, LOCAL), vkfx_groups(h, SEG), 1},
    };
    TRY(vkfx_graph_dispatch(g, &dv));
fail:
    return ret;
}

const vkfx_filter vkfx_filter_box = {
    .name = "box",
    .help = "box blur: mean over a (2r+1)x(2r+1) window, rolling sums",
    .details = "Edges repeat the nearest pixel. Same as scipy.ndimage.uniform_filter(x, "
               "(2r+1, 2r+1, 1), mode='nearest'). The time per pixel does not grow with r.",
    .options = box_options,
    .params_size = sizeof(box_params),
    .record = box_record,
};
