/* OpenEXR through OpenEXRCore's C API: scanline and tiled single-part
 * files, half, float and uint channels, every compression the library
 * reads. Colour is linear and premultiplied, as EXR defines it; the image is
 * the display window, with the data window's pixels placed in it and
 * transparent black where the data window does not reach. */
#include "exr.h"

#include <ctype.h>
#include <errno.h>
#include <openexr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "fileio.h"
#include "icc.h"

bool vkfx_exr_is(const void *data, size_t size)
{
    static const unsigned char magic[4] = {0x76, 0x2f, 0x31, 0x01};
    return size >= 4 && memcmp(data, magic, 4) == 0;
}

/* The text keys with a standard attribute; the date in EXIF's form. */
static const char *const exr_text_attrs[] = {"comments", "owner", "capDate"};
static const char *const exr_text_keys[] = {"Description", "Copyright", VKFX_META_DATE_KEY};
#define EXR_TEXTS (sizeof(exr_text_attrs) / sizeof(exr_text_attrs[0]))

unsigned vkfx_exr_meta_fits(const vkfx_meta *meta)
{
    /* linear colour needs no curve: a matrix profile is its primaries and white */
    double xy[8];
    unsigned kinds = VKFX_META_RES;
    if (meta && meta->icc.data && vkfx_icc_primaries(meta->icc.data, meta->icc.size, xy))
        kinds |= VKFX_META_ICC;
    return kinds | (vkfx_meta_fields_hold(meta, exr_text_keys, EXR_TEXTS) ? VKFX_META_TEXT : 0u);
}

/* ------------------------------------------------------------------------ */
/* Reading from memory */

typedef struct mem_stream {
    const unsigned char *data;
    size_t size;
    const char *name;
    char error[256]; /* the library's last message */
} mem_stream;

static int64_t mem_read(exr_const_context_t ctxt, void *user, void *buffer, uint64_t sz,
                        uint64_t offset, exr_stream_error_func_ptr_t error_cb)
{
    (void)ctxt;
    (void)error_cb;
    const mem_stream *m = user;
    if (offset >= m->size)
        return 0;
    uint64_t n = m->size - offset < sz ? m->size - offset : sz;
    memcpy(buffer, m->data + offset, (size_t)n);
    return (int64_t)n;
}

static int64_t mem_size(exr_const_context_t ctxt, void *user)
{
    (void)ctxt;
    return (int64_t)((const mem_stream *)user)->size;
}

static void keep_error(exr_const_context_t ctxt, exr_result_t code, const char *msg)
{
    void *user = NULL;
    if (exr_get_user_data(ctxt, &user) == EXR_ERR_SUCCESS && user) {
        mem_stream *m = user;
        snprintf(m->error, sizeof(m->error), "%s", msg ? msg : exr_get_default_error_message(code));
    }
}

static int exr_error(const mem_stream *m, exr_result_t rv, const char *what)
{
    const char *detail = m->error[0] ? m->error : exr_get_default_error_message(rv);
    if (rv == EXR_ERR_OUT_OF_MEMORY)
        return vkfx_fail(VKFX_E_NOMEM, "%s: out of host memory %s", m->name, what);
    return vkfx_fail(VKFX_E_FORMAT, "%s: corrupt or unsupported OpenEXR file (%s: %s)", m->name,
                     what, detail);
}

#define EXR_TRY(call, what)                                                                        \
    do {                                                                                           \
        exr_result_t exr_try_rv_ = (call);                                                         \
        if (exr_try_rv_ != EXR_ERR_SUCCESS) {                                                      \
            ret = exr_error(m, exr_try_rv_, what);                                                 \
            goto fail;                                                                             \
        }                                                                                          \
    } while (0)

/* An opened file's one part, checked: scanline or tiled, not deep, no
 * subsampled channels, sizes within what vkfx handles. */
typedef struct exr_file {
    exr_context_t ctxt;
    exr_storage_t storage;
    exr_attr_box2i_t data, display;
    const exr_attr_chlist_t *channels;
} exr_file;

/* OpenEXRCore keeps a part's channels in a list sorted as it reads each
 * one, comparing it with those before, so a header of 65536 channels takes
 * half a minute to read. Files with a few hundred channels (render passes)
 * are common; thousands are not. */
#define EXR_MAX_CHANNELS 4096

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Counts the channels of every part's chlist attribute before the library
 * reads them; anything malformed is left for the library to report. */
