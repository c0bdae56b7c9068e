/* BMP: every header Windows and OS/2 wrote (12-byte core, OS/2 2.x of 16 to 64 bytes,
 * Windows 40, 52, 56, 108 and 124), palettes of 1, 2, 4 and 8 bits (short ones included),
 * RLE4 and RLE8, and 16 and 32-bit pixels through any bit-field masks. stb_image reads
 * neither RLE nor OS/2 2.x nor most masks, and no library Debian ships decodes BMP alone,
 * so the decoder is ours; the writer keeps the two layouts every reader takes (24-bit
 * BI_RGB, and 32-bit BI_BITFIELDS with an alpha mask in a V4 header). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "codec.h"
#include "error.h"

static uint32_t le16(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

static uint32_t le32(const unsigned char *p)
{
    return le16(p) | le16(p + 2) << 16;
}

enum {
    BMP_RGB = 0,
    BMP_RLE8 = 1,
    BMP_RLE4 = 2,
    BMP_BITFIELDS = 3, /* OS/2 2.x: Huffman 1D */
    BMP_JPEG = 4,      /* OS/2 2.x: RLE24 */
    BMP_PNG = 5,
    BMP_ALPHABITFIELDS = 6,
};

struct bmp_mask {
    uint32_t mask, shift, max; /* max: the largest value of the field; 0 when absent */
};

struct bmp {
    uint32_t width, height;
    bool top_down;
    uint32_t bpp, compression;
    bool os2;                  /* an OS/2 header: 3-byte palette entries (1.x) or OS/2 codes */
    uint32_t entry;            /* bytes of a palette entry */
    uint32_t colors;           /* palette entries in the file */
    unsigned char pal[256][3]; /* RGB; entries the file lacks are black */
    struct bmp_mask m[4];      /* R, G, B, A */
    size_t pixels;             /* offset of the pixel data */
};

static bool sniff_bmp(const unsigned char *data, size_t size)
{
    if (size < 18 || memcmp(data, "BM", 2))
        return false;
    uint32_t hs = le32(data + 14);
    return hs == 12 || (hs >= 16 && hs <= 64) || hs == 108 || hs == 124;
}

static int bmp_mask(struct bmp_mask *m, uint32_t mask, uint32_t bpp, const char *name)
{
    m->mask = mask;
    m->shift = m->max = 0;
    if (!mask)
        return VKFX_OK;
    while (!(mask & 1)) {
        mask >>= 1;
        m->shift++;
    }
    if ((mask & (mask + 1)) || (bpp < 32 && (m->mask >> bpp)))
        return vkfx_fail(VKFX_E_FORMAT,
                         "%s: corrupt BMP (bit-field mask 0x%08x is not one run of bits within "
                         "its %u-bit pixels)",
                         name, m->mask, bpp);
    m->max = mask;
    return VKFX_OK;
}

/* The field scaled to 8 bits, truncated as Pillow scales 5 and 6-bit fields. */
static unsigned char bmp_field(const struct bmp_mask *m, uint32_t v)
{
    if (!m->max)
        return 0;
    uint64_t f = (v & m->mask) >> m->shift;
    return (unsigned char)(f * 255 / m->max);
}

static int bmp_unsupported(const char *name, const char *what)
{
    return vkfx_fail(VKFX_E_FORMAT,
                     "%s: %s is not supported (vkfx reads BMP palettes, RLE4, "
                     "RLE8 and 16, 24 and 32-bit pixels)",
                     name, what);
}

