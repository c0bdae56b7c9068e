/* TIFF through libtiff, as it reads the first page: unsigned samples of 1 to
 * 16 bits (fax and G4 scans, 2/4-bit gray, 12-bit) scaled to 8 or 16-bit
 * output, signed 8/16/32-bit ones clamped at 0, 32-bit float; gray, RGB,
 * palette, CMYK (through the file's CMYK profile, else Pillow's plain
 * formula), CIE L*a*b* (through lcms2 into sRGB), and YCbCr (old-style JPEG
 * too) through libtiff's RGBA reader; contiguous or planar, in strips or
 * tiles, with every compression libtiff decodes. Associated alpha
 * (premultiplied colour, as TIFF defines it) is divided out of integer
 * samples and kept as premultiplied for float ones, whose colour is
 * linear; unassociated alpha is straight; an extra sample without an
 * ExtraSamples tag is alpha, one the tag calls unspecified is left out with
 * a note, as Pillow reads them. A file of several pages gives its first and
 * a note. libtiff's messages go into vkfx's error message, never to stderr.
 * Metadata: the ICC profile, XMP, resolution and orientation tags, the text
 * tags as the text keys below, and EXIF: the Exif and GPS directories
 * (classic TIFF), which an output gets copied from the input's EXIF block
 * after libtiff has written the file, its IFD0 pointing to them. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tiffio.h>

#include "error.h"
#include "exif.h"
#include "icc.h"
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

/* How the first page's samples become vkfx's channels. */
enum tiff_kind {
    TIFF_DIRECT,  /* gray or RGB samples, scaled to the output's depth */
    TIFF_PALETTE, /* an index into the colour map */
    TIFF_CMYK,    /* inks: through the file's CMYK profile, else Pillow's plain formula */
    TIFF_LAB,     /* CIE L*a*b* through lcms2 into sRGB */
    TIFF_RGBA,    /* YCbCr without JPEG compression (old-style JPEG too): libtiff's RGBA reader */
};

/* The first page's layout as vkfx reads it. */
struct tiff_layout {
    uint32_t width, height;
    uint16_t bits, spp, format, photometric, planar;
    enum tiff_kind kind;
    uint32_t stored;  /* colour samples stored a pixel: 1, 3 (RGB, Lab) or 4 (CMYK) */
    uint32_t colour;  /* colour channels given: 1 gray or 3 RGB */
    int alpha;        /* the sample index of alpha, or -1 */
    bool associated;  /* alpha is associated (premultiplied colour) */
    uint32_t dropped; /* extra samples beyond alpha, left out */
    vkfx_sample sample;
};

static int tiff_fail(const struct tiff_mem *m, const char *name, const char *what)
{
    return vkfx_fail(VKFX_E_FORMAT, "%s: corrupt or unsupported TIFF (%s)", name,
                     m->msg[0] ? m->msg : what);
}

/* The samples the first page stores, and the depth vkfx gives them: any unsigned depth up to 16
 * bits (8-bit output up to 8 bits, 16-bit above), signed 8, 16 and 32-bit (negative values
 * clamped to 0, as Pillow and libvips show them), 32-bit float. */
static int tiff_samples(const char *name, struct tiff_layout *l)
{
    bool uint = l->format == SAMPLEFORMAT_UINT && l->bits >= 1 && l->bits <= 16;
    bool sint = l->format == SAMPLEFORMAT_INT && (l->bits == 8 || l->bits == 16 || l->bits == 32);
    if (l->format == SAMPLEFORMAT_IEEEFP && l->bits == 32)
        l->sample = VKFX_SAMPLE_F32;
    else if (uint || sint)
        l->sample = l->bits <= 8 ? VKFX_SAMPLE_U8 : VKFX_SAMPLE_U16;
    else
        return vkfx_fail(
            VKFX_E_FORMAT,
            "%s: TIFF with %u-bit %s samples; vkfx reads unsigned ones of 1 to 16 bits, "
            "signed ones of 8, 16 and 32 bits and 32-bit float",
            name, l->bits,
            l->format == SAMPLEFORMAT_IEEEFP ? "float"
            : l->format == SAMPLEFORMAT_INT  ? "signed"
                                             : "unsigned");
    return VKFX_OK;
}

/* Whether the first directory of a TIFF (classic or BigTIFF) has tag: libtiff cannot say, as
 * it makes up an ExtraSamples tag of unspecified samples where the file has none. */