static int check_channel_lists(const mem_stream *m)
{
    const unsigned char *d = m->data;
    size_t n = m->size, at = 8;
    if (n < 8)
        return VKFX_OK;
    bool multipart = le32(d + 4) & 0x1000;
    while (at < n) {
        if (!d[at]) { /* the end of a header; a second NUL ends a multi-part file's */
            if (!multipart || ++at >= n || !d[at])
                return VKFX_OK;
            continue;
        }
        const unsigned char *name = d + at, *end = memchr(name, 0, n - at);
        const unsigned char *type = end ? end + 1 : NULL;
        end = type && type < d + n ? memchr(type, 0, (size_t)(d + n - type)) : NULL;
        if (!end || (size_t)(d + n - end) < 5)
            return VKFX_OK;
        uint32_t len = le32(end + 1);
        size_t value = (size_t)(end + 5 - d);
        if (len > n - value)
            return VKFX_OK;
        if (!strcmp((const char *)type, "chlist")) {
            size_t count = 0;
            for (size_t p = value; p < value + len && d[p] && count <= EXR_MAX_CHANNELS; count++) {
                const unsigned char *nul = memchr(d + p, 0, value + len - p);
                if (!nul)
                    break;
                p = (size_t)(nul - d) + 1 + 16; /* pixel type, linear, reserved, sampling */
            }
            if (count > EXR_MAX_CHANNELS)
                return vkfx_fail(VKFX_E_LIMIT,
                                 "%s: an OpenEXR part with more than %d channels; vkfx reads at "
                                 "most %d",
                                 m->name, EXR_MAX_CHANNELS, EXR_MAX_CHANNELS);
        }
        at = value + len;
    }
    return VKFX_OK;
}

/* A context reading m's header, errors kept in m. */
static int start_read(mem_stream *m, exr_context_t *ctxt)
{
    int ret = check_channel_lists(m);
    if (ret < 0)
        return ret;
    exr_context_initializer_t init = EXR_DEFAULT_CONTEXT_INITIALIZER;
    init.user_data = m;
    init.read_fn = mem_read;
    init.size_fn = mem_size;
    init.error_handler_fn = keep_error;
    exr_result_t rv = exr_start_read(ctxt, m->name, &init);
    return rv == EXR_ERR_SUCCESS ? VKFX_OK : exr_error(m, rv, "reading the header");
}

static int open_file(mem_stream *m, exr_file *f)
{
    int ret = VKFX_OK;
    memset(f, 0, sizeof(*f));
    if ((ret = start_read(m, &f->ctxt)) < 0)
        goto fail;
    int parts = 0;
    EXR_TRY(exr_get_count(f->ctxt, &parts), "counting parts");
    EXR_TRY(exr_get_storage(f->ctxt, 0, &f->storage), "reading the storage type");
    if (f->storage != EXR_STORAGE_SCANLINE && f->storage != EXR_STORAGE_TILED) {
        ret = vkfx_fail(VKFX_E_FORMAT, "%s: deep OpenEXR data is not supported", m->name);
        goto fail;
    }
    EXR_TRY(exr_get_data_window(f->ctxt, 0, &f->data), "reading the data window");
    EXR_TRY(exr_get_display_window(f->ctxt, 0, &f->display), "reading the display window");
    EXR_TRY(exr_get_channels(f->ctxt, 0, &f->channels), "reading the channel list");
    for (int i = 0; i < f->channels->num_channels; i++)
        if (f->channels->entries[i].x_sampling != 1 || f->channels->entries[i].y_sampling != 1) {
            ret = vkfx_fail(VKFX_E_FORMAT, "%s: channel %s is subsampled (%dx%d); not supported",
                            m->name, f->channels->entries[i].name.str,
                            f->channels->entries[i].x_sampling, f->channels->entries[i].y_sampling);
            goto fail;
        }
    int64_t dw = (int64_t)f->display.max.x - f->display.min.x + 1;
    int64_t dh = (int64_t)f->display.max.y - f->display.min.y + 1;
    if (dw < 1 || dh < 1 || dw > 1 << 20 || dh > 1 << 20) {
        ret = vkfx_fail(VKFX_E_FORMAT, "%s: display window of %lldx%lld pixels is not supported",
                        m->name, (long long)dw, (long long)dh);
        goto fail;
    }
    int64_t ww = (int64_t)f->data.max.x - f->data.min.x + 1;
    int64_t wh = (int64_t)f->data.max.y - f->data.min.y + 1;
    if ((uint64_t)(dw * dh) > vkfx_file_max_pixels()) {
        ret = vkfx_fail_pixels(m->name, (uint64_t)dw, (uint64_t)dh);
        goto fail;
    }
    if (ww > 0 && wh > 0 && (uint64_t)ww * (uint64_t)wh > vkfx_file_max_pixels()) {
        ret = vkfx_fail_pixels(m->name, (uint64_t)ww, (uint64_t)wh);
        goto fail;
    }
    /* Every channel is decoded to a float plane of the data window: all of
     * them together may take what four channels of the limit would. */
    uint64_t planes = (uint64_t)(f->channels->num_channels > 0 ? f->channels->num_channels : 1);
    if (ww > 0 && wh > 0 && planes * (uint64_t)ww * (uint64_t)wh > 4 * vkfx_file_max_pixels()) {
        ret = vkfx_fail(VKFX_E_LIMIT,
                        "%s: %llu channels of %lldx%lld pixels need %llu float samples, more "
                        "than --max-pixels %llu allows (4 a pixel)",
                        m->name, (unsigned long long)planes, (long long)ww, (long long)wh,
                        (unsigned long long)(planes * (uint64_t)ww * (uint64_t)wh),
                        (unsigned long long)vkfx_file_max_pixels());
        goto fail;
    }
    (void)parts;
    return VKFX_OK;
fail:
    exr_finish(&f->ctxt);
    return ret;
}

