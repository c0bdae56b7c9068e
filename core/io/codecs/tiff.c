/* TIFF through libtiff: 8 and 16-bit unsigned and 32-bit float samples,
 * gray, gray+alpha, RGB and RGBA, contiguous or planar, in strips or
 * tiles, with every compression libtiff decodes (none, LZW, deflate,
 * PackBits, JPEG, ...). Associated alpha (premultiplied colour, as TIFF
 * defines it) is divided out of integer samples and kept as premultiplied
 * for float ones, whose colour is linear; unassociated alpha is straight;
 * an extra sample of unspecified meaning is not alpha and is dropped. A
 * file of several pages gives its first and a note. libtiff's messages go
 * into vkfx's error message, never to stderr. Metadata: the ICC profile,
 * XMP, resolution and orientation tags, the text tags as the text keys
 * below, and EXIF: the Exif and GPS directories (classic TIFF), which an
 * output gets copied from the input's EXIF block after libtiff has written
 * the file, its IFD0 pointing to them. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tiffio.h>

#include "error.h"
#include "exif.h"
#include "codec.h"

/* A file in memory that libtiff reads, or grows as libtiff writes it. */
struct tiff_mem {
    unsigned char *data;
    size_t size, cap;
    toff_t pos;
    bool writable;
    char msg[256]; /* libtiff's first error */
};

static int tiff_error_cb(TIFF *tif, void *user, const char *module, const char *fmt, va_list ap)
{
    (void)tif;
    struct tiff_mem *m = user;
    if (!m->msg[0]) {
        char text[200];
        vsnprintf(text, sizeof(text), fmt, ap);
        snprintf(m->msg, sizeof(m->msg), "%s%s%s", module ? module : "", module ? ": " : "", text);
    }
    return 1; /* handled: libtiff's own handler, which prints, is not called */
}

/* Warnings (an unknown tag, an odd but readable field) do not stop a
 * decode; core never prints them. */
static int tiff_warning_cb(TIFF *tif, void *user, const char *module, const char *fmt, va_list ap)
{
    (void)tif;
    (void)user;
    (void)module;
    (void)fmt;
    (void)ap;
    return 1;
}

static tmsize_t tiff_read(thandle_t h, void *buf, tmsize_t n)
{
    struct tiff_mem *m = (struct tiff_mem *)h;
    if (n < 0 || m->pos >= m->size)
        return 0;
    size_t k = (size_t)n < m->size - m->pos ? (size_t)n : m->size - (size_t)m->pos;
    memcpy(buf, m->data + m->pos, k);
    m->pos += k;
    return (tmsize_t)k;
}

static tmsize_t tiff_write(thandle_t h, void *buf, tmsize_t n)
{
    struct tiff_mem *m = (struct tiff_mem *)h;
    if (!m->writable || n < 0 || m->pos > SIZE_MAX - (size_t)n)
        return -1;
    size_t end = (size_t)m->pos + (size_t)n;
    if (end > m->cap) {
        size_t cap = m->cap ? m->cap : 65536;
        while (cap < end)
            cap = cap > SIZE_MAX / 2 ? end : cap * 2;
        unsigned char *p = realloc(m->data, cap);
        if (!p)
            return -1;
        m->data = p;
        m->cap = cap;
    }
    if (m->pos > m->size) /* a seek past the end leaves a gap of zeros */
        memset(m->data + m->size, 0, (size_t)m->pos - m->size);
    memcpy(m->data + m->pos, buf, (size_t)n);
    m->pos = end;
    m->size = end > m->size ? end : m->size;
    return n;
}

static toff_t tiff_seek(thandle_t h, toff_t off, int whence)
{
    struct tiff_mem *m = (struct tiff_mem *)h;
    toff_t base = whence == SEEK_SET ? 0 : whence == SEEK_CUR ? m->pos : m->size;
    m->pos = base + off;
    return m->pos;
}

static int tiff_close(thandle_t h)
{
    (void)h;
    return 0;
}

static toff_t tiff_size(thandle_t h)
{
    return ((struct tiff_mem *)h)->size;
}

static int tiff_map(thandle_t h, void **base, toff_t *size)
{
    (void)h;
    (void)base;
    (void)size;
    return 0;
}

