#include "run.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"

#include "decode.spv.h"
#include "encode.spv.h"

static const vkfx_kernel_desc decode_kernel = {
    .name = "decode",
    VKFX_SPV(decode),
    .nbind = 3,
    .bind = {VKFX_BIND_BUFFER, VKFX_BIND_STORAGE_IMAGE, VKFX_BIND_BUFFER},
    .push_size = 24,
};

static const vkfx_kernel_desc encode_kernel = {
    .name = "encode",
    VKFX_SPV(encode),
    .nbind = 2,
    .bind = {VKFX_BIND_SAMPLED, VKFX_BIND_BUFFER},
    .push_size = 32,
};

VkFormat vkfx_internal_format(int precision)
{
    return precision == 32 ? VK_FORMAT_R32G32B32A32_SFLOAT : VK_FORMAT_R16G16B16A16_SFLOAT;
}

static uint32_t sample_code(vkfx_sample s)
{
    switch (s) {
    case VKFX_SAMPLE_U8:
        return 0;
    case VKFX_SAMPLE_U16:
        return 1;
    case VKFX_SAMPLE_F32:
        return 2;
    }
    return 0;
}

/* Raw sample buffers are read and written as 32-bit words. */
static VkDeviceSize raw_bytes(const vkfx_pixels *px)
{
    return (vkfx_pixels_bytes(px) + 3) & ~(VkDeviceSize)3;
}

int vkfx_record_decode(vkfx_graph *g, vkfx_buffer *raw, const vkfx_pixels *in, bool linear,
                       vkfx_image *img)
{
    int ret = VKFX_OK;
    vkfx_kernel *k = NULL;
    vkfx_buffer *table = NULL;
    vkfx_spec spec = {.local = {16, 16, 1}, .half_out = vkfx_half_out(img->format)};
    TRY(vkfx_kernel_get(vkfx_graph_context(g), &decode_kernel, &spec, &k));
    /* The exact sRGB curve in double for the 256 8-bit codes; small enough to travel inside
     * the command buffer. */
    float values[256];
    for (int i = 0; i < 256; i++) {
        double c = i / 255.0;
        values[i] = (float)(c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4));
    }
    TRY(vkfx_graph_buffer(g, sizeof(values), 0, &table));
    vkfx_use fill = {.buffer = table, .write = true};
    TRY(vkfx_graph_touch(g, &fill));
    vkCmdUpdateBuffer(vkfx_graph_cmd(g), table->buffer, 0, sizeof(values), values);
    struct {
        int32_t size[2];
        uint32_t channels, sample, srgb, premultiply;
    } push = {{(int32_t)in->width, (int32_t)in->height},
              in->channels,
              sample_code(in->sample),
              !linear && !in->linear && in->sample != VKFX_SAMPLE_F32,
              in->straight};
    vkfx_dispatch d = {
        .kernel = k,
        .label = "decode",
        .use = {{.buffer = raw}, {.image = img, .write = true}, {.buffer = table}},
        .push = &push,
        .groups = {vkfx_groups(in->width, 16), vkfx_groups(in->height, 16), 1},
    };
    TRY(vkfx_graph_dispatch(g, &d));
fail:
    return ret;
}

int vkfx_record_encode(vkfx_graph *g, vkfx_image *img, const vkfx_pixels *out, bool linear,
                       vkfx_buffer *raw)
{
    int ret = VKFX_OK;
    vkfx_kernel *k = NULL;
    vkfx_spec spec = {.local = {256, 1, 1}};
    TRY(vkfx_kernel_get(vkfx_graph_context(g), &encode_kernel, &spec, &k));
    uint32_t nwords = (uint32_t)(raw_bytes(out) / 4);
    uint32_t groups_x = vkfx_groups(nwords, 256);
    uint32_t groups_y = 1;
    while (groups_x > 32768) { /* stay under maxComputeWorkGroupCount[0] (>= 65535) */
        groups_y *= 2;
        groups_x = vkfx_groups(vkfx_groups(nwords, 256), groups_y);
    }
    struct {
        int32_t size[2];
        uint32_t channels, sample, srgb, nwords, row_words, unpremultiply;
    } push = {{(int32_t)out->width, (int32_t)out->height},
              out->channels,
              sample_code(out->sample),
              !linear && out->sample != VKFX_SAMPLE_F32,
              nwords,
              groups_x * 256,
              out->straight};
    vkfx_dispatch d = {
        .kernel = k,
        .label = "encode",
        .use = {{.image = img}, {.buffer = raw, .write = true}},
        .push = &push,
        .groups = {groups_x, groups_y, 1},
    };
    TRY(vkfx_graph_dispatch(g, &d));
fail:
    return ret;
}