/* The channel named name, or -1. */
static int find_channel(const exr_attr_chlist_t *list, const char *name)
{
    for (int i = 0; i < list->num_channels; i++)
        if (strcmp(list->entries[i].name.str, name) == 0)
            return i;
    return -1;
}

static int corrupt_block(const mem_stream *m, const exr_file *f, int64_t x, int64_t y)
{
    exr_compression_t c = EXR_COMPRESSION_NONE;
    static const char *const names[] = {"uncompressed", "RLE",   "ZIPS", "ZIP",  "PIZ",
                                        "PXR24",        "B44",   "B44A", "DWAA", "DWAB"};
    exr_get_compression(f->ctxt, 0, &c);
    const char *name = (unsigned)c < sizeof(names) / sizeof(names[0]) ? names[c] : "compressed";
    return vkfx_fail(VKFX_E_FORMAT,
                     "%s: corrupt OpenEXR file (the %s block at %lld,%lld of the data window "
                     "does not decode)",
                     m->name, name, (long long)x, (long long)y);
}

/* How the data window is cut into chunks: nx x ny tiles of tw x th, or ny
 * blocks of lines scanlines. */
typedef struct chunk_grid {
    int32_t nx, ny, tw, th, lines;
} chunk_grid;

static int grid_of(mem_stream *m, exr_file *f, chunk_grid *g)
{
    int ret = VKFX_OK;
    int64_t DW = (int64_t)f->data.max.x - f->data.min.x + 1;
    int64_t DH = (int64_t)f->data.max.y - f->data.min.y + 1;
    *g = (chunk_grid){.nx = 1};
    if (f->storage == EXR_STORAGE_TILED) {
        int32_t lw = 0, lh = 0;
        EXR_TRY(exr_get_tile_sizes(f->ctxt, 0, 0, 0, &g->tw, &g->th), "reading tile sizes");
        EXR_TRY(exr_get_level_sizes(f->ctxt, 0, 0, 0, &lw, &lh), "reading the level size");
        if (g->tw < 1 || g->th < 1 || lw != DW || lh != DH) {
            ret = vkfx_fail(VKFX_E_FORMAT, "%s: corrupt OpenEXR tile description", m->name);
            goto fail;
        }
        g->nx = (lw + g->tw - 1) / g->tw;
        g->ny = (lh + g->th - 1) / g->th;
    } else {
        EXR_TRY(exr_get_scanlines_per_chunk(f->ctxt, 0, &g->lines), "reading lines per chunk");
        if (g->lines < 1) {
            ret = vkfx_fail(VKFX_E_FORMAT, "%s: corrupt OpenEXR file (%d lines a block)", m->name,
                            (int)g->lines);
            goto fail;
        }
        g->ny = (int32_t)((DH + g->lines - 1) / g->lines);
    }
fail:
    return ret;
}

/* The chunk at (tx, ty) of the grid, which must lie in the file. */
static int read_chunk(mem_stream *m, exr_file *f, const chunk_grid *g, int32_t tx, int32_t ty,
                      exr_chunk_info_t *ci)
{
    int ret = VKFX_OK;
    if (f->storage == EXR_STORAGE_TILED)
        EXR_TRY(exr_read_tile_chunk_info(f->ctxt, 0, tx, ty, 0, 0, ci), "reading a tile");
    else
        EXR_TRY(exr_read_scanline_chunk_info(f->ctxt, 0, f->data.min.y + ty * g->lines, ci),
                "reading a scanline block");
    if (ci->data_offset > m->size || ci->packed_size > m->size - ci->data_offset)
        ret = vkfx_fail(VKFX_E_FORMAT,
                        "%s: corrupt OpenEXR file (a block of %llu bytes at %llu runs past the "
                        "end, %zu bytes)",
                        m->name, (unsigned long long)ci->packed_size,
                        (unsigned long long)ci->data_offset, m->size);
fail:
    return ret;
}