static void tiff_unmap(thandle_t h, void *base, toff_t size)
{
    (void)h;
    (void)base;
    (void)size;
}

static TIFF *tiff_open(struct tiff_mem *m, const char *mode)
{
    TIFFOpenOptions *o = TIFFOpenOptionsAlloc();
    if (!o)
        return NULL;
    TIFFOpenOptionsSetErrorHandlerExtR(o, tiff_error_cb, m);
    TIFFOpenOptionsSetWarningHandlerExtR(o, tiff_warning_cb, m);
    TIFF *tif = TIFFClientOpenExt("memory", mode, (thandle_t)m, tiff_read, tiff_write, tiff_seek,
                                  tiff_close, tiff_size, tiff_map, tiff_unmap, o);
    TIFFOpenOptionsFree(o);
    return tif;
}

static bool sniff_tiff(const unsigned char *data, size_t size)
{
    static const unsigned char le[4] = {'I', 'I', 42, 0}, be[4] = {'M', 'M', 0, 42};
    static const unsigned char le_big[4] = {'I', 'I', 43, 0}, be_big[4] = {'M', 'M', 0, 43};
    size_t n = size < 4 ? size : 4;
    return size >= 2 && (!memcmp(data, le, n) || !memcmp(data, be, n) || !memcmp(data, le_big, n) ||
                         !memcmp(data, be_big, n));
}

/* The first page's layout as vkfx reads it. */
struct tiff_layout {
    uint32_t width, height;
    uint16_t bits, spp, format, photometric, planar;
    uint32_t colour; /* 1 gray or 3 RGB */
    int alpha;       /* the sample index of alpha, or -1 */
    bool associated; /* alpha is associated (premultiplied colour) */
    vkfx_sample sample;
};

static int tiff_fail(const struct tiff_mem *m, const char *name, const char *what)
{
    return vkfx_fail(VKFX_E_FORMAT, "%s: corrupt or unsupported TIFF (%s)", name,
                     m->msg[0] ? m->msg : what);
}

static int tiff_read_layout(TIFF *tif, const struct tiff_mem *m, const char *name,
                            struct tiff_layout *l)
{
    uint16_t compression = COMPRESSION_NONE, nextra = 0, *extra = NULL;
    if (!TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &l->width) ||
        !TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &l->height) || !l->width || !l->height)
        return tiff_fail(m, name, "no image size");
    TIFFGetFieldDefaulted(tif, TIFFTAG_BITSPERSAMPLE, &l->bits);
    TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLESPERPIXEL, &l->spp);
    TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLEFORMAT, &l->format);
    TIFFGetFieldDefaulted(tif, TIFFTAG_PLANARCONFIG, &l->planar);
    TIFFGetFieldDefaulted(tif, TIFFTAG_COMPRESSION, &compression);
    TIFFGetFieldDefaulted(tif, TIFFTAG_EXTRASAMPLES, &nextra, &extra);
    if (!TIFFGetField(tif, TIFFTAG_PHOTOMETRIC, &l->photometric))
        l->photometric = l->spp >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK;
    /* libtiff converts JPEG-compressed YCbCr to RGB itself. */
    if (l->photometric == PHOTOMETRIC_YCBCR && compression == COMPRESSION_JPEG) {
        TIFFSetField(tif, TIFFTAG_JPEGCOLORMODE, JPEGCOLORMODE_RGB);
        l->photometric = PHOTOMETRIC_RGB;
    }
    if (l->bits == 8 && l->format == SAMPLEFORMAT_UINT)
        l->sample = VKFX_SAMPLE_U8;
    else if (l->bits == 16 && l->format == SAMPLEFORMAT_UINT)
        l->sample = VKFX_SAMPLE_U16;
    else if (l->bits == 32 && l->format == SAMPLEFORMAT_IEEEFP)
        l->sample = VKFX_SAMPLE_F32;
    else
        return vkfx_fail(VKFX_E_FORMAT,
                         "%s: TIFF with %u-bit %s samples; vkfx reads 8 and 16-bit unsigned and "
                         "32-bit float",
                         name, l->bits,
                         l->format == SAMPLEFORMAT_IEEEFP ? "float"
                         : l->format == SAMPLEFORMAT_INT  ? "signed"
                                                          : "unsigned");
    if (l->photometric == PHOTOMETRIC_MINISBLACK ||
        (l->photometric == PHOTOMETRIC_MINISWHITE && l->sample != VKFX_SAMPLE_F32))
        l->colour = 1;
    else if (l->photometric == PHOTOMETRIC_RGB)
        l->colour = 3;
    else
        return vkfx_fail(VKFX_E_FORMAT,
                         "%s: TIFF photometric interpretation %u; vkfx reads gray and RGB", name,
                         l->photometric);
    if (l->spp < l->colour || nextra != l->spp - l->colour)
        return tiff_fail(m, name, "the samples per pixel do not match the extra samples");
    l->alpha = -1;
    if (nextra && extra &&
        (extra[0] == EXTRASAMPLE_ASSOCALPHA || extra[0] == EXTRASAMPLE_UNASSALPHA)) {
        l->alpha = (int)l->colour;
        l->associated = extra[0] == EXTRASAMPLE_ASSOCALPHA;
    }
    return VKFX_OK;
}

