#include "preview.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "error.h"
#include "filters.h"
#include "icc.h"
#include "jpeg_gpu_enc.h"
#include "maps.h"
#include "resample.h"
#include "run.h"

/* Input sizes kept on the device: the full one and the last widths shown. */
enum { MAX_SIZES = 3 };

/* The input at one size, on the device as the decode kernel reads it. */
typedef struct input_size {
    vkfx_pixels layout; /* shape and sample type of raw; data NULL */
    vkfx_buffer *raw;
    uint64_t used;
} input_size;

struct vkfx_preview {
    vkfx_context *ctx;
    vkfx_staging *staging;
    char *input_path;
    vkfx_pixels in;
    vkfx_meta meta;  /* what Save writes with the image, as a file run does */
    vkfx_tone *tone; /* the input profile's curves, as a file run uses them */
    float *linear; /* in as linear premultiplied floats, made on the first smaller size */
    vkfx_maps *maps;
    input_size sizes[MAX_SIZES];
    uint64_t clock;
    vkfx_jpeg_codec jpeg_codec; /* where Save and the page's pictures are JPEG-encoded */
    bool fast;                  /* renders and Save with --fast (vkfx_preview_set_fast) */
};

void vkfx_preview_set_fast(vkfx_preview *p, bool fast)
{
    p->fast = fast;
}

void vkfx_preview_set_jpeg_codec(vkfx_preview *p, vkfx_jpeg_codec codec)
{
    p->jpeg_codec = codec;
    vkfx_jpegenc_prepare(p->ctx, codec);
}

int vkfx_preview_open(vkfx_context *ctx, const char *input_path, vkfx_preview **out)
{
    int ret = VKFX_OK;
    vkfx_preview *p = calloc(1, sizeof(*p));
    *out = NULL;
    if (!p)
        return vkfx_fail(VKFX_E_NOMEM, "out of host memory");
    p->ctx = ctx;
    p->input_path = strdup(input_path);
    if (!p->input_path) {
        ret = vkfx_fail(VKFX_E_NOMEM, "out of host memory");
        goto fail;
    }
    TRY(vkfx_file_load_meta(input_path, &p->in, &p->meta));
    const char *how;
    TRY(vkfx_icc_prepare(&p->meta, &p->in, false, false, input_path, &p->tone, &how));
    if (p->in.width == 0 || p->in.height == 0) {
        ret = vkfx_fail(VKFX_E_FORMAT, "%s: the image is empty (%ux%u)", input_path, p->in.width,
                        p->in.height);
        goto fail;
    }
    TRY(vkfx_staging_create(ctx, 0, &p->staging));
    TRY(vkfx_maps_create(ctx, p->staging, input_path, p->in.width, p->in.height, &p->maps));
    *out = p;
    return VKFX_OK;
fail:
    vkfx_preview_close(p);
    return ret;
}

void vkfx_preview_close(vkfx_preview *p)
{
    if (!p)
        return;
    for (int s = 0; s < MAX_SIZES; s++)
        vkfx_buffer_destroy(p->ctx, p->sizes[s].raw);
    vkfx_maps_destroy(p->maps);
    vkfx_staging_destroy(p->staging);
    vkfx_pixels_free(&p->in);
    vkfx_meta_free(&p->meta);
    vkfx_tone_free(p->tone);
    free(p->linear);
    free(p->input_path);
    free(p);
}

void vkfx_preview_size(const vkfx_preview *p, uint32_t *width, uint32_t *height)
{
    *width = p->in.width;
    *height = p->in.height;
}

static uint32_t capped_width(const vkfx_preview *p, uint32_t width)
{
    return width == 0 || width > p->in.width ? p->in.width : width;
}

uint32_t vkfx_preview_height(const vkfx_preview *p, uint32_t width)
{
    width = capped_width(p, width);
    return width == p->in.width ? p->in.height
                                : vkfx_scaled_height(p->in.width, p->in.height, width);
}

/* p->linear: the input in linear light with premultiplied alpha, the space
 * the filters work in, so that averaging pixels averages light. */