/* The chunk table, checked before any memory is taken for pixels: it must
 * fit in the file, and each block it points at must lie in it. A file of a few hundred bytes declaring a large tiled
 * image fails here, not after gigabytes were allocated and zeroed. */
static int check_chunks(mem_stream *m, exr_file *f)
{
    int ret = VKFX_OK;
    int64_t DW = (int64_t)f->data.max.x - f->data.min.x + 1;
    int64_t DH = (int64_t)f->data.max.y - f->data.min.y + 1;
    if (DW < 1 || DH < 1)
        return VKFX_OK;
    int32_t chunks = 0;
    EXR_TRY(exr_get_chunk_count(f->ctxt, 0, &chunks), "counting chunks");
    if (chunks < 1 || (uint64_t)chunks * 8 > m->size) {
        ret = vkfx_fail(VKFX_E_FORMAT,
                        "%s: corrupt OpenEXR file (a table of %d chunks does not fit in its %zu "
                        "bytes)",
                        m->name, (int)chunks, m->size);
        goto fail;
    }
    chunk_grid g;
    TRY(grid_of(m, f, &g));
    for (int32_t ty = 0; ty < g.ny; ty++)
        for (int32_t tx = 0; tx < g.nx; tx++) {
            exr_chunk_info_t ci;
            TRY(read_chunk(m, f, &g, tx, ty, &ci));
        }
fail:
    return ret;
}

/* Decodes channels want[0..n) (indices into the channel list, -1 for a
 * channel the file lacks, filled with fill[k]) into out: display-window
 * sized, n floats per pixel; pixels outside the data window are 0. */
static int decode(mem_stream *m, exr_file *f, const int *want, const float *fill, int n, float *out)
{
    int ret = VKFX_OK;
    exr_decode_pipeline_t dec = EXR_DECODE_PIPELINE_INITIALIZER;
    bool dec_init = false;
    int64_t W = (int64_t)f->display.max.x - f->display.min.x + 1;
    int64_t H = (int64_t)f->display.max.y - f->display.min.y + 1;
    int64_t DW = (int64_t)f->data.max.x - f->data.min.x + 1;
    int64_t DH = (int64_t)f->data.max.y - f->data.min.y + 1;
    float *data = NULL;
    for (int64_t i = 0; i < W * H; i++)
        for (int k = 0; k < n; k++)
            out[i * n + k] = 0;
    if (DW < 1 || DH < 1)
        return VKFX_OK; /* an empty data window: nothing stored */
    /* Planes, one per channel of the file, every channel decoded: the
     * library's interleaving fast paths assume the file's channel order, and
     * version 3.1.5 writes through the pointer of a channel left out. */
    int nc = f->channels->num_channels;
    if ((uint64_t)DW * (uint64_t)DH > ((uint64_t)1 << 32) / (uint64_t)(nc ? nc : 1)) {
        ret = vkfx_fail(VKFX_E_FORMAT, "%s: data window of %lldx%lld pixels is too large", m->name,
                        (long long)DW, (long long)DH);
        goto fail;
    }
    data = calloc((size_t)(DW * DH * (nc ? nc : 1)), sizeof(*data));
    if (!data) {
        ret = vkfx_fail(VKFX_E_NOMEM, "%s: out of host memory", m->name);
        goto fail;
    }

    chunk_grid g;
    TRY(grid_of(m, f, &g));
    for (int32_t ty = 0; ty < g.ny; ty++)
        for (int32_t tx = 0; tx < g.nx; tx++) {
            exr_chunk_info_t ci;
            TRY(read_chunk(m, f, &g, tx, ty, &ci));
            /* Chunk origins: tiles by tile index, scanline blocks by pixel. */
            int64_t x0 = f->storage == EXR_STORAGE_TILED ? (int64_t)tx * g.tw : 0;
            int64_t y0 = f->storage == EXR_STORAGE_TILED ? (int64_t)ty * g.th
                                                         : (int64_t)ci.start_y - f->data.min.y;
            if (x0 < 0 || y0 < 0 || x0 + ci.width > DW || y0 + ci.height > DH) {
                ret = vkfx_fail(VKFX_E_FORMAT,
                                "%s: corrupt OpenEXR file (a block lies outside "
                                "the data window)",
                                m->name);
                goto fail;
            }
            /* A fresh pipeline per block: blocks differ in size and packing. */
            if (dec_init) {
                exr_decoding_destroy(f->ctxt, &dec);
                dec_init = false;
            }
            dec = (exr_decode_pipeline_t)EXR_DECODE_PIPELINE_INITIALIZER;
            EXR_TRY(exr_decoding_initialize(f->ctxt, 0, &ci, &dec), "starting to decode");
            dec_init = true;
            for (int c = 0; c < dec.channel_count; c++) {
                exr_coding_channel_info_t *ch = &dec.channels[c];
                int plane = find_channel(f->channels, ch->channel_name);
                if (plane < 0) {
                    ret = vkfx_fail(VKFX_E_FORMAT, "%s: corrupt OpenEXR block (channel %s)",
                                    m->name, ch->channel_name);
                    goto fail;
                }
                ch->decode_to_ptr = (uint8_t *)(data + plane * DW * DH + y0 * DW + x0);
                ch->user_pixel_stride = (int32_t)sizeof(float);
                ch->user_line_stride = (int32_t)(DW * sizeof(float));
                ch->user_bytes_per_element = sizeof(float);
                ch->user_data_type = EXR_PIXEL_FLOAT;
            }
            EXR_TRY(exr_decoding_choose_default_routines(f->ctxt, 0, &dec), "decoding");
            exr_result_t rv = exr_decoding_run(f->ctxt, 0, &dec);
            /* Blocks are small and their sizes checked; the library reports
             * some corrupt compressed data (B44) as out of memory. */
            if (rv == EXR_ERR_OUT_OF_MEMORY) {
                ret = corrupt_block(m, f, x0, y0);
                goto fail;
            }
            EXR_TRY(rv, "decoding pixels");
        }
    /* Place the data window in the display window. */
    for (int64_t y = 0; y < H; y++) {
        int64_t sy = y + f->display.min.y - f->data.min.y;
        if (sy < 0 || sy >= DH)
            continue;
        for (int64_t x = 0; x < W; x++) {
            int64_t sx = x + f->display.min.x - f->data.min.x;
            if (sx < 0 || sx >= DW)
                continue;
            for (int k = 0; k < n; k++)
                out[(y * W + x) * n + k] =
                    want[k] < 0 ? fill[k] : data[want[k] * DW * DH + sy * DW + sx];
        }
    }
fail:
    if (dec_init)
        exr_decoding_destroy(f->ctxt, &dec);
    free(data);
    return ret;
}

