/* What libjpeg-turbo would write for vkfx's JPEG options, for an encoder of its own that must
 * write the same file (core/gpu/jpeg_gpu_enc.c): the frame's components, the quantisation and the
 * standard Huffman tables, the JFIF fields, the restart interval. */
#ifndef VKFX_CODECS_JPEG_SETTINGS_H
#define VKFX_CODECS_JPEG_SETTINGS_H

#include <stdint.h>

#include "codec.h"

typedef struct vkfx_jpeg_huff {
    uint8_t bits[17];  /* bits[k]: the codes of length k (bits[0] unused) */
    uint8_t vals[256]; /* the symbols, by code length */
} vkfx_jpeg_huff;

typedef struct vkfx_jpeg_settings {
    uint32_t components; /* 1 gray, 3 YCbCr */
    struct {
        uint8_t id, h, v, table; /* the quantisation table; Huffman: 0 luma, 1 chroma */
    } comp[3];
    uint16_t quant[2][64];  /* natural order */
    vkfx_jpeg_huff huff[4]; /* luma DC, luma AC, chroma DC, chroma AC */
    uint8_t jfif_version[2];
    uint8_t density_unit;
    uint16_t density[2];
    unsigned restart; /* MCUs per restart interval; 0: none */
} vkfx_jpeg_settings;

int vkfx_jpeg_settings_for(uint32_t width, uint32_t height, uint32_t channels,
                           const vkfx_save_opts *opts, vkfx_jpeg_settings *out);

#endif
