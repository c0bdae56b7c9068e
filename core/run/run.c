#include "run.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "icc.h"
#include "jpeg_gpu.h"
#include "jpeg_gpu_enc.h"

#include "decode.spv.h"
#include "encode.spv.h"
#include "../../glsl/decode.h"
#include "../../glsl/jpegdec.h"

_Static_assert(sizeof(decode_push) == DECODE_PUSH_BYTES, "decode.comp's push block");
_Static_assert(sizeof(encode_push) == ENCODE_PUSH_BYTES, "encode.comp's push block");

static const vkfx_kernel_desc decode_kernel = {
    .name = "decode",
    VKFX_SPV(decode),
    .nbind = 3,
    .bind = {VKFX_BIND_BUFFER, VKFX_BIND_STORAGE_IMAGE, VKFX_BIND_BUFFER},
    .push_size = sizeof(decode_push),
};

static const vkfx_kernel_desc encode_kernel = {
    .name = "encode",
    VKFX_SPV(encode),
    .nbind = 3,
    .bind = {VKFX_BIND_SAMPLED, VKFX_BIND_BUFFER, VKFX_BIND_BUFFER},
    .push_size = sizeof(encode_push),
};

static vkfx_spec decode_spec(VkFormat internal)
{
    return (vkfx_spec){.local = {16, 16, 1}, .half_out = vkfx_half_out(internal)};
}

static const vkfx_spec encode_spec = {.local = {256, 1, 1}};

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

/* The tables of codes of `levels` levels: decode[] the sRGB curve's values then the linear
 * ones (code / (levels - 1)); least[k] the least float whose sRGB code is k or more (k >= 1),
 * the float at or above the curve's midpoint between codes k - 1 and k. */
typedef struct code_tables {
    float *decode, *least;
} code_tables;

static void make_tables(uint32_t levels, float *decode, float *least)
{
    double top = levels - 1;
    for (uint32_t k = 0; k < levels; k++) {
        decode[k] = (float)vkfx_srgb_decode(k / top);
        decode[levels + k] = (float)(k / top);
        if (k == 0) {
            least[k] = 0.0f;
            continue;
        }
        double x = vkfx_srgb_decode((k - 0.5) / top);
        float f = (float)x;
        if ((double)f < x)
            f = nextafterf(f, 2.0f);
        /* The curve in double decides a float the midpoint lands on or beside. */
        while (f > 0.0f && floor(vkfx_srgb_encode(nextafterf(f, 0.0f)) * top + 0.5) >= k)
            f = nextafterf(f, 0.0f);
        while (floor(vkfx_srgb_encode(f) * top + 0.5) < k)
            f = nextafterf(f, 2.0f);
        least[k] = f;
    }
}

static float tables8[2 * 256 + 256];
static float *tables16;
static pthread_once_t once8 = PTHREAD_ONCE_INIT, once16 = PTHREAD_ONCE_INIT;

static void make_tables8(void)
{
    make_tables(256, tables8, tables8 + 2 * 256);
}

/* Made the first time a 16-bit file is read or written (about 10 ms), kept to the end. */
static void make_tables16(void)
{
    tables16 = malloc(sizeof(float) * 3 * 65536);
    if (tables16)
        make_tables(65536, tables16, tables16 + 2 * 65536);
}

/* The decode and least tables for 8-bit (narrow) or 16-bit codes. */
static int code_tables_for(bool narrow, code_tables *t)
{
    if (narrow) {
        pthread_once(&once8, make_tables8);
        t->decode = tables8;
        t->least = tables8 + 2 * 256;
        return VKFX_OK;
    }
    pthread_once(&once16, make_tables16);
    if (!tables16)
        return vkfx_fail(VKFX_E_NOMEM, "out of host memory for the 16-bit sRGB tables");
    t->decode = tables16;
    t->least = tables16 + 2 * 65536;
    return VKFX_OK;
}

/* Uploads bytes from data: inside the command buffer where they fit there. */
static int put_table(vkfx_graph *g, const float *data, size_t bytes, vkfx_buffer **out)
{
    if (bytes <= 65536) {
        int ret = vkfx_graph_buffer(g, bytes, 0, out);
        return ret < 0 ? ret : vkfx_graph_update(g, *out, data, bytes);
    }
    return vkfx_graph_upload(g, data, bytes, out);
}

int vkfx_record_decode(vkfx_graph *g, vkfx_buffer *raw, const vkfx_pixels *in, bool linear,
                       const float *curves, vkfx_image *img)
{
    int ret = VKFX_OK;
    vkfx_kernel *k = NULL;
    vkfx_buffer *table = NULL;
    float *joined = NULL;
    vkfx_spec spec = decode_spec(img->format);
    TRY(vkfx_kernel_get(vkfx_graph_context(g), &decode_kernel, &spec, &k));
    bool use_curves = curves && in->sample != VKFX_SAMPLE_F32;
    bool srgb = !use_curves && !linear && !in->linear && in->sample != VKFX_SAMPLE_F32;
    if (in->sample == VKFX_SAMPLE_F32) {
        /* Float samples read no table; the binding still needs a buffer. */
        TRY(put_table(g, (const float[1]){0.0f}, sizeof(float), &table));
    } else {
        uint32_t levels = in->sample == VKFX_SAMPLE_U16 ? 65536 : 256;
        code_tables t = {0};
        TRY(code_tables_for(levels == 256, &t));
        const float *linear_values = t.decode + levels;
        if (use_curves) {
            /* The profile's curves, then the linear values for alpha. */
            size_t n = (size_t)(in->channels <= 2 ? 1 : 3) * levels;
            joined = malloc(sizeof(float) * (n + levels));
            if (!joined)
                return vkfx_fail(VKFX_E_NOMEM, "out of host memory for the decode table");
            memcpy(joined, curves, sizeof(float) * n);
            memcpy(joined + n, linear_values, sizeof(float) * levels);
            TRY(put_table(g, joined, sizeof(float) * (n + levels), &table));
        } else if (srgb) {
            TRY(put_table(g, t.decode, sizeof(float) * 2 * levels, &table));
        } else {
            /* Linear colour: the linear values twice, colour's curve and alpha's. */
            joined = malloc(sizeof(float) * 2 * levels);
            if (!joined)
                return vkfx_fail(VKFX_E_NOMEM, "out of host memory for the decode table");
            memcpy(joined, linear_values, sizeof(float) * levels);
            memcpy(joined + levels, linear_values, sizeof(float) * levels);
            TRY(put_table(g, joined, sizeof(float) * 2 * levels, &table));
        }
    }
    decode_push push = {{(int32_t)in->width, (int32_t)in->height},
                        in->channels,
                        sample_code(in->sample),
                        srgb,
                        in->straight,
                        use_curves};
    vkfx_dispatch d = {
        .kernel = k,
        .label = "decode",
        .use = {{.buffer = raw}, {.image = img, .write = true}, {.buffer = table}},
        .push = &push,
        .groups = {vkfx_groups(in->width, 16), vkfx_groups(in->height, 16), 1},
    };
    TRY(vkfx_graph_dispatch(g, &d));
fail:
    free(joined);
    return ret;
}

