/* PNG: read through libpng (8/16-bit gray, gray+alpha, RGB, RGBA, palette,
 * low-bit gray expanded to 8 bits); written through libdeflate
 * (core/io/pngwrite.c), or streamed through libpng where the image is too
 * large to hold encoded in memory. */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include <png.h>

#include "error.h"
#include "pngwrite.h"
#include "codec.h"
#include "png_meta.h"

/* One struct carries all libpng state so that nothing the setjmp function
 * needs after a longjmp lives in its own (clobberable) locals. */
struct png_ctx {
    png_structp png;
    png_infop info;
    png_bytep *rows;
    vkfx_pixels px;
    /* reading from memory */
    const unsigned char *data;
    size_t size, pos;
    /* writing to a stream */
    FILE *file;
    int write_errno;
    char msg[256];
    int level;       /* zlib level when writing */
    bool over_limit; /* the header declared more pixels than the limit */
    png_uint_32 w, h;
};

static void png_error_cb(png_structp png, png_const_charp msg)
{
    struct png_ctx *c = png_get_error_ptr(png);
    snprintf(c->msg, sizeof(c->msg), "%s", msg);
    png_longjmp(png, 1);
}

/* libpng's default warning handler prints to stderr; core never prints, and
 * warnings (bad ancillary chunks, odd profiles) do not stop a decode. */
static void png_warning_cb(png_structp png, png_const_charp msg)
{
    (void)png;
    (void)msg;
}

static void png_read_cb(png_structp png, png_bytep out, size_t length)
{
    struct png_ctx *c = png_get_io_ptr(png);
    if (length > c->size - c->pos)
        png_error(png, "unexpected end of file");
    memcpy(out, c->data + c->pos, length);
    c->pos += length;
}

/* Returns 0, or -1 after a libpng error (message in c->msg, c->px.data may be
 * allocated and is the caller's to free). */
static int png_decode(struct png_ctx *c)
{
    if (setjmp(png_jmpbuf(c->png)))
        return -1;

    png_set_read_fn(c->png, c, png_read_cb);
    png_read_info(c->png, c->info);

    png_uint_32 w, h;
    int depth, ctype, interlace;
    png_get_IHDR(c->png, c->info, &w, &h, &depth, &ctype, &interlace, NULL, NULL);
    if ((uint64_t)w * h > vkfx_file_max_pixels()) {
        c->over_limit = true;
        c->w = w;
        c->h = h;
        png_error(c->png, "too many pixels");
    }
    /* Deflate expands at most 1032:1, so a header that claims more pixels
     * than the file could hold is corrupt: say so before allocating for it. */
    double claimed = (double)w * h * depth * png_get_channels(c->png, c->info) / 8;
    if (claimed > 1032.0 * (double)c->size + 1024)
        png_error(c->png, "the image size in IHDR is more than the file can hold");
    if (ctype == PNG_COLOR_TYPE_PALETTE)
        png_set_palette_to_rgb(c->png);
    if (ctype == PNG_COLOR_TYPE_GRAY && depth < 8)
        png_set_expand_gray_1_2_4_to_8(c->png);
    if (png_get_valid(c->png, c->info, PNG_INFO_tRNS))
        png_set_tRNS_to_alpha(c->png);
    /* PNG stores 16-bit samples big-endian; vkfx_pixels holds host order. */
    if (depth == 16 && vkfx_host_is_little_endian())
        png_set_swap(c->png);
    (void)png_set_interlace_handling(c->png);
    png_read_update_info(c->png, c->info);

    uint32_t channels = png_get_channels(c->png, c->info);
    int out_depth = png_get_bit_depth(c->png, c->info);
    vkfx_sample sample = out_depth == 16 ? VKFX_SAMPLE_U16 : VKFX_SAMPLE_U8;
    size_t bytes;
    if (channels < 1 || channels > 4 || (out_depth != 8 && out_depth != 16) ||
        !vkfx_image_bytes(w, h, channels, sample, &bytes) ||
        png_get_rowbytes(c->png, c->info) != (size_t)w * channels * vkfx_sample_size(sample))
        png_error(c->png, "unexpected layout after expansion");

    c->px.width = w;
    c->px.height = h;
    c->px.channels = channels;
    c->px.sample = sample;
    c->px.data = malloc(bytes ? bytes : 1);
    c->rows = malloc(sizeof(*c->rows) * h);
    if (!c->px.data || !c->rows)
        png_error(c->png, "out of memory");
    size_t stride = (size_t)w * channels * vkfx_sample_size(sample);
    for (png_uint_32 y = 0; y < h; y++)
        c->rows[y] = (png_bytep)c->px.data + stride * y;
    png_read_image(c->png, c->rows);
    /* Reading through IEND makes a file cut after its last IDAT an error too:
     * a truncated file is rejected even when its pixels happen to be whole. */
    png_read_end(c->png, NULL);
    return 0;
}

/* libpng allocates a chunk's declared length before reading its body (eXIf,
 * text, iCCP, sPLT), so a few hundred bytes that declare a 2 GiB chunk cost
 * 2 GiB: every length up to IEND is checked against the bytes that follow,
 * which bounds any one allocation by the file's size. */
