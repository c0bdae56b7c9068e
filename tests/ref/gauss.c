/* gauss:sigma=S[:radius=R] of FILTERS.md, and the separable convolution that
 * box shares with it. */
#include <math.h>
#include <stdlib.h>

#include "error.h"
#include "ref.h"

/* Adds w times the n pixels at src to acc (4 doubles per pixel). */
static void add_scaled(double *acc, const double *src, size_t n, double w)
{
    for (size_t i = 0; i < n * 4; i++)
        acc[i] += w * src[i];
}

/* One output line position i of a line of n: dst += the taps applied to the
 * lines line(j), j = i - r .. i + r clamped to [0, n-1], each `count` pixels
 * long. Taps that fall off either end all read the end line, so their weights
 * are summed first: the same clamp-to-edge result in O(min(n, 2r+1)) instead
 * of O(2r+1), which keeps radius 512 on a large image affordable. prefix[j]
 * is the sum of taps[0..j-1]. */
static void convolve_at(double *dst, const double *src, size_t stride, size_t count, int64_t i,
                        int64_t n, const double *taps, const double *prefix, int64_t r)
{
    int64_t lo = -i > -r ? -i : -r;             /* first tap inside */
    int64_t hi = n - 1 - i < r ? n - 1 - i : r; /* last tap inside */
    if (lo > -r)
        add_scaled(dst, src, count, prefix[lo + r] - prefix[0]);
    for (int64_t k = lo; k <= hi; k++)
        add_scaled(dst, src + (size_t)(i + k) * stride, count, taps[k + r]);
    if (hi < r)
        add_scaled(dst, src + (size_t)(n - 1) * stride, count,
                   prefix[2 * r + 1] - prefix[hi + r + 1]);
}

int ref_separable(const ref_image *in, const double *taps, int radius, ref_image *out)
{
    return ref_separable_stored(in, taps, radius, false, out);
}

int ref_separable_stored(const ref_image *in, const double *taps, int radius, bool half_mid,
                         ref_image *out)
{
    if (radius < 0)
        return vkfx_fail(VKFX_E_USAGE, "ref_separable: radius %d", radius);
    int64_t r = radius;
    ref_image tmp = {0};
    double *prefix = malloc(((size_t)2 * r + 2) * sizeof(double));
    int ret = prefix ? ref_image_alloc(&tmp, in->w, in->h)
                     : vkfx_fail(VKFX_E_NOMEM, "out of host memory for %d taps", radius);
    if (ret < 0)
        goto fail;
    ret = ref_image_alloc(out, in->w, in->h);
    if (ret < 0)
        goto fail;
    prefix[0] = 0.0;
    for (int64_t j = 0; j <= 2 * r; j++)
        prefix[j + 1] = prefix[j] + taps[j];

    /* horizontal: one pixel at a time; vertical: whole rows at a time, which
     * is the same sum in the same order, only kinder to the cache */
    size_t row = (size_t)in->w * 4;
    for (uint32_t y = 0; y < in->h; y++)
        for (uint32_t x = 0; x < in->w; x++)
            convolve_at(tmp.px + y * row + (size_t)x * 4, in->px + y * row, 4, 1, x, in->w, taps,
                        prefix, r);
    if (half_mid)
        ref_round_half(&tmp);
    for (uint32_t y = 0; y < in->h; y++)
        convolve_at(out->px + y * row, tmp.px, row, in->w, y, in->h, taps, prefix, r);
    ret = VKFX_OK;
fail:
    free(prefix);
    ref_image_free(&tmp);
    return ret;
}

int ref_gauss_default_radius(double sigma)
{
    double r = floor(3.0 * sigma + 0.5);
    return r < 1.0 ? 1 : (int)r;
}

int ref_gauss(const ref_image *in, double sigma, int radius, ref_image *out)
{
    return ref_gauss_stored(in, sigma, radius, false, out);
}

/* w to the nearest number of 13 significant bits, ties to even (FILTERS.md's gauss at rgba16f). */
static double thirteen_bits(double w)
{
    int e;
    double m = frexp(w, &e);
    return ldexp(nearbyint(ldexp(m, 13)), e - 13);
}

int ref_gauss_stored(const ref_image *in, double sigma, int radius, bool half_mid, ref_image *out)
{
    if (!(sigma > 0.0) || !isfinite(sigma))
        return vkfx_fail(VKFX_E_USAGE, "ref_gauss: sigma %g", sigma);
    if (radius < 0)
        radius = ref_gauss_default_radius(sigma);
    double *taps = malloc(((size_t)2 * radius + 1) * sizeof(double));
    if (!taps)
        return vkfx_fail(VKFX_E_NOMEM, "out of host memory for %d taps", radius);
    double sum = 0.0;
    for (int k = -radius; k <= radius; k++) {
        taps[k + radius] = exp(-(double)k * k / (2.0 * sigma * sigma));
        sum += taps[k + radius];
    }
    for (int k = 0; k <= 2 * radius; k++)
        taps[k] = half_mid ? thirteen_bits(taps[k] / sum) : taps[k] / sum;
    int ret = ref_separable_stored(in, taps, radius, half_mid, out);
    free(taps);
    return ret;
}

int ref_filter_gauss(const ref_image *in, ref_opts *o, int precision, ref_image *out)
{
    return ref_gauss_stored(in, ref_opt(o, "sigma"), (int)ref_opt(o, "radius"), precision == 16,
                            out);
}
