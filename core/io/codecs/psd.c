/* PSD: the merged (composite) image Photoshop stores after its layers, gray, indexed or RGB,
 * 8 or 16 bits, raw or PackBits, with its alpha. stb_image reads RGB only and, with alpha,
 * casts its un-matted colour unchecked (undefined behaviour on any damaged file); the
 * composite is a plain planar image, so the decoder is ours. */
#include <stdlib.h>
#include <string.h>

#include "codec.h"
#include "error.h"

static uint32_t be16(const unsigned char *p)
{
    return (uint32_t)p[0] << 8 | p[1];
}

static uint32_t be32(const unsigned char *p)
{
    return be16(p) << 16 | be16(p + 2);
}

enum { PSD_GRAY = 1, PSD_INDEXED = 2, PSD_RGB = 3 };

struct psd {
    uint32_t width, height, channels, depth, mode;
    uint32_t planes;              /* the channels decoded: colour, then alpha where there is one */
    const unsigned char *palette; /* 768 bytes: 256 reds, greens, blues (indexed only) */
    size_t data;                  /* offset of the compression code before the image data */
};

static bool sniff_psd(const unsigned char *data, size_t size)
{
    return size >= 6 && !memcmp(data, "8BPS\0", 5) && (data[5] == 1 || data[5] == 2);
}

static const char *psd_mode_name(uint32_t mode)
{
    static const char *const names[] = {"bitmap", "gray", "indexed",      "RGB",     "CMYK",
                                        "?",      "?",    "multichannel", "duotone", "Lab"};
    return mode < sizeof(names) / sizeof(names[0]) ? names[mode] : "?";
}

/* Skips the length-prefixed section at *at; false when the file ends inside it. */
static bool psd_section(const unsigned char *d, size_t size, size_t *at, uint32_t *len)
{
    if (size - *at < 4)
        return false;
    *len = be32(d + *at);
    *at += 4;
    if (*len > size - *at)
        return false;
    *at += *len;
    return true;
}

static int psd_header(const unsigned char *d, size_t size, const char *name, struct psd *p)
{
    memset(p, 0, sizeof(*p));
    if (size < 26)
        return vkfx_fail(VKFX_E_FORMAT, "%s: truncated PSD (its %zu bytes end inside the header)",
                         name, size);
    if (d[5] == 2)
        return vkfx_fail(VKFX_E_FORMAT,
                         "%s: PSB (Photoshop's large document format) is not "
                         "supported; vkfx reads PSD",
                         name);
    p->channels = be16(d + 12);
    p->height = be32(d + 14);
    p->width = be32(d + 18);
    p->depth = be16(d + 22);
    p->mode = be16(d + 24);
    if (p->channels < 1 || p->channels > 56)
        return vkfx_fail(VKFX_E_FORMAT, "%s: corrupt PSD (%u channels)", name, p->channels);
    if (p->width == 0 || p->height == 0)
        return vkfx_fail(VKFX_E_FORMAT, "%s: image has no pixels (a %ux%u PSD)", name, p->width,
                         p->height);
    if (p->mode != PSD_GRAY && p->mode != PSD_INDEXED && p->mode != PSD_RGB)
        return vkfx_fail(VKFX_E_FORMAT,
                         "%s: PSD in %s mode (%u) is not supported; vkfx reads gray, indexed and "
                         "RGB PSD",
                         name, psd_mode_name(p->mode), p->mode);
    if (p->depth != 8 && !(p->depth == 16 && p->mode != PSD_INDEXED))
        return vkfx_fail(VKFX_E_FORMAT,
                         "%s: %u-bit %s PSD is not supported; vkfx reads 8 and 16-bit PSD", name,
                         p->depth, psd_mode_name(p->mode));
    /* The fourth channel of an RGB composite is its transparency (what Pillow reads as
     * alpha too); further ones are spot colours and masks, which an image has no room for. */
    uint32_t colour = p->mode == PSD_RGB ? 3 : 1;
    if (p->channels < colour)
        return vkfx_fail(VKFX_E_FORMAT, "%s: corrupt PSD (%s with %u channels)", name,
                         psd_mode_name(p->mode), p->channels);
    p->planes = p->mode == PSD_RGB && p->channels == 4 ? 4 : colour;

    size_t at = 26;
    uint32_t len;
    size_t colour_data = at + 4;
    if (!psd_section(d, size, &at, &len))
        goto truncated;
    if (p->mode == PSD_INDEXED) {
        if (len != 768)
            return vkfx_fail(VKFX_E_FORMAT,
                             "%s: corrupt PSD (an indexed image with %u bytes of palette, not 768)",
                             name, len);
        p->palette = d + colour_data;
    }
    if (!psd_section(d, size, &at, &len) || !psd_section(d, size, &at, &len) || size - at < 2)
        goto truncated;
    p->data = at;
    return vkfx_check_pixels(name, p->width, p->height);
truncated:
    return vkfx_fail(VKFX_E_FORMAT, "%s: truncated PSD (the file ends before its image data)",
                     name);
}

