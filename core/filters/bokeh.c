/* bokeh of FILTERS.md "Depth of field": scattered bokeh after the seed's
 * case study. Gather (glsl/bokeh_append): every hot spot (luminance above
 * threshold, circle of confusion at least 2 px) goes to an append buffer
 * through an atomic counter, at most max of them, its colour removed from
 * the image the base filter (dof or satdof) blurs. A one-invocation pass
 * (bokeh_redo) turns the counter into the splat pass's indirect dispatch,
 * so the count never visits the host; when more than max were found it
 * also dispatches the stable gather (bokeh_count, bokeh_offsets,
 * bokeh_gather), which keeps the first max in row-major order, so that the
 * output never depends on thread timing. Splat (bokeh_splat): 64-bit
 * fixed-point atomics, the same sum in any order. Combine (bokeh_combine):
 * base plus splats. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "filters.h"

#include "bokeh_combine.spv.h"
#include "bokeh_count.spv.h"
#include "bokeh_gather.spv.h"
#include "bokeh_append.spv.h"
#include "bokeh_offsets.spv.h"
#include "bokeh_redo.spv.h"
#include "bokeh_splat.spv.h"
#include "../../glsl/bokeh.h"

_Static_assert(sizeof(bokeh_spots_push) == BOKEH_SPOTS_PUSH_BYTES, "glsl/bokeh.glsl's push block");
_Static_assert(sizeof(bokeh_rows_push) == BOKEH_ROWS_PUSH_BYTES, "the row passes' push block");
_Static_assert(sizeof(bokeh_splat_push) == BOKEH_SPLAT_PUSH_BYTES, "bokeh_splat's push block");
_Static_assert(sizeof(bokeh_combine_push) == BOKEH_COMBINE_PUSH_BYTES, "bokeh_combine's push");

enum { BASE_DOF, BASE_SATDOF, ROW_GROUP = 256, SPOT_BYTES = 32 };

/* The header buffer (bokeh_redo.comp): counts, then three indirect
 * dispatches: the splats, the stable gather's rows, its offsets pass. */
enum { HEADER_BYTES = 52, SPLAT_ARGS = 16, ROWS_ARGS = 28, OFFSETS_ARGS = 40 };

static const char *const bases[] = {"dof", "satdof", NULL};

typedef struct bokeh_params {
    vkfx_coc_params coc;
    double threshold, gain;
    int32_t blades, max;
    int base;
} bokeh_params;

typedef struct bokeh_state {
    vkfx_buffer *header; /* host-visible: counts read back by finish */
} bokeh_state;

static const vkfx_option bokeh_options[] = {
    VKFX_COC_OPTIONS(bokeh_params, coc),
    VKFX_OPTION_FLOAT(bokeh_params, threshold, 0.9, 0, 1e30,
                      "a pixel whose linear luminance is above this (and whose coc is at least 2 "
                      "px) is a hot spot"),
    VKFX_OPTION_FLOAT(bokeh_params, gain, 1, 0, 1e6,
                      "a hot spot's splat carries gain times its colour"),
    VKFX_OPTION_INT(bokeh_params, blades, 0, 0, 32,
                    "0: round splats (discs); 3 or more: regular polygons with that many corners"),
    VKFX_OPTION_CHOICE(bokeh_params, base, BASE_DOF, bases,
                       "the depth-of-field filter that blurs the rest of the image"),
    VKFX_OPTION_INT(
        bokeh_params, max, 65536, 0, 1 << 22,
        "hot spots splatted at most (then the first max in row-major order); the others are "
        "counted, reported on stderr and in JSON reports, and left in the base image"),
    {0},
};

static int bokeh_check(const void *params)
{
    const bokeh_params *p = params;
    if (p->blades == 1 || p->blades == 2)
        return vkfx_fail(VKFX_E_USAGE,
                         "bokeh: blades=%d is not a shape; use 0 (discs) or 3..32 (polygons)",
                         p->blades);
    return VKFX_OK;
}