static bool tiff_ifd0_has(const unsigned char *d, size_t size, uint16_t tag)
{
    if (size < 16)
        return false;
    bool big = d[0] == 'M', wide = (big ? d[3] : d[2]) == 43;
    uint64_t at = 0, n = 0;
    unsigned off_bytes = wide ? 8 : 4, count_bytes = wide ? 8 : 2, entry = wide ? 20 : 12;
    for (unsigned i = 0; i < off_bytes; i++)
        at |= (uint64_t)d[(wide ? 8 : 4) + (big ? off_bytes - 1 - i : i)] << (8 * i);
    if (at > size || size - at < count_bytes)
        return false;
    for (unsigned i = 0; i < count_bytes; i++)
        n |= (uint64_t)d[at + (big ? count_bytes - 1 - i : i)] << (8 * i);
    for (uint64_t k = 0; k < n && at + count_bytes + (k + 1) * entry <= size; k++) {
        const unsigned char *e = d + at + count_bytes + k * entry;
        if ((big ? (e[0] << 8 | e[1]) : (e[1] << 8 | e[0])) == tag)
            return true;
    }
    return false;
}

static int tiff_read_layout(TIFF *tif, const struct tiff_mem *m, const char *name,
                            struct tiff_layout *l)
{
    uint16_t compression = COMPRESSION_NONE, nextra = 0, *extra = NULL, inks = INKSET_CMYK;
    if (!TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &l->width) ||
        !TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &l->height) || !l->width || !l->height)
        return tiff_fail(m, name, "no image size");
    TIFFGetFieldDefaulted(tif, TIFFTAG_BITSPERSAMPLE, &l->bits);
    TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLESPERPIXEL, &l->spp);
    TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLEFORMAT, &l->format);
    TIFFGetFieldDefaulted(tif, TIFFTAG_PLANARCONFIG, &l->planar);
    TIFFGetFieldDefaulted(tif, TIFFTAG_COMPRESSION, &compression);
    TIFFGetFieldDefaulted(tif, TIFFTAG_EXTRASAMPLES, &nextra, &extra);
    TIFFGetFieldDefaulted(tif, TIFFTAG_INKSET, &inks);
    if (!TIFFGetField(tif, TIFFTAG_PHOTOMETRIC, &l->photometric))
        l->photometric = l->spp >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK;
    /* libtiff converts JPEG-compressed YCbCr to RGB itself. */
    if (l->photometric == PHOTOMETRIC_YCBCR && compression == COMPRESSION_JPEG) {
        TIFFSetField(tif, TIFFTAG_JPEGCOLORMODE, JPEGCOLORMODE_RGB);
        l->photometric = PHOTOMETRIC_RGB;
    }
    int ret = tiff_samples(name, l);
    if (ret < 0)
        return ret;
    bool ints = l->sample != VKFX_SAMPLE_F32;
    l->kind = TIFF_DIRECT;
    l->colour = 3;
    l->stored = 3;
    switch (l->photometric) {
    case PHOTOMETRIC_MINISBLACK:
    case PHOTOMETRIC_MINISWHITE:
        l->colour = l->stored = 1;
        if (!ints && l->photometric == PHOTOMETRIC_MINISWHITE)
            ret = vkfx_fail(VKFX_E_FORMAT, "%s: TIFF of white-is-zero float samples", name);
        break;
    case PHOTOMETRIC_RGB:
        break;
    case PHOTOMETRIC_PALETTE:
        l->kind = TIFF_PALETTE;
        l->stored = 1;
        l->sample = VKFX_SAMPLE_U8;
        if (l->format != SAMPLEFORMAT_UINT || l->bits > 16)
            ret = vkfx_fail(VKFX_E_FORMAT, "%s: TIFF palette of %u-bit indices", name, l->bits);
        break;
    case PHOTOMETRIC_SEPARATED:
        l->kind = TIFF_CMYK;
        l->stored = 4;
        l->sample = VKFX_SAMPLE_U8;
        if (inks != INKSET_CMYK || l->format != SAMPLEFORMAT_UINT ||
            (l->bits != 8 && l->bits != 16))
            ret = vkfx_fail(VKFX_E_FORMAT,
                            "%s: TIFF of separated inks other than 8 or 16-bit CMYK; vkfx reads "
                            "CMYK",
                            name);
        break;
    case PHOTOMETRIC_CIELAB:
        l->kind = TIFF_LAB;
        l->sample = VKFX_SAMPLE_U8;
        if (l->bits != 8 && l->bits != 16)
            ret = vkfx_fail(VKFX_E_FORMAT, "%s: TIFF of %u-bit CIE L*a*b*; vkfx reads 8 and 16-bit",
                            name, l->bits);
        break;
    case PHOTOMETRIC_YCBCR:
        l->kind = TIFF_RGBA;
        l->sample = VKFX_SAMPLE_U8;
        char why[1024] = "";
        if (!TIFFRGBAImageOK(tif, why))
            ret = vkfx_fail(VKFX_E_FORMAT, "%s: TIFF of YCbCr samples libtiff cannot read (%s)",
                            name, why);
        break;
    default:
        ret = vkfx_fail(VKFX_E_FORMAT,
                        "%s: TIFF photometric interpretation %u; vkfx reads gray, RGB, palette, "
                        "CMYK, CIE L*a*b* and YCbCr",
                        name, l->photometric);
    }
    if (ret < 0)
        return ret;
    if (l->spp < l->stored)
        return tiff_fail(m, name, "fewer samples per pixel than its colour has");
    /* The first extra sample is alpha where ExtraSamples says so or says nothing (no tag), as
     * Pillow reads it; one it calls unspecified is left out, as Pillow does; further ones are
     * left out too. */
    l->alpha = -1;
    if (l->spp > l->stored && l->kind != TIFF_RGBA) {
        bool alpha = !nextra || !extra || extra[0] == EXTRASAMPLE_ASSOCALPHA ||
                     extra[0] == EXTRASAMPLE_UNASSALPHA ||
                     !tiff_ifd0_has(m->data, m->size, TIFFTAG_EXTRASAMPLES);
        l->alpha = alpha ? (int)l->stored : -1;
        l->associated = alpha && nextra && extra && extra[0] == EXTRASAMPLE_ASSOCALPHA;
        l->dropped = l->spp - l->stored - (alpha ? 1 : 0);
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

/* The bytes of a row of n pixels of spp samples as the file packs them (rows start on a byte). */
static uint64_t tiff_row_bytes(const struct tiff_layout *l, uint64_t n, uint32_t spp)
{
    return (n * spp * l->bits + 7) / 8;
}

/* Sample k of a packed row: unsigned, or signed ones sign-extended, or a float's bits. */
static uint32_t tiff_unpack(const struct tiff_layout *l, const unsigned char *row, uint64_t k)
{
    switch (l->bits) {
    case 8:
        return l->format == SAMPLEFORMAT_INT ? (uint32_t)(int32_t)(int8_t)row[k] : row[k];
    case 16: {
        uint16_t v;
        memcpy(&v, row + 2 * k, 2);
        return l->format == SAMPLEFORMAT_INT ? (uint32_t)(int32_t)(int16_t)v : v;
    }
    case 32: {
        uint32_t v;
        memcpy(&v, row + 4 * k, 4);
        return v;
    }
    default: {
        /* libtiff hands over 1 to 16-bit samples most significant bit first, whatever the
         * fill order, in at most three bytes */
        uint64_t bit = k * l->bits;
        uint32_t v = 0;
        for (uint64_t b = bit / 8; b <= (bit + l->bits - 1) / 8; b++)
            v = v << 8 | row[b];
        uint32_t tail = (uint32_t)(8 - (bit + l->bits) % 8) % 8;
        return (v >> tail) & ((1u << l->bits) - 1);
    }
    }
}

/* Unpacks a block of decoded samples (a strip or a tile, bw x bh, of one plane or of all
 * samples interleaved) into the image of all samples, a uint32 each. */
static void tiff_place(const struct tiff_layout *l, uint32_t *img, const unsigned char *blk,
                       uint32_t x0, uint32_t y0, uint32_t bw, uint32_t bh, int plane)
{
    uint32_t per = plane < 0 ? l->spp : 1;
    uint64_t stride = tiff_row_bytes(l, bw, per);
    uint32_t w = x0 + bw > l->width ? l->width - x0 : bw;
    uint32_t h = y0 + bh > l->height ? l->height - y0 : bh;
    for (uint32_t y = 0; y < h; y++) {
        uint32_t *dst = img + ((size_t)(y0 + y) * l->width + x0) * l->spp;
        const unsigned char *src = blk + y * stride;
        for (uint32_t x = 0; x < w; x++)
            for (uint32_t s = 0; s < per; s++)
                dst[(size_t)x * l->spp + (plane < 0 ? s : (uint32_t)plane)] =
                    tiff_unpack(l, src, (uint64_t)x * per + s);
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
    uint32_t spp = l->planar == PLANARCONFIG_SEPARATE ? 1 : l->spp;
    char what[512];
    snprintf(what, sizeof(what), "%s, its tile", name);
    int ret = vkfx_check_pixels(what, tw, th);
    if (ret == VKFX_OK)
        ret = vkfx_check_samples(what, tw, th, spp);
    if (ret == VKFX_OK)
        ret = vkfx_check_stored(name, "TIFF tile", tw, th, tiff_row_bytes(l, tw, spp) * th,
                                TIFF_MOST_PER_BYTE, size);
    return ret;
}

/* Every strip or tile of the first page into img (width x height x spp
 * samples, interleaved, a uint32 each). Returns 0 or -1 (message in m->msg). */
static int tiff_read_pixels(TIFF *tif, const struct tiff_layout *l, uint32_t *img)
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
    uint32_t per = planes > 1 ? 1 : l->spp;
    if (bytes <= 0 || !bw || !bh || tiff_row_bytes(l, bw, per) * bh > (uint64_t)bytes)
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
                if (!tiled && (uint64_t)got < tiff_row_bytes(l, bw, per) * rows)
                    goto done;
                tiff_place(l, img, blk, x, y, bw, bh, planes > 1 ? p : -1);
            }
    ret = 0;
done:
    free(blk);
    return ret;
}

