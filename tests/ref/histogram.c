/* histogram of FILTERS.md: the counts, from the linear premultiplied image
 * as the encode step would turn it into 8-bit sRGB codes. */
#include <math.h>
#include <string.h>

#include "ref.h"

static uint32_t ref_code(double v)
{
    v = fmin(fmax(v, 0.0), 1.0);
    double c = floor(ref_linear_to_srgb(v) * 255.0 + 0.5);
    return c < 0 ? 0 : c > 255 ? 255 : (uint32_t)c;
}

void ref_histogram(const ref_image *in, uint32_t counts[4 * 256])
{
    memset(counts, 0, 4 * 256 * sizeof(uint32_t));
    for (uint32_t y = 0; y < in->h; y++)
        for (uint32_t x = 0; x < in->w; x++) {
            const double *p = ref_px(in, x, y);
            uint32_t q[3];
            for (int c = 0; c < 3; c++)
                q[c] = ref_code(p[3] > 0 ? p[c] / p[3] : 0.0);
            ref_histogram_add(counts, q[0], q[1], q[2]);
        }
}

void ref_histogram_add(uint32_t counts[4 * 256], uint32_t r, uint32_t g, uint32_t b)
{
    counts[r]++;
    counts[256 + g]++;
    counts[512 + b]++;
    /* Y' of the codes rounded half up, exactly: (2126 R + 7152 G + 722 B) / 10000 */
    counts[768 + (2126 * r + 7152 * g + 722 * b + 5000) / 10000]++;
}

/* The image passes through histogram unchanged. */
int ref_filter_histogram(const ref_image *in, ref_opts *o, int precision, ref_image *out)
{
    (void)o;
    (void)precision;
    int ret = ref_image_alloc(out, in->w, in->h);
    if (ret == 0)
        memcpy(out->px, in->px, (size_t)in->w * in->h * 4 * sizeof(double));
    return ret;
}
