/* sobel[:invert=0|1][:gain=G] of FILTERS.md. */
#include <math.h>

#include "error.h"
#include "ref.h"

double ref_edge_value(const ref_image *in, uint32_t x, uint32_t y, double gain)
{
    /* [-1 0 1; -2 0 2; -1 0 1] with x growing to the right and y downwards,
     * written as weighted differences of opposite neighbours so that a flat
     * region gives exactly 0 */
    static const double w[3] = {1.0, 2.0, 1.0};
    int64_t xi = x, yi = y;
    double m[3];
    for (int c = 0; c < 3; c++) {
        double gx = 0.0, gy = 0.0;
        for (int j = -1; j <= 1; j++) {
            gx += w[j + 1] * (ref_at(in, xi + 1, yi + j)[c] - ref_at(in, xi - 1, yi + j)[c]);
            gy += w[j + 1] * (ref_at(in, xi + j, yi + 1)[c] - ref_at(in, xi + j, yi - 1)[c]);
        }
        m[c] = sqrt(gx * gx + gy * gy);
    }
    double e = gain * ref_luma(m[0], m[1], m[2]);
    return fmin(fmax(e, 0.0), 1.0);
}

int ref_sobel(const ref_image *in, bool invert, double gain, ref_image *out)
{
    int ret = ref_image_alloc(out, in->w, in->h);
    if (ret < 0)
        return ret;
    for (uint32_t y = 0; y < in->h; y++) {
        for (uint32_t x = 0; x < in->w; x++) {
            double e = ref_edge_value(in, x, y, gain);
            double v = invert ? 1.0 - e : e;
            double a = ref_px(in, x, y)[3];
            double *p = ref_px(out, x, y);
            p[0] = p[1] = p[2] = v * a;
            p[3] = a;
        }
    }
    return VKFX_OK;
}

int ref_filter_sobel(const ref_image *in, ref_opts *o, int precision, ref_image *out)
{
    (void)precision;
    return ref_sobel(in, ref_opt(o, "invert") != 0, ref_opt(o, "gain"), out);
}
