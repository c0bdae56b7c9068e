#include "pngwrite.h"

#include <libdeflate.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"

static size_t buffer_limit = VKFX_PNG_BUFFER_LIMIT_DEFAULT;

void vkfx_png_set_buffer_limit(size_t bytes)
{
    buffer_limit = bytes ? bytes : VKFX_PNG_BUFFER_LIMIT_DEFAULT;
}

size_t vkfx_png_buffer_limit(void)
{
    return buffer_limit;
}

static void put32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

/* Writes a chunk's length and type before data (len bytes already at
 * p + 8) and its CRC after; returns the chunk's whole size. */
static size_t chunk(unsigned char *p, const char *type, size_t len)
{
    put32(p, (uint32_t)len);
    memcpy(p + 4, type, 4);
    put32(p + 8 + len, libdeflate_crc32(0, p + 4, len + 4));
    return len + 12;
}

static inline unsigned paeth(unsigned a, unsigned b, unsigned c)
{
    int p = (int)a + (int)b - (int)c;
    int pa = abs(p - (int)a), pb = abs(p - (int)b), pc = abs(p - (int)c);
    return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

int vkfx_png_encode(const vkfx_pixels *px, int level, unsigned char **out, size_t *size)
{
    static const unsigned char ctypes[] = {0, 4, 2, 6}; /* gray, gray+alpha, RGB, RGBA */
    int ret = VKFX_OK;
    unsigned char *filtered = NULL, *rows = NULL, *file = NULL;
    struct libdeflate_compressor *z = NULL;
    bool wide = px->sample == VKFX_SAMPLE_U16;
    size_t bpp = px->channels * (wide ? 2u : 1u);
    size_t stride = (size_t)px->width * bpp;
    size_t total = (stride + 1) * px->height;
    *out = NULL;
    if (px->sample == VKFX_SAMPLE_F32 || px->channels < 1 || px->channels > 4)
        return vkfx_fail(VKFX_E_USAGE, "PNG holds 8 or 16-bit samples in 1 to 4 channels");
    if (px->width == 0 || px->height == 0)
        return vkfx_fail(VKFX_E_USAGE, "an empty image has no PNG");
    if (total > buffer_limit || total / px->height != stride + 1)
        return vkfx_fail(VKFX_E_LIMIT, "a %ux%u image is encoded through libpng", px->width,
                         px->height);
    filtered = malloc(total);
    rows = calloc(2, stride); /* this row and the one above, big-endian */
    z = libdeflate_alloc_compressor(level);
    if (!filtered || !rows || !z) {
        ret = vkfx_fail(VKFX_E_NOMEM, "out of host memory encoding the PNG");
        goto fail;
    }
    for (uint32_t y = 0; y < px->height; y++) {
        unsigned char *cur = rows + (y & 1) * stride, *up = rows + ((y + 1) & 1) * stride;
        const unsigned char *src = (const unsigned char *)px->data + y * stride;
        if (wide) {
            for (size_t i = 0; i < stride; i += 2) {
                uint16_t v;
                memcpy(&v, src + i, 2);
                cur[i] = (unsigned char)(v >> 8);
                cur[i + 1] = (unsigned char)v;
            }
        } else {
            memcpy(cur, src, stride);
        }
        unsigned char *dst = filtered + y * (stride + 1);
        if (y == 0) {
            dst[0] = 1; /* Sub: Paeth with no row above */
            memcpy(dst + 1, cur, bpp);
            for (size_t x = bpp; x < stride; x++)
                dst[1 + x] = (unsigned char)(cur[x] - cur[x - bpp]);
            continue;
        }
        dst[0] = 4; /* Paeth */
        for (size_t x = 0; x < bpp; x++)
            dst[1 + x] = (unsigned char)(cur[x] - up[x]);
        for (size_t x = bpp; x < stride; x++)
            dst[1 + x] = (unsigned char)(cur[x] - paeth(cur[x - bpp], up[x], up[x - bpp]));
    }
    size_t bound = libdeflate_zlib_compress_bound(z, total);
    size_t head = 8 + 25 + 8; /* signature, IHDR, IDAT's length and type */
    file = malloc(head + bound + 4 + 12);
    if (!file) {
        ret = vkfx_fail(VKFX_E_NOMEM, "out of host memory encoding the PNG");
        goto fail;
    }
    size_t packed = libdeflate_zlib_compress(z, filtered, total, file + head, bound);
    if (packed == 0) {
        ret = vkfx_fail(VKFX_E_FORMAT, "PNG encoding failed (libdeflate: no room)");
        goto fail;
    }
    memcpy(file, "\x89PNG\r\n\x1a\n", 8);
    unsigned char *ihdr = file + 8 + 8;
    put32(ihdr, px->width);
    put32(ihdr + 4, px->height);
    ihdr[8] = wide ? 16 : 8;
    ihdr[9] = ctypes[px->channels - 1];
    ihdr[10] = ihdr[11] = ihdr[12] = 0; /* deflate, adaptive filtering, no interlace */
    size_t at = 8 + chunk(file + 8, "IHDR", 13);
    at += chunk(file + at, "IDAT", packed);
    at += chunk(file + at, "IEND", 0);
    *out = file;
    *size = at;
    file = NULL;
fail:
    libdeflate_free_compressor(z);
    free(filtered);
    free(rows);
    free(file);
    return ret;
}
