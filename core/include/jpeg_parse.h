/* The markers of a baseline sequential Huffman JPEG read on the host for the GPU decoder
 * (core/jpeg_gpu.c): tables, component and scan geometry and restart segments in the layout
 * glsl/jpegdec.h gives, and the entropy-coded bytes with their stuffing and markers taken out.
 * Anything else libjpeg-turbo decodes, or refuses, as it does today. */
#ifndef VKFX_CODECS_JPEG_PARSE_H
#define VKFX_CODECS_JPEG_PARSE_H

#include <stddef.h>
#include <stdint.h>

typedef struct vkfx_jpeg_layout {
    uint32_t *info;     /* JD_INFO_WORDS words */
    uint32_t *segments; /* JD_SEG_WORDS words per segment */
    uint32_t nsegments;
    uint32_t *data; /* the de-stuffed bytes in big-endian words, a zero word after them */
    uint32_t nwords;
    uint32_t width, height, channels;
    uint64_t blocks;      /* 8x8 blocks all components store */
    uint64_t plane_words; /* words of all components' sample planes */
} vkfx_jpeg_layout;

/* Returns 0 with out filled (free it with vkfx_jpeg_layout_free), 1 when the file is not one
 * the GPU decodes exactly as libjpeg-turbo (progressive, arithmetic, 12-bit, lossless, CMYK,
 * a header libjpeg-turbo would warn about, markers out of place), or VKFX_E_NOMEM. Nothing is
 * reported for 1: the caller gives the file to libjpeg-turbo. */
int vkfx_jpeg_parse(const unsigned char *data, size_t size, vkfx_jpeg_layout *out);
void vkfx_jpeg_layout_free(vkfx_jpeg_layout *l);

#endif