int vkfx_record_encode(vkfx_graph *g, vkfx_image *img, const vkfx_pixels *out, bool linear,
                       vkfx_buffer *raw)
{
    return vkfx_record_encode_over(g, img, out, linear, NULL, raw);
}

int vkfx_record_encode_over(vkfx_graph *g, vkfx_image *img, const vkfx_pixels *out, bool linear,
                            const float *background, vkfx_buffer *raw)
{
    int ret = VKFX_OK;
    vkfx_kernel *k = NULL;
    vkfx_buffer *least = NULL;
    TRY(vkfx_kernel_get(vkfx_graph_context(g), &encode_kernel, &encode_spec, &k));
    uint32_t nwords = (uint32_t)(raw_bytes(out) / 4);
    uint32_t groups_x = vkfx_groups(nwords, 256);
    uint32_t groups_y = 1;
    while (groups_x > 32768) { /* stay under maxComputeWorkGroupCount[0] (>= 65535) */
        groups_y *= 2;
        groups_x = vkfx_groups(vkfx_groups(nwords, 256), groups_y);
    }
    bool srgb = !linear && out->sample != VKFX_SAMPLE_F32;
    if (srgb) {
        uint32_t levels = out->sample == VKFX_SAMPLE_U16 ? 65536 : 256;
        code_tables t = {0};
        TRY(code_tables_for(levels == 256, &t));
        TRY(put_table(g, t.least, sizeof(float) * levels, &least));
    } else {
        TRY(put_table(g, (const float[1]){0.0f}, sizeof(float), &least));
    }
    encode_push push = {{(int32_t)out->width, (int32_t)out->height},
                        out->channels,
                        sample_code(out->sample),
                        srgb,
                        nwords,
                        groups_x * 256,
                        out->straight,
                        {0}};
    for (int c = 0; background && c < 3; c++)
        push.background[c] = (float)(linear ? background[c] : vkfx_srgb_decode(background[c]));
    push.background[3] = background ? 1.0f : 0.0f;
    vkfx_dispatch d = {
        .kernel = k,
        .label = "encode",
        .use = {{.image = img}, {.buffer = raw, .write = true}, {.buffer = least}},
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
    /* The graph takes the forced variants as given: only this layer sees the filters whose
     * families they must name. */
    *states_out = NULL;
    int ret = vkfx_variants_check(vkfx_graph_forced_variants(g));
    if (ret != VKFX_OK)
        return ret;
    void **states = calloc(chain->count ? chain->count : 1, sizeof(*states));
    vkfx_image *ping[2] = {NULL, NULL};
    vkfx_image *cur = src;
    *states_out = states;
    if (!states)
        return vkfx_fail(VKFX_E_NOMEM, "out of host memory");
    for (size_t i = 0; i < chain->count; i++) {
        const vkfx_filter *f = chain->links[i].filter;
        uint32_t w = vkfx_graph_width(g), h = vkfx_graph_height(g);
        if (f->size) {
            /* The first filter's sizes refer to the file's size (shrink-on-load). */
            uint32_t from_w = w, from_h = h;
            if (i == 0)
                vkfx_graph_source(g, &from_w, &from_h);
            TRY(f->size(chain->links[i].params, from_w, from_h, &w, &h));
        }
        if (f->create)
            TRY(f->create(g, chain->links[i].params, &states[i]));
        if (f->passes_through) {
            TRY(f->record(g, chain->links[i].params, states[i], cur, NULL));
            continue;
        }
        /* Two images alternate as outputs, never the one being read; one of another size
         * (before or after a filter that reshapes the image) is replaced. */
        vkfx_image **slot = &ping[i & 1];
        if (*slot == cur)
            slot = &ping[(i + 1) & 1];
        if (*slot && ((*slot)->width != w || (*slot)->height != h))
            *slot = NULL;
        if (!*slot)
            TRY(vkfx_graph_image(g, w, h, vkfx_graph_format(g), slot));
        vkfx_graph_set_size(g, w, h);
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

/* A run in flight: recorded and submitted, or (tiled) already complete. */
struct vkfx_pending {
    char decode_note[160]; /* vkfx_run_result's */
    vkfx_context *ctx;
    vkfx_staging *staging;
    const vkfx_chain *chain;
    vkfx_graph *g;
    void **states;
    vkfx_buffer *raw_out;
    vkfx_pixels out; /* the layout to read back, then the pixels */
    bool complete;
    vkfx_run_result result;
    /* Linear floats come back, to be encoded through the profile's curves into tone_sample. */
    const vkfx_tone *tone;
    vkfx_sample tone_sample;
    vkfx_jpegenc *jpeg; /* the output's JPEG encoding, recorded after the chain */
    /* An input decoded on the device (opts.jpeg_in): the decoder's status word, what it
     * said, and what a second start needs where it refuses the stream. */
    vkfx_buffer *jpeg_status;
    uint32_t jpeg_flags;
    bool jpeg_all_rounds; /* synchronised with every round, the retry of unsettled sequences */
    bool held;            /* recorded, not yet submitted (vkfx_run_start_held) */
    int submit_ret;       /* a failed vkfx_run_submit's error, for the finish to report */
    char submit_error[256];
    vkfx_run_opts opts;
    vkfx_pixels in_shape, out_layout;
};

static void pending_free(vkfx_pending *p)
{
    if (!p)
        return;
    vkfx_destroy_chain_states(p->g, p->chain, p->states);
    vkfx_jpegenc_destroy(p->jpeg);
    free(p->result.jpeg);
    vkfx_graph_destroy(p->g);
    vkfx_pixels_free(&p->out);
    free(p->result.times);
    free(p);
}

/* Whether the run's JPEG output is encoded on the device: 8-bit codes the device path covers,
 * where --jpeg-codec sends it. */
static bool jpeg_here(const vkfx_run_opts *opts, const vkfx_pending *p)
{
    const vkfx_caps *caps = vkfx_graph_caps(p->g);
    return opts->jpeg && vkfx_jpegenc_wanted(opts->jpeg_codec, caps) && !p->tone &&
           p->out.sample == VKFX_SAMPLE_U8 &&
           vkfx_jpegenc_covers(p->out.width, p->out.height, p->out.channels, opts->jpeg, caps);
}

/* One image in one piece, up to the submission of its work. */
static int start_whole(vkfx_context *ctx, vkfx_staging *staging, const vkfx_chain *chain,
                       const vkfx_pixels *in, const vkfx_pixels *out, const vkfx_run_opts *opts,
                       bool tone_later, vkfx_pending *p)
{
    int ret = VKFX_OK;
    vkfx_buffer *raw_in = NULL;
    vkfx_image *img = NULL, *final = NULL;
    float *curves = NULL;
    p->out = vkfx_pixels_layout(out);
    TRY(vkfx_chain_size(chain, opts->source_width ? opts->source_width : in->width,
                        opts->source_height ? opts->source_height : in->height, &p->out.width,
                        &p->out.height));
    p->out.straight = !opts->premultiplied_out;
    if (opts->tone && !opts->linear && in->sample != VKFX_SAMPLE_F32) {
        /* The codes go through the curves on the GPU; linear floats come back, to be encoded
         * through them on the host. */
        TRY(vkfx_tone_table(opts->tone, in->channels, in->sample, &curves));
        p->tone = opts->tone;
        p->tone_sample = p->out.sample;
        if (p->out.sample != VKFX_SAMPLE_F32)
            p->out.sample = VKFX_SAMPLE_F32;
        if (p->tone_sample == VKFX_SAMPLE_F32 || tone_later)
            p->tone = NULL;
    }
    p->out.linear = opts->linear || p->out.sample == VKFX_SAMPLE_F32;
    /* Every run ends in these two kernels: on a first run they compile while this thread
     * uploads and records (and compiles) the chain's. */
    vkfx_spec first = decode_spec(vkfx_internal_format(opts->precision));
    vkfx_kernel_prepare(ctx, &decode_kernel, &first);
    vkfx_kernel_prepare(ctx, &encode_kernel, &encode_spec);
    if (opts->jpeg)
        vkfx_jpegenc_prepare(ctx, opts->jpeg_codec);
    TRY(vkfx_graph_begin(ctx, in->width, in->height, vkfx_internal_format(opts->precision),
                         opts->timings, &p->g));
    vkfx_graph_set_fast(p->g, opts->fast);
    vkfx_graph_set_cancel(p->g, opts->cancel);
    vkfx_graph_set_staging(p->g, staging);
    vkfx_graph_set_input_path(p->g, opts->input_path);
    vkfx_graph_set_maps(p->g, opts->maps);
    vkfx_graph_set_source(p->g, opts->source_width, opts->source_height);
    VkDeviceSize in_bytes = raw_bytes(in);
    if (opts->jpeg_in && ((vkfx_jpeg_gpu_bytes(&opts->jpeg_in->layout) + 3) & ~3ull) > in_bytes)
        in_bytes = (vkfx_jpeg_gpu_bytes(&opts->jpeg_in->layout) + 3) & ~3ull;
    TRY(vkfx_graph_buffer(p->g, in_bytes, 0, &raw_in));
    TRY(vkfx_graph_buffer(p->g, raw_bytes(&p->out), 0, &p->raw_out));
    TRY(vkfx_graph_image(p->g, in->width, in->height, vkfx_graph_format(p->g), &img));
    double t = vkfx_now_ms();
    if (opts->jpeg_in) {
        /* The compressed bytes go up through the graph's staging, and the decode writes the
         * codes the decode kernel reads, as the upload would. */
        const vkfx_jpeg_gpu_opts dec = {.rounds =
                                            p->jpeg_all_rounds ? VKFX_JPEG_GPU_ALL_ROUNDS : 0};
        TRY(vkfx_graph_buffer(p->g, 4, 0, &p->jpeg_status));
        if ((ret = vkfx_jpeg_gpu_record(p->g, &opts->jpeg_in->layout, &dec, raw_in,
                                        p->jpeg_status)) != 0)
            goto fail;
    } else {
        TRY(vkfx_staging_upload(staging, raw_in->buffer, 0, in->data, vkfx_pixels_bytes(in)));
    }
    p->result.upload_ms = vkfx_now_ms() - t;
    t = vkfx_now_ms();
    TRY(vkfx_record_decode(p->g, raw_in, in, opts->linear, curves, img));
    TRY(vkfx_record_chain(p->g, chain, img, &final, &p->states));
    TRY(vkfx_record_encode_over(p->g, final, &p->out, opts->linear,
                                opts->flatten ? opts->background : NULL, p->raw_out));
    if (jpeg_here(opts, p))
        TRY(vkfx_jpegenc_record(p->g, p->raw_out, p->out.width, p->out.height, p->out.channels,
                                opts->jpeg, &p->jpeg));
    if (!p->held)
        TRY(vkfx_graph_submit(p->g));
    p->result.record_ms = vkfx_now_ms() - t;
fail:
    free(curves);
    return ret;
}

int vkfx_run_submit(vkfx_pending *p)
{
    if (!p->held)
        return VKFX_OK;
    p->held = false;
    double t = vkfx_now_ms();
    int ret = vkfx_graph_submit(p->g);
    p->result.record_ms += vkfx_now_ms() - t;
    if (ret < 0) {
        p->submit_ret = ret;
        snprintf(p->submit_error, sizeof(p->submit_error), "%s", vkfx_error_message());
    }
    return ret;
}

/* The image's codes back from the device, through the input profile's curves if any. */
static int read_back(vkfx_pending *p)
{
    int ret = VKFX_OK;
    TRY(vkfx_pixels_alloc(&p->out, p->out.width, p->out.height, p->out.channels, p->out.sample));
    TRY(vkfx_staging_download(p->staging, p->raw_out->buffer, 0, p->out.data,
                              vkfx_pixels_bytes(&p->out)));
    if (p->tone) {
        vkfx_pixels coded;
        TRY(vkfx_tone_encode_pixels(p->tone, &p->out, p->tone_sample, &coded));
        vkfx_pixels_free(&p->out);
        p->out = coded;
    }
fail:
    return ret;
}

/* The rest of a run started by start_whole: waits for the GPU, lets the
 * filters read their results, reads the image back. */
static int finish_whole(vkfx_pending *p)
{
    int ret = VKFX_OK;
    vkfx_graph *g = p->g;
    const vkfx_chain *chain = p->chain;
    TRY(vkfx_run_submit(p));
    if (p->submit_ret)
        return vkfx_fail(p->submit_ret, "%s", p->submit_error);
    double t = vkfx_now_ms();
    TRY(vkfx_graph_wait(g));
    p->result.wait_ms = vkfx_now_ms() - t;
    if (p->jpeg_status) {
        TRY(vkfx_staging_download(p->staging, p->jpeg_status->buffer, 0, &p->jpeg_flags,
                                  sizeof(p->jpeg_flags)));
        if (p->jpeg_flags)
            goto fail; /* vkfx_run_finish starts again */
    }
    for (size_t i = 0; i < chain->count; i++)
        if (chain->links[i].filter->finish)
            TRY(chain->links[i].filter->finish(g, chain->links[i].params, p->states[i]));
    t = vkfx_now_ms();
    if (p->jpeg)
        TRY(vkfx_jpegenc_finish(p->jpeg, p->staging, &p->result.jpeg, &p->result.jpeg_size));
    else
        TRY(read_back(p));
    p->result.readback_ms = vkfx_now_ms() - t;
    const vkfx_pass_time *times = NULL;
    vkfx_graph_timings(g, &times, &p->result.ntimes);
    if (p->result.ntimes) {
        p->result.times = malloc(p->result.ntimes * sizeof(*times));
        if (!p->result.times) {
            ret = vkfx_fail(VKFX_E_NOMEM, "out of host memory");
            goto fail;
        }
        memcpy(p->result.times, times, p->result.ntimes * sizeof(*times));
    }
    p->result.device_bytes_peak = p->ctx->device_bytes_peak;
    const vkfx_note *notes = NULL;
    vkfx_graph_notes(g, &notes, &p->result.nnotes);
    memcpy(p->result.notes, notes, p->result.nnotes * sizeof(*notes));
fail:
    return ret;
}

/* How start_jpeg decodes the input. */
enum { JPEG_SUBSEQUENCES, JPEG_ALL_ROUNDS, JPEG_HOST };
static int start_jpeg(vkfx_context *ctx, vkfx_staging *staging, const vkfx_chain *chain,
                      const vkfx_pixels *in, const vkfx_pixels *out, const vkfx_run_opts *opts,
                      int how, bool held, vkfx_pending **pending);
static int run_start(vkfx_context *ctx, vkfx_staging *staging, const vkfx_chain *chain,
                     const vkfx_pixels *in, const vkfx_pixels *out, const vkfx_run_opts *opts,
                     bool held, vkfx_pending **pending);

int vkfx_run_finish(vkfx_pending *p, vkfx_pixels *out, vkfx_run_result *result)
{
    int ret = p->complete ? VKFX_OK : finish_whole(p);
    if (ret == VKFX_OK && p->jpeg_flags) {
        /* Sequences that did not settle in the rounds recorded (codes that resynchronise
         * slowly, as in noise at high quality) are decoded again with every round; anything
         * else the device refused is libjpeg-turbo's, with its warnings and errors. */
        vkfx_pending *again = NULL;
        bool all = (p->jpeg_flags & JD_BAD_SYNC) && !p->jpeg_all_rounds;
        ret = start_jpeg(p->ctx, p->staging, p->chain, &p->in_shape, &p->out_layout, &p->opts,
                         all ? JPEG_ALL_ROUNDS : JPEG_HOST, false, &again);
        pending_free(p);
        if (ret < 0) {
            memset(result, 0, sizeof(*result));
            out->data = NULL;
            return ret;
        }
        return vkfx_run_finish(again, out, result);
    }
    memset(result, 0, sizeof(*result));
    out->data = NULL;
    if (ret == VKFX_OK) {
        *out = p->out;
        *result = p->result;
        snprintf(result->decode_note, sizeof(result->decode_note), "%s", p->decode_note);
        p->out.data = NULL;
        p->result.jpeg = NULL;
        p->result.times = NULL;
    }
    pending_free(p);
    return ret;
}

/* One image in one piece, start to end. */
static int run_whole(vkfx_context *ctx, vkfx_staging *staging, const vkfx_chain *chain,
                     const vkfx_pixels *in, vkfx_pixels *out, const vkfx_run_opts *opts,
                     vkfx_run_result *result)
{
    vkfx_pending *p = calloc(1, sizeof(*p));
    memset(result, 0, sizeof(*result));
    if (!p)
        return vkfx_fail(VKFX_E_NOMEM, "out of host memory");
    *p = (vkfx_pending){.ctx = ctx, .staging = staging, .chain = chain};
    int ret = start_whole(ctx, staging, chain, in, out, opts, false, p);
    if (ret < 0) {
        pending_free(p);
        return ret;
    }
    return vkfx_run_finish(p, out, result);
}

/* The most pixels one piece may have: the largest device-local heap must
 * hold at least three images in the internal format (the input and the two
 * that the chain's filters alternate between). Beyond that a run cannot
 * succeed in one piece; below it, a chain that allocates more meets a clean
 * out-of-memory error. */
static uint64_t tile_pixels(const vkfx_context *ctx, int precision)
{
    uint64_t heap = 0;
    for (uint32_t i = 0; i < ctx->mem.memoryHeapCount; i++)
        if (ctx->mem.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT &&
            ctx->mem.memoryHeaps[i].size > heap)
            heap = ctx->mem.memoryHeaps[i].size;
    return heap / (3 * vkfx_format_texel_bytes(vkfx_internal_format(precision)));
}

/* The largest tile side: the device's image limit, the side of a square of
 * tile_pixels, or VKFX_TILE (tests). */
static uint32_t tile_side(const vkfx_context *ctx, int precision)
{
    uint64_t side = ctx->props.limits.maxImageDimension2D;
    uint64_t by_memory = (uint64_t)sqrt((double)tile_pixels(ctx, precision));
    if (by_memory < side)
        side = by_memory;
    if (ctx->opts.tile > 0 && ctx->opts.tile < side)
        side = ctx->opts.tile;
    return (uint32_t)side;
}

/* Copies rows [y0, y0+h) of columns [x0, x0+w) between images of one layout. */
static void copy_rect(const vkfx_pixels *src, uint32_t sx, uint32_t sy, vkfx_pixels *dst,
                      uint32_t dx, uint32_t dy, uint32_t w, uint32_t h)
{
    size_t px = src->channels * vkfx_sample_size(src->sample);
    for (uint32_t y = 0; y < h; y++)
        memcpy((unsigned char *)dst->data + ((size_t)(dy + y) * dst->width + dx) * px,
               (const unsigned char *)src->data + ((size_t)(sy + y) * src->width + sx) * px,
               (size_t)w * px);
}

/* Adds part's host times to result's, and keeps the larger device memory peak. */
static void add_host_times(vkfx_run_result *result, const vkfx_run_result *part)
{
    result->record_ms += part->record_ms;
    result->upload_ms += part->upload_ms;
    result->wait_ms += part->wait_ms;
    result->readback_ms += part->readback_ms;
    if (part->device_bytes_peak > result->device_bytes_peak)
        result->device_bytes_peak = part->device_bytes_peak;
}

/* Adds a tile's run to result: every tile runs the same passes, so their times add up (part's
 * own are freed or taken). */
static void add_tile(vkfx_run_result *result, vkfx_run_result *part)
{
    if (!result->times) {
        *result = *part;
        part->times = NULL;
        return;
    }
    for (uint32_t i = 0; i < part->ntimes && i < result->ntimes; i++)
        result->times[i].ms += part->times[i].ms;
    add_host_times(result, part);
    free(part->times);
    part->times = NULL;
}

/* Whether an image of w x h fits the device in one piece. */
static bool fits(vkfx_context *ctx, uint32_t w, uint32_t h, const vkfx_run_opts *opts)
{
    uint32_t most = ctx->props.limits.maxImageDimension2D;
    if (ctx->opts.tile > 0 && ctx->opts.tile < most)
        most = ctx->opts.tile;
    return w <= most && h <= most && (uint64_t)w * h <= tile_pixels(ctx, opts->precision);
}

/* Whether in runs through chain in one piece on this device: the input and every size the
 * chain's filters make of it fit (else in tiles). A size a filter cannot make counts as
 * fitting: recording then says why. */
static bool one_piece(vkfx_context *ctx, const vkfx_chain *chain, const vkfx_pixels *in,
                      const vkfx_run_opts *opts)
{
    uint32_t w = in->width, h = in->height;
    if (!fits(ctx, w, h, opts))
        return false;
    for (size_t i = 0; i < chain->count; i++) {
        const vkfx_chain_link *l = &chain->links[i];
        /* The first filter's sizes refer to the file's size (shrink-on-load). */
        uint32_t from_w = i == 0 && opts->source_width ? opts->source_width : w;
        uint32_t from_h = i == 0 && opts->source_height ? opts->source_height : h;
        if (l->filter->size && l->filter->size(l->params, from_w, from_h, &w, &h) < 0)
            return true;
        if (!fits(ctx, w, h, opts))
            return false;
    }
    return true;
}

/* One filter that reshapes an image too large for one piece, in tiles of its outputs (out: the
 * layout wanted), each made by the filter's window params from the input rectangle it reads:
 * squares of outputs, as large as keeps every such rectangle within the tile side. */
static int run_windows(vkfx_context *ctx, vkfx_staging *staging, const vkfx_chain_link *link,
                       const vkfx_pixels *in, vkfx_pixels *out, const vkfx_run_opts *opts,
                       vkfx_run_result *result)
{
    int ret = VKFX_OK;
    const vkfx_filter *f = link->filter;
    uint32_t side = tile_side(ctx, opts->precision), out_w, out_h;
    vkfx_pixels sub_in = vkfx_pixels_layout(in), sub_out = vkfx_pixels_layout(out);
    vkfx_pixels whole = vkfx_pixels_layout(out);
    vkfx_run_result part = {0};
    vkfx_rect o, r;
    void *window = NULL;
    memset(result, 0, sizeof(*result));
    TRY(f->size(link->params, opts->source_width ? opts->source_width : in->width,
                opts->source_height ? opts->source_height : in->height, &out_w, &out_h));
    if (!(window = calloc(1, f->params_size)))
        return vkfx_fail(VKFX_E_NOMEM, "out of host memory");
    uint32_t t = side;
    for (bool fit = false; !fit && t > 0; t = fit ? t : t / 2) {
        fit = true;
        for (o.y = 0; fit && o.y < out_h; o.y += t)
            for (o.x = 0; fit && o.x < out_w; o.x += t) {
                o.w = out_w - o.x < t ? out_w - o.x : t;
                o.h = out_h - o.y < t ? out_h - o.y : t;
                TRY(f->window(link->params, in->width, in->height, out_w, out_h, &o, &r, window));
                fit = r.w <= side && r.h <= side;
            }
    }
    if (t == 0) {
        ret = vkfx_fail(VKFX_E_LIMIT,
                        "%s of a %ux%u image to %ux%u: one output reads more than %u pixels a "
                        "side, the most a tile has on %s",
                        f->name, in->width, in->height, out_w, out_h, side, ctx->props.deviceName);
        goto fail;
    }
    vkfx_chain_link one = {f, window};
    const vkfx_chain tile = {&one, 1};
    vkfx_run_opts tile_opts = *opts;
    tile_opts.source_width = tile_opts.source_height = 0;
    for (o.y = 0; o.y < out_h; o.y += t)
        for (o.x = 0; o.x < out_w; o.x += t) {
            o.w = out_w - o.x < t ? out_w - o.x : t;
            o.h = out_h - o.y < t ? out_h - o.y : t;
            TRY(f->window(link->params, in->width, in->height, out_w, out_h, &o, &r, window));
            TRY(vkfx_pixels_alloc(&sub_in, r.w, r.h, in->channels, in->sample));
            copy_rect(in, r.x, r.y, &sub_in, 0, 0, r.w, r.h);
            TRY(run_whole(ctx, staging, &tile, &sub_in, &sub_out, &tile_opts, &part));
            vkfx_pixels_free(&sub_in);
            if (!whole.data)
                TRY(vkfx_pixels_alloc(&whole, out_w, out_h, out->channels, out->sample));
            whole.straight = sub_out.straight;
            whole.linear = sub_out.linear;
            copy_rect(&sub_out, 0, 0, &whole, o.x, o.y, o.w, o.h);
            vkfx_pixels_free(&sub_out);
            add_tile(result, &part);
        }
    *out = whole;
    whole.data = NULL;
fail:
    vkfx_pixels_free(&whole);
    free(window);
    free(part.times);
    vkfx_pixels_free(&sub_in);
    vkfx_pixels_free(&sub_out);
    return ret;
}

/* Adds a segment's run to result: its passes after the earlier segments'. */
static int add_segment(vkfx_run_result *result, vkfx_run_result *part)
{
    vkfx_pass_time *times =
        realloc(result->times, (result->ntimes + part->ntimes + 1) * sizeof(*times));
    if (!times)
        return vkfx_fail(VKFX_E_NOMEM, "out of host memory");
    if (part->ntimes)
        memcpy(times + result->ntimes, part->times, part->ntimes * sizeof(*times));
    result->times = times;
    result->ntimes += part->ntimes;
    free(part->times);
    part->times = NULL;
    add_host_times(result, part);
    for (uint32_t i = 0; i < part->nnotes && result->nnotes < VKFX_MAX_NOTES; i++)
        result->notes[result->nnotes++] = part->notes[i];
    return VKFX_OK;
}

/* A chain that reshapes an image too large for one piece: each filter that reshapes it on its
 * own (run_windows where it needs tiles), each run of filters between them as a run of its own
 * (in tiles where it needs them), linear premultiplied floats in between. Those hold the
 * internal image's values exactly, so the bytes are one piece's. */
static int run_segments(vkfx_context *ctx, vkfx_staging *staging, const vkfx_chain *chain,
                        const vkfx_pixels *in, vkfx_pixels *out, const vkfx_run_opts *opts,
                        vkfx_run_result *result)
{
    int ret = VKFX_OK;
    /* Profile curves encode the last segment's floats here, as a run in one piece does. */
    bool tone = opts->tone && !opts->linear && in->sample != VKFX_SAMPLE_F32 &&
                out->sample != VKFX_SAMPLE_F32;
    vkfx_pixels cur = {0}, next = {0};
    const vkfx_pixels *src = in;
    vkfx_run_result part = {0};
    for (size_t i = 0, j; i < chain->count; i = j) {
        j = i + 1;
        if (!chain->links[i].filter->size)
            while (j < chain->count && !chain->links[j].filter->size)
                j++;
        bool last = j == chain->count;
        vkfx_run_opts o = *opts;
        if (i > 0)
            o.source_width = o.source_height = 0;
        o.premultiplied_out = last ? opts->premultiplied_out : true;
        if (last && !tone)
            next = vkfx_pixels_layout(out);
        else
            next = (vkfx_pixels){.channels = last ? out->channels : 4, .sample = VKFX_SAMPLE_F32};
        const vkfx_chain seg = {chain->links + i, j - i};
        memset(&part, 0, sizeof(part));
        ret = chain->links[i].filter->size && !one_piece(ctx, &seg, src, &o)
                  ? run_windows(ctx, staging, &chain->links[i], src, &next, &o, &part)
                  : vkfx_run(ctx, staging, &seg, src, &next, &o, &part);
        vkfx_pixels_free(&cur);
        if (ret < 0)
            goto fail;
        TRY(add_segment(result, &part));
        cur = next;
        next.data = NULL;
        src = &cur;
    }
    if (tone) {
        TRY(vkfx_tone_encode_pixels(opts->tone, &cur, out->sample, out));
    } else {
        *out = cur;
        cur.data = NULL;
    }
fail:
    free(part.times);
    vkfx_pixels_free(&cur);
    vkfx_pixels_free(&next);
    if (ret < 0) {
        free(result->times);
        memset(result, 0, sizeof(*result));
    }
    return ret;
}

int vkfx_run(vkfx_context *ctx, vkfx_staging *staging, const vkfx_chain *chain,
             const vkfx_pixels *in, vkfx_pixels *out, const vkfx_run_opts *opts,
             vkfx_run_result *result)
{
    int ret = VKFX_OK;
    /* in is the caller's: the tiles and the whole output are this function's own. */
    vkfx_pixels sub_in = vkfx_pixels_layout(in), sub_out = vkfx_pixels_layout(out);
    vkfx_pixels all = vkfx_pixels_layout(out);
    vkfx_run_result part = {0};
    memset(result, 0, sizeof(*result));
    if (in->width == 0 || in->height == 0)
        return vkfx_fail(VKFX_E_FORMAT, "the image is empty (%ux%u)", in->width, in->height);
    /* One piece when the device takes it: within its image limit, within the
     * memory a piece may have (a long thin image need not be square), and no
     * smaller tile forced. */
    if (one_piece(ctx, chain, in, opts))
        return run_whole(ctx, staging, chain, in, out, opts, result);
    /* A filter that reshapes the image moves every output away from the tile it came from:
     * such chains run in segments. */
    if (vkfx_chain_reshapes(chain))
        return run_segments(ctx, staging, chain, in, out, opts, result);
    uint32_t side = tile_side(ctx, opts->precision);

    /* Tiles overlap by the chain's reach: each filter's error at a tile's
     * edge moves inwards by its own reach, and the borders are cut away. They
     * start on multiples of every filter's alignment, so that each filter's
     * runs of outputs start where they start in the whole image, and a tile
     * is up to one alignment step larger than its share on each axis
     * (vkfx_tile_share says why the shares are whole steps). */
    uint64_t reach;
    vkfx_align align;
    const vkfx_filter *whole = vkfx_chain_tiling(chain, &reach, &align);
    if (whole)
        return vkfx_fail(VKFX_E_LIMIT,
                         "a %ux%u image runs in tiles of at most %u pixels a side on %s, "
                         "and %s cannot run in tiles: each output pixel depends on the "
                         "whole image%s",
                         in->width, in->height, side, ctx->props.deviceName, whole->name,
                         whole->passes_through || !whole->reach ? ""
                                                                : " (or on a map of its size)");
    if (side < vkfx_tile_side_least(reach, align))
        return vkfx_fail(VKFX_E_LIMIT,
                         "a %ux%u image runs in tiles of at most %u pixels a side on %s, and "
                         "this chain reaches %llu pixels around each one: too far for tiles",
                         in->width, in->height, side, ctx->props.deviceName,
                         (unsigned long long)reach);
    /* The share of each tile, across and down. */
    uint32_t core_x = vkfx_tile_share(side, reach, align.x);
    uint32_t core_y = vkfx_tile_share(side, reach, align.y);
    TRY(vkfx_pixels_alloc(&all, in->width, in->height, out->channels, out->sample));
    for (uint32_t cy = 0; cy < in->height; cy += core_y) {
        for (uint32_t cx = 0; cx < in->width; cx += core_x) {
            uint32_t cw = in->width - cx < core_x ? in->width - cx : core_x;
            uint32_t ch = in->height - cy < core_y ? in->height - cy : core_y;
            uint32_t x0 = vkfx_tile_start(cx, reach, align.x);
            uint32_t y0 = vkfx_tile_start(cy, reach, align.y);
            uint32_t x1 = (uint32_t)(cx + cw + reach < in->width ? cx + cw + reach : in->width);
            uint32_t y1 = (uint32_t)(cy + ch + reach < in->height ? cy + ch + reach : in->height);
            sub_in.data = NULL;
            TRY(vkfx_pixels_alloc(&sub_in, x1 - x0, y1 - y0, in->channels, in->sample));
            copy_rect(in, x0, y0, &sub_in, 0, 0, x1 - x0, y1 - y0);
            ret = run_whole(ctx, staging, chain, &sub_in, &sub_out, opts, &part);
            vkfx_pixels_free(&sub_in);
            if (ret < 0)
                goto fail;
            copy_rect(&sub_out, cx - x0, cy - y0, &all, cx, cy, cw, ch);
            vkfx_pixels_free(&sub_out);
            add_tile(result, &part);
        }
    }
    all.straight = sub_out.straight;
    all.linear = sub_out.linear;
    *out = all;
    all.data = NULL;
fail:
    free(part.times);
    vkfx_pixels_free(&sub_in);
    vkfx_pixels_free(&sub_out);
    vkfx_pixels_free(&all);
    if (ret < 0) {
        free(result->times);
        memset(result, 0, sizeof(*result));
    }
    return ret;
}

vkfx_jpeg_decode_where vkfx_jpeg_decode_here(vkfx_context *ctx, vkfx_jpeg_codec codec)
{
    /* auto: on the H200, a batch of 1080p photos ran faster with libjpeg-turbo's threads
     * decoding beside the device (1.84x OpenCV's throughput against 1.45x with the device
     * decoding, tests/bench/RESULTS.md), while a 24-megapixel photo, which libjpeg-turbo decodes
     * in about 60 ms on a core, the device decodes in about 2. A software device's cores are
     * libjpeg-turbo's already. */
    switch (codec) {
    case VKFX_JPEG_CODEC_GPU:
        return VKFX_JPEG_DECODE_DEVICE;
    case VKFX_JPEG_CODEC_AUTO:
        return ctx->props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU ? VKFX_JPEG_DECODE_HOST
                                                                    : VKFX_JPEG_DECODE_LARGE;
    case VKFX_JPEG_CODEC_CPU:
        return VKFX_JPEG_DECODE_HOST;
    }
    return VKFX_JPEG_DECODE_HOST;
}

/* libjpeg-turbo's pixels of the JPEG the device was to decode: what the codec thread gives for
 * a file the device does not decode (no orientation to turn: vkfx_file_load_jpeg_input). */
static int jpeg_on_host(const vkfx_run_opts *opts, vkfx_pixels *px)
{
    return vkfx_file_load_memory(opts->jpeg_in->bytes, opts->jpeg_in->size,
                                 opts->input_path ? opts->input_path : "the JPEG input", px);
}

/* vkfx_run_start for an input decoded on the device, with the default rounds of synchronisation
 * or with all it may take, or from libjpeg-turbo's pixels (JPEG_HOST, and where the device
 * cannot take it in one piece). */
static int start_jpeg(vkfx_context *ctx, vkfx_staging *staging, const vkfx_chain *chain,
                      const vkfx_pixels *in, const vkfx_pixels *out, const vkfx_run_opts *opts,
                      int how, bool held, vkfx_pending **pending)
{
    *pending = NULL;
    int ret = 1;
    if (how != JPEG_HOST && one_piece(ctx, chain, in, opts)) {
        vkfx_pending *p = calloc(1, sizeof(*p));
        if (!p)
            return vkfx_fail(VKFX_E_NOMEM, "out of host memory");
        *p = (vkfx_pending){.ctx = ctx,
                            .staging = staging,
                            .chain = chain,
                            .out = *out,
                            .jpeg_all_rounds = how == JPEG_ALL_ROUNDS,
                            .held = held,
                            .opts = *opts,
                            .in_shape = *in,
                            .out_layout = *out};
        ret = start_whole(ctx, staging, chain, in, out, opts, opts->tone_later, p);
        if (ret != 0)
            pending_free(p);
        else
            *pending = p;
    }
    if (ret != 1)
        return ret;
    vkfx_pixels px = {0};
    vkfx_run_opts host = *opts;
    host.jpeg_in = NULL;
    ret = jpeg_on_host(opts, &px);
    const char *note = ret == VKFX_OK ? vkfx_file_note() : NULL;
    if (ret == VKFX_OK)
        ret = run_start(ctx, staging, chain, &px, out, &host, held, pending);
    if (ret == VKFX_OK && *pending && note)
        snprintf((*pending)->decode_note, sizeof((*pending)->decode_note), "%s", note);
    vkfx_pixels_free(&px);
    return ret;
}

int vkfx_run_start(vkfx_context *ctx, vkfx_staging *staging, const vkfx_chain *chain,
                   const vkfx_pixels *in, const vkfx_pixels *out, const vkfx_run_opts *opts,
                   vkfx_pending **pending)
{
    return run_start(ctx, staging, chain, in, out, opts, false, pending);
}

int vkfx_run_start_held(vkfx_context *ctx, vkfx_staging *staging, const vkfx_chain *chain,
                        const vkfx_pixels *in, const vkfx_pixels *out, const vkfx_run_opts *opts,
                        vkfx_pending **pending)
{
    return run_start(ctx, staging, chain, in, out, opts, true, pending);
}

static int run_start(vkfx_context *ctx, vkfx_staging *staging, const vkfx_chain *chain,
                     const vkfx_pixels *in, const vkfx_pixels *out, const vkfx_run_opts *opts,
                     bool held, vkfx_pending **pending)
{
    *pending = NULL;
    if (opts->jpeg_in)
        return start_jpeg(ctx, staging, chain, in, out, opts, JPEG_SUBSEQUENCES, held, pending);
    if (in->width == 0 || in->height == 0)
        return vkfx_fail(VKFX_E_FORMAT, "the image is empty (%ux%u)", in->width, in->height);
    vkfx_pending *p = calloc(1, sizeof(*p));
    if (!p)
        return vkfx_fail(VKFX_E_NOMEM, "out of host memory");
    *p = (vkfx_pending){.ctx = ctx,
                        .staging = staging,
                        .chain = chain,
                        .out = vkfx_pixels_layout(out),
                        .held = held};
    int ret;
    if (one_piece(ctx, chain, in, opts)) {
        ret = start_whole(ctx, staging, chain, in, out, opts, opts->tone_later, p);
    } else {
        /* Tiles run one after another to the end here. */
        ret = vkfx_run(ctx, staging, chain, in, &p->out, opts, &p->result);
        p->complete = true;
        p->held = false;
    }
    if (ret < 0) {
        pending_free(p);
        return ret;
    }
    *pending = p;
    return VKFX_OK;
}