/* The display window's pixels of channels want[0..n) as F32, linear. */
static int decode_pixels(mem_stream *m, exr_file *f, const int *want, const float *fill, uint32_t n,
                         bool straight, vkfx_pixels *out)
{
    uint32_t w = (uint32_t)(f->display.max.x - f->display.min.x + 1);
    uint32_t h = (uint32_t)(f->display.max.y - f->display.min.y + 1);
    out->linear = true;
    out->straight = straight;
    int ret = check_chunks(m, f);
    if (ret == VKFX_OK)
        ret = vkfx_pixels_alloc(out, w, h, n, VKFX_SAMPLE_F32);
    if (ret == VKFX_OK)
        ret = decode(m, f, want, fill, (int)n, out->data);
    if (ret < 0)
        vkfx_pixels_free(out);
    return ret;
}

/* The channel of a layer: "R" itself, else the first "<layer>.R". */
static int find_layered(const exr_attr_chlist_t *list, const char *prefix, const char *c)
{
    char name[512];
    snprintf(name, sizeof(name), "%s%s", prefix, c);
    return find_channel(list, name);
}

/* The prefix ("" or "layer.") of the first R, G, B or Y channel found. */
static void colour_prefix(const exr_attr_chlist_t *list, char *prefix, size_t size)
{
    prefix[0] = 0;
    if (find_channel(list, "R") >= 0 || find_channel(list, "Y") >= 0)
        return;
    for (int i = 0; i < list->num_channels; i++) {
        const char *s = list->entries[i].name.str;
        const char *dot = strrchr(s, '.');
        if (dot && (strcmp(dot, ".R") == 0 || strcmp(dot, ".Y") == 0)) {
            snprintf(prefix, size, "%.*s", (int)(dot - s + 1), s);
            return;
        }
    }
}

static void list_channels(const exr_attr_chlist_t *list, char *buf, size_t size)
{
    buf[0] = 0;
    size_t used = 0;
    for (int i = 0; i < list->num_channels && used + 1 < size; i++)
        used += (size_t)snprintf(buf + used, size - used, "%s%s", i ? ", " : "",
                                 list->entries[i].name.str);
    if (list->num_channels == 0)
        snprintf(buf, size, "none");
}

/* The channels of f that hold the colour into want (n of them, -1 where
 * missing), from their names. */
static int colour_channels(const exr_file *f, const char *name, int want[4], uint32_t *n)
{
    char prefix[256];
    colour_prefix(f->channels, prefix, sizeof(prefix));
    int r = find_layered(f->channels, prefix, "R"), g = find_layered(f->channels, prefix, "G");
    int b = find_layered(f->channels, prefix, "B"), a = find_layered(f->channels, prefix, "A");
    int y = find_layered(f->channels, prefix, "Y");
    if (r >= 0 || g >= 0 || b >= 0) {
        /* RGB with any missing colour channel 0. */
        want[0] = r, want[1] = g, want[2] = b, want[3] = a;
        *n = a >= 0 ? 4 : 3;
    } else if (y >= 0) {
        want[0] = y, want[1] = a;
        *n = a >= 0 ? 2 : 1;
    } else {
        char names[512];
        list_channels(f->channels, names, sizeof(names));
        return vkfx_fail(VKFX_E_FORMAT,
                         "%s: no colour channels (R, G, B or Y, optionally with a layer prefix); "
                         "the file has: %s",
                         name, names);
    }
    return VKFX_OK;
}

