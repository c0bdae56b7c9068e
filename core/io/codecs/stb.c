/* TGA and Radiance HDR through
 * stb_image and stb_image_write, each format its own descriptor. stb only
 * sees headers vkfx has checked first: the declared size against
 * --max-pixels and against what the file can hold. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "codec.h"

/* stb is compiled in here, static so it cannot clash with the copy in
 * libstb, and without PNM and PIC because nothing documents or tests them.
 * Its PNG decoder stays (STBI_NO_PNG would also drop the zlib functions its
 * header still declares) but is never reached: PNG content goes to libpng,
 * JPEG to libjpeg, so its JPEG decoder is left out, as are its BMP, GIF and PSD
 * decoders: core/io/codecs/ has its own files for those formats.
 * STBI_WRITE_NO_STDIO cannot be used: stb_image_write 1.16 puts the HDR
 * writer, even the callback one, inside that guard. Its code is not ours to
 * fix, so its warnings are silenced for the include only. */
#define STB_IMAGE_STATIC
#define STB_IMAGE_IMPLEMENTATION
/* Named so decoded buffers can become vkfx_pixels data, freed with free(). */
#define STBI_MALLOC(size)     malloc(size)
#define STBI_REALLOC(p, size) realloc(p, size)
#define STBI_FREE(p)          free(p)
#define STBI_NO_STDIO
#define STBI_NO_PNM
#define STBI_NO_PIC
#define STBI_NO_JPEG
#define STBI_NO_BMP
#define STBI_NO_GIF
#define STBI_NO_PSD
/* stb_image 2.27 declares stbi_set_unpremultiply_on_load_thread but defines
 * it under another name, which a static build reports as undefined. */
#define stbi__unpremultiply_on_load_thread stbi_set_unpremultiply_on_load_thread
#define STB_IMAGE_WRITE_STATIC
#define STB_IMAGE_WRITE_IMPLEMENTATION
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wunused-but-set-variable"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wimplicit-fallthrough"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wtype-limits"
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wdouble-promotion"
#pragma GCC diagnostic ignored "-Wconversion"
#pragma GCC diagnostic ignored "-Wcast-qual"
#include <stb_image.h>
#include <stb_image_write.h>
#pragma GCC diagnostic pop

/* ------------------------------------------------------------------------ */
/* Other formats through stb_image */

/* stb_image decoding from memory reads zeros (or leaves buffers unset) past
 * the end of the data, so a truncated BMP, TGA, HDR or JPEG decodes "fine"
 * with made-up pixels. Feeding it through callbacks shows every read: a read
 * at the end of the data, a short read straight into a decoder's buffer
 * (stbi__getn) or a skip past the end means the decoder wanted bytes the
 * file does not have. Short reads into stb's own refill buffer are normal
 * read-ahead; that buffer is the target of the first read of each call. */
struct stb_src {
    const unsigned char *data;
    size_t size, pos;
    const char *refill_buf;
    bool overrun;
};

static int stb_read_cb(void *user, char *buf, int n)
{
    struct stb_src *s = user;
    if (!s->refill_buf)
        s->refill_buf = buf;
    if (n <= 0)
        return 0;
    size_t left = s->size - s->pos;
    size_t k = (size_t)n < left ? (size_t)n : left;
    if (k == 0 || (k < (size_t)n && buf != s->refill_buf))
        s->overrun = true;
    memcpy(buf, s->data + s->pos, k);
    s->pos += k;
    return (int)k;
}

static void stb_skip_cb(void *user, int n)
{
    struct stb_src *s = user;
    if (n < 0) {
        long long back = -(long long)n;
        s->pos = (size_t)back > s->pos ? 0 : s->pos - (size_t)back;
        return;
    }
    if ((size_t)n > s->size - s->pos) {
        s->overrun = true;
        s->pos = s->size;
        return;
    }
    s->pos += (size_t)n;
}

static int stb_eof_cb(void *user)
{
    struct stb_src *s = user;
    return s->pos >= s->size;
}

static const stbi_io_callbacks stb_io = {stb_read_cb, stb_skip_cb, stb_eof_cb};

/* Each stb entry point starts a fresh context that reads from the start. */
static struct stb_src *stb_rewind(struct stb_src *s)
{
    s->pos = 0;
    s->refill_buf = NULL;
    s->overrun = false;
    return s;
}