static int check_chunk_lengths(const unsigned char *data, size_t size, const char *name)
{
    for (size_t at = 8; at + 8 <= size;) {
        size_t len = (size_t)data[at] << 24 | (size_t)data[at + 1] << 16 |
                     (size_t)data[at + 2] << 8 | data[at + 3];
        char type[5];
        for (int i = 0; i < 4; i++) {
            unsigned char t = data[at + 4 + (size_t)i];
            type[i] = (t >= 'A' && t <= 'Z') || (t >= 'a' && t <= 'z') ? (char)t : '?';
        }
        type[4] = 0;
        size_t left = size - at - 8;
        if (len > left || left - len < 4)
            return vkfx_fail(VKFX_E_FORMAT,
                             "%s: corrupt or truncated PNG (its %s chunk declares %zu bytes; "
                             "the file holds %zu after its header)",
                             name, type, len, left >= 4 ? left - 4 : 0);
        if (!memcmp(type, "IEND", 4))
            break;
        at += 12 + len;
    }
    return VKFX_OK;
}

/* Chunks that libpng would parse (and inflate) but that do not change the
 * decoded samples: core/io/codecs/png_meta.c reads the metadata among them,
 * within its own limits. PLTE and tRNS stay with libpng. */
static const png_byte ignored_chunks[] =
    "bKGD\0cHRM\0eXIf\0gAMA\0hIST\0iCCP\0iTXt\0oFFs\0pCAL\0pHYs\0"
    "sBIT\0sCAL\0sPLT\0sRGB\0tEXt\0tIME\0zTXt";

static int load_png(const unsigned char *data, size_t size, const char *name, vkfx_pixels *out,
                    vkfx_decode_note *note)
{
    (void)note;
    int ret;
    struct png_ctx c = {.data = data, .size = size};

    if (check_chunk_lengths(data, size, name) < 0)
        return VKFX_E_FORMAT;
    c.png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &c, png_error_cb, png_warning_cb);
    if (!c.png) {
        ret = vkfx_fail(VKFX_E_NOMEM, "%s: cannot create a PNG decoder", name);
        goto fail;
    }
    png_set_keep_unknown_chunks(c.png, PNG_HANDLE_CHUNK_NEVER, ignored_chunks,
                                (int)(sizeof(ignored_chunks) / 5));
    c.info = png_create_info_struct(c.png);
    if (!c.info) {
        ret = vkfx_fail(VKFX_E_NOMEM, "%s: cannot create a PNG decoder", name);
        goto fail;
    }
    if (png_decode(&c) < 0) {
        if (c.over_limit)
            ret = vkfx_fail_pixels(name, c.w, c.h);
        else if (!strcmp(c.msg, "out of memory"))
            ret = vkfx_fail(VKFX_E_NOMEM, "%s: out of host memory decoding the PNG", name);
        else
            ret =
                vkfx_fail(VKFX_E_FORMAT, "%s: corrupt or truncated PNG (libpng: %s)", name, c.msg);
        goto fail;
    }
    c.px.linear = false;
    c.px.straight = true;
    *out = c.px;
    c.px.data = NULL;
    ret = VKFX_OK;
fail:
    free(c.rows);
    free(c.px.data);
    png_destroy_read_struct(c.png ? &c.png : NULL, c.info ? &c.info : NULL, NULL);
    return ret;
}

static void png_write_cb(png_structp png, png_bytep data, size_t length)
{
    struct png_ctx *c = png_get_io_ptr(png);
    if (fwrite(data, 1, length, c->file) != length) {
        c->write_errno = errno ? errno : EIO;
        png_error(png, "write failed");
    }
}

static void png_flush_cb(png_structp png)
{
    (void)png;
}