static int bmp_header(const unsigned char *d, size_t size, const char *name, struct bmp *b)
{
    memset(b, 0, sizeof(*b));
    if (size < 26)
        return vkfx_fail(VKFX_E_FORMAT, "%s: truncated BMP (its %zu bytes end inside the header)",
                         name, size);
    const uint32_t hs = le32(d + 14);
    const size_t info_end = 14 + (size_t)hs;
    if (size < info_end)
        return vkfx_fail(VKFX_E_FORMAT,
                         "%s: truncated BMP (a %u-byte header, and the file ends at byte %zu)",
                         name, hs, size);
    const unsigned char *h = d + 14;
    int64_t height;
    size_t masks_end = info_end;
    if (hs == 12) {
        b->os2 = true;
        b->width = le16(h + 4);
        height = le16(h + 6);
        b->bpp = le16(h + 10);
        b->compression = BMP_RGB;
        b->entry = 3;
    } else {
        b->os2 = hs < 40 || hs == 64;
        b->width = le32(h + 4);
        height = (int32_t)le32(h + 8);
        b->bpp = le16(h + 14);
        b->compression = hs >= 20 ? le32(h + 16) : BMP_RGB;
        b->colors = hs >= 36 ? le32(h + 32) : 0;
        b->entry = 4;
        if ((int32_t)b->width <= 0)
            return vkfx_fail(VKFX_E_FORMAT, "%s: corrupt BMP (width %d)", name, (int32_t)b->width);
    }
    if (height < 0) {
        if (height == INT32_MIN)
            return vkfx_fail(VKFX_E_FORMAT, "%s: corrupt BMP (height -2147483648)", name);
        b->top_down = true;
        height = -height;
    }
    if (b->width == 0 || height == 0)
        return vkfx_fail(VKFX_E_FORMAT, "%s: image has no pixels (a %ux%lld BMP)", name, b->width,
                         (long long)height);
    b->height = (uint32_t)height;

    if (b->os2 && hs != 12) {
        if (b->compression == BMP_BITFIELDS)
            return bmp_unsupported(name, "OS/2 BMP with Huffman 1D coding (compression 3)");
        if (b->compression == BMP_JPEG)
            return bmp_unsupported(name, "OS/2 BMP with RLE24 coding (compression 4)");
    }
    switch (b->compression) {
    case BMP_RGB:
        break;
    case BMP_RLE8:
        if (b->bpp != 8)
            return vkfx_fail(VKFX_E_FORMAT, "%s: corrupt BMP (RLE8 with %u-bit pixels)", name,
                             b->bpp);
        break;
    case BMP_RLE4:
        if (b->bpp != 4)
            return vkfx_fail(VKFX_E_FORMAT, "%s: corrupt BMP (RLE4 with %u-bit pixels)", name,
                             b->bpp);
        break;
    case BMP_BITFIELDS:
    case BMP_ALPHABITFIELDS: {
        if (b->bpp != 16 && b->bpp != 32)
            return vkfx_fail(VKFX_E_FORMAT, "%s: corrupt BMP (bit-field masks with %u-bit pixels)",
                             name, b->bpp);
        /* A 40-byte header is followed by the masks; longer ones hold them. */
        uint32_t n = b->compression == BMP_ALPHABITFIELDS || hs >= 56 ? 4 : 3;
        const unsigned char *at = hs >= 52 ? h + 40 : d + info_end;
        if (hs < 52)
            masks_end = info_end + 4 * (size_t)n;
        else if (hs < 56)
            n = 3;
        if (size < masks_end)
            return vkfx_fail(VKFX_E_FORMAT, "%s: truncated BMP (the file ends inside its masks)",
                             name);
        uint32_t v[4] = {0, 0, 0, 0};
        for (uint32_t i = 0; i < n; i++)
            v[i] = le32(at + 4 * i);
        if (!v[0] && !v[1] && !v[2] && !v[3]) {
            /* No masks at all: the layout of BI_RGB (Pillow reads 32 bits as BGRA here). */
            v[0] = b->bpp == 16 ? 0x7C00 : 0xFF0000;
            v[1] = b->bpp == 16 ? 0x03E0 : 0xFF00;
            v[2] = b->bpp == 16 ? 0x001F : 0xFF;
            v[3] = b->bpp == 16 ? 0 : 0xFF000000u;
        }
        for (int i = 0; i < 4; i++) {
            int ret = bmp_mask(&b->m[i], v[i], b->bpp, name);
            if (ret < 0)
                return ret;
        }
        break;
    }
    case BMP_JPEG:
        return bmp_unsupported(name, "a BMP holding a JPEG (compression 4)");
    case BMP_PNG:
        return bmp_unsupported(name, "a BMP holding a PNG (compression 5)");
    default:
        return vkfx_fail(VKFX_E_FORMAT, "%s: BMP compression %u is not supported", name,
                         b->compression);
    }
    if (b->compression == BMP_RGB && (b->bpp == 16 || b->bpp == 32)) {
        /* BI_RGB: 5-5-5 or 8-8-8 with an unused byte (alpha there is not defined). */
        bmp_mask(&b->m[0], b->bpp == 16 ? 0x7C00 : 0xFF0000, b->bpp, name);
        bmp_mask(&b->m[1], b->bpp == 16 ? 0x03E0 : 0xFF00, b->bpp, name);
        bmp_mask(&b->m[2], b->bpp == 16 ? 0x001F : 0xFF, b->bpp, name);
    }
    if (b->bpp != 1 && b->bpp != 2 && b->bpp != 4 && b->bpp != 8 && b->bpp != 16 && b->bpp != 24 &&
        b->bpp != 32) {
        if (b->bpp == 64)
            return bmp_unsupported(name, "a 64-bit BMP");
        return vkfx_fail(VKFX_E_FORMAT, "%s: corrupt BMP (%u bits a pixel)", name, b->bpp);
    }

    /* The palette lies between the header (and masks) and the pixels; where the file says
     * the pixels start right after the header, a full palette is taken to follow (as
     * Pillow reads such files). */
    uint32_t offset = le32(d + 10);
    if (b->bpp <= 8) {
        uint32_t declared = 1u << b->bpp;
        if (b->colors && b->colors < declared)
            declared = b->colors;
        size_t room = offset > masks_end ? (offset - masks_end) / b->entry : 0;
        if (room == 0) {
            room = declared;
            offset = (uint32_t)(masks_end + (size_t)declared * b->entry);
        }
        b->colors = room < declared ? (uint32_t)room : declared;
        if (masks_end + (size_t)b->colors * b->entry > size)
            return vkfx_fail(VKFX_E_FORMAT,
                             "%s: truncated BMP (the file ends inside its palette of %u colours)",
                             name, b->colors);
        for (uint32_t i = 0; i < b->colors; i++) {
            const unsigned char *e = d + masks_end + (size_t)i * b->entry;
            b->pal[i][0] = e[2];
            b->pal[i][1] = e[1];
            b->pal[i][2] = e[0];
        }
    }
    if (offset > size)
        return vkfx_fail(VKFX_E_FORMAT,
                         "%s: truncated BMP (its pixels start at byte %u of a %zu-byte file)", name,
                         offset, size);
    b->pixels = offset;
    return vkfx_check_pixels(name, b->width, b->height);
}