/* A stored sample at the output's depth: unsigned ones scaled from their range to its range
 * (a 1-bit 1 is white, a 12-bit 4095 too), signed ones clamped at 0 and to its top. */
static uint32_t tiff_scale(const struct tiff_layout *l, uint32_t v)
{
    uint32_t top = l->sample == VKFX_SAMPLE_U8 ? 255 : 65535;
    if (l->format == SAMPLEFORMAT_INT)
        return (int32_t)v < 0 ? 0 : v > top ? top : v;
    uint32_t in_top = (1u << l->bits) - 1;
    return in_top == top ? v : (uint32_t)(((uint64_t)v * top + in_top / 2) / in_top);
}

/* A palette's colour of an index, 8-bit: the map's 16-bit entries' high bytes, or the entries
 * themselves where no entry is above 255 (maps written 8-bit, which libtiff's RGBA reader
 * takes the same way). */
struct tiff_palette {
    uint16_t *rgb[3];
    uint32_t n;
    bool eight;
};

static void tiff_get_palette(TIFF *tif, const struct tiff_layout *l, struct tiff_palette *p)
{
    p->n = 0;
    if (!TIFFGetField(tif, TIFFTAG_COLORMAP, &p->rgb[0], &p->rgb[1], &p->rgb[2]))
        return;
    p->n = 1u << l->bits;
    p->eight = true;
    for (uint32_t i = 0; i < p->n; i++)
        for (int c = 0; c < 3; c++)
            p->eight = p->eight && p->rgb[c][i] < 256;
}