int vkfx_exr_load_memory(const void *data, size_t size, const char *name, vkfx_pixels *out)
{
    mem_stream m = {data, size, name, {0}};
    exr_file f;
    out->data = NULL;
    int ret = open_file(&m, &f);
    if (ret < 0)
        return ret;
    int want[4];
    float fill[4] = {0, 0, 0, 1};
    uint32_t n;
    ret = colour_channels(&f, name, want, &n);
    if (ret == VKFX_OK)
        ret = decode_pixels(&m, &f, want, fill, n, false /* EXR colour is premultiplied */, out);
    exr_finish(&f.ctxt);
    return ret;
}

int vkfx_exr_probe_memory(const void *data, size_t size, const char *name, uint32_t *width,
                          uint32_t *height, uint32_t *channels)
{
    mem_stream m = {data, size, name, {0}};
    exr_file f;
    int ret = open_file(&m, &f);
    if (ret < 0)
        return ret;
    int want[4];
    ret = colour_channels(&f, name, want, channels);
    *width = (uint32_t)((int64_t)f.display.max.x - f.display.min.x + 1);
    *height = (uint32_t)((int64_t)f.display.max.y - f.display.min.y + 1);
    exr_finish(&f.ctxt);
    return ret;
}

/* depth=FILE picks Z, else a channel whose last component is Z, else one
 * whose name contains "depth" (any case). */
static int auto_depth(const exr_attr_chlist_t *list)
{
    int i = find_channel(list, "Z");
    if (i >= 0)
        return i;
    for (i = 0; i < list->num_channels; i++) {
        const char *dot = strrchr(list->entries[i].name.str, '.');
        if (dot && strcmp(dot + 1, "Z") == 0)
            return i;
    }
    for (i = 0; i < list->num_channels; i++) {
        const char *s = list->entries[i].name.str;
        for (const char *p = s; *p; p++)
            if (strncasecmp(p, "depth", 5) == 0)
                return i;
    }
    return -1;
}

int vkfx_exr_load_channel_memory(const void *data, size_t size, const char *name,
                                 const char *channel, vkfx_pixels *out)
{
    int ret = VKFX_OK;
    mem_stream m = {data, size, name, {0}};
    exr_file f;
    out->data = NULL;
    ret = open_file(&m, &f);
    if (ret < 0)
        return ret;
    int want = channel ? find_channel(f.channels, channel) : auto_depth(f.channels);
    if (want < 0) {
        char names[512];
        list_channels(f.channels, names, sizeof(names));
        if (channel)
            ret = vkfx_fail(VKFX_E_USAGE, "%s has no channel '%s'; its channels: %s", name, channel,
                            names);
        else
            ret = vkfx_fail(VKFX_E_USAGE,
                            "%s has no depth channel (Z, *.Z or a name containing 'depth'); its "
                            "channels: %s; name one with %s#CHANNEL",
                            name, names, name);
        goto done;
    }
    float fill = 0;
    ret = decode_pixels(&m, &f, &want, &fill, 1, true, out);
done:
    exr_finish(&f.ctxt);
    return ret;
}

int vkfx_exr_read_meta(const void *data, size_t size, const char *name, vkfx_meta *meta)
{
    int ret = VKFX_OK;
    mem_stream ms = {data, size, name, {0}};
    mem_stream *m = &ms;
    exr_context_t ctxt = NULL;
    if ((ret = start_read(m, &ctxt)) < 0)
        goto fail;
    for (size_t i = 0; ret == VKFX_OK && i < EXR_TEXTS; i++) {
        int32_t len = 0;
        const char *s = NULL;
        if (exr_attr_get_string(ctxt, 0, exr_text_attrs[i], &len, &s) == EXR_ERR_SUCCESS && s &&
            len > 0)
            ret = vkfx_meta_add_field(meta, exr_text_keys[i], s, strnlen(s, (size_t)len));
    }
    float density = 0, aspect = 1;
    if (ret == VKFX_OK && exr_attr_get_float(ctxt, 0, "xDensity", &density) == EXR_ERR_SUCCESS &&
        exr_get_pixel_aspect_ratio(ctxt, 0, &aspect) == EXR_ERR_SUCCESS && density > 0 &&
        density < 1e9f && aspect > 1e-6f && aspect < 1e6f) {
        meta->has_res = true;
        meta->res_unit = VKFX_RES_PER_INCH;
        meta->res_x = density;
        meta->res_y = (double)density * aspect;
    }
    exr_attr_chromaticities_t c;
    if (ret == VKFX_OK &&
        exr_attr_get_chromaticities(ctxt, 0, "chromaticities", &c) == EXR_ERR_SUCCESS) {
        const double xy[8] = {c.red_x, c.red_y, c.green_x, c.green_y,
                              c.blue_x, c.blue_y, c.white_x, c.white_y};
        ret = vkfx_icc_from_primaries(xy, name, &meta->icc);
    }
fail:
    if (ctxt)
        exr_finish(&ctxt);
    return ret;
}