static int make_linear(vkfx_preview *p)
{
    const vkfx_pixels *in = &p->in;
    size_t n = (size_t)in->width * in->height * in->channels;
    float *f = malloc(n * sizeof(*f));
    if (!f)
        return vkfx_fail(VKFX_E_NOMEM, "out of host memory");
    bool srgb = !in->linear && in->sample != VKFX_SAMPLE_F32;
    float u8[256];
    for (int i = 0; i < 256; i++)
        u8[i] = (float)(srgb ? vkfx_srgb_decode(i / 255.0) : i / 255.0);
    uint32_t c = in->channels;
    bool alpha = c == 2 || c == 4;
    for (size_t i = 0; i < n; i++) {
        bool is_alpha = alpha && i % c == c - 1;
        switch (in->sample) {
        case VKFX_SAMPLE_U8: {
            uint8_t v = ((const uint8_t *)in->data)[i];
            f[i] = is_alpha ? (float)(v / 255.0) : u8[v];
            break;
        }
        case VKFX_SAMPLE_U16: {
            double v = ((const uint16_t *)in->data)[i] / 65535.0;
            f[i] = (float)(is_alpha || !srgb ? v : vkfx_srgb_decode(v));
            break;
        }
        case VKFX_SAMPLE_F32:
            f[i] = ((const float *)in->data)[i];
            break;
        }
    }
    if (alpha && in->straight)
        for (size_t i = 0; i < n; i += c)
            for (uint32_t k = 0; k + 1 < c; k++)
                f[i + k] *= f[i + c - 1];
    p->linear = f;
    return VKFX_OK;
}

/* The input at width w on the device: the file's own samples at full size,
 * else the area average of the linear image, made the first time. */
static int input_at(vkfx_preview *p, uint32_t w, input_size **out)
{
    int ret = VKFX_OK;
    uint32_t h = vkfx_preview_height(p, w);
    vkfx_pixels small = {0};
    const vkfx_pixels *src = &p->in;
    p->clock++;
    input_size *slot = &p->sizes[0];
    for (int s = 0; s < MAX_SIZES; s++) {
        input_size *z = &p->sizes[s];
        if (z->raw && z->layout.width == w && z->layout.height == h) {
            z->used = p->clock;
            *out = z;
            return VKFX_OK;
        }
        if (!z->raw || (slot->raw && z->used < slot->used))
            slot = z;
    }
    if (w != p->in.width) {
        if (!p->linear)
            TRY(make_linear(p));
        small = (vkfx_pixels){.linear = true, .straight = false};
        TRY(vkfx_pixels_alloc(&small, w, h, p->in.channels, VKFX_SAMPLE_F32));
        TRY(vkfx_area_downscale(p->linear, p->in.width, p->in.height, p->in.channels, small.data, w,
                                h));
        src = &small;
    }
    /* The least recently used size makes room; renders are one at a time. */
    vkfx_buffer_destroy(p->ctx, slot->raw);
    *slot = (input_size){.layout = vkfx_pixels_layout(src), .used = p->clock};
    VkDeviceSize bytes = vkfx_pixels_bytes(src);
    TRY(vkfx_buffer_create(p->ctx, (bytes + 3) & ~(VkDeviceSize)3,
                           VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                           VKFX_MEM_DEVICE, &slot->raw));
    TRY(vkfx_staging_upload(p->staging, slot->raw->buffer, 0, src->data, bytes));
    TRY(vkfx_staging_drain(p->staging));
    *out = slot;
fail:
    if (ret < 0) {
        vkfx_buffer_destroy(p->ctx, slot->raw);
        slot->raw = NULL;
    }
    vkfx_pixels_free(&small);
    return ret;
}

static int check_map_file(void *user, const vkfx_filter *f, const vkfx_option *o, const char *value)
{
    (void)user;
    if (o->writes || strcmp(value, "self") == 0)
        return VKFX_OK;
    char *file = NULL;
    const char *channel;
    int ret = vkfx_file_map_split(value, &file, &channel);
    struct stat st;
    /* stat, not open: opening a FIFO waits for a writer. A file that
     * cannot be found is left to the read, which says so as a file run does. */
    if (ret == VKFX_OK && stat(file, &st) == 0 && !S_ISREG(st.st_mode))
        ret = vkfx_fail(VKFX_E_USAGE,
                        "%s: %s=%s is not a regular file: the preview reads maps from files "
                        "only, never a FIFO, device or folder",
                        f->name, o->name, value);
    free(file);
    return ret;
}