/* stb_image 2.27's Radiance RLE decoder loops forever on a run count of 0,
 * which a corrupt file can hold and a truncated one yields (stb reads zeros
 * at the end). Walk the RLE scanlines as stb will, before it does: a zero
 * count or missing bytes fail here; anything else stb decodes or rejects
 * itself. Returns 0 or VKFX_E_FORMAT. */
static int hdr_check_rle(const unsigned char *p, size_t size, int w, int h, const char *name)
{
    const unsigned char *nl;
    size_t pos = 0;

    /* The signature line, header lines up to a blank one, the size line;
     * blank counts the blank line and the size line after it. */
    for (int line = 0, blank = 0; blank < 2; line++) {
        nl = memchr(p + pos, '\n', size - pos);
        if (!nl)
            goto truncated;
        if (blank || (line > 0 && nl == p + pos))
            blank++;
        pos = (size_t)(nl - p) + 1;
    }
    if (w < 8 || w >= 32768)
        return VKFX_OK; /* flat pixels: no runs to check */
    for (int y = 0; y < h; y++) {
        if (size - pos < 4)
            goto truncated;
        if (p[pos] != 2 || p[pos + 1] != 2 || (p[pos + 2] & 0x80))
            return VKFX_OK; /* stb switches to flat pixels here */
        if ((p[pos + 2] << 8 | p[pos + 3]) != w)
            return VKFX_OK; /* stb rejects the scanline length */
        pos += 4;
        for (int k = 0; k < 4; k++) {
            for (int x = 0; x < w;) {
                if (pos >= size)
                    goto truncated;
                int count = p[pos++];
                if (count > 128) {
                    if (count - 128 > w - x)
                        return VKFX_OK; /* stb reports the bad run */
                    if (pos >= size)
                        goto truncated;
                    pos++;
                    x += count - 128;
                } else {
                    if (count == 0)
                        return vkfx_fail(
                            VKFX_E_FORMAT,
                            "%s: corrupt Radiance HDR (zero-length run in scanline %d)", name, y);
                    if (count > w - x)
                        return VKFX_OK;
                    if ((size_t)count > size - pos)
                        goto truncated;
                    pos += (size_t)count;
                    x += count;
                }
            }
        }
    }
    return VKFX_OK;
truncated:
    return vkfx_fail(VKFX_E_FORMAT, "%s: truncated image (the data ends before the pixels do)",
                     name);
}

static const char *stb_reason(void)
{
    const char *r = stbi_failure_reason();
    return r ? r : "unknown error";
}

/* max_ratio: the most pixels a byte of a valid file of the format can
 * hold, so that a file cut short or lying about its size is refused before
 * stb allocates for the size it declares. */
static int load_stb(const unsigned char *data, size_t size, const char *name, vkfx_pixels *out,
                    uint64_t max_ratio)
{
    int ret;
    void *img = NULL;
    struct stb_src src = {.data = data, .size = size};
    int w, h, comp, got;
    vkfx_sample sample;

    if (!stbi_info_from_callbacks(&stb_io, stb_rewind(&src), &w, &h, &comp) || comp < 1 ||
        comp > 4) {
        ret = vkfx_fail(VKFX_E_FORMAT, "%s: unsupported or corrupt image (stb_image: %s)", name,
                        stb_reason());
        goto fail;
    }
    if (w > 0 && h > 0 && (ret = vkfx_check_pixels(name, (uint64_t)w, (uint64_t)h)) < 0)
        goto fail;
    if ((uint64_t)w * (uint64_t)h > (uint64_t)size * max_ratio) {
        ret =
            vkfx_fail(VKFX_E_FORMAT, "%s: corrupt or truncated image (a %dx%d image in %zu bytes)",
                      name, w, h, size);
        goto fail;
    }
    if (stbi_is_hdr_from_callbacks(&stb_io, stb_rewind(&src))) {
        sample = VKFX_SAMPLE_F32;
        ret = hdr_check_rle(data, size, w, h, name);
        if (ret < 0)
            goto fail;
        img = stbi_loadf_from_callbacks(&stb_io, stb_rewind(&src), &w, &h, &got, comp);
    } else {
        sample = VKFX_SAMPLE_U8;
        img = stbi_load_from_callbacks(&stb_io, stb_rewind(&src), &w, &h, &got, comp);
    }
    if (!img) {
        if (!strcmp(stb_reason(), "outofmem"))
            ret = vkfx_fail(VKFX_E_NOMEM, "%s: out of host memory decoding the image", name);
        else
            ret = vkfx_fail(VKFX_E_FORMAT, "%s: unsupported or corrupt image (stb_image: %s)", name,
                            stb_reason());
        goto fail;
    }
    if (src.overrun) {
        ret = vkfx_fail(VKFX_E_FORMAT, "%s: truncated image (the data ends before the pixels do)",
                        name);
        goto fail;
    }
    if (w < 1 || h < 1) {
        ret = vkfx_fail(VKFX_E_FORMAT, "%s: image has no pixels", name);
        goto fail;
    }

    out->width = (uint32_t)w;
    out->height = (uint32_t)h;
    out->channels = (uint32_t)comp;
    out->sample = sample;
    out->linear = sample == VKFX_SAMPLE_F32;
    out->straight = true;
    out->data = img; /* STBI_MALLOC is malloc */
    img = NULL;
    ret = VKFX_OK;
fail:
    stbi_image_free(img);
    return ret;
}