static uint32_t bmp_channels(const struct bmp *b)
{
    return b->m[3].max ? 4 : 3;
}

static int probe_bmp(const unsigned char *data, size_t size, const char *name,
                     vkfx_image_info *info)
{
    struct bmp b;
    int ret = bmp_header(data, size, name, &b);
    if (ret < 0)
        return ret;
    info->width = b.width;
    info->height = b.height;
    info->channels = bmp_channels(&b);
    info->sample = VKFX_SAMPLE_U8;
    return VKFX_OK;
}

static unsigned char *bmp_row(const struct bmp *b, vkfx_pixels *px, uint32_t stored_row)
{
    uint32_t y = b->top_down ? stored_row : b->height - 1 - stored_row;
    return (unsigned char *)px->data + (size_t)y * b->width * px->channels;
}

static void bmp_index(const struct bmp *b, unsigned char *out, uint32_t i)
{
    if (i < b->colors)
        memcpy(out, b->pal[i], 3);
    else
        memset(out, 0, 3); /* an index past a short palette */
}

static void bmp_plain(const struct bmp *b, const unsigned char *d, vkfx_pixels *px)
{
    const size_t stride = ((size_t)b->width * b->bpp + 31) / 32 * 4;
    const uint32_t ch = px->channels;
    for (uint32_t r = 0; r < b->height; r++) {
        const unsigned char *s = d + b->pixels + stride * r;
        unsigned char *o = bmp_row(b, px, r);
        for (uint32_t x = 0; x < b->width; x++, o += ch) {
            uint32_t v;
            switch (b->bpp) {
            case 1:
            case 2:
            case 4: {
                size_t bit = (size_t)x * b->bpp;
                v = (uint32_t)(s[bit / 8] >> (8 - b->bpp - bit % 8)) & ((1u << b->bpp) - 1);
                bmp_index(b, o, v);
                continue;
            }
            case 8:
                bmp_index(b, o, s[x]);
                continue;
            case 24:
                o[0] = s[3 * (size_t)x + 2];
                o[1] = s[3 * (size_t)x + 1];
                o[2] = s[3 * (size_t)x];
                continue;
            case 16:
                v = le16(s + 2 * (size_t)x);
                break;
            default:
                v = le32(s + 4 * (size_t)x);
                break;
            }
            for (uint32_t c = 0; c < ch; c++)
                o[c] = bmp_field(&b->m[c], v);
        }
    }
}