/* The maps a chain names, before any is read: the session's one thread
 * must not wait on a FIFO's writer or read a device without end. */
static int check_map_files(const vkfx_chain *chain)
{
    return vkfx_chain_paths(chain, check_map_file, NULL);
}

/* The box resize that brings a full-size result to the width shown, as
 * `vkfx SAVED -f resize:width=W:height=H:kernel=box` would: the mean over
 * each view pixel's footprint. NULL (and OK) when no scaling is needed. */
static int view_scaler(uint32_t w, uint32_t h, uint32_t width, vkfx_chain **out, uint32_t *vw,
                       uint32_t *vh)
{
    *out = NULL;
    *vw = w;
    *vh = h;
    if (width == 0 || width >= w)
        return VKFX_OK;
    *vw = width;
    *vh = vkfx_scaled_height(w, h, width);
    char text[96];
    snprintf(text, sizeof(text), "resize:width=%u:height=%u:kernel=box", *vw, *vh);
    return vkfx_chain_parse(text, out);
}

/* Frees what draft_chain made: the links and the parameters not chain's. */
static void free_draft(vkfx_chain *d, const vkfx_chain *chain)
{
    if (!d)
        return;
    for (size_t i = 0; i < d->count; i++)
        if (d->links[i].params != chain->links[i].params)
            free(d->links[i].params);
    free(d->links);
    free(d);
}

/* A draft runs on a smaller input, so every length in pixels of the chain
 * (maxcoc, radii, sigmas: the filters' pixel_options) shrinks with it: the
 * draft is the saved file, scaled. *out is chain with its own copies of the
 * parameters that change (the rest shared); free it with free_draft. */
static int draft_chain(const vkfx_chain *chain, double scale, vkfx_chain **out)
{
    vkfx_chain *d = calloc(1, sizeof(*d));
    *out = NULL;
    if (!d || !(d->links = calloc(chain->count ? chain->count : 1, sizeof(*d->links)))) {
        free(d);
        return vkfx_fail(VKFX_E_NOMEM, "out of host memory");
    }
    d->count = chain->count;
    for (size_t i = 0; i < chain->count; i++) {
        const vkfx_chain_link *l = &chain->links[i];
        d->links[i] = *l;
        if (!l->filter->pixel_options)
            continue;
        void *copy = malloc(l->filter->params_size);
        if (!copy) {
            d->count = i;
            free_draft(d, chain);
            return vkfx_fail(VKFX_E_NOMEM, "out of host memory");
        }
        memcpy(copy, l->params, l->filter->params_size);
        vkfx_params_scale_pixels(l->filter, copy, scale);
        d->links[i].params = copy;
    }
    *out = d;
    return VKFX_OK;
}

/* vkfx_preview_render (view false) or vkfx_preview_view, or with codec sending it to the
 * device a JPEG of the picture in *jpeg (then out's data stays NULL). */