static int probe_tiff(const unsigned char *data, size_t size, const char *name,
                      vkfx_image_info *info)
{
    struct tiff_mem m = {.data = (unsigned char *)data, .size = size};
    struct tiff_layout l = {0};
    TIFF *tif = tiff_open(&m, "rm");
    if (!tif)
        return tiff_fail(&m, name, "cannot open");
    int ret = tiff_read_layout(tif, &m, name, &l);
    TIFFClose(tif);
    if (ret < 0)
        return ret;
    info->width = l.width;
    info->height = l.height;
    info->channels = l.colour + (l.alpha >= 0);
    info->sample = l.sample;
    return VKFX_OK;
}

/* Copies a block of decoded samples (a strip or a tile, bw x bh, of one
 * plane or of all samples interleaved) into the image of all samples. */
static void tiff_place(const struct tiff_layout *l, unsigned char *img, const unsigned char *blk,
                       uint32_t x0, uint32_t y0, uint32_t bw, uint32_t bh, int plane)
{
    size_t ss = vkfx_sample_size(l->sample);
    size_t pix = ss * l->spp;
    uint32_t w = x0 + bw > l->width ? l->width - x0 : bw;
    uint32_t h = y0 + bh > l->height ? l->height - y0 : bh;
    for (uint32_t y = 0; y < h; y++) {
        unsigned char *dst = img + ((size_t)(y0 + y) * l->width + x0) * pix;
        if (plane < 0) {
            memcpy(dst, blk + (size_t)y * bw * pix, (size_t)w * pix);
            continue;
        }
        const unsigned char *src = blk + (size_t)y * bw * ss;
        for (uint32_t x = 0; x < w; x++)
            memcpy(dst + x * pix + (size_t)plane * ss, src + x * ss, ss);
    }
}

/* No codec libtiff has turns a byte into more than a few thousand:
 * deflate's limit is 1032, LZW's 4096 a 12-bit code. */
#define TIFF_MOST_PER_BYTE 4096

/* A tile is decoded whole into one buffer, whatever part of it the image
 * covers: a 16x16 image may declare one 32768x32768 tile. Each is held to
 * what an image is: within the pixel and sample limits, and in the file's
 * bytes. (A strip is never larger than the image, which was checked.) */
static int tiff_check_tile(TIFF *tif, const struct tiff_layout *l, const char *name, size_t size)
{
    uint32_t tw = 0, th = 0;
    if (!TIFFIsTiled(tif))
        return VKFX_OK;
    if (!TIFFGetField(tif, TIFFTAG_TILEWIDTH, &tw) || !TIFFGetField(tif, TIFFTAG_TILELENGTH, &th))
        return vkfx_fail(VKFX_E_FORMAT, "%s: corrupt TIFF (tiles without their size)", name);
    uint64_t spp = l->planar == PLANARCONFIG_SEPARATE ? 1 : l->spp;
    char what[512];
    snprintf(what, sizeof(what), "%s, its tile", name);
    int ret = vkfx_check_pixels(what, tw, th);
    if (ret == VKFX_OK)
        ret = vkfx_check_samples(what, tw, th, spp);
    if (ret == VKFX_OK)
        ret = vkfx_check_stored(name, "TIFF tile", tw, th,
                                (uint64_t)tw * th * spp * vkfx_sample_size(l->sample),
                                TIFF_MOST_PER_BYTE, size);
    return ret;
}