static const vkfx_kernel_desc count_kernel = {
    .name = "bokeh_count",
    VKFX_SPV(bokeh_count),
    .nbind = 3,
    .bind = {VKFX_BIND_SAMPLED, VKFX_BIND_BUFFER, VKFX_BIND_BUFFER},
    .push_size = sizeof(bokeh_spots_push),
};
static const vkfx_kernel_desc append_kernel = {
    .name = "bokeh_append",
    VKFX_SPV(bokeh_append),
    .nbind = 5,
    .bind = {VKFX_BIND_SAMPLED, VKFX_BIND_STORAGE_IMAGE, VKFX_BIND_BUFFER, VKFX_BIND_BUFFER,
             VKFX_BIND_BUFFER},
    .push_size = sizeof(bokeh_spots_push),
};
static const vkfx_kernel_desc redo_kernel = {
    .name = "bokeh_redo",
    VKFX_SPV(bokeh_redo),
    .nbind = 1,
    .bind = {VKFX_BIND_BUFFER},
    .push_size = sizeof(bokeh_rows_push),
};
static const vkfx_kernel_desc offsets_kernel = {
    .name = "bokeh_offsets",
    VKFX_SPV(bokeh_offsets),
    .nbind = 2,
    .bind = {VKFX_BIND_BUFFER, VKFX_BIND_BUFFER},
    .push_size = sizeof(bokeh_rows_push),
};
static const vkfx_kernel_desc gather_kernel = {
    .name = "bokeh_gather",
    VKFX_SPV(bokeh_gather),
    .nbind = 5,
    .bind = {VKFX_BIND_SAMPLED, VKFX_BIND_STORAGE_IMAGE, VKFX_BIND_BUFFER, VKFX_BIND_BUFFER,
             VKFX_BIND_BUFFER},
    .push_size = sizeof(bokeh_spots_push),
};
static const vkfx_kernel_desc splat_kernel = {
    .name = "bokeh_splat",
    VKFX_SPV(bokeh_splat),
    .nbind = 3,
    .bind = {VKFX_BIND_BUFFER, VKFX_BIND_BUFFER, VKFX_BIND_BUFFER},
    .push_size = sizeof(bokeh_splat_push),
};
static const vkfx_kernel_desc combine_kernel = {
    .name = "bokeh_combine",
    VKFX_SPV(bokeh_combine),
    .nbind = 3,
    .bind = {VKFX_BIND_SAMPLED, VKFX_BIND_STORAGE_IMAGE, VKFX_BIND_BUFFER},
    .push_size = sizeof(bokeh_combine_push),
};

static void bokeh_destroy(vkfx_graph *g, void *state)
{
    bokeh_state *s = state;
    if (!s)
        return;
    vkfx_buffer_destroy(vkfx_graph_context(g), s->header);
    free(s);
}

static int bokeh_create(vkfx_graph *g, const void *params, void **state)
{
    (void)params;
    int ret = VKFX_OK;
    bokeh_state *s = calloc(1, sizeof(*s));
    if (!s)
        return vkfx_fail(VKFX_E_NOMEM, "out of host memory");
    *state = s;
    TRY(vkfx_buffer_create(vkfx_graph_context(g), HEADER_BYTES,
                           VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                               VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT |
                               VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                           VKFX_MEM_UPLOAD, &s->header));
fail:
    return ret;
}

