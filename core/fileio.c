#include "fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <png.h>

#include "error.h"
#include "pngwrite.h"
#include "exr.h"
#include "safefile.h"

/* stb is compiled in here, static so it cannot clash with the copy in
 * libstb, and without PNM and PIC because nothing documents or tests them.
 * Its PNG decoder stays (STBI_NO_PNG would also drop the zlib functions its
 * header still declares) but is never reached: PNG content goes to libpng.
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

#define WRITABLE "writable formats: png, jpg, bmp, tga, hdr, exr"

/* ------------------------------------------------------------------------ */
/* Formats and layouts */

const char *vkfx_file_format_name(vkfx_file_format fmt)
{
    switch (fmt) {
    case VKFX_FILE_PNG:
        return "PNG";
    case VKFX_FILE_JPEG:
        return "JPEG";
    case VKFX_FILE_BMP:
        return "BMP";
    case VKFX_FILE_TGA:
        return "TGA";
    case VKFX_FILE_GIF:
        return "GIF";
    case VKFX_FILE_PSD:
        return "PSD";
    case VKFX_FILE_HDR:
        return "HDR";
    case VKFX_FILE_EXR:
        return "OpenEXR";
    }
    return "unknown";
}

int vkfx_file_format_for_output(const char *path, vkfx_file_format *fmt)
{
    static const struct {
        const char *ext;
        vkfx_file_format fmt;
        bool writable;
    } exts[] = {
        {"png", VKFX_FILE_PNG, true}, {"jpg", VKFX_FILE_JPEG, true}, {"jpeg", VKFX_FILE_JPEG, true},
        {"bmp", VKFX_FILE_BMP, true}, {"tga", VKFX_FILE_TGA, true},  {"hdr", VKFX_FILE_HDR, true},
        {"exr", VKFX_FILE_EXR, true}, {"gif", VKFX_FILE_GIF, false}, {"psd", VKFX_FILE_PSD, false},
    };
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    const char *dot = strrchr(base, '.');

    /* A leading dot names a hidden file (".png"), not an extension. */
    if (!dot || dot == base || !dot[1])
        return vkfx_fail(VKFX_E_USAGE,
                         "%s: no file extension to choose the output format; " WRITABLE, path);
    for (size_t i = 0; i < sizeof(exts) / sizeof(exts[0]); i++) {
        if (strcasecmp(dot + 1, exts[i].ext) != 0)
            continue;
        if (!exts[i].writable)
            return vkfx_fail(VKFX_E_USAGE, "%s: cannot write %s; " WRITABLE, path,
                             vkfx_file_format_name(exts[i].fmt));
        *fmt = exts[i].fmt;
        return VKFX_OK;
    }
    return vkfx_fail(VKFX_E_USAGE, "%s: unknown output extension '%s'; " WRITABLE, path, dot);
}

void vkfx_file_output_layout(vkfx_file_format fmt, uint32_t in_channels, vkfx_sample in_sample,
                             uint32_t *channels, vkfx_sample *sample)
{
    switch (fmt) {
    case VKFX_FILE_JPEG:
        /* stb's writer always stores three components; alpha has nowhere to go. */
        *channels = 3;
        *sample = VKFX_SAMPLE_U8;
        return;
    case VKFX_FILE_BMP:
        /* stb's writer stores 24-bit RGB, or 32-bit RGBA when there is alpha. */
        *channels = in_channels == 2 || in_channels == 4 ? 4 : 3;
        *sample = VKFX_SAMPLE_U8;
        return;
    case VKFX_FILE_TGA:
        *channels = in_channels;
        *sample = VKFX_SAMPLE_U8;
        return;
    case VKFX_FILE_HDR:
        /* Radiance stores RGB only; alpha has nowhere to go. */
        *channels = 3;
        *sample = VKFX_SAMPLE_F32;
        return;
    case VKFX_FILE_EXR:
        /* Y, YA, RGB or RGBA, half or float: vkfx_exr_write converts. */
        *channels = in_channels;
        *sample = VKFX_SAMPLE_F32;
        return;
    case VKFX_FILE_PNG:
    case VKFX_FILE_GIF: /* no writer: never asked for, PNG's answer is harmless */
    case VKFX_FILE_PSD:
        *channels = in_channels;
        *sample = in_sample == VKFX_SAMPLE_U8 ? VKFX_SAMPLE_U8 : VKFX_SAMPLE_U16;
        return;
    }
}

