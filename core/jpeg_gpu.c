#include "jpeg_gpu.h"

#include <string.h>

#include "error.h"
#include "jpegdec_color.spv.h"
#include "jpegdec_huff.spv.h"
#include "jpegdec_idct.spv.h"
#include "../glsl/jpegdec.h"

_Static_assert(sizeof(jpegdec_push) == JPEGDEC_PUSH_BYTES, "jpegdec's push block");

static const vkfx_kernel_desc huff_kernel = {
    .name = "jpegdec_huff",
    VKFX_SPV(jpegdec_huff),
    .nbind = 5,
    .bind = {VKFX_BIND_BUFFER, VKFX_BIND_BUFFER, VKFX_BIND_BUFFER, VKFX_BIND_BUFFER,
             VKFX_BIND_BUFFER},
    .push_size = sizeof(jpegdec_push),
};

static const vkfx_kernel_desc idct_kernel = {
    .name = "jpegdec_idct",
    VKFX_SPV(jpegdec_idct),
    .nbind = 4,
    .bind = {VKFX_BIND_BUFFER, VKFX_BIND_BUFFER, VKFX_BIND_BUFFER, VKFX_BIND_BUFFER},
    .push_size = sizeof(jpegdec_push),
};

static const vkfx_kernel_desc color_kernel = {
    .name = "jpegdec_color",
    VKFX_SPV(jpegdec_color),
    .nbind = 3,
    .bind = {VKFX_BIND_BUFFER, VKFX_BIND_BUFFER, VKFX_BIND_BUFFER},
    .push_size = sizeof(jpegdec_push),
};

/* Invocations per work group of every pass: each invocation works alone. */
enum { LOCAL = 64 };
/* Work groups of a row of a dispatch: the least maxComputeWorkGroupCount Vulkan allows. */
enum { MAX_GROUPS = 65535 };

/* 4 pixels per invocation of the colour pass, 3 words each in RGB. */
static uint32_t color_groups4(const vkfx_jpeg_layout *l)
{
    return (uint32_t)(((uint64_t)l->width * l->height + 3) / 4);
}

uint64_t vkfx_jpeg_gpu_bytes(const vkfx_jpeg_layout *l)
{
    return (uint64_t)color_groups4(l) * 4 * l->channels;
}

/* Loop iterations an invocation of the entropy pass may take on a software device: llvmpipe
 * ends every loop of an invocation once their iterations reach 65535 together, so a segment
 * that needs more is left to libjpeg-turbo there rather than decoded in part. */
enum { CPU_BUDGET = 60000 };

static int pass(vkfx_graph *g, const vkfx_kernel_desc *desc, const char *label, uint32_t count,
                const vkfx_use *use)
{
    int ret = VKFX_OK;
    vkfx_kernel *k = NULL;
    vkfx_spec spec = {.local = {LOCAL, 1, 1}};
    if (desc == &huff_kernel) {
        spec.extra[VKFX_SPEC(JD_SPEC_BUDGET)] = vkfx_graph_caps(g)->cpu ? CPU_BUDGET : UINT32_MAX;
        spec.nextra = VKFX_SPEC_COUNT(JD_SPEC_BUDGET);
    }
    TRY(vkfx_graph_kernel(g, desc, &spec, &k));
    jpegdec_push push = {count};
    uint32_t groups = vkfx_groups(count, LOCAL);
    vkfx_dispatch d = {
        .kernel = k,
        .label = label,
        .push = &push,
        .groups = {groups < MAX_GROUPS ? groups : MAX_GROUPS, vkfx_groups(groups, MAX_GROUPS), 1}};
    memcpy(d.use, use, desc->nbind * sizeof(*use));
    TRY(vkfx_graph_dispatch(g, &d));
fail:
    return ret;
}

int vkfx_jpeg_gpu_record(vkfx_graph *g, const vkfx_jpeg_layout *l, vkfx_buffer *dst,
                         vkfx_buffer *status)
{
    int ret = VKFX_OK;
    const vkfx_caps *caps = vkfx_graph_caps(g);
    uint64_t coef_bytes = l->blocks * 64 * 4, plane_bytes = l->plane_words * 4;
    uint64_t data_bytes = (uint64_t)l->nwords * 4;
    if (coef_bytes > caps->storage_buffer_range || plane_bytes > caps->storage_buffer_range ||
        data_bytes > caps->storage_buffer_range ||
        vkfx_jpeg_gpu_bytes(l) > caps->storage_buffer_range)
        return 1;
    vkfx_buffer *info = NULL, *segs = NULL, *data = NULL, *coefs = NULL, *planes = NULL;
    TRY(vkfx_graph_upload(g, l->info, JD_INFO_WORDS * 4, &info));
    TRY(vkfx_graph_upload(g, l->segments, (VkDeviceSize)l->nsegments * JD_SEG_WORDS * 4, &segs));
    TRY(vkfx_graph_upload(g, l->data, data_bytes, &data));
    TRY(vkfx_graph_buffer(g, coef_bytes, 0, &coefs));
    TRY(vkfx_graph_buffer(g, plane_bytes, 0, &planes));
    TRY(vkfx_graph_fill(g, status, 0));
    TRY(pass(g, &huff_kernel, "jpeg.entropy", l->nsegments,
             (vkfx_use[]){{.buffer = info},
                          {.buffer = segs},
                          {.buffer = data},
                          {.buffer = coefs, .write = true},
                          {.buffer = status, .write = true}}));
    TRY(pass(g, &idct_kernel, "jpeg.idct", (uint32_t)l->blocks,
             (vkfx_use[]){{.buffer = info},
                          {.buffer = coefs},
                          {.buffer = planes, .write = true},
                          {.buffer = status, .write = true}}));
    TRY(pass(g, &color_kernel, "jpeg.color", color_groups4(l),
             (vkfx_use[]){{.buffer = info}, {.buffer = planes}, {.buffer = dst, .write = true}}));
fail:
    return ret;
}

int vkfx_jpeg_gpu_decode(vkfx_context *ctx, vkfx_staging *staging, const unsigned char *data,
                         size_t size, vkfx_pixels *out)
{
    vkfx_jpeg_layout l;
    int ret = vkfx_jpeg_parse(data, size, &l);
    if (ret)
        return ret;
    vkfx_graph *g = NULL;
    vkfx_buffer *dst = NULL, *status = NULL;
    vkfx_pixels px = {0};
    uint32_t flags = 0;
    TRY(vkfx_graph_begin(ctx, l.width, l.height, VK_FORMAT_R16G16B16A16_SFLOAT, false, &g));
    vkfx_graph_set_staging(g, staging);
    TRY(vkfx_graph_buffer(g, vkfx_jpeg_gpu_bytes(&l), 0, &dst));
    TRY(vkfx_graph_buffer(g, 4, 0, &status));
    if ((ret = vkfx_jpeg_gpu_record(g, &l, dst, status)))
        goto fail;
    TRY(vkfx_graph_run(g));
    TRY(vkfx_staging_download(staging, status->buffer, 0, &flags, sizeof(flags)));
    if (flags) {
        ret = 1;
        goto fail;
    }
    TRY(vkfx_pixels_alloc(&px, l.width, l.height, l.channels, VKFX_SAMPLE_U8));
    TRY(vkfx_staging_download(staging, dst->buffer, 0, px.data, vkfx_pixels_bytes(&px)));
    px.linear = false;
    px.straight = true;
    *out = px;
    px.data = NULL;
fail:
    vkfx_pixels_free(&px);
    vkfx_graph_destroy(g);
    vkfx_jpeg_layout_free(&l);
    return ret;
}