static int bokeh_record(vkfx_graph *g, const void *params, void *state, vkfx_image *src,
                        vkfx_image *dst)
{
    int ret = VKFX_OK;
    const bokeh_params *p = params;
    bokeh_state *s = state;
    const vkfx_caps *caps = vkfx_graph_caps(g);
    uint32_t w = vkfx_graph_width(g), h = vkfx_graph_height(g);
    vkfx_kernel *append = NULL, *redo = NULL, *count = NULL, *offsets = NULL, *gather = NULL;
    vkfx_kernel *splat = NULL, *combine = NULL;
    vkfx_buffer *depth = NULL, *rows = NULL, *spots = NULL, *accum = NULL;
    vkfx_image *base_in = NULL, *base = NULL;
    VkDeviceSize accum_bytes = (VkDeviceSize)w * h * 3 * sizeof(uint64_t);

    if (!caps->int64_atomics)
        return vkfx_fail(VKFX_E_LIMIT, "bokeh needs 64-bit atomics on storage buffers "
                                       "(shaderBufferInt64Atomics), which this device lacks");
    if (accum_bytes > caps->storage_buffer_range)
        return vkfx_fail(VKFX_E_LIMIT,
                         "bokeh: a %ux%u image needs %.1f MiB of splat sums, beyond this "
                         "device's largest storage buffer (%.1f MiB)",
                         w, h, accum_bytes / 1048576.0, caps->storage_buffer_range / 1048576.0);
    TRY(vkfx_depth_load(g, "bokeh", &p->coc, &depth));
    vkfx_spec row_spec = {.local = {ROW_GROUP, 1, 1}};
    vkfx_spec img_spec = {.local = {ROW_GROUP, 1, 1}, .half_out = vkfx_half_out(src->format)};
    vkfx_spec out_spec = {.local = {16, 16, 1}, .half_out = vkfx_half_out(dst->format)};
    vkfx_spec tile_spec = {.local = {16, 16, 1}, .half_out = vkfx_half_out(src->format)};
    vkfx_spec one_spec = {.local = {1, 1, 1}};
    TRY(vkfx_graph_kernel(g, &append_kernel, &tile_spec, &append));
    TRY(vkfx_graph_kernel(g, &redo_kernel, &one_spec, &redo));
    TRY(vkfx_graph_kernel(g, &count_kernel, &row_spec, &count));
    TRY(vkfx_graph_kernel(g, &offsets_kernel, &row_spec, &offsets));
    TRY(vkfx_graph_kernel(g, &gather_kernel, &img_spec, &gather));
    TRY(vkfx_graph_kernel(g, &splat_kernel, &row_spec, &splat));
    TRY(vkfx_graph_kernel(g, &combine_kernel, &out_spec, &combine));
    TRY(vkfx_graph_buffer(g, (VkDeviceSize)h * sizeof(uint32_t), 0, &rows));
    TRY(vkfx_graph_buffer(g, (VkDeviceSize)(p->max ? p->max : 1) * SPOT_BYTES, 0, &spots));
    TRY(vkfx_graph_buffer(g, accum_bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT, &accum));
    TRY(vkfx_graph_image(g, w, h, vkfx_graph_format(g), &base_in));
    TRY(vkfx_graph_image(g, w, h, vkfx_graph_format(g), &base));

    bokeh_spots_push push = {{(int32_t)w, (int32_t)h}, (float)p->threshold, 0, 0, 0, 0,
                             (uint32_t)p->max};
    vkfx_coc_push(&p->coc, &push.focus, &push.inv_range, &push.maxcoc, &push.disparity);
    TRY(vkfx_graph_fill(g, s->header, 0));
    vkfx_dispatch d_append = {
        .kernel = append,
        .label = "bokeh.gather",
        .use = {{.image = src},
                {.image = base_in, .write = true},
                {.buffer = depth},
                {.buffer = s->header, .write = true},
                {.buffer = spots, .write = true}},
        .push = &push,
        .groups = {vkfx_groups(w, 16), vkfx_groups(h, 16), 1},
    };
    TRY(vkfx_graph_dispatch(g, &d_append));
    bokeh_rows_push opush = {h, (uint32_t)p->max};
    vkfx_dispatch d_redo = {
        .kernel = redo,
        .label = "bokeh.counts",
        .use = {{.buffer = s->header, .write = true}},
        .push = &opush,
        .groups = {1, 1, 1},
    };
    TRY(vkfx_graph_dispatch(g, &d_redo));
    /* The stable gather: no work groups unless hot spots overflowed. */
    vkfx_dispatch d_count = {
        .kernel = count,
        .label = "bokeh.stable.count",
        .use = {{.image = src}, {.buffer = depth}, {.buffer = rows, .write = true}},
        .push = &push,
        .indirect = s->header,
        .indirect_offset = ROWS_ARGS,
    };
    TRY(vkfx_graph_dispatch(g, &d_count));
    vkfx_dispatch d_offsets = {
        .kernel = offsets,
        .label = "bokeh.stable.offsets",
        .use = {{.buffer = rows, .write = true}, {.buffer = s->header, .write = true}},
        .push = &opush,
        .indirect = s->header,
        .indirect_offset = OFFSETS_ARGS,
    };
    TRY(vkfx_graph_dispatch(g, &d_offsets));
    vkfx_dispatch d_gather = {
        .kernel = gather,
        .label = "bokeh.stable.gather",
        .use = {{.image = src},
                {.image = base_in, .write = true},
                {.buffer = depth},
                {.buffer = rows},
                {.buffer = spots, .write = true}},
        .push = &push,
        .indirect = s->header,
        .indirect_offset = ROWS_ARGS,
    };
    TRY(vkfx_graph_dispatch(g, &d_gather));

    if (p->base == BASE_SATDOF)
        TRY(vkfx_satdof_record(g, &p->coc, false, depth, base_in, base));
    else
        TRY(vkfx_dof_record(g, &p->coc, 1.0, depth, base_in, base));

    TRY(vkfx_graph_fill(g, accum, 0));
    double turn = p->blades ? 2.0 * M_PI / p->blades : 0.0;
    bokeh_splat_push spush = {{(int32_t)w, (int32_t)h},
                              (float)p->gain,
                              (uint32_t)p->blades,
                              (float)cos(turn),
                              (float)sin(turn)};
    vkfx_dispatch d_splat = {
        .kernel = splat,
        .label = "bokeh.splat",
        .use = {{.buffer = spots}, {.buffer = s->header}, {.buffer = accum, .write = true}},
        .push = &spush,
        .indirect = s->header,
        .indirect_offset = SPLAT_ARGS,
    };
    TRY(vkfx_graph_dispatch(g, &d_splat));
    bokeh_combine_push cpush = {{(int32_t)w, (int32_t)h}};
    vkfx_dispatch d_combine = {
        .kernel = combine,
        .label = "bokeh.combine",
        .use = {{.image = base}, {.image = dst, .write = true}, {.buffer = accum}},
        .push = &cpush,
        .groups = {vkfx_groups(w, 16), vkfx_groups(h, 16), 1},
    };
    TRY(vkfx_graph_dispatch(g, &d_combine));
fail:
    return ret;
}