static int png_encode(struct png_ctx *c, const vkfx_pixels *px)
{
    static const int ctypes[] = {PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA, PNG_COLOR_TYPE_RGB,
                                 PNG_COLOR_TYPE_RGB_ALPHA};
    int depth = px->sample == VKFX_SAMPLE_U16 ? 16 : 8;
    size_t stride = (size_t)px->width * px->channels * vkfx_sample_size(px->sample);

    if (setjmp(png_jmpbuf(c->png)))
        return -1;

    png_set_write_fn(c->png, c, png_write_cb, png_flush_cb);
    /* libpng's default limit (1e6 pixels a side) guards readers against
     * hostile headers; our own output needs only PNG's format limit. */
    png_set_user_limits(c->png, PNG_UINT_31_MAX, PNG_UINT_31_MAX);
    png_set_IHDR(c->png, c->info, px->width, px->height, depth, ctypes[px->channels - 1],
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_set_compression_level(c->png, c->level);
    png_write_info(c->png, c->info);
    if (depth == 16 && vkfx_host_is_little_endian())
        png_set_swap(c->png);
    c->rows = malloc(sizeof(*c->rows) * px->height);
    if (!c->rows)
        png_error(c->png, "out of memory");
    /* libpng copies each row before transforming it, so the caller's const
     * data is never written. */
    for (uint32_t y = 0; y < px->height; y++)
        c->rows[y] = (png_bytep)px->data + stride * y;
    png_write_image(c->png, c->rows);
    png_write_end(c->png, NULL);
    return 0;
}

static int save_png(FILE *f, const char *path, const vkfx_pixels *px, const vkfx_save_opts *opts)
{
    int ret;
    struct png_ctx c = {.file = f, .level = vkfx_png_level(opts)};
    unsigned char *encoded = NULL;
    size_t size = 0;

    ret = vkfx_png_encode(px, c.level, &encoded, &size);
    if (ret == VKFX_OK) {
        if (fwrite(encoded, 1, size, f) != size)
            ret = vkfx_fail(VKFX_E_IO, "%s: %s", path, strerror(errno ? errno : EIO));
        free(encoded);
        return ret;
    }
    if (ret != VKFX_E_LIMIT)
        return vkfx_fail_context(ret, "%s", path);
    /* Too large to hold encoded in memory: libpng streams it through zlib. */

    c.png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &c, png_error_cb, png_warning_cb);
    if (!c.png) {
        ret = vkfx_fail(VKFX_E_NOMEM, "%s: cannot create a PNG encoder", path);
        goto fail;
    }
    c.info = png_create_info_struct(c.png);
    if (!c.info) {
        ret = vkfx_fail(VKFX_E_NOMEM, "%s: cannot create a PNG encoder", path);
        goto fail;
    }
    if (png_encode(&c, px) < 0) {
        if (c.write_errno)
            ret = vkfx_fail(VKFX_E_IO, "%s: %s", path, strerror(c.write_errno));
        else if (!strcmp(c.msg, "out of memory"))
            ret = vkfx_fail(VKFX_E_NOMEM, "%s: out of host memory encoding the PNG", path);
        else
            ret = vkfx_fail(VKFX_E_FORMAT, "%s: PNG encoding failed (libpng: %s)", path, c.msg);
        goto fail;
    }
    ret = VKFX_OK;
fail:
    free(c.rows);
    png_destroy_write_struct(c.png ? &c.png : NULL, c.info ? &c.info : NULL);
    return ret;
}

struct stb_sink {
    FILE *file;
    int write_errno;
};

/* Comparing only the bytes present sends a PNG cut inside its signature to
 * libpng, which then reports it as truncated rather than unknown. */
static bool sniff_png(const unsigned char *data, size_t size)
{
    return size > 0 && png_sig_cmp(data, 0, size < 8 ? size : 8) == 0;
}

static uint32_t get32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* IHDR, and whether a tRNS chunk before the first IDAT adds alpha. */
static int probe_png(const unsigned char *data, size_t size, const char *name,
                     vkfx_image_info *info)
{
    if (size < 33 || memcmp(data + 12, "IHDR", 4) != 0)
        return vkfx_fail(VKFX_E_FORMAT, "%s: corrupt or truncated PNG (no IHDR)", name);
    unsigned depth = data[24], ctype = data[25];
    bool trns = false;
    for (size_t at = 8; at + 8 <= size;) {
        uint32_t len = get32(data + at);
        if (!memcmp(data + at + 4, "IDAT", 4))
            break;
        trns |= !memcmp(data + at + 4, "tRNS", 4);
        if (len > size - at - 8)
            break;
        at += 12 + (size_t)len;
    }
    static const uint32_t base[7] = {1, 0, 3, 3, 2, 0, 4};
    if (ctype > 6 || !base[ctype])
        return vkfx_fail(VKFX_E_FORMAT, "%s: corrupt PNG (colour type %u)", name, ctype);
    info->width = get32(data + 16);
    info->height = get32(data + 20);
    info->channels = base[ctype] + (trns && (ctype == 0 || ctype == 2 || ctype == 3));
    info->sample = depth == 16 ? VKFX_SAMPLE_U16 : VKFX_SAMPLE_U8;
    return VKFX_OK;
}

/* Both: F32 becomes U16. */
static void layout_png(uint32_t in_channels, vkfx_sample in_sample, uint32_t *channels,
                       vkfx_sample *sample)
{
    *channels = in_channels;
    *sample = in_sample == VKFX_SAMPLE_U8 ? VKFX_SAMPLE_U8 : VKFX_SAMPLE_U16;
}

static bool fits_png(uint32_t width, uint32_t height)
{
    return width <= PNG_UINT_31_MAX && height <= PNG_UINT_31_MAX;
}

const vkfx_codec vkfx_codec_png = {
    .name = "PNG",
    .extensions = (const char *const[]){"png", NULL},
    .sniff = sniff_png,
    .probe = probe_png,
    .decode = load_png,
    .layout = layout_png,
    .fits = fits_png,
    .encode = save_png,
    .options = "--png-level",
    .read_meta = vkfx_png_read_meta,
    .meta_kinds = VKFX_META_ICC | VKFX_META_EXIF | VKFX_META_XMP | VKFX_META_TEXT | VKFX_META_RES,
    .put_meta = vkfx_png_put_meta,
};