/* The samples of img (spp a pixel, raw) into out's channels: scaled, white-is-zero inverted,
 * palettes looked up, inks and Lab into RGB, associated alpha divided out of integer colour. */
static int tiff_select(TIFF *tif, const struct tiff_layout *l, const uint32_t *img, vkfx_cmyk *cmyk,
                       const char *name, vkfx_pixels *out)
{
    size_t n = (size_t)l->width * l->height;
    uint32_t oc = out->channels;
    uint32_t max = l->sample == VKFX_SAMPLE_U8 ? 255 : 65535;
    struct tiff_palette pal = {0};
    if (l->kind == TIFF_PALETTE) {
        tiff_get_palette(tif, l, &pal);
        if (!pal.n)
            return vkfx_fail(VKFX_E_FORMAT, "%s: corrupt TIFF (a palette image without its map)",
                             name);
    }
    float *lab = NULL;
    if (l->kind == TIFF_LAB && !(lab = malloc(n * 3 * sizeof(float))))
        return vkfx_fail(VKFX_E_NOMEM, "%s: out of host memory decoding the TIFF", name);
    for (size_t i = 0; i < n; i++) {
        const uint32_t *s = img + i * l->spp;
        uint32_t v[4] = {0};
        float f[4] = {0};
        switch (l->kind) {
        case TIFF_DIRECT:
            for (uint32_t c = 0; c < l->colour; c++) {
                if (l->sample == VKFX_SAMPLE_F32)
                    memcpy(&f[c], &s[c], 4);
                else
                    v[c] = tiff_scale(l, s[c]);
                if (l->photometric == PHOTOMETRIC_MINISWHITE)
                    v[c] = max - v[c];
            }
            break;
        case TIFF_PALETTE: {
            uint32_t k = s[0] < pal.n ? s[0] : pal.n - 1;
            for (int c = 0; c < 3; c++)
                v[c] = pal.eight ? pal.rgb[c][k] : pal.rgb[c][k] >> 8;
            break;
        }
        case TIFF_CMYK: {
            uint8_t ink[4];
            for (int c = 0; c < 4; c++)
                ink[c] = (uint8_t)(l->bits == 16 ? s[c] >> 8 : s[c]);
            uint8_t rgb[3];
            if (cmyk)
                vkfx_cmyk_to_srgb(cmyk, ink, rgb, 1);
            else
                vkfx_cmyk_plain(ink, rgb, 1, false);
            for (int c = 0; c < 3; c++)
                v[c] = rgb[c];
            break;
        }
        case TIFF_LAB: {
            /* L from 0 to 100 over the whole range, a and b signed: TIFF's CIELab */
            uint32_t top = l->bits == 16 ? 65535 : 255;
            int32_t half = l->bits == 16 ? 32768 : 128;
            lab[3 * i] = (float)s[0] * 100.0f / (float)top;
            for (int c = 1; c < 3; c++) {
                int32_t ab = (int32_t)s[c] >= half ? (int32_t)s[c] - 2 * half : (int32_t)s[c];
                lab[3 * i + c] = l->bits == 16 ? (float)ab / 256.0f : (float)ab;
            }
            break;
        }
        case TIFF_RGBA:
            break;
        }
        if (l->alpha >= 0) {
            if (l->sample == VKFX_SAMPLE_F32)
                memcpy(&f[l->colour], &s[l->alpha], 4);
            else
                v[l->colour] = l->kind == TIFF_CMYK || l->kind == TIFF_LAB
                                   ? (l->bits == 16 ? s[l->alpha] >> 8 : s[l->alpha])
                                   : tiff_scale(l, s[l->alpha]);
        }
        if (l->alpha >= 0 && l->associated && l->sample != VKFX_SAMPLE_F32)
            for (uint32_t c = 0; c < l->colour; c++) {
                uint32_t a = v[l->colour];
                v[c] = a ? (uint32_t)(((uint64_t)v[c] * max + a / 2) / a) : 0;
                v[c] = v[c] > max ? max : v[c];
            }
        for (uint32_t c = 0; c < oc; c++) {
            size_t to = i * oc + c;
            switch (l->sample) {
            case VKFX_SAMPLE_U8:
                ((uint8_t *)out->data)[to] = (uint8_t)v[c];
                break;
            case VKFX_SAMPLE_U16:
                ((uint16_t *)out->data)[to] = (uint16_t)v[c];
                break;
            case VKFX_SAMPLE_F32:
                ((float *)out->data)[to] = f[c];
                break;
            }
        }
    }
    int ret = VKFX_OK;
    if (lab)
        ret = vkfx_lab_to_srgb(lab, out->data, oc, n, name);
    free(lab);
    return ret;
}