/* meta's attributes (vkfx_exr_read_meta) into the part's header. */
static exr_result_t put_meta(exr_context_t ctxt, int part, const vkfx_meta *meta)
{
    exr_result_t rv = EXR_ERR_SUCCESS;
    for (uint32_t i = 0; rv == EXR_ERR_SUCCESS && i < meta->ntexts; i++) {
        const char *v;
        char date[20];
        int k = vkfx_meta_field_of(&meta->texts[i], exr_text_keys, EXR_TEXTS, &v, date);
        if (k >= 0)
            rv = exr_attr_set_string(ctxt, part, exr_text_attrs[k], v);
    }
    if (rv == EXR_ERR_SUCCESS && meta->has_res && meta->res_unit != VKFX_RES_NONE &&
        meta->res_x > 0 && meta->res_y > 0) {
        double per_inch = meta->res_unit == VKFX_RES_PER_CM ? 2.54 : 1;
        rv = exr_attr_set_float(ctxt, part, "xDensity", (float)(meta->res_x * per_inch));
        if (rv == EXR_ERR_SUCCESS)
            rv = exr_set_pixel_aspect_ratio(ctxt, part, (float)(meta->res_y / meta->res_x));
    }
    double xy[8];
    if (rv == EXR_ERR_SUCCESS && meta->icc.data &&
        vkfx_icc_primaries(meta->icc.data, meta->icc.size, xy)) {
        exr_attr_chromaticities_t c = {(float)xy[0], (float)xy[1], (float)xy[2], (float)xy[3],
                                       (float)xy[4], (float)xy[5], (float)xy[6], (float)xy[7]};
        rv = exr_attr_set_chromaticities(ctxt, part, "chromaticities", &c);
    }
    return rv;
}

/* ------------------------------------------------------------------------ */
/* Writing */

typedef struct file_stream {
    int fd;
    const char *name;
    char error[256];
    int write_errno; /* why a write failed: the reason OpenEXRCore's own message leaves out */
} file_stream;

