#include "jpeg_gpu.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "jpegdec_color.spv.h"
#include "jpegdec_huff.spv.h"
#include "jpegdec_idct.spv.h"
#include "jpegdec_sync.spv.h"
#include "../../glsl/jpegdec.h"

_Static_assert(sizeof(jpegdec_push) == JPEGDEC_PUSH_BYTES, "jpegdec's push block");
_Static_assert(sizeof(jpegdec_sync_push) == JPEGDEC_SYNC_PUSH_BYTES, "jpegdec_sync's push block");

static const vkfx_kernel_desc huff_kernel = {
    .name = "jpegdec_huff",
    VKFX_SPV(jpegdec_huff),
    .nbind = 5,
    .bind = {VKFX_BIND_BUFFER, VKFX_BIND_BUFFER, VKFX_BIND_BUFFER, VKFX_BIND_BUFFER,
             VKFX_BIND_BUFFER},
    .push_size = sizeof(jpegdec_push),
};

static const vkfx_kernel_desc sync_kernel = {
    .name = "jpegdec_sync",
    VKFX_SPV(jpegdec_sync),
    .nbind = 8,
    .bind = {VKFX_BIND_BUFFER, VKFX_BIND_BUFFER, VKFX_BIND_BUFFER, VKFX_BIND_BUFFER,
             VKFX_BIND_BUFFER, VKFX_BIND_BUFFER, VKFX_BIND_BUFFER, VKFX_BIND_BUFFER},
    .push_size = sizeof(jpegdec_sync_push),
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

/* Loop iterations an invocation of the entropy passes may take on a software device: llvmpipe
 * ends every loop of an invocation once their iterations reach 65535 together, so a segment or
 * sequence that needs more is left to libjpeg-turbo there rather than decoded in part. */
enum { CPU_BUDGET = 60000 };

/* Bits of a subsequence: few enough that a large image gives many lanes of a GPU some (their
 * decoding is a chain of dependent loads, so that the wait is one subsequence's symbols), enough
 * that codes resynchronise within one or two; a software device, whose cores are all busy
 * anyway, decodes fewer bits twice with longer ones. Lanes: subsequences a work group settles
 * together, so that codes that take several subsequences to resynchronise do so in shared
 * memory; on a software device fewer, since a lane may decode its subsequence once per lane
 * before its loops reach CPU_BUDGET. Rounds: LINK rounds recorded; a photo's sequences settle
 * in the first, which moves no sequence's end, and the rounds after it return at once, so a
 * few more cost little and spare noise (three rounds on lavapipe) the decode again with one
 * round per sequence.
 * tests/bench/jdec_session.sh times the sizes against each other on a GPU. */
enum {
    SUB_BITS = 512,
    /* A file whose data gives fewer than FEW_SUBS subsequences of SUB_BITS (a 1080p photo: about
     * 5,500) leaves most of a large GPU idle: halving the bits doubles the lanes at work and
     * took a quarter off the decode of a 1080p photo, while a 24-megapixel one, which fills the
     * GPU either way, was as fast with SUB_BITS. */
    SMALL_SUB_BITS = 256,
    FEW_SUBS = 32768,
    CPU_SUB_BITS = 2048,
    LANES = 64,
    CPU_LANES = 16,
    ROUNDS = 8,
    PREFIX_LANES = 256
};

/* A dispatch of groups work groups of local invocations each. */
static int pass_groups(vkfx_graph *g, const vkfx_kernel_desc *desc, const char *label,
                       uint32_t local, uint32_t groups, const void *push, const vkfx_use *use)
{
    int ret = VKFX_OK;
    vkfx_kernel *k = NULL;
    vkfx_spec spec = {.local = {local, 1, 1}};
    if (desc == &huff_kernel || desc == &sync_kernel) {
        spec.extra[VKFX_SPEC(JD_SPEC_BUDGET)] = vkfx_graph_caps(g)->cpu ? CPU_BUDGET : UINT32_MAX;
        spec.nextra = VKFX_SPEC_COUNT(JD_SPEC_BUDGET);
    }
    TRY(vkfx_graph_kernel(g, desc, &spec, &k));
    vkfx_dispatch d = {
        .kernel = k,
        .label = label,
        .push = push,
        .groups = {groups < MAX_GROUPS ? groups : MAX_GROUPS, vkfx_groups(groups, MAX_GROUPS), 1}};
    memcpy(d.use, use, desc->nbind * sizeof(*use));
    TRY(vkfx_graph_dispatch(g, &d));
fail:
    return ret;
}

/* A dispatch of count invocations, LOCAL to a work group. */
static int pass(vkfx_graph *g, const vkfx_kernel_desc *desc, const char *label, uint32_t count,
                const void *push, const vkfx_use *use)
{
    return pass_groups(g, desc, label, LOCAL, vkfx_groups(count, LOCAL), push, use);
}

/* The self-synchronising entropy decoding (glsl/jpegdec_sync.comp): the subsequences of every
 * segment, settled per sequence, the rounds that link the sequences, the prefix and the write. */
static int record_sync(vkfx_graph *g, const vkfx_jpeg_layout *l, const vkfx_jpeg_gpu_opts *o,
                       vkfx_buffer *info, vkfx_buffer *data, vkfx_buffer *coefs,
                       vkfx_buffer *status, vkfx_buffer **notes, vkfx_jpeg_sync_stats *stats)
{
    int ret = VKFX_OK;
    const vkfx_caps *caps = vkfx_graph_caps(g);
    uint32_t sub = o && o->sub_bits ? o->sub_bits : caps->cpu ? CPU_SUB_BITS : SUB_BITS;
    if (!(o && o->sub_bits) && !caps->cpu && (uint64_t)l->nwords * 32 / SUB_BITS < FEW_SUBS)
        sub = SMALL_SUB_BITS;
    uint32_t lanes = o && o->lanes ? o->lanes : caps->cpu ? CPU_LANES : LANES;
    uint32_t *segs = malloc((size_t)l->nsegments * JD_SEG_WORDS * sizeof(*segs));
    uint32_t *subs = NULL;
    uint64_t nsubs = 0;
    if (!segs)
        return vkfx_fail(VKFX_E_NOMEM, "out of host memory for the JPEG's segments");
    memcpy(segs, l->segments, (size_t)l->nsegments * JD_SEG_WORDS * sizeof(*segs));
    for (uint32_t i = 0; i < l->nsegments; i++) {
        uint64_t bits = (uint64_t)(segs[i * JD_SEG_WORDS + 1] - segs[i * JD_SEG_WORDS]) * 8;
        segs[i * JD_SEG_WORDS + 4] = (uint32_t)nsubs;
        segs[i * JD_SEG_WORDS + 5] = bits ? (uint32_t)((bits + sub - 1) / sub) : 1;
        nsubs += segs[i * JD_SEG_WORDS + 5];
    }
    vkfx_buffer *segs_buf = NULL, *subs_buf = NULL, *states = NULL, *seqs = NULL;
    uint64_t nseq = (nsubs + lanes - 1) / lanes;
    if (nsubs * JD_ST_WORDS * 4 > caps->storage_buffer_range || lanes > 256 ||
        (nseq * JD_SQ_WORDS + JD_R_FLAGS + nseq) * 4 > caps->storage_buffer_range) {
        ret = 1;
        goto fail;
    }
    /* Each round makes one more sequence exact at least, so one per sequence less one always
     * settles; the later rounds of those recorded return at once. */
    uint32_t rounds = o && o->rounds ? o->rounds : ROUNDS;
    rounds = (uint32_t)(rounds < nseq - 1 ? rounds : nseq - 1);
    subs = malloc(nsubs * JD_SUB_WORDS * sizeof(*subs));
    if (!subs) {
        ret = vkfx_fail(VKFX_E_NOMEM, "out of host memory for the JPEG's subsequences");
        goto fail;
    }
    for (uint32_t i = 0; i < l->nsegments; i++) {
        const uint32_t *e = segs + i * JD_SEG_WORDS;
        for (uint32_t k = 0; k < e[5]; k++) {
            uint32_t *u = subs + (size_t)(e[4] + k) * JD_SUB_WORDS;
            uint64_t start = (uint64_t)e[0] * 8 + (uint64_t)k * sub, end = (uint64_t)e[1] * 8;
            u[0] = i;
            u[1] = (uint32_t)start;
            u[2] = (uint32_t)(start + sub < end ? start + sub : end);
            u[3] = e[4];
        }
    }
    TRY(vkfx_graph_upload(g, segs, (VkDeviceSize)l->nsegments * JD_SEG_WORDS * 4, &segs_buf));
    TRY(vkfx_graph_upload(g, subs, nsubs * JD_SUB_WORDS * 4, &subs_buf));
    TRY(vkfx_graph_buffer(g, nsubs * JD_ST_WORDS * 4, 0, &states));
    TRY(vkfx_graph_buffer(g, (nseq * JD_SQ_WORDS + JD_R_FLAGS + rounds + 1) * 4, 0, &seqs));
    TRY(vkfx_graph_fill(g, seqs, 0));
    const vkfx_use use[] = {{.buffer = info},
                            {.buffer = segs_buf},
                            {.buffer = data},
                            {.buffer = coefs, .write = true},
                            {.buffer = status, .write = true},
                            {.buffer = subs_buf},
                            {.buffer = states, .write = true},
                            {.buffer = seqs, .write = true}};
    uint32_t groups = (uint32_t)nseq;
    jpegdec_sync_push push = {(uint32_t)nsubs, JD_MODE_SETTLE, 0, (uint32_t)nseq};
    TRY(pass_groups(g, &sync_kernel, "jpeg.settle", lanes, groups, &push, use));
    for (uint32_t r = 1; r <= rounds; r++) {
        push = (jpegdec_sync_push){(uint32_t)nsubs, JD_MODE_LINK, r, (uint32_t)nseq};
        TRY(pass_groups(g, &sync_kernel, "jpeg.link", lanes, groups, &push, use));
    }
    push = (jpegdec_sync_push){(uint32_t)nsubs, JD_MODE_PREFIX, 0, (uint32_t)nseq};
    TRY(pass_groups(g, &sync_kernel, "jpeg.prefix", PREFIX_LANES, 1, &push, use));
    push = (jpegdec_sync_push){(uint32_t)nsubs, JD_MODE_WRITE, rounds, (uint32_t)nseq};
    TRY(pass_groups(g, &sync_kernel, "jpeg.entropy", lanes, groups, &push, use));
    if (notes)
        *notes = seqs;
    if (stats)
        *stats = (vkfx_jpeg_sync_stats){(uint32_t)nsubs, (uint32_t)nseq, rounds, 0, 0, 0};
fail:
    free(segs);
    free(subs);
    return ret;
}

int vkfx_jpeg_gpu_read_stats(vkfx_staging *staging, vkfx_buffer *notes, vkfx_jpeg_sync_stats *stats)
{
    uint32_t w[JD_R_FLAGS];
    int ret = vkfx_staging_download(staging, notes->buffer,
                                    (VkDeviceSize)stats->sequences * JD_SQ_WORDS * 4, w, sizeof(w));
    if (ret == VKFX_OK) {
        stats->turns = w[JD_R_ITERS];
        stats->last_round = w[JD_R_LAST];
        stats->decodes = w[JD_R_DECODES];
    }
    return ret;
}

int vkfx_jpeg_gpu_record(vkfx_graph *g, const vkfx_jpeg_layout *l, const vkfx_jpeg_gpu_opts *o,
                         vkfx_buffer *dst, vkfx_buffer *status)
{
    return vkfx_jpeg_gpu_record_noted(g, l, o, dst, status, NULL, NULL);
}

int vkfx_jpeg_gpu_record_noted(vkfx_graph *g, const vkfx_jpeg_layout *l,
                               const vkfx_jpeg_gpu_opts *o, vkfx_buffer *dst, vkfx_buffer *status,
                               vkfx_buffer **notes, vkfx_jpeg_sync_stats *stats)
{
    int ret = VKFX_OK;
    const vkfx_caps *caps = vkfx_graph_caps(g);
    uint64_t coef_bytes = l->blocks * 64 * 2, plane_bytes = l->plane_words * 4;
    uint64_t data_bytes = (uint64_t)l->nwords * 4;
    if (coef_bytes > caps->storage_buffer_range || plane_bytes > caps->storage_buffer_range ||
        data_bytes > caps->storage_buffer_range ||
        vkfx_jpeg_gpu_bytes(l) > caps->storage_buffer_range)
        return 1;
    vkfx_buffer *info = NULL, *segs = NULL, *data = NULL, *coefs = NULL, *planes = NULL;
    TRY(vkfx_graph_upload(g, l->info, JD_INFO_WORDS * 4, &info));
    TRY(vkfx_graph_upload(g, l->data, data_bytes, &data));
    TRY(vkfx_graph_buffer(g, coef_bytes, 0, &coefs));
    TRY(vkfx_graph_buffer(g, plane_bytes, 0, &planes));
    TRY(vkfx_graph_fill(g, status, 0));
    if (notes)
        *notes = NULL;
    if (o && o->sub_bits == VKFX_JPEG_GPU_SEGMENTS) {
        TRY(vkfx_graph_upload(g, l->segments, (VkDeviceSize)l->nsegments * JD_SEG_WORDS * 4,
                              &segs));
        jpegdec_push push = {l->nsegments};
        TRY(pass(g, &huff_kernel, "jpeg.entropy", l->nsegments, &push,
                 (vkfx_use[]){{.buffer = info},
                              {.buffer = segs},
                              {.buffer = data},
                              {.buffer = coefs, .write = true},
                              {.buffer = status, .write = true}}));
    } else if ((ret = record_sync(g, l, o, info, data, coefs, status, notes, stats))) {
        goto fail;
    }
    jpegdec_push push = {(uint32_t)l->blocks};
    TRY(pass(g, &idct_kernel, "jpeg.idct", push.count, &push,
             (vkfx_use[]){{.buffer = info},
                          {.buffer = coefs},
                          {.buffer = planes, .write = true},
                          {.buffer = status, .write = true}}));
    push.count = color_groups4(l);
    TRY(pass(g, &color_kernel, "jpeg.color", push.count, &push,
             (vkfx_use[]){{.buffer = info}, {.buffer = planes}, {.buffer = dst, .write = true}}));
fail:
    return ret;
}

/* One decode of the parsed file on its own submission: 0 with out filled, or the device's
 * flags (glsl/jpegdec.h), or 1 or an error. */
static int decode_once(vkfx_context *ctx, vkfx_staging *staging, const vkfx_jpeg_layout *l,
                       const vkfx_jpeg_gpu_opts *o, uint32_t *flags, vkfx_pixels *out)
{
    int ret = VKFX_OK;
    vkfx_graph *g = NULL;
    vkfx_buffer *dst = NULL, *status = NULL;
    vkfx_pixels px = {0};
    *flags = 0;
    TRY(vkfx_graph_begin(ctx, l->width, l->height, VK_FORMAT_R16G16B16A16_SFLOAT, false, &g));
    vkfx_graph_set_staging(g, staging);
    TRY(vkfx_graph_buffer(g, vkfx_jpeg_gpu_bytes(l), 0, &dst));
    TRY(vkfx_graph_buffer(g, 4, 0, &status));
    if ((ret = vkfx_jpeg_gpu_record(g, l, o, dst, status)))
        goto fail;
    TRY(vkfx_graph_run(g));
    TRY(vkfx_staging_download(staging, status->buffer, 0, flags, sizeof(*flags)));
    if (*flags)
        goto fail;
    TRY(vkfx_pixels_alloc(&px, l->width, l->height, l->channels, VKFX_SAMPLE_U8));
    TRY(vkfx_staging_download(staging, dst->buffer, 0, px.data, vkfx_pixels_bytes(&px)));
    px.linear = false;
    px.straight = true;
    *out = px;
    px.data = NULL;
fail:
    vkfx_pixels_free(&px);
    vkfx_graph_destroy(g);
    return ret;
}

int vkfx_jpeg_gpu_decode(vkfx_context *ctx, vkfx_staging *staging, const unsigned char *data,
                         size_t size, const vkfx_jpeg_gpu_opts *o, vkfx_pixels *out)
{
    vkfx_jpeg_layout l;
    int ret = vkfx_jpeg_parse(data, size, &l);
    if (ret)
        return ret;
    uint32_t flags = 0;
    ret = decode_once(ctx, staging, &l, o, &flags, out);
    /* Sequences that did not settle in the rounds recorded (codes that resynchronise slowly,
     * as in noise at high quality), which makes whatever else was flagged moot: as many rounds
     * as it may take. */
    if (ret == 0 && (flags & JD_BAD_SYNC) && !(o && o->no_retry)) {
        vkfx_jpeg_gpu_opts all = o ? *o : (vkfx_jpeg_gpu_opts){0};
        all.rounds = VKFX_JPEG_GPU_ALL_ROUNDS;
        ret = decode_once(ctx, staging, &l, &all, &flags, out);
    }
    if (ret == 0 && flags)
        ret = 1;
    vkfx_jpeg_layout_free(&l);
    return ret;
}