static int render(vkfx_preview *p, const vkfx_chain *chain, uint32_t width, bool view,
                  vkfx_jpeg_codec codec, unsigned char **jpeg, size_t *jpeg_size,
                  vkfx_pixels *out, double *gpu_ms, const vkfx_cancel *cancel)
{
    int ret = VKFX_OK;
    vkfx_graph *g = NULL;
    vkfx_jpegenc *enc = NULL;
    input_size *in = NULL;
    vkfx_image *img = NULL, *final = NULL, *shown = NULL;
    vkfx_buffer *raw_out = NULL;
    void **states = NULL, **scale_states = NULL;
    vkfx_chain *scaler = NULL, *draft = NULL;
    const vkfx_chain *asked = chain;
    uint32_t w = capped_width(p, width), h = vkfx_preview_height(p, width);
    /* A chain that looks otherwise on a smaller grid (ripple) has no draft: its view. */
    if (vkfx_chain_grid_bound(chain))
        view = true;
    /* Sizes and offsets of a chain that reshapes the image (resize, crop) are in the input's
     * pixels: such a chain runs on the full-size input, and the page fits its result. A
     * view runs every chain there, so that its sizes are the saved file's. */
    if (view || vkfx_chain_reshapes(chain)) {
        w = p->in.width;
        h = p->in.height;
    }
    *gpu_ms = -1;
    *out = (vkfx_pixels){.straight = true};
    TRY(check_map_files(chain));
    TRY(vkfx_chain_size(chain, w, h, &out->width, &out->height));
    if (view)
        TRY(view_scaler(out->width, out->height, width, &scaler, &out->width, &out->height));
    vkfx_file_output_layout(VKFX_FILE_JPEG, p->in.channels, p->in.sample, &out->channels,
                            &out->sample);
    TRY(input_at(p, w, &in));
    if (!view && w < p->in.width) {
        TRY(draft_chain(chain, (double)w / p->in.width, &draft));
        chain = draft;
    }
    /* A view is worked at the precision Save's run takes, so that it is that file scaled. */
    VkFormat format = vkfx_internal_format(view ? vkfx_auto_precision(chain, &p->in) : 16);
    TRY(vkfx_graph_begin(p->ctx, w, h, format, true, &g));
    vkfx_graph_set_fast(g, p->fast);
    vkfx_graph_set_cancel(g, cancel);
    vkfx_graph_set_staging(g, p->staging);
    vkfx_graph_set_input_path(g, p->input_path);
    vkfx_graph_set_maps(g, p->maps);
    TRY(vkfx_graph_image(g, w, h, format, &img));
    TRY(vkfx_graph_buffer(g, (vkfx_pixels_bytes(out) + 3) & ~(VkDeviceSize)3, 0, &raw_out));
    TRY(vkfx_record_decode(g, in->raw, &in->layout, false, NULL, img));
    TRY(vkfx_record_chain(g, chain, img, &final, &states));
    shown = final;
    if (scaler)
        TRY(vkfx_record_chain(g, scaler, final, &shown, &scale_states));
    TRY(vkfx_record_encode(g, shown, out, false, raw_out));
    if (jpeg && vkfx_jpegenc_wanted(codec, vkfx_graph_caps(g)) &&
        vkfx_jpegenc_covers(out->width, out->height, out->channels, &vkfx_preview_jpeg,
                             vkfx_graph_caps(g)))
        TRY(vkfx_jpegenc_record(g, raw_out, out->width, out->height, out->channels,
                                 &vkfx_preview_jpeg, &enc));
    TRY(vkfx_graph_run(g));
    if (enc) {
        TRY(vkfx_jpegenc_finish(enc, p->staging, jpeg, jpeg_size));
    } else {
        TRY(vkfx_pixels_alloc(out, out->width, out->height, out->channels, out->sample));
        TRY(vkfx_staging_download(p->staging, raw_out->buffer, 0, out->data,
                                  vkfx_pixels_bytes(out)));
    }
    const vkfx_pass_time *times = NULL;
    uint32_t ntimes = 0;
    vkfx_graph_timings(g, &times, &ntimes);
    if (ntimes) {
        *gpu_ms = 0;
        for (uint32_t i = 0; i < ntimes; i++)
            *gpu_ms += times[i].ms;
    }
fail:
    vkfx_destroy_chain_states(g, scaler, scale_states);
    vkfx_destroy_chain_states(g, chain, states);
    vkfx_jpegenc_destroy(enc);
    vkfx_graph_destroy(g);
    vkfx_chain_free(scaler);
    free_draft(draft, asked);
    if (ret < 0)
        vkfx_pixels_free(out);
    return ret;
}

const vkfx_save_opts vkfx_preview_jpeg = {.jpeg_quality = 90,
                                          .jpeg_subsampling = VKFX_JPEG_SUBSAMPLING_420};

int vkfx_preview_render(vkfx_preview *p, const vkfx_chain *chain, uint32_t width, vkfx_pixels *out,
                        double *gpu_ms, const vkfx_cancel *cancel)
{
    return render(p, chain, width, false, VKFX_JPEG_CODEC_CPU, NULL, NULL, out, gpu_ms, cancel);
}

