/* BMP, TGA, GIF (first frame), PSD (8/16-bit RGB) and Radiance HDR through
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
 * JPEG to libjpeg, so its JPEG decoder is left out.
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

/* stbi_is_16_bit is no help here: in stb_image 2.27 its PSD check reads the
 * height where the depth is (STBI_NOTUSED does not evaluate the reads meant
 * to skip the size), and PNG, the other 16-bit format, never reaches stb. */
static bool psd_is_16_bit(const unsigned char *data, size_t size)
{
    return size >= 26 && !memcmp(data, "8BPS\0\1", 6) && data[22] == 0 && data[23] == 16;
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
    /* stb reports a top-down BMP's height as it is stored, negative; -2^31
     * never gets here (check_bmp). */
    if (h < 0 && h != INT_MIN)
        h = -h;
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
    } else if (psd_is_16_bit(data, size)) {
        sample = VKFX_SAMPLE_U16;
        img = stbi_load_16_from_callbacks(&stb_io, stb_rewind(&src), &w, &h, &got, comp);
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
    info->sample = stbi_is_hdr_from_memory(data, n) ? VKFX_SAMPLE_F32
                   : psd_is_16_bit(data, size)      ? VKFX_SAMPLE_U16
                                                    : VKFX_SAMPLE_U8;
    return VKFX_OK;
}