static int probe_psd(const unsigned char *data, size_t size, const char *name,
                     vkfx_image_info *info)
{
    struct psd p;
    int ret = psd_header(data, size, name, &p);
    if (ret < 0)
        return ret;
    info->width = p.width;
    info->height = p.height;
    info->channels = p.mode == PSD_INDEXED ? 3 : p.planes;
    info->sample = p.depth == 16 ? VKFX_SAMPLE_U16 : VKFX_SAMPLE_U8;
    return VKFX_OK;
}

/* One PackBits row of n bytes from src (len bytes) into out; false when the codes do not
 * make exactly n bytes from exactly len. */
static bool packbits(const unsigned char *src, size_t len, unsigned char *out, size_t n)
{
    size_t i = 0, o = 0;
    while (i < len) {
        int c = (signed char)src[i++];
        if (c >= 0) {
            size_t k = (size_t)c + 1;
            if (k > len - i || k > n - o)
                return false;
            memcpy(out + o, src + i, k);
            i += k;
            o += k;
        } else if (c != -128) {
            size_t k = (size_t)(1 - c);
            if (i >= len || k > n - o)
                return false;
            memset(out + o, src[i++], k);
            o += k;
        }
    }
    return o == n;
}

/* Photoshop stores a transparent composite matted against white: colour = c * a + (1 - a)
 * with samples in 0..1, never darker than 1 - a. ImageMagick and GIMP store it unmatted.
 * Where every translucent sample is light enough to be matted (within a code of rounding)
 * the matte is taken out (as ImageMagick and stb_image do); one darker sample shows a
 * composite stored unmatted, read as it is (as Pillow reads every PSD). */
static double psd_sample(const vkfx_pixels *px, size_t i)
{
    return px->sample == VKFX_SAMPLE_U16 ? ((const uint16_t *)px->data)[i]
                                         : ((const unsigned char *)px->data)[i];
}

static bool psd_matted(const vkfx_pixels *px, double max)
{
    const size_t n = (size_t)px->width * px->height;
    for (size_t i = 0; i < n; i++) {
        double a = psd_sample(px, 4 * i + 3);
        if (a <= 0.0 || a >= max)
            continue;
        for (int k = 0; k < 3; k++)
            if (psd_sample(px, 4 * i + (size_t)k) < max - a - 1.0)
                return false;
    }
    return true;
}

static void psd_unmatte(vkfx_pixels *px, double max)
{
    const size_t n = (size_t)px->width * px->height;
    for (size_t i = 0; i < n; i++) {
        double a = psd_sample(px, 4 * i + 3) / max;
        if (a <= 0.0 || a >= 1.0)
            continue;
        for (size_t k = 4 * i; k < 4 * i + 3; k++) {
            double v = (psd_sample(px, k) / max - (1.0 - a)) / a;
            v = (v < 0.0 ? 0.0 : v > 1.0 ? 1.0 : v) * max + 0.5;
            if (px->sample == VKFX_SAMPLE_U16)
                ((uint16_t *)px->data)[k] = (uint16_t)v;
            else
                ((unsigned char *)px->data)[k] = (unsigned char)v;
        }
    }
}