int vkfx_preview_view(vkfx_preview *p, const vkfx_chain *chain, uint32_t width, vkfx_pixels *out,
                      double *gpu_ms, const vkfx_cancel *cancel)
{
    return render(p, chain, width, true, VKFX_JPEG_CODEC_CPU, NULL, NULL, out, gpu_ms, cancel);
}

int vkfx_preview_render_jpeg(vkfx_preview *p, const vkfx_chain *chain, uint32_t width,
                             vkfx_jpeg_codec codec, unsigned char **jpeg, size_t *size,
                             vkfx_pixels *out, double *gpu_ms, const vkfx_cancel *cancel)
{
    *jpeg = NULL;
    *size = 0;
    return render(p, chain, width, false, codec, jpeg, size, out, gpu_ms, cancel);
}

int vkfx_preview_view_jpeg(vkfx_preview *p, const vkfx_chain *chain, uint32_t width,
                           vkfx_jpeg_codec codec, unsigned char **jpeg, size_t *size,
                           vkfx_pixels *out, double *gpu_ms, const vkfx_cancel *cancel)
{
    *jpeg = NULL;
    *size = 0;
    return render(p, chain, width, true, codec, jpeg, size, out, gpu_ms, cancel);
}

int vkfx_preview_focus(vkfx_preview *p, const vkfx_chain *chain, size_t i, uint32_t x, uint32_t y,
                       bool *has, double *focus)
{
    int ret = VKFX_OK;
    const vkfx_chain_link *link = &chain->links[i];
    const vkfx_coc_params *coc = vkfx_coc_of(link->filter, link->params);
    /* The page maps a click to the input's pixel by the picture's shape alone. */
    if (coc && vkfx_chain_reshapes(chain))
        return vkfx_fail(VKFX_E_USAGE,
                         "a click cannot find its pixel in a picture that the chain resizes, "
                         "crops or turns: set %s's focus by hand",
                         link->filter->name);
    float z = 0;
    const float *map = NULL;
    *has = coc != NULL;
    *focus = 0;
    if (!coc)
        return VKFX_OK;
    TRY(check_map_files(chain));
    TRY(vkfx_maps_value(p->maps, link->filter->name, "depth", coc->depth, x, y, &z));
    /* A hole (hole=V) is where the filter uses the filled value: its nearest known depth. */
    TRY(vkfx_maps_full(p->maps, link->filter->name, "depth", coc->depth, &map));
    z = vkfx_depth_filled(map, p->in.width, p->in.height, x, y, coc);
    *focus = vkfx_coc_depth(coc, z);
fail:
    return ret;
}

int vkfx_preview_depth_range(vkfx_preview *p, const vkfx_chain *chain, size_t i, bool *has,
                             double *lo, double *hi, bool *is_float)
{
    int ret = VKFX_OK;
    const float *map = NULL;
    const vkfx_chain_link *link = &chain->links[i];
    const vkfx_coc_params *coc = vkfx_coc_of(link->filter, link->params);
    *has = false;
    *is_float = false;
    *lo = *hi = 0;
    if (!coc)
        return VKFX_OK;
    TRY(check_map_files(chain));
    TRY(vkfx_maps_full(p->maps, link->filter->name, "depth", coc->depth, &map));
    /* Its header says: no second decode. */
    vkfx_sample sample = VKFX_SAMPLE_F32;
    if (strcmp(coc->depth, "self") != 0)
        TRY(vkfx_file_map_sample(coc->depth, &sample));
    *is_float = sample == VKFX_SAMPLE_F32;
    float hole = (float)coc->hole;
    for (size_t k = 0; k < (size_t)p->in.width * p->in.height; k++) {
        if ((coc->hole != VKFX_UNSET && map[k] == hole) || !isfinite(map[k]))
            continue;
        if (!*has || map[k] < *lo)
            *lo = map[k];
        if (!*has || map[k] > *hi)
            *hi = map[k];
        *has = true;
    }
fail:
    return ret;
}