struct stb_sink {
    FILE *file;
    int write_errno;
};

/* stb_image_write has no way to stop on error: remember the first failure and
 * drop the rest of the output. */
static void stb_write_cb(void *user, void *data, int size)
{
    struct stb_sink *s = user;
    if (s->write_errno || size <= 0)
        return;
    if (fwrite(data, 1, (size_t)size, s->file) != (size_t)size)
        s->write_errno = errno ? errno : EIO;
}

/* RGBE cannot hold negative, NaN or infinite values (stb turns them into
 * garbage exponents): clamp into what the format can represent. */
static bool hdr_needs_clamp(float v)
{
    return !(v >= 0.0f && v <= 1e38f);
}

static float hdr_clamp(float v)
{
    if (v > 1e38f)
        return 1e38f;
    return v >= 0.0f ? v : 0.0f;
}

static int encode_stb_status(const char *path, const char *format, int ok,
                             const struct stb_sink *sink)
{
    if (sink->write_errno)
        return vkfx_fail(VKFX_E_IO, "%s: %s", path, strerror(sink->write_errno));
    if (!ok)
        return vkfx_fail(VKFX_E_FORMAT, "%s: %s encoding failed", path, format);
    return VKFX_OK;
}

/* stb_image_write takes int sizes and computes file sizes in int. */
static bool fits_int(uint32_t width, uint32_t height, size_t bytes_per_pixel)
{
    return (uint64_t)width * height * bytes_per_pixel <= INT_MAX / 2;
}

static stbi__context *stb_memory(stbi__context *s, const unsigned char *data, size_t size)
{
    stbi__start_mem(s, data, size > INT_MAX ? INT_MAX : (int)size);
    return s;
}

static int probe_stb(const unsigned char *data, size_t size, const char *name,
                     vkfx_image_info *info)
{
    int w, h, comp;
    int n = size > INT_MAX ? INT_MAX : (int)size;
    if (!stbi_info_from_memory(data, n, &w, &h, &comp) || comp < 1 || comp > 4 || w < 1 || h < 1)
        return vkfx_fail(VKFX_E_FORMAT, "%s: unsupported or corrupt image (stb_image: %s)", name,
                         stb_reason());
    info->width = (uint32_t)w;
    info->height = (uint32_t)h;
    info->channels = (uint32_t)comp;
    info->sample = stbi_is_hdr_from_memory(data, n) ? VKFX_SAMPLE_F32 : VKFX_SAMPLE_U8;
    return VKFX_OK;
}

/* ---- TGA ---- */

static bool sniff_tga(const unsigned char *data, size_t size)
{
    stbi__context s;
    return size >= 18 && stbi__tga_test(stb_memory(&s, data, size));
}

