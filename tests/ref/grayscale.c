/* grayscale of FILTERS.md: RGB = Y of linear premultiplied RGB, alpha kept. */
#include "ref.h"

int ref_grayscale(const ref_image *in, ref_image *out)
{
    int ret = ref_image_alloc(out, in->w, in->h);
    for (size_t i = 0; ret == 0 && i < (size_t)in->w * in->h; i++) {
        const double *p = in->px + 4 * i;
        double y = ref_luma(p[0], p[1], p[2]);
        double *q = out->px + 4 * i;
        q[0] = q[1] = q[2] = y;
        q[3] = p[3];
    }
    return ret;
}

int ref_filter_grayscale(const ref_image *in, ref_opts *o, int precision, ref_image *out)
{
    (void)o;
    (void)precision;
    return ref_grayscale(in, out);
}