static const char *sample_name(vkfx_sample s)
{
    switch (s) {
    case VKFX_SAMPLE_U8:
        return "8-bit";
    case VKFX_SAMPLE_U16:
        return "16-bit";
    case VKFX_SAMPLE_F32:
        return "float";
    }
    return "unknown";
}

static bool host_is_little_endian(void)
{
    const uint16_t one = 1;
    unsigned char first;
    memcpy(&first, &one, 1);
    return first == 1;
}

/* Overflow-checked size of a width x height x channels image of sample s. */
/* Checked against every file's declared size before its pixels are
 * allocated, so a small file that claims a huge image costs nothing. */
static uint64_t max_pixels = VKFX_DEFAULT_MAX_PIXELS;

void vkfx_file_set_max_pixels(uint64_t n)
{
    max_pixels = n ? n : VKFX_DEFAULT_MAX_PIXELS;
}

uint64_t vkfx_file_max_pixels(void)
{
    return max_pixels;
}

int vkfx_fail_pixels(const char *name, uint64_t w, uint64_t h)
{
    return vkfx_fail(VKFX_E_LIMIT,
                     "%s: declares %llux%llu = %llu pixels, more than the limit of %llu "
                     "(--max-pixels)",
                     name, (unsigned long long)w, (unsigned long long)h,
                     (unsigned long long)(w * h), (unsigned long long)max_pixels);
}

static bool image_bytes(uint32_t w, uint32_t h, uint32_t channels, vkfx_sample s, size_t *bytes)
{
    size_t n = vkfx_sample_size(s);
    if (w && n > SIZE_MAX / w)
        return false;
    n *= w;
    if (channels && n > SIZE_MAX / channels)
        return false;
    n *= channels;
    if (h && n > SIZE_MAX / h)
        return false;
    *bytes = n * h;
    return true;
}

