/* The preview's downscale: each destination pixel the mean of the source
 * over its footprint, integrated directly in two dimensions. */
#include <math.h>

#include "ref.h"

/* Length of [a0, a1) within [b0, b1). */
static double overlap(double a0, double a1, double b0, double b1)
{
    double lo = a0 > b0 ? a0 : b0, hi = a1 < b1 ? a1 : b1;
    return hi > lo ? hi - lo : 0;
}

int ref_area_downscale(const ref_image *in, uint32_t w, uint32_t h, ref_image *out)
{
    int ret = ref_image_alloc(out, w, h);
    if (ret < 0)
        return ret;
    double sx = (double)in->w / w, sy = (double)in->h / h;
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            double *o = ref_px(out, x, y);
            for (uint32_t j = (uint32_t)floor(y * sy); j < in->h && j < (y + 1) * sy; j++)
                for (uint32_t i = (uint32_t)floor(x * sx); i < in->w && i < (x + 1) * sx; i++) {
                    double a = overlap(x * sx, (x + 1) * sx, i, i + 1.0) *
                               overlap(y * sy, (y + 1) * sy, j, j + 1.0) / (sx * sy);
                    for (int c = 0; c < 4; c++)
                        o[c] += a * ref_px(in, i, j)[c];
                }
        }
    return 0;
}
