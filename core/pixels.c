#include "pixels.h"

#include <stdlib.h>

#include "error.h"

size_t vkfx_sample_size(vkfx_sample s)
{
    switch (s) {
    case VKFX_SAMPLE_U8:
        return 1;
    case VKFX_SAMPLE_U16:
        return 2;
    case VKFX_SAMPLE_F32:
        return 4;
    }
    return 0;
}

size_t vkfx_pixels_bytes(const vkfx_pixels *px)
{
    return (size_t)px->width * px->height * px->channels * vkfx_sample_size(px->sample);
}

int vkfx_pixels_alloc(vkfx_pixels *px, uint32_t width, uint32_t height, uint32_t channels,
                      vkfx_sample sample)
{
    px->width = width;
    px->height = height;
    px->channels = channels;
    px->sample = sample;
    size_t n = vkfx_pixels_bytes(px);
    px->data = malloc(n ? n : 1);
    if (!px->data)
        return vkfx_fail(VKFX_E_NOMEM, "out of host memory for a %ux%u image", width, height);
    return VKFX_OK;
}

void vkfx_pixels_free(vkfx_pixels *px)
{
    if (!px)
        return;
    free(px->data);
    px->data = NULL;
}