/* Every strip or tile of the first page into img (width x height x spp
 * samples, interleaved). Returns 0 or -1 (message in m->msg). */
static int tiff_read_pixels(TIFF *tif, const struct tiff_layout *l, unsigned char *img)
{
    int ret = -1;
    bool tiled = TIFFIsTiled(tif);
    int planes = l->planar == PLANARCONFIG_SEPARATE ? l->spp : 1;
    uint32_t bw = l->width, bh;
    tmsize_t bytes = tiled ? TIFFTileSize(tif) : TIFFStripSize(tif);
    if (tiled) {
        TIFFGetField(tif, TIFFTAG_TILEWIDTH, &bw);
        TIFFGetField(tif, TIFFTAG_TILELENGTH, &bh);
    } else {
        TIFFGetFieldDefaulted(tif, TIFFTAG_ROWSPERSTRIP, &bh);
        bh = bh > l->height ? l->height : bh;
    }
    size_t per = vkfx_sample_size(l->sample) * (planes > 1 ? 1 : l->spp);
    if (bytes <= 0 || !bw || !bh || (uint64_t)bw * bh * per > (uint64_t)bytes)
        return -1;
    unsigned char *blk = malloc((size_t)bytes);
    if (!blk)
        return -1;
    for (int p = 0; p < planes; p++)
        for (uint32_t y = 0; y < l->height; y += bh)
            for (uint32_t x = 0; x < l->width; x += bw) {
                tmsize_t got =
                    tiled ? TIFFReadEncodedTile(tif, TIFFComputeTile(tif, x, y, 0, (uint16_t)p),
                                                blk, bytes)
                          : TIFFReadEncodedStrip(tif, TIFFComputeStrip(tif, y, (uint16_t)p), blk,
                                                 bytes);
                if (got < 0)
                    goto done;
                /* A last strip may be short: only its rows are needed. */
                uint32_t rows = l->height - y < bh ? l->height - y : bh;
                if (!tiled && (uint64_t)got < (uint64_t)bw * rows * per)
                    goto done;
                tiff_place(l, img, blk, x, y, bw, bh, planes > 1 ? p : -1);
            }
    ret = 0;
done:
    free(blk);
    return ret;
}

/* img's samples (spp a pixel) into out's channels: gray or RGB and alpha,
 * white-is-zero inverted, associated alpha divided out of integer colour. */
static void tiff_select(const struct tiff_layout *l, const unsigned char *img, vkfx_pixels *out)
{
    size_t n = (size_t)l->width * l->height;
    uint32_t oc = out->channels;
    for (size_t i = 0; i < n; i++) {
        for (uint32_t c = 0; c < oc; c++) {
            size_t from = i * l->spp + (c < l->colour ? c : (size_t)l->alpha);
            size_t to = i * oc + c;
            switch (l->sample) {
            case VKFX_SAMPLE_U8:
                ((uint8_t *)out->data)[to] = img[from];
                break;
            case VKFX_SAMPLE_U16:
                ((uint16_t *)out->data)[to] = ((const uint16_t *)(const void *)img)[from];
                break;
            case VKFX_SAMPLE_F32:
                ((float *)out->data)[to] = ((const float *)(const void *)img)[from];
                break;
            }
        }
        if (l->sample == VKFX_SAMPLE_F32)
            continue;
        uint32_t max = l->sample == VKFX_SAMPLE_U8 ? 255 : 65535;
        for (uint32_t c = 0; c < l->colour; c++) {
            size_t at = i * oc + c;
            uint32_t v = l->sample == VKFX_SAMPLE_U8 ? ((uint8_t *)out->data)[at]
                                                     : ((uint16_t *)out->data)[at];
            if (l->photometric == PHOTOMETRIC_MINISWHITE)
                v = max - v;
            if (l->alpha >= 0 && l->associated) {
                uint32_t a = l->sample == VKFX_SAMPLE_U8 ? ((uint8_t *)out->data)[i * oc + oc - 1]
                                                         : ((uint16_t *)out->data)[i * oc + oc - 1];
                v = a ? (uint32_t)(((uint64_t)v * max + a / 2) / a) : 0;
                v = v > max ? max : v;
            }
            if (l->sample == VKFX_SAMPLE_U8)
                ((uint8_t *)out->data)[at] = (uint8_t)v;
            else
                ((uint16_t *)out->data)[at] = (uint16_t)v;
        }
    }
}