static int decode_tga(const unsigned char *data, size_t size, const char *name, vkfx_pixels *out,
                      vkfx_decode_note *note)
{
    (void)note;
    /* An RLE packet holds at most 128 pixels in two or more bytes. */
    int ret = load_stb(data, size, name, out, 64);
    if (ret < 0)
        return ret;
    /* Bit 4 of the image descriptor puts the origin on the right; stb_image reads only
     * bit 5 (top or bottom), so the rows are mirrored here. */
    if (data[17] & 0x10) {
        const size_t px = out->channels;
        for (uint32_t y = 0; y < out->height; y++) {
            unsigned char *row = (unsigned char *)out->data + (size_t)y * out->width * px;
            for (uint32_t l = 0, r = out->width - 1; l < r; l++, r--)
                for (size_t c = 0; c < px; c++) {
                    unsigned char t = row[l * px + c];
                    row[l * px + c] = row[r * px + c];
                    row[r * px + c] = t;
                }
        }
    }
    return VKFX_OK;
}

/* The input's channels, 8 bits. */
static void layout_tga(uint32_t in_channels, vkfx_sample in_sample, uint32_t *channels,
                       vkfx_sample *sample)
{
    (void)in_sample;
    *channels = in_channels;
    *sample = VKFX_SAMPLE_U8;
}

/* The header holds 16-bit sizes. */
static bool fits_tga(uint32_t width, uint32_t height)
{
    return width <= 65535 && height <= 65535 && fits_int(width, height, 4);
}

static int encode_tga(FILE *f, const char *path, const vkfx_pixels *px, const vkfx_save_opts *opts)
{
    (void)opts;
    struct stb_sink sink = {.file = f};
    int ok = stbi_write_tga_to_func(stb_write_cb, &sink, (int)px->width, (int)px->height,
                                    (int)px->channels, px->data);
    return encode_stb_status(path, "TGA", ok, &sink);
}

const vkfx_codec vkfx_codec_tga = {
    .name = "TGA",
    .extensions = (const char *const[]){"tga", NULL},
    .sniff = sniff_tga,
    .probe = probe_stb,
    .decode = decode_tga,
    .layout = layout_tga,
    .fits = fits_tga,
    .encode = encode_tga,
    .options = "",
};

/* ---- Radiance HDR ---- */

static bool sniff_hdr(const unsigned char *data, size_t size)
{
    stbi__context s;
    return size >= 2 && data[0] == '#' && stbi__hdr_test(stb_memory(&s, data, size));
}

static int decode_hdr(const unsigned char *data, size_t size, const char *name, vkfx_pixels *out,
                      vkfx_decode_note *note)
{
    (void)note;
    /* A run holds up to 127 samples of one of four components in two bytes. */
    return load_stb(data, size, name, out, 32);
}

/* Radiance stores RGB only; alpha has nowhere to go. */
static void layout_hdr(uint32_t in_channels, vkfx_sample in_sample, uint32_t *channels,
                       vkfx_sample *sample)
{
    (void)in_channels;
    (void)in_sample;
    *channels = 3;
    *sample = VKFX_SAMPLE_F32;
}

static bool fits_hdr(uint32_t width, uint32_t height)
{
    return fits_int(width, height, 16);
}

static int encode_hdr(FILE *f, const char *path, const vkfx_pixels *px, const vkfx_save_opts *opts)
{
    (void)opts;
    int ret;
    float *tmp = NULL;
    const float *s = px->data, *src = s;
    struct stb_sink sink = {.file = f};
    size_t count = (size_t)px->width * px->height * px->channels;
    size_t i = 0;
    while (i < count && !hdr_needs_clamp(s[i]))
        i++;
    if (i < count) {
        tmp = malloc(count * sizeof(float));
        if (!tmp)
            return vkfx_fail(VKFX_E_NOMEM, "%s: out of host memory encoding the HDR", path);
        for (i = 0; i < count; i++)
            tmp[i] = hdr_clamp(s[i]);
        src = tmp;
    }
    int ok = stbi_write_hdr_to_func(stb_write_cb, &sink, (int)px->width, (int)px->height,
                                    (int)px->channels, src);
    ret = encode_stb_status(path, "HDR", ok, &sink);
    free(tmp);
    return ret;
}

const vkfx_codec vkfx_codec_hdr = {
    .name = "HDR",
    .extensions = (const char *const[]){"hdr", NULL},
    .sniff = sniff_hdr,
    .probe = probe_stb,
    .decode = decode_hdr,
    .layout = layout_hdr,
    .fits = fits_hdr,
    .encode = encode_hdr,
    .options = "",
};
