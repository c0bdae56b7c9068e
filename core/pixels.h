/* Host-side pixel buffers as files hold them: interleaved, tightly packed
 * rows of 1-4 channels (gray, gray+alpha, RGB, RGBA) of one sample type. */
#ifndef VKFX_PIXELS_H
#define VKFX_PIXELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum vkfx_sample {
    VKFX_SAMPLE_U8,
    VKFX_SAMPLE_U16,
    VKFX_SAMPLE_F32,
} vkfx_sample;

typedef struct vkfx_pixels {
    uint32_t width, height;
    uint32_t channels; /* 1 gray, 2 gray+alpha, 3 RGB, 4 RGBA */
    vkfx_sample sample;
    bool linear;   /* samples are linear light (HDR, EXR): no sRGB transfer */
    bool straight; /* colour is not premultiplied (every file format here) */
    void *data;    /* height rows of width*channels samples, host endian */
} vkfx_pixels;

size_t vkfx_sample_size(vkfx_sample s);
size_t vkfx_pixels_bytes(const vkfx_pixels *px);
/* Allocates data for the given shape; other fields are left as set. */
int vkfx_pixels_alloc(vkfx_pixels *px, uint32_t width, uint32_t height, uint32_t channels,
                      vkfx_sample sample);
void vkfx_pixels_free(vkfx_pixels *px);

#endif
