#include "resample.h"

#include <math.h>
#include <stdlib.h>

#include "error.h"

uint32_t vkfx_scaled_height(uint32_t sw, uint32_t sh, uint32_t dw)
{
    uint64_t h = ((uint64_t)sh * dw + sw / 2) / sw;
    return h ? (uint32_t)h : 1;
}

/* The source pixels under destination pixel d of n, on an axis of sn: the
 * footprint [d sn / n, (d + 1) sn / n) in source units. */
typedef struct footprint {
    uint32_t first, count;
    double lo, hi;
} footprint;

static footprint footprint_of(uint32_t d, uint32_t n, uint32_t sn)
{
    footprint f;
    f.lo = (double)d * sn / n;
    f.hi = (double)(d + 1) * sn / n;
    f.first = (uint32_t)floor(f.lo);
    uint32_t end = (uint32_t)ceil(f.hi);
    if (end > sn)
        end = sn;
    f.count = end - f.first;
    return f;
}

/* How much of source pixel i the footprint covers, over the footprint's length. */
static double weight(const footprint *f, uint32_t i)
{
    double a = f->lo > i ? f->lo : i;
    double b = f->hi < i + 1.0 ? f->hi : i + 1.0;
    return (b - a) / (f->hi - f->lo);
}

int vkfx_area_downscale(const float *src, uint32_t sw, uint32_t sh, uint32_t channels, float *dst,
                        uint32_t dw, uint32_t dh)
{
    /* Rows first into doubles (dw x sh), then columns: separable, so each
     * source sample is read once per pass. */
    double *rows = malloc((size_t)dw * sh * channels * sizeof(*rows));
    if (!rows)
        return vkfx_fail(VKFX_E_NOMEM, "out of host memory");
    for (uint32_t x = 0; x < dw; x++) {
        footprint f = footprint_of(x, dw, sw);
        for (uint32_t y = 0; y < sh; y++) {
            double *o = rows + ((size_t)y * dw + x) * channels;
            for (uint32_t c = 0; c < channels; c++)
                o[c] = 0;
            for (uint32_t i = f.first; i < f.first + f.count; i++) {
                double w = weight(&f, i);
                const float *s = src + ((size_t)y * sw + i) * channels;
                for (uint32_t c = 0; c < channels; c++)
                    o[c] += w * s[c];
            }
        }
    }
    for (uint32_t y = 0; y < dh; y++) {
        footprint f = footprint_of(y, dh, sh);
        for (uint32_t x = 0; x < dw; x++) {
            double acc[4] = {0, 0, 0, 0};
            for (uint32_t j = f.first; j < f.first + f.count; j++) {
                double w = weight(&f, j);
                const double *s = rows + ((size_t)j * dw + x) * channels;
                for (uint32_t c = 0; c < channels; c++)
                    acc[c] += w * s[c];
            }
            float *o = dst + ((size_t)y * dw + x) * channels;
            for (uint32_t c = 0; c < channels; c++)
                o[c] = (float)acc[c];
        }
    }
    free(rows);
    return VKFX_OK;
}
