/* tonemap of FILTERS.md: global Reinhard. The log-average luminance is a
 * device reduction in two passes (float32 partials per work group, then one
 * work group adding them in a fixed order, so runs repeat exactly), read by
 * the apply pass from a buffer: nothing goes back to the host. */
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "variant.h"
#include "filters.h"

#include "tonemap_apply.spv.h"
#include "tonemap_reduce.spv.h"
#include "tonemap_sum.spv.h"
#include "../../glsl/tonemap.h"

_Static_assert(sizeof(tonemap_reduce_push) == TONEMAP_REDUCE_PUSH_BYTES, "tonemap_reduce's push");
_Static_assert(sizeof(tonemap_sum_push) == TONEMAP_SUM_PUSH_BYTES, "tonemap_sum's push block");
_Static_assert(sizeof(tonemap_apply_push) == TONEMAP_APPLY_PUSH_BYTES, "tonemap_apply's push");

/* Rows each invocation of the reduce pass walks down its column. */
enum { PER = 4 };

typedef struct tonemap_params {
    double key;
    double white;
} tonemap_params;

static const vkfx_option tonemap_options[] = {
    VKFX_OPTION_FLOAT(tonemap_params, key, 0.18, 1e-6, 1000,
                      "key A: the luminance the log-average maps to before compression"),
    VKFX_OPTION_FLOAT_UNSET(tonemap_params, white, "unset: Ld = Lm/(1+Lm)", 1e-6, 1e6,
                            "white point W: the smallest scaled luminance Lm that maps to 1"),
    {0},
};

static const vkfx_kernel_desc tonemap_reduce_kernel = {
    .name = "tonemap_reduce",
    VKFX_SPV(tonemap_reduce),
    .nbind = 2,
    .bind = {VKFX_BIND_SAMPLED, VKFX_BIND_BUFFER},
    .push_size = sizeof(tonemap_reduce_push),
};

static const vkfx_kernel_desc tonemap_sum_kernel = {
    .name = "tonemap_sum",
    VKFX_SPV(tonemap_sum),
    .nbind = 2,
    .bind = {VKFX_BIND_BUFFER, VKFX_BIND_BUFFER},
    .push_size = sizeof(tonemap_sum_push),
};

static const vkfx_kernel_desc tonemap_apply_kernel = {
    .name = "tonemap_apply",
    VKFX_SPV(tonemap_apply),
    .nbind = 3,
    .bind = {VKFX_BIND_SAMPLED, VKFX_BIND_STORAGE_IMAGE, VKFX_BIND_BUFFER},
    .push_size = sizeof(tonemap_apply_push),
};

/* What each variant of the reduce pass records: the partial sums of src, one per group. */
typedef struct tonemap_job {
    vkfx_image *src;
    vkfx_buffer *partials;
    uint32_t groups[2];
} tonemap_job;

static int shared_record(vkfx_graph *g, const void *job)
{
    const tonemap_job *j = job;
    int ret = VKFX_OK;
    vkfx_kernel *reduce = NULL;
    vkfx_spec spec = {.local = {16, 16, 1},
                      .nextra = VKFX_SPEC_COUNT(TONEMAP_SPEC_PER),
                      .extra = {[VKFX_SPEC(TONEMAP_SPEC_PER)] = PER}};
    TRY(vkfx_graph_kernel(g, &tonemap_reduce_kernel, &spec, &reduce));
    tonemap_reduce_push push = {{(int32_t)vkfx_graph_width(g), (int32_t)vkfx_graph_height(g)}};
    vkfx_dispatch dr = {
        .kernel = reduce,
        .label = "tonemap.reduce",
        .use = {{.image = j->src}, {.buffer = j->partials, .write = true}},
        .push = &push,
        .groups = {j->groups[0], j->groups[1], 1},
    };
    TRY(vkfx_graph_dispatch(g, &dr));
fail:
    return ret;
}

/* A group's sum through a shared-memory tree, in the same order on every device. subgroupAdd,
 * whose order follows the device's subgroup size, was 0.5% faster on the GPU machine
 * (tests/bench/RESULTS.md) and gave other bits. */
static const vkfx_variant tonemap_variant_list[] = {
    {"shared", vkfx_variant_always, shared_record, NULL},
    {0},
};

static const vkfx_variants tonemap_variants = {"tonemap", tonemap_variant_list};

static int tonemap_record(vkfx_graph *g, const void *params, void *state, vkfx_image *src,
                          vkfx_image *dst)
{
    (void)state;
    int ret = VKFX_OK;
    const tonemap_params *p = params;
    uint32_t w = vkfx_graph_width(g), h = vkfx_graph_height(g);
    vkfx_kernel *sum = NULL, *apply = NULL;
    vkfx_buffer *partials = NULL, *scale = NULL;

    vkfx_spec sum_spec = {.local = {256, 1, 1}};
    vkfx_spec apply_spec = {.local = {16, 16, 1}, .half_out = vkfx_half_out(dst->format)};
    TRY(vkfx_graph_kernel(g, &tonemap_sum_kernel, &sum_spec, &sum));
    TRY(vkfx_graph_kernel(g, &tonemap_apply_kernel, &apply_spec, &apply));

    uint32_t gx = vkfx_groups(w, 16), gy = vkfx_groups(vkfx_groups(h, PER), 16);
    TRY(vkfx_graph_buffer(g, (VkDeviceSize)gx * gy * sizeof(float), 0, &partials));
    TRY(vkfx_graph_buffer(g, 16, 0, &scale));
    TRY(vkfx_variant_record(g, &tonemap_variants, &(tonemap_job){src, partials, {gx, gy}}));

    tonemap_sum_push spush = {gx * gy, (float)(1.0 / ((double)w * h)), (float)p->key};
    vkfx_dispatch ds = {
        .kernel = sum,
        .label = "tonemap.sum",
        .use = {{.buffer = partials}, {.buffer = scale, .write = true}},
        .push = &spush,
        .groups = {1, 1, 1},
    };
    TRY(vkfx_graph_dispatch(g, &ds));

    tonemap_apply_push apush = {{(int32_t)w, (int32_t)h},
                                p->white == VKFX_UNSET ? 0.0f
                                                       : (float)(1.0 / (p->white * p->white))};
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
               "8/16-bit images, which are decoded to linear light first. The same bytes on "
               "every device: the sums in one fixed order, log, exp and the division from "
               "products and sums each rounded on its own.",
    .options = tonemap_options,
    .params_size = sizeof(tonemap_params),
    .record = tonemap_record,
    .variants = (const vkfx_variants *const[]){&tonemap_variants, NULL},
};
