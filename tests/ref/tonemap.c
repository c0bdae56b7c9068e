/* tonemap of FILTERS.md: global Reinhard with the log-average luminance of
 * the linear premultiplied RGB over all pixels. */
#include <math.h>

#include "error.h"
#include "ref.h"

int ref_tonemap(const ref_image *in, double key, double white, ref_image *out)
{
    int ret = ref_image_alloc(out, in->w, in->h);
    if (ret < 0)
        return ret;
    size_t n = (size_t)in->w * in->h;
    double sum = 0.0;
    for (size_t i = 0; i < n; i++) {
        const double *p = in->px + 4 * i;
        sum += log(1e-4 + fmax(ref_luma(p[0], p[1], p[2]), 0.0));
    }
    double k = key / exp(sum / (double)n);
    double inv_w2 = white > 0 ? 1.0 / (white * white) : 0.0;
    for (size_t i = 0; i < n; i++) {
        const double *p = in->px + 4 * i;
        double *o = out->px + 4 * i;
        double y = ref_luma(p[0], p[1], p[2]);
        double lm = k * y;
        double s = y > 0 ? k * (1.0 + lm * inv_w2) / (1.0 + lm) : 0.0; /* Ld / Y */
        for (int c = 0; c < 3; c++)
            o[c] = p[c] * s;
        o[3] = p[3];
    }
    return VKFX_OK;
}

int ref_filter_tonemap(const ref_image *in, ref_opts *o, int precision, ref_image *out)
{
    (void)precision;
    return ref_tonemap(in, ref_opt(o, "key"), ref_opt(o, "white"), out);
}