static int decode_tiff(const unsigned char *data, size_t size, const char *name, vkfx_pixels *out,
                       vkfx_decode_note *note)
{
    int ret;
    struct tiff_mem m = {.data = (unsigned char *)data, .size = size};
    struct tiff_layout l = {0};
    unsigned char *img = NULL;
    vkfx_pixels px = {0};
    TIFF *tif = tiff_open(&m, "rm");
    if (!tif) {
        ret = tiff_fail(&m, name, "cannot open");
        goto fail;
    }
    if ((ret = tiff_read_layout(tif, &m, name, &l)) < 0 ||
        (ret = vkfx_check_pixels(name, l.width, l.height)) < 0 ||
        (ret = vkfx_check_samples(name, l.width, l.height, l.spp)) < 0)
        goto fail;
    size_t bytes;
    if (!vkfx_image_bytes(l.width, l.height, l.spp, l.sample, &bytes)) {
        ret = vkfx_fail_pixels(name, l.width, l.height);
        goto fail;
    }
    if ((ret = vkfx_check_stored(name, "TIFF", l.width, l.height, bytes, TIFF_MOST_PER_BYTE,
                                 size)) < 0 ||
        (ret = tiff_check_tile(tif, &l, name, size)) < 0)
        goto fail;
    img = malloc(bytes);
    if (!img ||
        vkfx_pixels_alloc(&px, l.width, l.height, l.colour + (l.alpha >= 0), l.sample) < 0) {
        ret = vkfx_fail(VKFX_E_NOMEM, "%s: out of host memory decoding the TIFF", name);
        goto fail;
    }
    if (tiff_read_pixels(tif, &l, img) < 0) {
        ret = tiff_fail(&m, name, "unreadable strips or tiles");
        goto fail;
    }
    tiff_select(&l, img, &px);
    px.linear = l.sample == VKFX_SAMPLE_F32;
    px.straight = !(l.sample == VKFX_SAMPLE_F32 && l.alpha >= 0 && l.associated);
    tdir_t pages = TIFFNumberOfDirectories(tif);
    if (pages > 1)
        snprintf(note->text, sizeof(note->text), "%s: a TIFF of %u pages; only the first is read",
                 name, (unsigned)pages);
    *out = px;
    px.data = NULL;
    ret = VKFX_OK;
fail:
    if (tif)
        TIFFClose(tif);
    free(img);
    vkfx_pixels_free(&px);
    return ret;
}

/* The input's channels and depth. */
static void layout_tiff(uint32_t in_channels, vkfx_sample in_sample, uint32_t *channels,
                        vkfx_sample *sample)
{
    *channels = in_channels;
    *sample = in_sample;
}

/* Classic TIFF addresses 4 GiB. */
static bool fits_tiff(uint32_t width, uint32_t height)
{
    return (uint64_t)width * height * 16 < (uint64_t)UINT32_MAX - 65536;
}

/* The text tags and the text keys (PNG's) they are read as and written
 * from; the date goes between EXIF's form and ISO 8601's. */
static const uint32_t tiff_text_tags[] = {TIFFTAG_IMAGEDESCRIPTION, TIFFTAG_ARTIST, TIFFTAG_COPYRIGHT,
                                          TIFFTAG_SOFTWARE, TIFFTAG_DATETIME};
static const char *const tiff_text_keys[] = {"Description", "Author", "Copyright", "Software",
                                             VKFX_META_DATE_KEY};
#define TIFF_TEXTS (sizeof(tiff_text_tags) / sizeof(tiff_text_tags[0]))