static int64_t file_write(exr_const_context_t ctxt, void *user, const void *buffer, uint64_t sz,
                          uint64_t offset, exr_stream_error_func_ptr_t error_cb)
{
    (void)ctxt;
    (void)error_cb;
    file_stream *s = user;
    const unsigned char *p = buffer;
    uint64_t done = 0;
    while (done < sz) {
        ssize_t n = pwrite(s->fd, p + done, (size_t)(sz - done), (off_t)(offset + done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            s->write_errno = n < 0 ? errno : EIO;
            return -1;
        }
        done += (uint64_t)n;
    }
    return (int64_t)done;
}

static void keep_write_error(exr_const_context_t ctxt, exr_result_t code, const char *msg)
{
    void *user = NULL;
    if (exr_get_user_data(ctxt, &user) == EXR_ERR_SUCCESS && user) {
        file_stream *s = user;
        snprintf(s->error, sizeof(s->error), "%s", msg ? msg : exr_get_default_error_message(code));
    }
}

#define EXR_WTRY(call, what)                                                                       \
    do {                                                                                           \
        exr_result_t exr_try_rv_ = (call);                                                         \
        if (exr_try_rv_ != EXR_ERR_SUCCESS) {                                                      \
            ret = vkfx_fail(exr_try_rv_ == EXR_ERR_OUT_OF_MEMORY ? VKFX_E_NOMEM : VKFX_E_IO,       \
                            "%s: writing OpenEXR (%s): %s", s.name, what,                          \
                            s.write_errno  ? strerror(s.write_errno)                               \
                            : s.error[0] ? s.error                                                 \
                                         : exr_get_default_error_message(exr_try_rv_));            \
            goto fail;                                                                             \
        }                                                                                          \
    } while (0)

int vkfx_exr_write(int fd, const char *name, const vkfx_pixels *px, const vkfx_exr_opts *opts)
{
    int ret = VKFX_OK;
    file_stream s = {.fd = fd, .name = name};
    exr_context_t ctxt = NULL;
    exr_encode_pipeline_t enc = EXR_ENCODE_PIPELINE_INITIALIZER;
    bool enc_init = false;
    float *planes = NULL;
    static const char *const names[4][4] = {
        {"Y"}, {"Y", "A"}, {"R", "G", "B"}, {"R", "G", "B", "A"}};
    uint32_t n = px->channels;
    bool half = !opts || !opts->float_samples;
    exr_context_initializer_t init = EXR_DEFAULT_CONTEXT_INITIALIZER;
    init.user_data = &s;
    init.write_fn = file_write;
    init.error_handler_fn = keep_write_error;
    if (px->sample != VKFX_SAMPLE_F32 || n < 1 || n > 4)
        return vkfx_fail(VKFX_E_USAGE, "%s: OpenEXR output takes 1-4 float channels", name);
    if (px->width > INT32_MAX || px->height > INT32_MAX)
        return vkfx_fail(VKFX_E_LIMIT, "%s: too large for OpenEXR", name);
    EXR_WTRY(exr_start_write(&ctxt, name, EXR_WRITE_FILE_DIRECTLY, &init), "starting");
    int part = 0;
    EXR_WTRY(exr_add_part(ctxt, "", EXR_STORAGE_SCANLINE, &part), "adding the part");
    EXR_WTRY(exr_initialize_required_attr_simple(ctxt, part, (int32_t)px->width,
                                                 (int32_t)px->height, EXR_COMPRESSION_ZIP),
             "writing the header attributes");
    /* The channel list is sorted by name in the file; add in that order. */
    static const int order[4][4] = {{0}, {1, 0}, {2, 1, 0}, {3, 2, 1, 0}};
    for (uint32_t i = 0; i < n; i++) {
        int c = order[n - 1][i];
        EXR_WTRY(exr_add_channel(ctxt, part, names[n - 1][c],
                                 half ? EXR_PIXEL_HALF : EXR_PIXEL_FLOAT, EXR_PERCEPTUALLY_LINEAR,
                                 1, 1),
                 "adding a channel");
    }
    if (opts && opts->meta)
        EXR_WTRY(put_meta(ctxt, part, opts->meta), "writing the metadata attributes");
    EXR_WTRY(exr_write_header(ctxt), "writing the header");
    int32_t lines = 0;
    EXR_WTRY(exr_get_scanlines_per_chunk(ctxt, part, &lines), "reading lines per chunk");
    /* Planes, one per channel (see decode). */
    size_t npx = (size_t)px->width * px->height;
    planes = malloc(npx * n * sizeof(*planes));
    if (!planes) {
        ret = vkfx_fail(VKFX_E_NOMEM, "%s: out of host memory", name);
        goto fail;
    }
    for (size_t i = 0; i < npx; i++)
        for (uint32_t k = 0; k < n; k++)
            planes[k * npx + i] = ((const float *)px->data)[i * n + k];
    for (int32_t y = 0; y < (int32_t)px->height; y += lines) {
        exr_chunk_info_t ci;
        EXR_WTRY(exr_write_scanline_chunk_info(ctxt, part, y, &ci), "starting a block");
        if (!enc_init) {
            EXR_WTRY(exr_encoding_initialize(ctxt, part, &ci, &enc), "starting to encode");
            enc_init = true;
        } else {
            EXR_WTRY(exr_encoding_update(ctxt, part, &ci, &enc), "encoding");
        }
        for (int c = 0; c < enc.channel_count; c++) {
            exr_coding_channel_info_t *ch = &enc.channels[c];
            uint32_t k = 0;
            while (k < n && strcmp(ch->channel_name, names[n - 1][k]) != 0)
                k++;
            ch->encode_from_ptr = (const uint8_t *)(planes + k * npx + (size_t)y * px->width);
            ch->user_pixel_stride = (int32_t)sizeof(float);
            ch->user_line_stride = (int32_t)(px->width * sizeof(float));
            ch->user_bytes_per_element = sizeof(float);
            ch->user_data_type = EXR_PIXEL_FLOAT;
        }
        EXR_WTRY(exr_encoding_choose_default_routines(ctxt, part, &enc), "encoding");
        EXR_WTRY(exr_encoding_run(ctxt, part, &enc), "encoding pixels");
    }
fail:
    if (enc_init)
        exr_encoding_destroy(ctxt, &enc);
    if (ctxt) {
        exr_result_t rv = exr_finish(&ctxt);
        if (ret == VKFX_OK && rv != EXR_ERR_SUCCESS)
            ret = vkfx_fail(VKFX_E_IO, "%s: finishing the OpenEXR file: %s", name,
                            s.write_errno ? strerror(s.write_errno)
                                          : exr_get_default_error_message(rv));
    }
    free(planes);
    return ret;
}