int vkfx_record_chain(vkfx_graph *g, const vkfx_chain *chain, vkfx_image *src, vkfx_image **result,
                      void ***states_out)
{
    int ret = VKFX_OK;
    void **states = calloc(chain->count ? chain->count : 1, sizeof(*states));
    vkfx_image *ping[2] = {NULL, NULL};
    vkfx_image *cur = src;
    *states_out = states;
    if (!states)
        return vkfx_fail(VKFX_E_NOMEM, "out of host memory");
    for (size_t i = 0; i < chain->count; i++) {
        const vkfx_filter *f = chain->links[i].filter;
        if (f->create)
            TRY(f->create(g, chain->links[i].params, &states[i]));
        if (f->passes_through) {
            TRY(f->record(g, chain->links[i].params, states[i], cur, NULL));
            continue;
        }
        /* Two images alternate as outputs, never the one being read. */
        vkfx_image **slot = &ping[i & 1];
        if (*slot == cur)
            slot = &ping[(i + 1) & 1];
        if (!*slot)
            TRY(vkfx_graph_image(g, vkfx_graph_width(g), vkfx_graph_height(g), vkfx_graph_format(g),
                                 slot));
        TRY(f->record(g, chain->links[i].params, states[i], cur, *slot));
        cur = *slot;
    }
    *result = cur;
fail:
    if (ret < 0)
        vkfx_fail_context(ret, "recording the chain");
    return ret;
}

void vkfx_destroy_chain_states(vkfx_graph *g, const vkfx_chain *chain, void **states)
{
    if (!states)
        return;
    for (size_t i = 0; i < chain->count; i++)
        if (chain->links[i].filter->destroy && states[i])
            chain->links[i].filter->destroy(g, states[i]);
    free(states);
}

int vkfx_run(vkfx_context *ctx, vkfx_staging *staging, const vkfx_chain *chain,
             const vkfx_pixels *in, vkfx_pixels *out, const vkfx_run_opts *opts,
             vkfx_run_result *result)
{
    int ret = VKFX_OK;
    vkfx_graph *g = NULL;
    void **states = NULL;
    vkfx_buffer *raw_in = NULL, *raw_out = NULL;
    vkfx_image *img = NULL, *final = NULL;
    memset(result, 0, sizeof(*result));
    out->data = NULL;
    out->width = in->width;
    out->height = in->height;
    if (in->width == 0 || in->height == 0)
        return vkfx_fail(VKFX_E_FORMAT, "the image is empty (%ux%u)", in->width, in->height);
    uint32_t most = ctx->props.limits.maxImageDimension2D;
    if (in->width > most || in->height > most)
        return vkfx_fail(VKFX_E_LIMIT,
                         "a %ux%u image is larger than %s holds in one image (%u pixels a "
                         "side); vkfx does not split images into tiles yet",
                         in->width, in->height, ctx->props.deviceName, most);
    TRY(vkfx_graph_begin(ctx, in->width, in->height, vkfx_internal_format(opts->precision),
                         opts->timings, &g));
    vkfx_graph_set_staging(g, staging);
    vkfx_graph_set_input_path(g, opts->input_path);
    out->straight = !opts->premultiplied_out;
    TRY(vkfx_graph_buffer(g, raw_bytes(in), 0, &raw_in));
    TRY(vkfx_graph_buffer(g, raw_bytes(out), 0, &raw_out));
    TRY(vkfx_graph_image(g, in->width, in->height, vkfx_graph_format(g), &img));
    TRY(vkfx_staging_upload(staging, raw_in->buffer, 0, in->data, vkfx_pixels_bytes(in)));
    TRY(vkfx_record_decode(g, raw_in, in, opts->linear, img));
    TRY(vkfx_record_chain(g, chain, img, &final, &states));
    TRY(vkfx_record_encode(g, final, out, opts->linear, raw_out));
    TRY(vkfx_graph_run(g));
    for (size_t i = 0; i < chain->count; i++)
        if (chain->links[i].filter->finish)
            TRY(chain->links[i].filter->finish(g, chain->links[i].params, states[i]));
    TRY(vkfx_pixels_alloc(out, in->width, in->height, out->channels, out->sample));
    TRY(vkfx_staging_download(staging, raw_out->buffer, 0, out->data, vkfx_pixels_bytes(out)));
    out->straight = !opts->premultiplied_out;
    out->linear = opts->linear || out->sample == VKFX_SAMPLE_F32;
    const vkfx_pass_time *times = NULL;
    vkfx_graph_timings(g, &times, &result->ntimes);
    if (result->ntimes) {
        result->times = malloc(result->ntimes * sizeof(*times));
        if (!result->times) {
            ret = vkfx_fail(VKFX_E_NOMEM, "out of host memory");
            goto fail;
        }
        memcpy(result->times, times, result->ntimes * sizeof(*times));
    }
    result->device_bytes_peak = ctx->device_bytes_peak;
    const vkfx_note *notes = NULL;
    vkfx_graph_notes(g, &notes, &result->nnotes);
    memcpy(result->notes, notes, result->nnotes * sizeof(*notes));
fail:
    if (ret < 0)
        vkfx_pixels_free(out);
    vkfx_destroy_chain_states(g, chain, states);
    vkfx_graph_destroy(g);
    return ret;
}
