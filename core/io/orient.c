#include "orient.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"

static bool valid(int o)
{
    return o >= 2 && o <= 8;
}

void vkfx_orient_size(int o, uint32_t width, uint32_t height, uint32_t *out_w, uint32_t *out_h)
{
    bool swap = o >= 5 && o <= 8;
    *out_w = swap ? height : width;
    *out_h = swap ? width : height;
}

void vkfx_orient_source(int o, uint32_t width, uint32_t height, uint32_t ox, uint32_t oy,
                        uint32_t *x, uint32_t *y)
{
    uint32_t rx = width - 1, by = height - 1;
    switch (o) {
    case 2:
        *x = rx - ox;
        *y = oy;
        break;
    case 3:
        *x = rx - ox;
        *y = by - oy;
        break;
    case 4:
        *x = ox;
        *y = by - oy;
        break;
    case 5:
        *x = oy;
        *y = ox;
        break;
    case 6:
        *x = oy;
        *y = by - ox;
        break;
    case 7:
        *x = rx - oy;
        *y = by - ox;
        break;
    case 8:
        *x = rx - oy;
        *y = ox;
        break;
    default:
        *x = ox;
        *y = oy;
        break;
    }
}

int vkfx_pixels_orient(vkfx_pixels *px, int o)
{
    if (!valid(o))
        return VKFX_OK;
    vkfx_pixels out = vkfx_pixels_layout(px);
    uint32_t w, h;
    vkfx_orient_size(o, px->width, px->height, &w, &h);
    int ret = vkfx_pixels_alloc(&out, w, h, px->channels, px->sample);
    if (ret < 0)
        return ret;
    size_t pixel = px->channels * vkfx_sample_size(px->sample);
    const unsigned char *src = px->data;
    unsigned char *dst = out.data;
    for (uint32_t oy = 0; oy < h; oy++) {
        for (uint32_t ox = 0; ox < w; ox++) {
            uint32_t x, y;
            vkfx_orient_source(o, px->width, px->height, ox, oy, &x, &y);
            memcpy(dst + ((size_t)oy * w + ox) * pixel, src + ((size_t)y * px->width + x) * pixel,
                   pixel);
        }
    }
    free(px->data);
    *px = out;
    return VKFX_OK;
}