static int tiff_read_texts(TIFF *tif, vkfx_meta *m)
{
    int ret = VKFX_OK;
    for (size_t i = 0; ret == VKFX_OK && i < TIFF_TEXTS; i++) {
        const char *v = NULL;
        if (TIFFGetField(tif, tiff_text_tags[i], &v) && v)
            ret = vkfx_meta_add_field(m, tiff_text_keys[i], v, strnlen(v, VKFX_META_MAX_BYTES));
    }
    return ret;
}

/* The ICC profile, XMP packet, EXIF, text and resolution tags of the first
 * page. */
static int read_meta_tiff(const unsigned char *data, size_t size, const char *name, vkfx_meta *m)
{
    struct tiff_mem mem = {.data = (unsigned char *)data, .size = size};
    TIFF *tif = tiff_open(&mem, "rm");
    if (!tif)
        return VKFX_OK; /* the decoder says what is wrong */
    int ret = VKFX_OK;
    uint32_t n = 0;
    void *d = NULL;
    if (TIFFGetField(tif, TIFFTAG_ICCPROFILE, &n, &d) && d && n)
        ret = vkfx_blob_set(&m->icc, d, n, name, "ICC profile");
    if (ret == VKFX_OK && TIFFGetField(tif, TIFFTAG_XMLPACKET, &n, &d) && d && n)
        ret = vkfx_blob_set(&m->xmp, d, n, name, "XMP");
    if (ret == VKFX_OK)
        ret = vkfx_exif_from_tiff(data, size, name, &m->exif);
    if (ret == VKFX_OK)
        ret = tiff_read_texts(tif, m);
    uint16_t o = 0, unit = RESUNIT_INCH;
    if (TIFFGetField(tif, TIFFTAG_ORIENTATION, &o) && o >= 1 && o <= 8)
        m->stored_orientation = o;
    float x = 0, y = 0;
    if (TIFFGetField(tif, TIFFTAG_XRESOLUTION, &x) && TIFFGetField(tif, TIFFTAG_YRESOLUTION, &y) &&
        x > 0 && y > 0 && x < 1e9f && y < 1e9f) {
        TIFFGetFieldDefaulted(tif, TIFFTAG_RESOLUTIONUNIT, &unit);
        m->has_res = true;
        m->res_x = x;
        m->res_y = y;
        m->res_unit = unit == RESUNIT_CENTIMETER ? VKFX_RES_PER_CM
                      : unit == RESUNIT_INCH     ? VKFX_RES_PER_INCH
                                                 : VKFX_RES_NONE;
    }
    TIFFClose(tif);
    return ret;
}

/* The kinds of m a TIFF holds: all but text under keys no tag holds. */
static unsigned meta_fits_tiff(const vkfx_meta *m)
{
    unsigned kinds = VKFX_META_ICC | VKFX_META_EXIF | VKFX_META_XMP | VKFX_META_RES;
    return kinds | (vkfx_meta_fields_hold(m, tiff_text_keys, TIFF_TEXTS) ? VKFX_META_TEXT : 0u);
}

/* The text tags: from the EXIF's IFD0 where the text keys do not give
 * them; make and model from the EXIF alone. */
static int tiff_put_texts(TIFF *tif, const vkfx_meta *m)
{
    static const uint32_t from_exif[] = {TIFFTAG_IMAGEDESCRIPTION, TIFFTAG_ARTIST, TIFFTAG_COPYRIGHT,
                                         TIFFTAG_SOFTWARE,         TIFFTAG_DATETIME, TIFFTAG_MAKE,
                                         TIFFTAG_MODEL};
    for (size_t i = 0; i < sizeof(from_exif) / sizeof(from_exif[0]); i++) {
        size_t len;
        const char *v = vkfx_exif_ascii(m->exif.data, m->exif.size, from_exif[i], &len);
        char *text = v ? strndup(v, len) : NULL;
        if (v && !text)
            return -1;
        if (text && text[0])
            TIFFSetField(tif, from_exif[i], text);
        free(text);
    }
    for (uint32_t i = 0; i < m->ntexts; i++) {
        const char *v;
        char date[20];
        int k = vkfx_meta_field_of(&m->texts[i], tiff_text_keys, TIFF_TEXTS, &v, date);
        if (k >= 0)
            TIFFSetField(tif, tiff_text_tags[k], v);
    }
    return 0;
}