static int decode_psd(const unsigned char *data, size_t size, const char *name, vkfx_pixels *out,
                      vkfx_decode_note *note)
{
    (void)note;
    struct psd p;
    vkfx_pixels px = {0};
    unsigned char *plane = NULL;
    int ret = psd_header(data, size, name, &p);
    if (ret < 0)
        return ret;
    const uint32_t compression = be16(data + p.data);
    const size_t bps = p.depth / 8, row = (size_t)p.width * bps;
    const uint64_t rows = (uint64_t)p.height * p.channels;
    size_t at = p.data + 2;
    if (compression == 0) {
        if ((uint64_t)row * p.height * p.planes > size - at)
            return vkfx_fail(VKFX_E_FORMAT,
                             "%s: truncated PSD (%ux%u pixels of %u %u-bit channels need more "
                             "than the %zu bytes after the header)",
                             name, p.width, p.height, p.planes, p.depth, size - at);
    } else if (compression == 1) {
        /* A count of two bytes for every row of every channel, then the rows; PackBits
         * repeats a byte at most 128 times in two. */
        if (rows * 2 > size - at ||
            (ret = vkfx_check_stored(name, "PSD", p.width, p.height,
                                     (uint64_t)row * p.height * p.planes, 64, size)) < 0)
            return ret < 0
                       ? ret
                       : vkfx_fail(VKFX_E_FORMAT,
                                   "%s: truncated PSD (the file ends inside its row sizes)", name);
    } else {
        return vkfx_fail(VKFX_E_FORMAT,
                         "%s: PSD image data with %s (compression %u) is not supported; vkfx "
                         "reads raw and PackBits composites",
                         name, compression == 2 || compression == 3 ? "ZIP" : "unknown coding",
                         compression);
    }
    const uint32_t ch = p.mode == PSD_INDEXED ? 3 : p.planes;
    const vkfx_sample sample = bps == 2 ? VKFX_SAMPLE_U16 : VKFX_SAMPLE_U8;
    if ((ret = vkfx_pixels_alloc(&px, p.width, p.height, ch, sample)) < 0)
        return ret;
    px.straight = true;
    plane = malloc(row);
    if (!plane) {
        ret = vkfx_fail(VKFX_E_NOMEM, "%s: out of host memory decoding the PSD", name);
        goto fail;
    }
    const unsigned char *counts = data + at;
    size_t pos = compression == 1 ? at + rows * 2 : at;
    for (uint32_t c = 0; c < p.planes; c++) {
        for (uint32_t y = 0; y < p.height; y++) {
            const unsigned char *src = data + pos;
            if (compression == 1) {
                size_t len = be16(counts + 2 * ((size_t)c * p.height + y));
                if (len > size - pos || !packbits(src, len, plane, row)) {
                    ret = vkfx_fail(VKFX_E_FORMAT,
                                    "%s: corrupt or truncated PSD (row %u of channel %u does not "
                                    "unpack to %zu bytes)",
                                    name, y, c, row);
                    goto fail;
                }
                pos += len;
                src = plane;
            } else {
                pos += row;
            }
            if (bps == 2) {
                uint16_t *o = (uint16_t *)px.data + (size_t)y * p.width * ch + c;
                for (uint32_t x = 0; x < p.width; x++)
                    o[(size_t)x * ch] = (uint16_t)be16(src + 2 * (size_t)x);
            } else if (p.mode == PSD_INDEXED) {
                unsigned char *o = (unsigned char *)px.data + (size_t)y * p.width * 3;
                for (uint32_t x = 0; x < p.width; x++)
                    for (int k = 0; k < 3; k++)
                        o[3 * (size_t)x + k] = p.palette[256 * k + src[x]];
            } else {
                unsigned char *o = (unsigned char *)px.data + (size_t)y * p.width * ch + c;
                for (uint32_t x = 0; x < p.width; x++)
                    o[(size_t)x * ch] = src[x];
            }
        }
    }
    if (p.planes == 4) {
        const double max = bps == 2 ? 65535.0 : 255.0;
        if (psd_matted(&px, max))
            psd_unmatte(&px, max);
    }
    *out = px;
    px.data = NULL;
    ret = VKFX_OK;
fail:
    free(plane);
    vkfx_pixels_free(&px);
    return ret;
}

const vkfx_codec vkfx_codec_psd = {
    .name = "PSD",
    .extensions = (const char *const[]){"psd", NULL},
    .sniff = sniff_psd,
    .probe = probe_psd,
    .decode = decode_psd,
};