/* RLE4 and RLE8 (the pixels start as index 0, as Pillow and Windows leave the pixels
 * that deltas and line ends skip): false when the data ends before its end-of-bitmap
 * code. Runs past a row's end are cut there. */
static bool bmp_rle(const struct bmp *b, const unsigned char *d, size_t size, vkfx_pixels *px)
{
    const bool rle4 = b->compression == BMP_RLE4;
    uint32_t x = 0, r = 0;
    size_t at = b->pixels;
    unsigned char black[3];
    bmp_index(b, black, 0);
    for (uint32_t y = 0; y < b->height; y++)
        for (uint32_t i = 0; i < b->width; i++)
            memcpy(bmp_row(b, px, y) + 3 * (size_t)i, black, 3);
    while (r < b->height) {
        if (size - at < 2)
            return false;
        uint32_t n = d[at], v = d[at + 1];
        at += 2;
        if (n) {
            unsigned char *o = bmp_row(b, px, r);
            for (uint32_t i = 0; i < n && x < b->width; i++, x++)
                bmp_index(b, o + 3 * (size_t)x, rle4 ? (i & 1 ? v & 15 : v >> 4) : v);
        } else if (v == 0) {
            x = 0;
            r++;
        } else if (v == 1) {
            return true;
        } else if (v == 2) {
            if (size - at < 2)
                return false;
            x += d[at];
            r += d[at + 1];
            at += 2;
        } else {
            size_t bytes = rle4 ? (v + 1) / 2 : v;
            if (size - at < bytes)
                return false;
            unsigned char *o = bmp_row(b, px, r);
            for (uint32_t i = 0; i < v && x < b->width; i++, x++)
                bmp_index(b, o + 3 * (size_t)x,
                          rle4 ? (i & 1 ? d[at + i / 2] & 15 : d[at + i / 2] >> 4) : d[at + i]);
            at += (bytes + 1) & ~(size_t)1; /* absolute runs end on a 16-bit boundary */
        }
    }
    return true;
}

static int decode_bmp(const unsigned char *data, size_t size, const char *name, vkfx_pixels *out,
                      vkfx_decode_note *note)
{
    struct bmp b;
    vkfx_pixels px = {0};
    int ret = bmp_header(data, size, name, &b);
    if (ret < 0)
        return ret;
    const bool rle = b.compression == BMP_RLE4 || b.compression == BMP_RLE8;
    if (rle) {
        /* A delta code skips up to 255 rows in four bytes: any size could be honest. */
        if ((ret = vkfx_check_bomb(name, "BMP", b.width, b.height, (uint64_t)b.width * b.height * 3,
                                   size)) < 0)
            return ret;
    } else {
        /* The last row's padding may be missing: no pixel is. */
        uint64_t stride = ((uint64_t)b.width * b.bpp + 31) / 32 * 4,
                 need = stride * (b.height - 1) + ((uint64_t)b.width * b.bpp + 7) / 8;
        if (need > size - b.pixels)
            return vkfx_fail(VKFX_E_FORMAT,
                             "%s: truncated BMP (%ux%u pixels of %u bits need %llu bytes after "
                             "byte %zu; the file has %zu)",
                             name, b.width, b.height, b.bpp, (unsigned long long)need, b.pixels,
                             size - b.pixels);
    }
    if ((ret = vkfx_pixels_alloc(&px, b.width, b.height, bmp_channels(&b), VKFX_SAMPLE_U8)) < 0)
        return ret;
    px.straight = true;
    if (!rle)
        bmp_plain(&b, data, &px);
    else if (!bmp_rle(&b, data, size, &px))
        snprintf(note->text, sizeof(note->text),
                 "%s: the BMP's RLE data ends before its end-of-bitmap code; the pixels it does "
                 "not reach are left at palette index 0",
                 name);
    *out = px;
    return VKFX_OK;
}

