#include "pngwrite.h"

#include <libdeflate.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "pngdeflate.h"

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

int vkfx_png_encode(const vkfx_pixels *px, int level, unsigned char **out, size_t *size)
{
    static const unsigned char ctypes[] = {0, 4, 2, 6}; /* gray, gray+alpha, RGB, RGBA */
    int ret = VKFX_OK;
    unsigned char *file = NULL;
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
    size_t head = 8 + 25 + 8; /* signature, IHDR, IDAT's length and type */
    size_t packed;
    if ((ret = vkfx_png_idat(px, level, head, 4 + 12, &file, &packed)) < 0)
        goto fail;
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
    free(file);
    return ret;
}