static uint32_t le16(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

static uint32_t le32(const unsigned char *p)
{
    return le16(p) | le16(p + 2) << 16;
}

/* ---- BMP ---- */

static bool sniff_bmp(const unsigned char *data, size_t size)
{
    stbi__context s;
    return size >= 2 && !memcmp(data, "BM", 2) && stbi__bmp_test(stb_memory(&s, data, size));
}

/* The header as stb will read it, checked first: stb takes abs() of the
 * height, which a height of -2^31 overflows, and allocates for the
 * declared size before it reads a pixel. Uncompressed rows (all stb
 * decodes) must all be in the file. */
static int check_bmp(const unsigned char *d, size_t size, const char *name)
{
    if (size < 26)
        return vkfx_fail(VKFX_E_FORMAT, "%s: truncated BMP header", name);
    uint32_t offset = le32(d + 10), header = le32(d + 14);
    int64_t w, h;
    uint32_t bpp;
    if (header == 12) {
        w = le16(d + 18);
        h = le16(d + 20);
        bpp = size >= 26 ? le16(d + 24) : 0;
    } else {
        if (size < 34)
            return vkfx_fail(VKFX_E_FORMAT, "%s: truncated BMP header", name);
        w = (int32_t)le32(d + 18);
        h = (int32_t)le32(d + 22);
        bpp = le16(d + 28);
        if (h == INT32_MIN)
            return vkfx_fail(VKFX_E_FORMAT, "%s: corrupt BMP (height -2147483648)", name);
        h = h < 0 ? -h : h; /* negative: rows stored top-down */
    }
    if (w <= 0 || h <= 0)
        return vkfx_fail(VKFX_E_FORMAT, "%s: corrupt BMP (%lldx%lld pixels)", name, (long long)w,
                         (long long)h);
    int ret = vkfx_check_pixels(name, (uint64_t)w, (uint64_t)h);
    if (ret < 0)
        return ret;
    uint64_t row = ((uint64_t)w * bpp + 31) / 32 * 4;
    if (bpp == 0 || offset > size || row * (uint64_t)h > size - offset)
        return vkfx_fail(VKFX_E_FORMAT,
                         "%s: truncated BMP (%lldx%lld pixels of %u bits need more than the "
                         "%zu bytes of the file)",
                         name, (long long)w, (long long)h, bpp, size);
    return VKFX_OK;
}

static int decode_bmp(const unsigned char *data, size_t size, const char *name, vkfx_pixels *out,
                      vkfx_decode_note *note)
{
    (void)note;
    int ret = check_bmp(data, size, name);
    return ret < 0 ? ret : load_stb(data, size, name, out, 64);
}

/* 24-bit RGB, or 32-bit RGBA where there is alpha. */
static void layout_bmp(uint32_t in_channels, vkfx_sample in_sample, uint32_t *channels,
                       vkfx_sample *sample)
{
    (void)in_sample;
    *channels = in_channels == 2 || in_channels == 4 ? 4 : 3;
    *sample = VKFX_SAMPLE_U8;
}

static bool fits_bmp(uint32_t width, uint32_t height)
{
    return fits_int(width, height, 4);
}

static int encode_bmp(FILE *f, const char *path, const vkfx_pixels *px, const vkfx_save_opts *opts)
{
    (void)opts;
    struct stb_sink sink = {.file = f};
    int ok = stbi_write_bmp_to_func(stb_write_cb, &sink, (int)px->width, (int)px->height,
                                    (int)px->channels, px->data);
    return encode_stb_status(path, "BMP", ok, &sink);
}

const vkfx_codec vkfx_codec_bmp = {
    .name = "BMP",
    .extensions = (const char *const[]){"bmp", NULL},
    .sniff = sniff_bmp,
    .probe = probe_stb,
    .decode = decode_bmp,
    .layout = layout_bmp,
    .fits = fits_bmp,
    .encode = encode_bmp,
    .options = "",
};

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
    return load_stb(data, size, name, out, 64);
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

/* ---- GIF ---- */

static bool sniff_gif(const unsigned char *data, size_t size)
{
    stbi__context s;
    return size >= 6 && !memcmp(data, "GIF8", 4) && stbi__gif_test(stb_memory(&s, data, size));
}

/* Skips a chain of GIF data sub-blocks at *at; false when it runs off the
 * end. */
static bool gif_skip_blocks(const unsigned char *d, size_t size, size_t *at)
{
    while (*at < size) {
        size_t n = d[(*at)++];
        if (n == 0)
            return true;
        *at += n;
    }
    return false;
}

/* Moves *at to the next image descriptor, past extensions (at the start:
 * past the header and global palette); false at the trailer, at garbage stb
 * will judge, or at the end. */
static bool gif_next_image(const unsigned char *d, size_t size, size_t *at)
{
    if (*at == 0) {
        if (size < 13)
            return false;
        *at = 13;
        if (d[10] & 0x80)
            *at += 3u << ((d[10] & 7) + 1);
    }
    while (*at < size) {
        if (d[*at] == 0x2C) /* image descriptor */
            return *at + 10 <= size;
        if (d[*at] != 0x21) /* the trailer, or garbage */
            return false;
        *at += 2; /* extension: label, then sub-blocks */
        if (!gif_skip_blocks(d, size, at))
            return false;
    }
    return false;
}

/* Moves *at past the image descriptor there and its palette, to the LZW
 * minimum code size. */
static void gif_skip_descriptor(const unsigned char *d, size_t *at)
{
    unsigned flags = d[*at + 9];
    *at += 10;
    if (flags & 0x80)
        *at += 3u << ((flags & 7) + 1);
}

/* How many images (frames) the file holds, counting up to two. */
static int gif_frames(const unsigned char *d, size_t size)
{
    size_t at = 0;
    int frames = 0;
    while (frames < 2 && gif_next_image(d, size, &at)) {
        frames++;
        gif_skip_descriptor(d, &at);
        at++; /* LZW minimum code size */
        if (!gif_skip_blocks(d, size, &at))
            break;
    }
    return frames;
}

/* The image data at d + at (the LZW minimum code size, then sub-blocks)
 * decoded as stb_image 2.27 will (stbi__process_gif_raster), counting the
 * pixels each code stands for instead of producing them. stb goes on
 * decoding codes past the frame's last pixel, each up to 4096 steps of work
 * however few bits it took, and leaves pixels the data never reaches as
 * background: a legal frame's data decodes to exactly its pixels, so any
 * other count is refused here, and stb's work stays that of the frame.
 * What stb refuses itself (no clear code first, a code out of range, a cut
 * file) is left to it. */
static int gif_check_raster(const unsigned char *d, size_t size, size_t at, uint64_t pixels,
                            const char *name)
{
    static _Thread_local uint16_t length[8192]; /* of each code's string */
    if (at >= size || d[at] > 12)
        return VKFX_OK;
    const uint32_t min_bits = d[at++] + 1u, clear = 1u << (min_bits - 1);
    uint32_t codesize = min_bits, avail = clear + 2, bits = 0, valid = 0, len = 0;
    int32_t oldcode = -1;
    bool first = true;
    uint64_t out = 0;
    for (uint32_t c = 0; c < clear; c++)
        length[c] = 1;
    for (;;) {
        if (valid < codesize) {
            if (len == 0 && (at >= size || (len = d[at++]) == 0))
                break;
            len--;
            if (at >= size)
                break;
            bits |= (uint32_t)d[at++] << valid;
            valid += 8;
            continue;
        }
        uint32_t code = bits & ((1u << codesize) - 1);
        bits >>= codesize;
        valid -= codesize;
        if (code == clear) {
            codesize = min_bits;
            avail = clear + 2;
            oldcode = -1;
            first = false;
            continue;
        }
        if (code == clear + 1)
            break;
        if (code > avail || first || (oldcode < 0 && code == avail))
            return VKFX_OK;
        if (oldcode >= 0) {
            if (avail >= 8192)
                return VKFX_OK;
            length[avail] = (uint16_t)(length[oldcode] + 1);
            avail++;
        }
        out += length[code];
        if (out > pixels)
            return vkfx_fail(VKFX_E_FORMAT,
                             "%s: corrupt GIF (its image data holds more than the %llu pixels "
                             "of its first frame)",
                             name, (unsigned long long)pixels);
        if ((avail & ((1u << codesize) - 1)) == 0 && avail <= 0x0FFF)
            codesize++;
        oldcode = (int32_t)code;
    }
    if (out < pixels)
        return vkfx_fail(VKFX_E_FORMAT,
                         "%s: corrupt or truncated GIF (its image data holds %llu of the %llu "
                         "pixels of its first frame)",
                         name, (unsigned long long)out, (unsigned long long)pixels);
    return VKFX_OK;
}

static int decode_gif(const unsigned char *data, size_t size, const char *name, vkfx_pixels *out,
                      vkfx_decode_note *note)
{
    size_t at = 0;
    if (gif_next_image(data, size, &at)) {
        uint64_t pixels = (uint64_t)le16(data + at + 5) * le16(data + at + 7);
        gif_skip_descriptor(data, &at);
        int ret = gif_check_raster(data, size, at, pixels, name);
        if (ret < 0)
            return ret;
    }
    /* The screen around the first frame is background: as large as 4096
     * pixels a byte, as one 12-bit LZW code can stand for 4096 pixels. */
    int ret = load_stb(data, size, name, out, 4096);
    if (ret == VKFX_OK && gif_frames(data, size) > 1)
        snprintf(note->text, sizeof(note->text),
                 "%s: an animated GIF; only its first frame is read", name);
    return ret;
}

const vkfx_codec vkfx_codec_gif = {
    .name = "GIF",
    .extensions = (const char *const[]){"gif", NULL},
    .sniff = sniff_gif,
    .probe = probe_stb,
    .decode = decode_gif,
};

/* ---- PSD ---- */

static bool sniff_psd(const unsigned char *data, size_t size)
{
    stbi__context s;
    return size >= 4 && !memcmp(data, "8BPS", 4) && stbi__psd_test(stb_memory(&s, data, size));
}

static int decode_psd(const unsigned char *data, size_t size, const char *name, vkfx_pixels *out,
                      vkfx_decode_note *note)
{
    (void)note;
    /* With a fourth channel, stb_image 2.27 takes the composite as matted
     * against white and divides the colour by alpha, casting the float back
     * unchecked: colour darker than the matte allows (any damaged file, or a
     * composite Photoshop did not write) is undefined behaviour there, and
     * catching it first would mean decoding every channel here. Refused
     * whole, the user gets a message and a way out instead of wrong pixels. */
    if (size >= 14 && (data[12] << 8 | data[13]) >= 4)
        return vkfx_fail(VKFX_E_FORMAT,
                         "%s: PSD with %d channels (alpha or extra channels) is not supported; "
                         "vkfx reads PSD composites with three channels only (export the image "
                         "as PNG or TIFF to keep its alpha)",
                         name, data[12] << 8 | data[13]);
    /* PackBits: 128 bytes of a channel in two. */
    return load_stb(data, size, name, out, 64);
}

const vkfx_codec vkfx_codec_psd = {
    .name = "PSD",
    .extensions = (const char *const[]){"psd", NULL},
    .sniff = sniff_psd,
    .probe = probe_stb,
    .decode = decode_psd,
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
