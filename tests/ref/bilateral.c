/* bilateral:sigma_s=S:sigma_r=T[:radius=R] of FILTERS.md: every window
 * pixel weighted directly, no shortcuts; the weight's table in double. */
#include <math.h>

#include "error.h"
#include "ref.h"

static int ref_bilateral_default_radius(double sigma_s)
{
    double r = floor(2.0 * sigma_s + 0.5);
    return r < 1.0 ? 1 : (int)r;
}

/* FILTERS.md's E(x): exp(-x) interpolated linearly between x = i/64, 0 from x = 24 on. */
static double table_weight(double x)
{
    double f = x * 64.0;
    if (!(f < 24.0 * 64.0))
        return 0.0;
    double i = floor(f), e0 = exp(-i / 64.0), e1 = exp(-(i + 1.0) / 64.0);
    return e0 + (f - i) * (e1 - e0);
}

static double exp_weight(double x)
{
    return exp(-x);
}

static int bilateral_by(const ref_image *in, double sigma_s, double sigma_r, int radius,
                        double (*weight)(double x), ref_image *out)
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
                    double w = weight((double)(dx * dx + dy * dy) / (2.0 * sigma_s * sigma_s) +
                                      range / (2.0 * sigma_r * sigma_r));
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

int ref_bilateral(const ref_image *in, double sigma_s, double sigma_r, int radius, ref_image *out)
{
    return bilateral_by(in, sigma_s, sigma_r, radius, table_weight, out);
}

int ref_bilateral_exp(const ref_image *in, double sigma_s, double sigma_r, int radius,
                      ref_image *out)
{
    return bilateral_by(in, sigma_s, sigma_r, radius, exp_weight, out);
}

int ref_filter_bilateral(const ref_image *in, ref_opts *o, int precision, ref_image *out)
{
    (void)precision;
    return ref_bilateral(in, ref_opt(o, "sigma_s"), ref_opt(o, "sigma_r"),
                         (int)ref_opt(o, "radius"), out);
}