/* YCbCr through libtiff's RGBA reader, which converts and upsamples it: 8-bit RGB. */
static int tiff_read_rgba(TIFF *tif, const struct tiff_layout *l, vkfx_pixels *out)
{
    size_t n = (size_t)l->width * l->height;
    uint32_t *raster = malloc(n * sizeof(uint32_t));
    if (!raster)
        return -1;
    int ok = TIFFReadRGBAImageOriented(tif, l->width, l->height, raster, ORIENTATION_TOPLEFT, 1);
    for (size_t i = 0; ok && i < n; i++) {
        uint8_t *d = (uint8_t *)out->data + i * 3;
        d[0] = (uint8_t)TIFFGetR(raster[i]);
        d[1] = (uint8_t)TIFFGetG(raster[i]);
        d[2] = (uint8_t)TIFFGetB(raster[i]);
    }
    free(raster);
    return ok ? 0 : -1;
}

/* The file's CMYK profile for separated inks, where it has one lcms2 can use; NULL otherwise.
 * The metadata reader asks the same, so that the profile goes once the pixels are sRGB. */
static vkfx_cmyk *tiff_cmyk_profile(TIFF *tif)
{
    uint16_t photometric = 0, spp = 0;
    uint32_t n = 0;
    void *d = NULL;
    TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLESPERPIXEL, &spp);
    if (!TIFFGetField(tif, TIFFTAG_PHOTOMETRIC, &photometric) ||
        photometric != PHOTOMETRIC_SEPARATED || spp < 4 ||
        !TIFFGetField(tif, TIFFTAG_ICCPROFILE, &n, &d) || !d || !n)
        return NULL;
    return vkfx_cmyk_open(d, n, false);
}

