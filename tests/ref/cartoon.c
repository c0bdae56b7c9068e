/* cartoon[:sigma=S][:gain=G] of FILTERS.md: a blur darkened along its edges. */
#include "ref.h"

int ref_cartoon(const ref_image *in, double sigma, double gain, ref_image *out)
{
    ref_image b = {0};
    int ret = ref_gauss(in, sigma, -1, &b);
    if (ret < 0)
        goto fail;
    ret = ref_image_alloc(out, in->w, in->h);
    if (ret < 0)
        goto fail;
    for (uint32_t y = 0; y < in->h; y++) {
        for (uint32_t x = 0; x < in->w; x++) {
            double e = ref_edge_value(&b, x, y, gain);
            const double *s = ref_px(&b, x, y);
            double *p = ref_px(out, x, y);
            for (int c = 0; c < 3; c++)
                p[c] = s[c] * (1.0 - e);
            p[3] = s[3];
        }
    }
fail:
    ref_image_free(&b);
    return ret;
}

int ref_filter_cartoon(const ref_image *in, ref_opts *o, int precision, ref_image *out)
{
    (void)precision;
    return ref_cartoon(in, ref_opt(o, "sigma"), ref_opt(o, "gain"), out);
}
