/* tonemap of FILTERS.md: global Reinhard. The log-average luminance is a
 * device reduction in two passes (float32 partials per work group, then one
 * work group adding them in a fixed order, so runs repeat exactly), read by
 * the apply pass from a buffer: nothing goes back to the host. */
#include <stddef.h>
#include <stdint.h>

#include "../error.h"
#include "filters.h"

#include "tonemap_apply.spv.h"
#include "tonemap_reduce.spv.h"
#include "tonemap_reduce_sg.spv.h"
#include "tonemap_sum.spv.h"

/* Rows each invocation of the reduce pass walks down its column. */
enum { PER = 4 };

typedef struct tonemap_params {
    double key;
    double white;
} tonemap_params;

static const vkfx_option tonemap_options[] = {
    {.name = "key",
     .type = VKFX_OPT_FLOAT,
     .offset = offsetof(tonemap_params, key),
     .def = 0.18,
     .min = 1e-6,
     .max = 1000,
     .help = "key A: the luminance the log-average maps to before compression"},
    {.name = "white",
     .type = VKFX_OPT_FLOAT,
     .offset = offsetof(tonemap_params, white),
     .min = 1e-6,
     .max = 1e6,
     .help = "white point W: the smallest scaled luminance Lm that maps to 1",
     .def_text = "unset: Ld = Lm/(1+Lm)",
     .unset_default = true},
    {0},
};

static const vkfx_kernel_desc tonemap_reduce_kernel = {
    .name = "tonemap_reduce",
    VKFX_SPV(tonemap_reduce),
    .nbind = 2,
    .bind = {VKFX_BIND_SAMPLED, VKFX_BIND_BUFFER},
    .push_size = 8,
};

static const vkfx_kernel_desc tonemap_reduce_sg_kernel = {
    .name = "tonemap_reduce_sg",
    VKFX_SPV(tonemap_reduce_sg),
    .nbind = 2,
    .bind = {VKFX_BIND_SAMPLED, VKFX_BIND_BUFFER},
    .push_size = 8,
};

static const vkfx_kernel_desc tonemap_sum_kernel = {
    .name = "tonemap_sum",
    VKFX_SPV(tonemap_sum),
    .nbind = 2,
    .bind = {VKFX_BIND_BUFFER, VKFX_BIND_BUFFER},
    .push_size = 12,
};

static const vkfx_kernel_desc tonemap_apply_kernel = {
    .name = "tonemap_apply",
    VKFX_SPV(tonemap_apply),
    .nbind = 3,
    .bind = {VKFX_BIND_SAMPLED, VKFX_BIND_STORAGE_IMAGE, VKFX_BIND_BUFFER},
    .push_size = 12,
};

static int tonemap_record(vkfx_graph *g, const void *params, void *state, vkfx_image *src,
                          vkfx_image *dst)
{
    (void)state;
    int ret = VKFX_OK;
    const tonemap_params *p = params;
    const vkfx_caps *caps = vkfx_graph_caps(g);
    uint32_t w = vkfx_graph_width(g), h = vkfx_graph_height(g);
    vkfx_kernel *reduce = NULL, *sum = NULL, *apply = NULL;
    vkfx_buffer *partials = NULL, *scale = NULL;

    vkfx_spec reduce_spec = {.local = {16, 16, 1}, .nextra = 1, .extra = {PER}};
    vkfx_spec sum_spec = {.local = {256, 1, 1}};
    vkfx_spec apply_spec = {.local = {16, 16, 1}, .half_out = vkfx_half_out(dst->format)};
    TRY(vkfx_graph_kernel(g,
                          caps->subgroup_arith ? &tonemap_reduce_sg_kernel : &tonemap_reduce_kernel,
                          &reduce_spec, &reduce));
    TRY(vkfx_graph_kernel(g, &tonemap_sum_kernel, &sum_spec, &sum));
    TRY(vkfx_graph_kernel(g, &tonemap_apply_kernel, &apply_spec, &apply));

    uint32_t gx = vkfx_groups(w, 16), gy = vkfx_groups(vkfx_groups(h, PER), 16);
    TRY(vkfx_graph_buffer(g, (VkDeviceSize)gx * gy * sizeof(float), 0, &partials));
    TRY(vkfx_graph_buffer(g, 16, 0, &scale));

    int32_t size[2] = {(int32_t)w, (int32_t)h};
    vkfx_dispatch dr = {
        .kernel = reduce,
        .label = "tonemap.reduce",
        .use = {{.image = src}, {.buffer = partials, .write = true}},
        .push = size,
        .groups = {gx, gy, 1},
    };
    TRY(vkfx_graph_dispatch(g, &dr));

    struct {
        uint32_t count;
        float pixels, key;
    } spush = {gx * gy, (float)((double)w * h), (float)p->key};
    vkfx_dispatch ds = {
        .kernel = sum,
        .label = "tonemap.sum",
        .use = {{.buffer = partials}, {.buffer = scale, .write = true}},
        .push = &spush,
        .groups = {1, 1, 1},
    };
    TRY(vkfx_graph_dispatch(g, &ds));

    struct {
        int32_t size[2];
        float inv_w2;
    } apush = {{(int32_t)w, (int32_t)h},
               p->white == VKFX_UNSET ? 0.0f : (float)(1.0 / (p->white * p->white))};
    vkfx_dispatch da = {
        .kernel = apply,
        .label = "tonemap.apply",
        .use = {{.image = src}, {.image = dst, .write = true}, {.buffer = scale}},
        .push = &apush,
        .groups = {vkfx_groups(w, 16), vkfx_groups(h, 16), 1},
    };
    TRY(vkfx_graph_dispatch(g, &da));
fail:
    return ret;
}

const vkfx_filter vkfx_filter_tonemap = {
    .name = "tonemap",
    .help = "global Reinhard tone mapping (log-average luminance key)",
    .details = "Y = 0.2126 R + 0.7152 G + 0.0722 B of the linear premultiplied RGB as stored "
               "(for opaque pixels the plain linear colour). Lw = exp(mean over all pixels of "
               "log(1e-4 + max(Y, 0))), reduced on the device; Lm = A/Lw * Y, "
               "Ld = Lm (1 + Lm/W^2) / (1 + Lm) (W unset: Ld = Lm/(1+Lm)); RGB scaled by Ld/Y, "
               "0 where Y <= 0; alpha kept. Meant for linear input (Radiance .hdr) but works on "
               "8/16-bit images, which are decoded to linear light first.",
    .options = tonemap_options,
    .params_size = sizeof(tonemap_params),
    .record = tonemap_record,
};