static int tiff_put_meta(TIFF *tif, const vkfx_meta *m)
{
    if (m->icc.data)
        TIFFSetField(tif, TIFFTAG_ICCPROFILE, (uint32_t)m->icc.size, m->icc.data);
    if (m->xmp.data)
        TIFFSetField(tif, TIFFTAG_XMLPACKET, (uint32_t)m->xmp.size, m->xmp.data);
    if (m->has_res) {
        TIFFSetField(tif, TIFFTAG_XRESOLUTION, (float)m->res_x);
        TIFFSetField(tif, TIFFTAG_YRESOLUTION, (float)m->res_y);
        TIFFSetField(tif, TIFFTAG_RESOLUTIONUNIT,
                     m->res_unit == VKFX_RES_PER_CM     ? RESUNIT_CENTIMETER
                     : m->res_unit == VKFX_RES_PER_INCH ? RESUNIT_INCH
                                                        : RESUNIT_NONE);
    }
    /* Placeholders, set to where the directories land once libtiff is done. */
    if (vkfx_exif_pointer(m->exif.data, m->exif.size, VKFX_EXIF_IFD_TAG))
        TIFFSetField(tif, TIFFTAG_EXIFIFD, (uint64_t)0);
    if (vkfx_exif_pointer(m->exif.data, m->exif.size, VKFX_EXIF_GPS_TAG))
        TIFFSetField(tif, TIFFTAG_GPSIFD, (uint64_t)0);
    return tiff_put_texts(tif, m);
}

static int tiff_encode_body(TIFF *tif, const vkfx_pixels *px, const vkfx_save_opts *opts)
{
    static const uint16_t compressions[] = {
        [VKFX_TIFF_DEFLATE] = COMPRESSION_ADOBE_DEFLATE,
        [VKFX_TIFF_LZW] = COMPRESSION_LZW,
        [VKFX_TIFF_NONE] = COMPRESSION_NONE,
    };
    vkfx_tiff_compression which = opts ? opts->tiff_compression : VKFX_TIFF_DEFLATE;
    bool fl = px->sample == VKFX_SAMPLE_F32;
    size_t stride = (size_t)px->width * px->channels * vkfx_sample_size(px->sample);
    TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, px->width);
    TIFFSetField(tif, TIFFTAG_IMAGELENGTH, px->height);
    TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, (uint16_t)px->channels);
    TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, (uint16_t)(8 * vkfx_sample_size(px->sample)));
    TIFFSetField(tif, TIFFTAG_SAMPLEFORMAT, fl ? SAMPLEFORMAT_IEEEFP : SAMPLEFORMAT_UINT);
    TIFFSetField(tif, TIFFTAG_PHOTOMETRIC,
                 px->channels >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK);
    TIFFSetField(tif, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
    const vkfx_meta *meta = opts ? opts->meta : NULL;
    TIFFSetField(tif, TIFFTAG_ORIENTATION, (uint16_t)vkfx_meta_out_orientation(meta));
    if (meta && tiff_put_meta(tif, meta) < 0)
        return -1;
    if (px->channels == 2 || px->channels == 4) {
        uint16_t extra = px->straight ? EXTRASAMPLE_UNASSALPHA : EXTRASAMPLE_ASSOCALPHA;
        TIFFSetField(tif, TIFFTAG_EXTRASAMPLES, 1, &extra);
    }
    TIFFSetField(tif, TIFFTAG_COMPRESSION, compressions[which]);
    /* Differences between neighbours compress better than the samples. Float
     * samples written through the floating-point predictor into a file of
     * the other byte order (a big-endian EXIF's) do not read back as written
     * (libtiff 4.5): those go without it. */
    if (which != VKFX_TIFF_NONE && !(fl && TIFFIsByteSwapped(tif)))
        TIFFSetField(tif, TIFFTAG_PREDICTOR, fl ? PREDICTOR_FLOATINGPOINT : PREDICTOR_HORIZONTAL);
    TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, TIFFDefaultStripSize(tif, 0));
    /* libtiff applies the predictor (and byte swapping) in the buffer it is
     * given: each row goes through a copy, never the caller's pixels. */
    unsigned char *row = malloc(stride);
    if (!row)
        return -1;
    int ret = 0;
    for (uint32_t y = 0; y < px->height && ret == 0; y++) {
        memcpy(row, (const unsigned char *)px->data + stride * y, stride);
        if (TIFFWriteScanline(tif, row, y, 0) < 0)
            ret = -1;
    }
    free(row);
    return ret == 0 && TIFFWriteDirectory(tif) ? 0 : -1;
}