/* 24-bit RGB, or 32-bit RGBA where there is alpha. */
static void layout_bmp(uint32_t in_channels, vkfx_sample in_sample, uint32_t *channels,
                       vkfx_sample *sample)
{
    (void)in_sample;
    *channels = in_channels == 2 || in_channels == 4 ? 4 : 3;
    *sample = VKFX_SAMPLE_U8;
}

/* The file's size field is 32 bits, which many readers hold in a signed int: the pixels
 * stay within half of that, the bound stb_image_write kept before. */
static bool fits_bmp(uint32_t width, uint32_t height)
{
    return (uint64_t)width * height * 4 <= INT32_MAX / 2;
}

static void put16(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
}

static void put32(unsigned char *p, uint32_t v)
{
    put16(p, v & 0xFFFF);
    put16(p + 2, v >> 16);
}

static int encode_bmp(FILE *f, const char *path, const vkfx_pixels *px, const vkfx_save_opts *opts)
{
    (void)opts;
    const bool alpha = px->channels == 4;
    const uint32_t hs = alpha ? 108 : 40, bpp = alpha ? 32 : 24;
    const size_t stride = ((size_t)px->width * bpp + 31) / 32 * 4;
    unsigned char head[14 + 108] = {0};
    memcpy(head, "BM", 2);
    put32(head + 2, (uint32_t)(14 + hs + stride * px->height));
    put32(head + 10, 14 + hs);
    put32(head + 14, hs);
    put32(head + 18, px->width);
    put32(head + 22, px->height);
    put16(head + 26, 1);
    put16(head + 28, bpp);
    put32(head + 30, alpha ? BMP_BITFIELDS : BMP_RGB);
    put32(head + 34, (uint32_t)(stride * px->height));
    if (alpha) {
        put32(head + 54, 0xFF0000);
        put32(head + 58, 0xFF00);
        put32(head + 62, 0xFF);
        put32(head + 66, 0xFF000000u);
        memcpy(head + 70, "BGRs", 4); /* LCS_sRGB, stored little-endian */
    }
    unsigned char *row = calloc(1, stride);
    if (!row)
        return vkfx_fail(VKFX_E_NOMEM, "%s: out of host memory encoding the BMP", path);
    int ret = VKFX_OK;
    if (fwrite(head, 1, 14 + hs, f) != 14 + hs)
        goto io;
    const uint32_t ch = px->channels, out = bpp / 8;
    for (uint32_t y = px->height; y-- > 0;) {
        const unsigned char *s = (const unsigned char *)px->data + (size_t)y * px->width * ch;
        for (uint32_t x = 0; x < px->width; x++, s += ch) {
            unsigned char *o = row + (size_t)x * out;
            o[0] = s[2];
            o[1] = s[1];
            o[2] = s[0];
            if (alpha)
                o[3] = s[3];
        }
        if (fwrite(row, 1, stride, f) != stride)
            goto io;
    }
    goto done;
io:
    ret = vkfx_fail(VKFX_E_IO, "%s: %s", path, strerror(errno ? errno : EIO));
done:
    free(row);
    return ret;
}

const vkfx_codec vkfx_codec_bmp = {
    .name = "BMP",
    .extensions = (const char *const[]){"bmp", NULL},
    .sniff = sniff_bmp,
    .probe = probe_bmp,
    .decode = decode_bmp,
    .layout = layout_bmp,
    .fits = fits_bmp,
    .encode = encode_bmp,
    .options = "",
};