/* ------------------------------------------------------------------------ */
/* PNG reading through libpng */

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
    if ((uint64_t)w * h > max_pixels) {
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
    if (depth == 16 && host_is_little_endian())
        png_set_swap(c->png);
    (void)png_set_interlace_handling(c->png);
    png_read_update_info(c->png, c->info);

    uint32_t channels = png_get_channels(c->png, c->info);
    int out_depth = png_get_bit_depth(c->png, c->info);
    vkfx_sample sample = out_depth == 16 ? VKFX_SAMPLE_U16 : VKFX_SAMPLE_U8;
    size_t bytes;
    if (channels < 1 || channels > 4 || (out_depth != 8 && out_depth != 16) ||
        !image_bytes(w, h, channels, sample, &bytes) ||
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

static int load_png(const unsigned char *data, size_t size, const char *name, vkfx_pixels *out)
{
    int ret;
    struct png_ctx c = {.data = data, .size = size};

    c.png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &c, png_error_cb, png_warning_cb);
    if (!c.png) {
        ret = vkfx_fail(VKFX_E_NOMEM, "%s: cannot create a PNG decoder", name);
        goto fail;
    }
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

static bool looks_like_jpeg(const unsigned char *data, size_t size)
{
    return size >= 3 && data[0] == 0xFF && data[1] == 0xD8 && data[2] == 0xFF;
}

/* stb_image decodes a JPEG cut short without complaint; a complete one ends
 * with EOI. Some writers append padding, so the marker may sit a little
 * before the end. */
static bool jpeg_has_eoi(const unsigned char *data, size_t size)
{
    size_t start = size > 64 ? size - 64 : 0;
    for (size_t i = size - 1; i > start; i--)
        if (data[i - 1] == 0xFF && data[i] == 0xD9)
            return true;
    return false;
}

/* stb_image 2.27 decodes a scan whose components name a Huffman table that
 * no DHT segment defined with that table's uninitialised memory, and reads
 * far out of bounds (found by tests/fuzz). Walks the marker segments and
 * refuses such a scan. Which tables a scan uses follows stb's decoder:
 * sequential scans both, progressive DC-first scans the DC table, DC
 * refinement none, AC scans the AC table. */
static bool jpeg_tables_defined(const unsigned char *d, size_t size)
{
    bool defined[2][4] = {{false}}, progressive = false;
    size_t i = 2;
    while (i + 4 <= size) {
        if (d[i] != 0xFF) { /* stb skips bytes between segments too */
            i++;
            continue;
        }
        while (i + 1 < size && d[i + 1] == 0xFF)
            i++;
        if (i + 4 > size)
            return true;
        unsigned marker = d[i + 1];
        if (marker == 0xD9)
            return true;
        if ((marker >= 0xD0 && marker <= 0xD7) || marker == 0x01) {
            i += 2;
            continue;
        }
        size_t len = (size_t)d[i + 2] << 8 | d[i + 3];
        const unsigned char *seg = d + i + 4;
        if (len < 2 || i + 2 + len > size)
            return true;
        size_t n = len - 2;
        if (marker == 0xC2)
            progressive = true;
        if (marker == 0xC4) {
            for (size_t k = 0; k + 17 <= n;) {
                unsigned tc = seg[k] >> 4, th = seg[k] & 15;
                size_t count = 0;
                for (int b = 1; b <= 16; b++)
                    count += seg[k + (size_t)b];
                if (tc < 2 && th < 4)
                    defined[tc][th] = true;
                k += 17 + count;
            }
        }
        if (marker == 0xDA) {
            if (n < 1 || n < 1 + 2 * (size_t)seg[0] + 3)
                return true;
            unsigned ns = seg[0], ss = seg[1 + 2 * ns], ah = seg[3 + 2 * ns] >> 4;
            bool dc = !progressive || (ss == 0 && ah == 0), ac = !progressive || ss > 0;
            for (unsigned c = 0; c < ns; c++) {
                unsigned td = seg[2 + 2 * c] >> 4, ta = seg[2 + 2 * c] & 15;
                if ((dc && (td > 3 || !defined[0][td])) || (ac && (ta > 3 || !defined[1][ta])))
                    return false;
            }
            /* Skip the entropy-coded data to the next marker. */
            i += 2 + len;
            while (i + 1 < size &&
                   !(d[i] == 0xFF && d[i + 1] != 0 && !(d[i + 1] >= 0xD0 && d[i + 1] <= 0xD7)))
                i++;
            continue;
        }
        i += 2 + len;
    }
    return true;
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

static int load_stb(const unsigned char *data, size_t size, const char *name, vkfx_pixels *out)
{
    int ret;
    void *img = NULL;
    struct stb_src src = {.data = data, .size = size};
    int w, h, comp, got;
    vkfx_sample sample;

    if (looks_like_jpeg(data, size) && !jpeg_has_eoi(data, size)) {
        ret = vkfx_fail(VKFX_E_FORMAT, "%s: truncated JPEG (no end-of-image marker)", name);
        goto fail;
    }
    if (looks_like_jpeg(data, size) && !jpeg_tables_defined(data, size)) {
        ret = vkfx_fail(VKFX_E_FORMAT, "%s: corrupt JPEG (a scan uses an undefined Huffman table)",
                        name);
        goto fail;
    }
    if (!stbi_info_from_callbacks(&stb_io, stb_rewind(&src), &w, &h, &comp) || comp < 1 ||
        comp > 4) {
        ret = vkfx_fail(VKFX_E_FORMAT, "%s: unsupported or corrupt image (stb_image: %s)", name,
                        stb_reason());
        goto fail;
    }
    if (w > 0 && h > 0 && (uint64_t)w * (uint64_t)h > max_pixels) {
        ret = vkfx_fail_pixels(name, (uint64_t)w, (uint64_t)h);
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

/* ------------------------------------------------------------------------ */
/* Loading */

int vkfx_file_load_memory(const void *data, size_t size, const char *name, vkfx_pixels *out)
{
    const unsigned char *bytes = data;

    out->data = NULL;
    if (size == 0)
        return vkfx_fail(VKFX_E_FORMAT, "%s: empty file", name);
    if (!data)
        return vkfx_fail(VKFX_E_USAGE, "%s: no data", name);
    /* Comparing only the bytes present sends a PNG cut inside its signature
     * to libpng, which then reports it as truncated rather than unknown. */
    if (png_sig_cmp(bytes, 0, size < 8 ? size : 8) == 0)
        return load_png(bytes, size, name, out);
    if (vkfx_exr_is(bytes, size))
        return vkfx_exr_load_memory(bytes, size, name, out);
    return load_stb(bytes, size, name, out);
}

uint64_t vkfx_file_max_bytes(void)
{
    return vkfx_file_max_pixels() * 17 + ((uint64_t)1 << 20);
}

static int fail_bytes(const char *name)
{
    return vkfx_fail(VKFX_E_LIMIT,
                     "%s: longer than %llu bytes, the most --max-pixels %llu lets a file have "
                     "(17 bytes a pixel and 1 MiB); not read further",
                     name, (unsigned long long)vkfx_file_max_bytes(),
                     (unsigned long long)vkfx_file_max_pixels());
}

/* All of an open file (or pipe) in *buf (malloc'd), its size in *size; name
 * for messages. Read in growing pieces and cut off past
 * vkfx_file_max_bytes, so /dev/zero or an endless pipe ends with an error
 * instead of taking all memory. */
static int read_fd(int fd, const char *name, unsigned char **buf_out, size_t *size_out)
{
    int ret;
    unsigned char *buf = NULL;
    size_t size = 0, cap;
    struct stat st;
    uint64_t max = vkfx_file_max_bytes();

    *buf_out = NULL;
    if (fstat(fd, &st) < 0) {
        ret = vkfx_fail(VKFX_E_IO, "%s: %s", name, strerror(errno));
        goto fail;
    }
    if (S_ISDIR(st.st_mode)) {
        ret = vkfx_fail(VKFX_E_IO, "%s: %s", name, strerror(EISDIR));
        goto fail;
    }
    if (S_ISREG(st.st_mode) && (uint64_t)st.st_size > max) {
        ret = fail_bytes(name);
        goto fail;
    }
    /* Pipes and devices report no size: read until EOF, growing as needed. */
    cap = S_ISREG(st.st_mode) && st.st_size > 0 ? (size_t)st.st_size + 1 : 65536;
    buf = malloc(cap);
    if (!buf) {
        ret = vkfx_fail(VKFX_E_NOMEM, "%s: out of host memory reading the file", name);
        goto fail;
    }
    for (;;) {
        if (size == cap) {
            if ((uint64_t)size > max) {
                ret = fail_bytes(name);
                goto fail;
            }
            size_t want = (uint64_t)cap * 2 > max + 1 ? (size_t)(max + 1) : cap * 2;
            unsigned char *bigger = want > cap ? realloc(buf, want) : NULL;
            if (!bigger) {
                ret = vkfx_fail(VKFX_E_NOMEM, "%s: out of host memory reading the file", name);
                goto fail;
            }
            buf = bigger;
            cap = want;
        }
        ssize_t n = read(fd, buf + size, cap - size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            ret = vkfx_fail(VKFX_E_IO, "%s: %s", name, strerror(errno));
            goto fail;
        }
        if (n == 0)
            break;
        size += (size_t)n;
    }
    if ((uint64_t)size > max) {
        ret = fail_bytes(name);
        goto fail;
    }
    *buf_out = buf;
    *size_out = size;
    buf = NULL;
    ret = VKFX_OK;
fail:
    free(buf);
    return ret;
}

static int read_all(const char *path, unsigned char **buf_out, size_t *size_out)
{
    *buf_out = NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return vkfx_fail(VKFX_E_IO, "%s: %s", path, strerror(errno));
    int ret = read_fd(fd, path, buf_out, size_out);
    close(fd);
    return ret;
}

int vkfx_file_load_fd(int fd, const char *name, vkfx_pixels *out)
{
    unsigned char *buf = NULL;
    size_t size = 0;
    out->data = NULL;
    int ret = read_fd(fd, name, &buf, &size);
    if (ret == VKFX_OK)
        ret = vkfx_file_load_memory(buf, size, name, out);
    free(buf);
    return ret;
}

int vkfx_file_load(const char *path, vkfx_pixels *out)
{
    unsigned char *buf = NULL;
    size_t size = 0;
    out->data = NULL;
    int ret = read_all(path, &buf, &size);
    if (ret == VKFX_OK)
        ret = vkfx_file_load_memory(buf, size, path, out);
    free(buf);
    return ret;
}

int vkfx_file_load_depth_of(const char *path, vkfx_pixels *out)
{
    unsigned char *buf = NULL;
    size_t size = 0;
    out->data = NULL;
    int ret = read_all(path, &buf, &size);
    if (ret == VKFX_OK && !vkfx_exr_is(buf, size))
        ret = vkfx_fail(VKFX_E_USAGE,
                        "%s is not an OpenEXR file; only those carry a depth channel beside the "
                        "colour",
                        path);
    if (ret == VKFX_OK)
        ret = vkfx_exr_load_channel_memory(buf, size, path, NULL, out);
    free(buf);
    return ret;
}

int vkfx_file_map_split(const char *spec, char **path, const char **channel)
{
    *channel = NULL;
    /* FILE.exr#NAME: only after an .exr name, so other paths may hold '#'. */
    const char *hash = strrchr(spec, '#');
    if (hash && hash - spec >= 4 && strncasecmp(hash - 4, ".exr", 4) == 0) {
        *channel = hash + 1;
        if (!**channel) {
            *path = NULL;
            return vkfx_fail(VKFX_E_USAGE, "%s: no channel name after '#'", spec);
        }
        *path = strndup(spec, (size_t)(hash - spec));
    } else {
        *path = strdup(spec);
    }
    return *path ? VKFX_OK : vkfx_fail(VKFX_E_NOMEM, "out of host memory");
}

int vkfx_file_load_map(const char *spec, vkfx_pixels *out)
{
    unsigned char *buf = NULL;
    size_t size = 0;
    char *path = NULL;
    const char *channel = NULL;
    out->data = NULL;
    int ret = vkfx_file_map_split(spec, &path, &channel);
    if (ret < 0)
        goto fail;
    ret = read_all(path, &buf, &size);
    if (ret < 0)
        goto fail;
    if (vkfx_exr_is(buf, size))
        ret = vkfx_exr_load_channel_memory(buf, size, path, channel, out);
    else if (channel)
        ret = vkfx_fail(VKFX_E_FORMAT, "%s: not an OpenEXR file, so it has no channel '%s'", path,
                        channel);
    else
        ret = vkfx_file_load_memory(buf, size, path, out);
fail:
    free(buf);
    free(path);
    return ret;
}

/* ------------------------------------------------------------------------ */
/* Encoding */

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
    png_set_compression_level(c->png, 6);
    png_write_info(c->png, c->info);
    if (depth == 16 && host_is_little_endian())
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

static int save_png(FILE *f, const char *path, const vkfx_pixels *px)
{
    int ret;
    struct png_ctx c = {.file = f};
    unsigned char *encoded = NULL;
    size_t size = 0;

    ret = vkfx_png_encode(px, &encoded, &size);
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

static int save_stb(FILE *f, const char *path, vkfx_file_format fmt, const vkfx_pixels *px,
                    int quality)
{
    int ret;
    int ok = 0;
    void *tmp = NULL;
    const void *src = px->data;
    int comp = (int)px->channels;
    struct stb_sink sink = {.file = f};
    size_t n = (size_t)px->width * px->height;

    switch (fmt) {
    case VKFX_FILE_JPEG:
        ok = stbi_write_jpg_to_func(stb_write_cb, &sink, (int)px->width, (int)px->height, comp, src,
                                    quality);
        break;
    case VKFX_FILE_BMP:
        if (px->channels == 2) {
            /* stb's BMP writer drops the alpha of gray+alpha; written as RGBA
             * (32-bit BMP with an alpha mask) the alpha survives. */
            const uint8_t *s = px->data;
            uint8_t *d = tmp = malloc(n * 4);
            if (!tmp) {
                ret = vkfx_fail(VKFX_E_NOMEM, "%s: out of host memory encoding the BMP", path);
                goto fail;
            }
            for (size_t i = 0; i < n; i++) {
                d[4 * i + 0] = d[4 * i + 1] = d[4 * i + 2] = s[2 * i];
                d[4 * i + 3] = s[2 * i + 1];
            }
            src = tmp;
            comp = 4;
        }
        ok =
            stbi_write_bmp_to_func(stb_write_cb, &sink, (int)px->width, (int)px->height, comp, src);
        break;
    case VKFX_FILE_TGA:
        ok =
            stbi_write_tga_to_func(stb_write_cb, &sink, (int)px->width, (int)px->height, comp, src);
        break;
    case VKFX_FILE_HDR: {
        const float *s = px->data;
        size_t count = n * px->channels;
        size_t i = 0;
        while (i < count && !hdr_needs_clamp(s[i]))
            i++;
        if (i < count) {
            float *d = tmp = malloc(count * sizeof(float));
            if (!tmp) {
                ret = vkfx_fail(VKFX_E_NOMEM, "%s: out of host memory encoding the HDR", path);
                goto fail;
            }
            for (i = 0; i < count; i++)
                d[i] = hdr_clamp(s[i]);
            src = tmp;
        }
        ok =
            stbi_write_hdr_to_func(stb_write_cb, &sink, (int)px->width, (int)px->height, comp, src);
        break;
    }
    case VKFX_FILE_PNG:
    case VKFX_FILE_GIF:
    case VKFX_FILE_PSD:
    case VKFX_FILE_EXR:
        ret = vkfx_fail(VKFX_E_USAGE, "%s: no stb writer for %s", path, vkfx_file_format_name(fmt));
        goto fail;
    }
    if (sink.write_errno) {
        ret = vkfx_fail(VKFX_E_IO, "%s: %s", path, strerror(sink.write_errno));
        goto fail;
    }
    if (!ok) {
        ret = vkfx_fail(VKFX_E_FORMAT, "%s: %s encoding failed", path, vkfx_file_format_name(fmt));
        goto fail;
    }
    ret = VKFX_OK;
fail:
    free(tmp);
    return ret;
}

/* ------------------------------------------------------------------------ */
/* Saving */

/* The process umask, for giving the temporary file the mode a plain fopen()
 * would have. Linux reports it in /proc without changing it; the umask()
 * round trip is the fallback, briefly visible to other threads. */
/* Checks what the encoders assume, so that a caller's mistake is an error
 * instead of a file of garbage. */
static int check_save_args(const char *path, vkfx_file_format fmt, const vkfx_pixels *px,
                           const vkfx_save_opts *opts)
{
    if (fmt == VKFX_FILE_GIF || fmt == VKFX_FILE_PSD)
        return vkfx_fail(VKFX_E_USAGE, "%s: cannot write %s; " WRITABLE, path,
                         vkfx_file_format_name(fmt));
    if (!px || !px->data || px->width < 1 || px->height < 1 || px->channels < 1 || px->channels > 4)
        return vkfx_fail(VKFX_E_USAGE, "%s: no image to save (empty or 0 channels)", path);

    uint32_t channels;
    vkfx_sample sample;
    vkfx_file_output_layout(fmt, px->channels, px->sample, &channels, &sample);
    if (channels != px->channels || sample != px->sample)
        return vkfx_fail(VKFX_E_USAGE,
                         "%s: %s cannot store %u channel(s) of %s samples; convert to %u "
                         "channel(s) of %s samples first",
                         path, vkfx_file_format_name(fmt), px->channels, sample_name(px->sample),
                         channels, sample_name(sample));

    int quality = opts ? opts->jpeg_quality : 0;
    if (quality < 0 || quality > 100)
        return vkfx_fail(VKFX_E_USAGE, "%s: JPEG quality %d is outside 1..100", path, quality);

    /* stb's writers take int sizes and compute file sizes in int; TGA and
     * JPEG headers hold 16-bit dimensions. */
    size_t bytes = 0;
    bool fits = image_bytes(px->width, px->height, 4, px->sample, &bytes);
    switch (fmt) {
    case VKFX_FILE_PNG:
        fits = fits && px->width <= PNG_UINT_31_MAX && px->height <= PNG_UINT_31_MAX;
        break;
    case VKFX_FILE_JPEG:
    case VKFX_FILE_TGA:
        fits = fits && px->width <= 65535 && px->height <= 65535 && bytes <= INT_MAX / 2;
        break;
    case VKFX_FILE_BMP:
    case VKFX_FILE_HDR:
        fits = fits && bytes <= INT_MAX / 2;
        break;
    case VKFX_FILE_EXR:
        fits = fits && px->width <= INT32_MAX && px->height <= INT32_MAX;
        break;
    case VKFX_FILE_GIF:
    case VKFX_FILE_PSD:
        break;
    }
    if (!fits)
        return vkfx_fail(VKFX_E_LIMIT, "%s: a %ux%u image is too large for %s", path, px->width,
                         px->height, vkfx_file_format_name(fmt));
    return VKFX_OK;
}

/* Encodes px into s, an open output of path. */
static int encode_to(vkfx_safefile *s, const char *path, vkfx_file_format fmt,
                     const vkfx_pixels *px, const vkfx_save_opts *opts)
{
    FILE *f = vkfx_safefile_stream(s);
    switch (fmt) {
    case VKFX_FILE_PNG:
        return save_png(f, path, px);
    case VKFX_FILE_JPEG:
    case VKFX_FILE_BMP:
    case VKFX_FILE_TGA:
    case VKFX_FILE_HDR:
        return save_stb(f, path, fmt, px, opts && opts->jpeg_quality ? opts->jpeg_quality : 90);
    case VKFX_FILE_EXR:
        /* OpenEXR writes at offsets, past the stream's buffer. */
        if (fflush(f) != 0)
            return vkfx_fail(VKFX_E_IO, "%s: %s", path, strerror(errno));
        return vkfx_exr_write(fileno(f), path, px,
                              &(vkfx_exr_opts){.float_samples = opts && opts->exr_float});
    case VKFX_FILE_GIF:
    case VKFX_FILE_PSD:
        break;
    }
    return vkfx_fail(VKFX_E_USAGE, "%s: cannot write %s; " WRITABLE, path,
                     vkfx_file_format_name(fmt));
}

static int save_to(vkfx_safefile *s, const char *path, vkfx_file_format fmt,
                   const vkfx_pixels *px, const vkfx_save_opts *opts)
{
    int ret = encode_to(s, path, fmt, px, opts);
    if (ret < 0) {
        vkfx_safefile_abort(s);
        return ret;
    }
    return vkfx_safefile_commit(s);
}

int vkfx_file_save(const char *path, vkfx_file_format fmt, const vkfx_pixels *px,
                   const vkfx_save_opts *opts)
{
    vkfx_safefile *s;
    int ret = check_save_args(path, fmt, px, opts);
    /* Opened before encoding, so that a wrong folder costs nothing. */
    if (ret == VKFX_OK)
        ret = vkfx_safefile_open(path, &s);
    return ret < 0 ? ret : save_to(s, path, fmt, px, opts);
}

int vkfx_file_save_fd(int fd, const char *name, vkfx_file_format fmt, const vkfx_pixels *px,
                      const vkfx_save_opts *opts)
{
    vkfx_safefile *s;
    int ret = check_save_args(name, fmt, px, opts);
    if (ret == VKFX_OK)
        ret = vkfx_safefile_open_fd(fd, name, &s);
    return ret < 0 ? ret : save_to(s, name, fmt, px, opts);
}