/* The Exif and GPS directories of meta's EXIF appended to the file in m,
 * IFD0's placeholders pointing to them. */
static int tiff_append_exif(struct tiff_mem *m, const vkfx_meta *meta, const char *path)
{
    static const uint32_t tags[2] = {VKFX_EXIF_IFD_TAG, VKFX_EXIF_GPS_TAG};
    int ret = VKFX_OK;
    for (int i = 0; i < 2 && ret == VKFX_OK; i++) {
        uint32_t ifd = vkfx_exif_pointer(meta->exif.data, meta->exif.size, tags[i]), kept;
        if (!ifd)
            continue;
        size_t at = (m->size + 1) & ~(size_t)1;
        if (at > UINT32_MAX - 65536)
            return vkfx_fail(VKFX_E_FORMAT, "%s: no room for the EXIF in a classic TIFF", path);
        vkfx_blob dir = {0};
        ret = vkfx_exif_copy_ifd(meta->exif.data, meta->exif.size, ifd, 1, NULL, 0, (uint32_t)at,
                                 &dir, &kept, path);
        m->pos = at;
        if (ret == VKFX_OK && (tiff_write((thandle_t)m, dir.data, (tmsize_t)dir.size) < 0 ||
                               !vkfx_exif_set_pointer(m->data, m->size, tags[i], (uint32_t)at)))
            ret = vkfx_fail(VKFX_E_NOMEM, "%s: cannot add the EXIF to the TIFF", path);
        free(dir.data);
    }
    return ret;
}

static int encode_tiff(FILE *f, const char *path, const vkfx_pixels *px, const vkfx_save_opts *opts)
{
    int ret = VKFX_OK;
    struct tiff_mem m = {.writable = true};
    const vkfx_meta *meta = opts ? opts->meta : NULL;
    /* The file takes the EXIF's byte order: its directories are copied as they are. */
    bool big = meta && vkfx_exif_big_endian(meta->exif.data, meta->exif.size);
    TIFF *tif = tiff_open(&m, big ? "wmb" : "wml");
    if (!tif) {
        ret =
            vkfx_fail(VKFX_E_NOMEM, "%s: cannot create a TIFF encoder (libtiff: %s)", path, m.msg);
        goto fail;
    }
    int body = tiff_encode_body(tif, px, opts);
    TIFFClose(tif);
    if (body < 0 || m.msg[0]) {
        ret = vkfx_fail(VKFX_E_FORMAT, "%s: TIFF encoding failed (libtiff: %s)", path,
                        m.msg[0] ? m.msg : "out of memory");
        goto fail;
    }
    if (meta && (ret = tiff_append_exif(&m, meta, path)) < 0)
        goto fail;
    if (fwrite(m.data, 1, m.size, f) != m.size)
        ret = vkfx_fail(VKFX_E_IO, "%s: %s", path, strerror(errno ? errno : EIO));
fail:
    free(m.data);
    return ret;
}

const vkfx_codec vkfx_codec_tiff = {
    .name = "TIFF",
    .extensions = (const char *const[]){"tif", "tiff", NULL},
    .sniff = sniff_tiff,
    .probe = probe_tiff,
    .decode = decode_tiff,
    .layout = layout_tiff,
    .fits = fits_tiff,
    .encode = encode_tiff,
    .options = "--tiff-compression",
    .read_meta = read_meta_tiff,
    .meta_kinds = VKFX_META_ICC | VKFX_META_EXIF | VKFX_META_XMP | VKFX_META_TEXT | VKFX_META_RES,
    .meta_fits = meta_fits_tiff,
};