static int decode_tiff(const unsigned char *data, size_t size, const char *name, vkfx_pixels *out,
                       vkfx_decode_note *note)
{
    int ret;
    struct tiff_mem m = {.data = (unsigned char *)data, .size = size};
    struct tiff_layout l = {0};
    uint32_t *img = NULL;
    vkfx_cmyk *cmyk = NULL;
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
    if (!vkfx_image_bytes(l.width, l.height, l.spp, VKFX_SAMPLE_F32, &bytes)) {
        ret = vkfx_fail_pixels(name, l.width, l.height);
        goto fail;
    }
    if ((ret = vkfx_check_stored(name, "TIFF", l.width, l.height,
                                 tiff_row_bytes(&l, l.width, l.spp) * l.height, TIFF_MOST_PER_BYTE,
                                 size)) < 0 ||
        (ret = tiff_check_tile(tif, &l, name, size)) < 0)
        goto fail;
    img = l.kind == TIFF_RGBA ? NULL : malloc(bytes);
    if ((l.kind != TIFF_RGBA && !img) ||
        vkfx_pixels_alloc(&px, l.width, l.height, l.colour + (l.alpha >= 0), l.sample) < 0) {
        ret = vkfx_fail(VKFX_E_NOMEM, "%s: out of host memory decoding the TIFF", name);
        goto fail;
    }
    if (l.kind == TIFF_RGBA ? tiff_read_rgba(tif, &l, &px) < 0
                            : tiff_read_pixels(tif, &l, img) < 0) {
        ret = tiff_fail(&m, name, "unreadable strips or tiles");
        goto fail;
    }
    if (l.kind == TIFF_CMYK)
        cmyk = tiff_cmyk_profile(tif);
    if (l.kind != TIFF_RGBA && (ret = tiff_select(tif, &l, img, cmyk, name, &px)) < 0)
        goto fail;
    px.linear = l.sample == VKFX_SAMPLE_F32;
    px.straight = !(l.sample == VKFX_SAMPLE_F32 && l.alpha >= 0 && l.associated);
    tdir_t pages = TIFFNumberOfDirectories(tif);
    if (pages > 1)
        snprintf(note->text, sizeof(note->text), "%s: a TIFF of %u pages; only the first is read",
                 name, (unsigned)pages);
    else if (l.dropped)
        snprintf(note->text, sizeof(note->text),
                 "%s: a TIFF with %u extra sample%s that %s no alpha; left out", name, l.dropped,
                 l.dropped == 1 ? "" : "s", l.dropped == 1 ? "is" : "are");
    *out = px;
    px.data = NULL;
    ret = VKFX_OK;
fail:
    if (tif)
        TIFFClose(tif);
    vkfx_cmyk_close(cmyk);
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
    uint16_t photometric = 0;
    if (ret == VKFX_OK && m->icc.data && TIFFGetField(tif, TIFFTAG_PHOTOMETRIC, &photometric) &&
        photometric == PHOTOMETRIC_SEPARATED) {
        /* the decoder took the inks through it into sRGB, or by the formula without it */
        vkfx_cmyk *cmyk = tiff_cmyk_profile(tif);
        m->cmyk = cmyk != NULL;
        vkfx_cmyk_close(cmyk);
        if (!m->cmyk) {
            char why[512];
            snprintf(why, sizeof(why), "%s: its ICC profile is no CMYK one lcms2 can use", name);
            vkfx_meta_icc_damaged(m, why);
        }
    }
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