int vkfx_preview_band(vkfx_preview *p, const vkfx_chain *chain, uint32_t width,
                      vkfx_pixels *out)
{
    int ret = VKFX_OK;
    const float *map = NULL;
    const vkfx_chain_link *link = NULL;
    const vkfx_coc_params *coc = NULL;
    *out = (vkfx_pixels){.straight = true};
    for (size_t i = 0; i < chain->count && !coc; i++) {
        link = &chain->links[i];
        coc = vkfx_coc_of(link->filter, link->params);
    }
    if (!coc)
        return vkfx_fail(VKFX_E_USAGE,
                         "no dof, satdof or bokeh in the chain: no in-focus band to show");
    if (vkfx_chain_reshapes(chain))
        return vkfx_fail(VKFX_E_USAGE, "the in-focus band is not shown on a picture that the "
                                       "chain resizes, crops or turns");
    TRY(check_map_files(chain));
    TRY(vkfx_maps_full(p->maps, link->filter->name, "depth", coc->depth, &map));
    uint32_t fw = p->in.width, fh = p->in.height;
    uint32_t w = capped_width(p, width), h = vkfx_preview_height(p, width);
    TRY(vkfx_pixels_alloc(out, w, h, 4, VKFX_SAMPLE_U8));
    float focus, inv_range, maxcoc;
    uint32_t disparity;
    vkfx_coc_push(coc, &focus, &inv_range, &maxcoc, &disparity);
    uint8_t *px = out->data;
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            uint32_t sx = (uint32_t)(((uint64_t)x * 2 + 1) * fw / (2 * (uint64_t)w));
            uint32_t sy = (uint32_t)(((uint64_t)y * 2 + 1) * fh / (2 * (uint64_t)h));
            float d = vkfx_coc_depth(coc, vkfx_depth_filled(map, fw, fh, sx, sy, coc));
            /* As glsl/coc.glsl, in float. */
            float t = fabsf(d - focus) * inv_range;
            float c = maxcoc * (t < 1 ? t : 1);
            static const uint8_t tint[4] = {255, 190, 0, 120}, none[4] = {0, 0, 0, 0};
            memcpy(px + ((size_t)y * w + x) * 4, c < 0.5f ? tint : none, 4);
        }
fail:
    if (ret < 0)
        vkfx_pixels_free(out);
    return ret;
}

int vkfx_preview_save(vkfx_preview *p, const vkfx_chain *chain, const char *path,
                      const vkfx_save_opts *save, const vkfx_cancel *cancel)
{
    int ret = VKFX_OK;
    vkfx_file_format fmt;
    vkfx_pixels out = {0};
    vkfx_run_result result = {0};
    TRY(check_map_files(chain));
    TRY(vkfx_file_format_for_output(path, &fmt));
    /* The precision a file run of the same command takes (--precision
     * auto), so that Save writes that run's bytes. */
    vkfx_run_opts opts = {
        .precision = vkfx_auto_precision(chain, &p->in),
        .fast = p->fast,
        .premultiplied_out = fmt == VKFX_FILE_EXR,
        .input_path = p->input_path,
        .maps = p->maps,
        .tone = p->tone,
        .cancel = cancel,
    };
    vkfx_save_opts with_meta = save ? *save : (vkfx_save_opts){0};
    if (!with_meta.meta)
        with_meta.meta = &p->meta;
    if (fmt == VKFX_FILE_JPEG) {
        opts.jpeg = &with_meta;
        opts.jpeg_codec = p->jpeg_codec;
    }
    vkfx_file_output_layout(fmt, p->in.channels, p->in.sample, &out.channels, &out.sample);
    TRY(vkfx_run(p->ctx, p->staging, chain, &p->in, &out, &opts, &result));
    if (result.jpeg)
        TRY(vkfx_file_save_encoded(path, -1, fmt, result.jpeg, result.jpeg_size, out.width,
                                   out.height, &with_meta));
    else
        TRY(vkfx_file_save(path, fmt, &out, &with_meta));
fail:
    free(result.times);
    free(result.jpeg);
    vkfx_pixels_free(&out);
    return ret;
}