/* Reports the hot spots on stderr (through the context's log) when some did not fit in max:
 * then the image is not what was asked for. The counts are always in the run's notes. */
static int bokeh_finish(vkfx_graph *g, const void *params, void *state)
{
    const bokeh_params *p = params;
    const bokeh_state *s = state;
    uint32_t header[3];
    memcpy(header, s->header->mapped, sizeof(header));
    int ret = VKFX_OK;
    TRY(vkfx_graph_note(g, "bokeh.hot_spots", header[0]));
    TRY(vkfx_graph_note(g, "bokeh.splatted", header[1]));
    TRY(vkfx_graph_note(g, "bokeh.beyond_max", header[2]));
    if (header[2])
        vkfx_log(vkfx_graph_context(g),
                 "bokeh: %u hot spots, %u splatted, %u beyond max=%d left in the base image",
                 header[0], header[1], header[2], p->max);
fail:
    return ret;
}

const vkfx_filter vkfx_filter_bokeh = {
    .name = "bokeh",
    .help = "depth of field with scattered bokeh: bright out-of-focus pixels become discs",
    .details =
        "coc as in dof and satdof. A hot spot is a pixel whose linear luminance (of its "
        "premultiplied colour) is above threshold and whose coc is at least 2 px. The first max "
        "of them in row-major order are taken out of the image (colour set to 0, alpha kept); "
        "the base filter (dof or satdof, same depth options) blurs what is left; each hot spot "
        "then adds gain times its colour, spread evenly over the in-image pixels of its shape: "
        "offsets d with |d| <= R (blades=0) or inside the regular polygon of circumradius R "
        "with a corner straight up (blades >= 3, points on an edge inside), R = floor(coc + "
        "0.5). Hot spots beyond max stay in the base image and are reported on stderr. The "
        "result is the same on every run, and with blades=0 the same bytes on every device "
        "(the polygons' corners come from the device's cos and sin).",
    .options = bokeh_options,
    .params_size = sizeof(bokeh_params),
    .check = bokeh_check,
    .create = bokeh_create,
    .variants = (const vkfx_variants *const[]){&vkfx_sat_variants, NULL},
    .record = bokeh_record,
    .destroy = bokeh_destroy,
    .finish = bokeh_finish,
    .pixel_options = (const char *const[]){"maxcoc", NULL},
};
