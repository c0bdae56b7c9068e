/* bilateral:sigma_s=S:sigma_r=T[:radius=R] of FILTERS.md: every window
 * pixel weighted directly, no shortcuts. */
#include <math.h>

#include "error.h"
#include "ref.h"

static int ref_bilateral_default_radius(double sigma_s)
{
    double r = floor(2.0 * sigma_s + 0.5);
    return r < 1.0 ? 1 : (int)r;
}

int ref_bilateral(const ref_image *in, double sigma_s, double sigma_r, int radius, ref_image *out)
{
    if (!(sigma_s > 0.0) || !isfinite(sigma_s) || !(sigma_r > 0.0) || !isfinite(sigma_r))
        return vkfx_fail(VKFX_E_USAGE, "ref_bilateral: sigma_s %g sigma_r %g", sigma_s, sigma_r);
    if (radius < 0)
        radius = ref_bilateral_default_radius(sigma_s);
    int ret = ref_image_alloc(out, in->w, in->h);
    if (ret < 0)
        return ret;
    for (uint32_t y = 0; y < in->h; y++)
        for (uint32_t x = 0; x < in->w; x++) {
            const double *p = ref_px(in, x, y);
            double acc[4] = {0.0, 0.0, 0.0, 0.0}, sum = 0.0;
            for (int dy = -radius; dy <= radius; dy++)
                for (int dx = -radius; dx <= radius; dx++) {
                    const double *q = ref_at(in, (int64_t)x + dx, (int64_t)y + dy);
                    double range = 0.0;
                    for (int c = 0; c < 3; c++)
                        range += (q[c] - p[c]) * (q[c] - p[c]);
                    double w = exp(-(double)(dx * dx + dy * dy) / (2.0 * sigma_s * sigma_s)) *
                               exp(-range / (2.0 * sigma_r * sigma_r));
                    for (int c = 0; c < 4; c++)
                        acc[c] += w * q[c];
                    sum += w;
                }
            double *o = ref_px(out, x, y);
            for (int c = 0; c < 4; c++)
                o[c] = acc[c] / sum;
        }
    return VKFX_OK;
}

int ref_filter_bilateral(const ref_image *in, ref_opts *o, int precision, ref_image *out)
{
    (void)precision;
    return ref_bilateral(in, ref_opt(o, "sigma_s"), ref_opt(o, "sigma_r"),
                         (int)ref_opt(o, "radius"), out);
}
