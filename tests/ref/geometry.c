/* The geometry and everyday filters of FILTERS.md ("Geometry and everyday
 * filters"): resize as Pillow's ImagingResample computes it, crop, quarter
 * turns, mirrors, and unsharp masking, on linear premultiplied RGBA. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "filter.h"
#include "ref.h"

static double sinc(double x)
{
    if (x == 0.0)
        return 1.0;
    return sin(M_PI * x) / (M_PI * x);
}

double ref_resize_kernel(ref_resize_kind kind, double t)
{
    double a = fabs(t);
    switch (kind) {
    case REF_RESIZE_LANCZOS3:
        return -3.0 <= t && t < 3.0 ? sinc(t) * sinc(t / 3.0) : 0.0;
    case REF_RESIZE_MITCHELL: {
        const double B = 1.0 / 3.0, C = 1.0 / 3.0;
        if (a < 1.0)
            return ((12 - 9 * B - 6 * C) * a * a * a + (-18 + 12 * B + 6 * C) * a * a +
                    (6 - 2 * B)) /
                   6.0;
        if (a < 2.0)
            return ((-B - 6 * C) * a * a * a + (6 * B + 30 * C) * a * a + (-12 * B - 48 * C) * a +
                    (8 * B + 24 * C)) /
                   6.0;
        return 0.0;
    }
    case REF_RESIZE_LINEAR:
        return a < 1.0 ? 1.0 - a : 0.0;
    case REF_RESIZE_BOX:
        return t > -0.5 && t <= 0.5 ? 1.0 : 0.0;
    }
    return 0.0;
}

double ref_resize_support(ref_resize_kind kind)
{
    static const double support[] = {3.0, 2.0, 1.0, 0.5};
    return support[kind];
}

/* The normalised weights of output index i along an axis of in_size samples
 * shrunk or grown to out_size: taps[k] applies to input first + k. */
static int weights(ref_resize_kind kind, uint32_t in_size, uint32_t out_size, uint32_t i,
                   int64_t *first, int64_t *count, double *taps)
{
    double s = (double)in_size / out_size;
    double fs = s > 1.0 ? s : 1.0;
    double support = ref_resize_support(kind) * fs;
    double center = (i + 0.5) * s;
    int64_t lo = (int64_t)floor(center - support + 0.5);
    int64_t hi = (int64_t)floor(center + support + 0.5);
    lo = lo < 0 ? 0 : lo;
    hi = hi > (int64_t)in_size ? (int64_t)in_size : hi;
    double sum = 0.0;
    for (int64_t x = lo; x < hi; x++) {
        taps[x - lo] = ref_resize_kernel(kind, (x + 0.5 - center) / fs);
        sum += taps[x - lo];
    }
    if (sum == 0.0)
        return vkfx_fail(VKFX_E_USAGE, "ref_resize: no weight for output %u of %u from %u", i,
                         out_size, in_size);
    for (int64_t x = lo; x < hi; x++)
        taps[x - lo] /= sum;
    *first = lo;
    *count = hi - lo;
    return 0;
}

int ref_resize(const ref_image *in, uint32_t out_w, uint32_t out_h, ref_resize_kind kind,
               ref_image *out)
{
    if (out_w == 0 || out_h == 0)
        return vkfx_fail(VKFX_E_USAGE, "ref_resize: %ux%u", out_w, out_h);
    *out = (ref_image){0};
    ref_image mid = {0};
    uint32_t longest = in->w > in->h ? in->w : in->h;
    double *taps = malloc(sizeof(double) * (longest + 1));
    if (!taps)
        return vkfx_fail(VKFX_E_NOMEM, "out of host memory for resize weights");
    int ret = ref_image_alloc(&mid, out_w, in->h);
    if (ret == 0)
        ret = ref_image_alloc(out, out_w, out_h);
    for (uint32_t x = 0; ret == 0 && x < out_w; x++) {
        int64_t first, count;
        ret = weights(kind, in->w, out_w, x, &first, &count, taps);
        for (uint32_t y = 0; ret == 0 && y < in->h; y++) {
            double *o = ref_px(&mid, x, y);
            for (int64_t k = 0; k < count; k++)
                for (int c = 0; c < 4; c++)
                    o[c] += taps[k] * ref_px(in, (uint32_t)(first + k), y)[c];
        }
    }
    for (uint32_t y = 0; ret == 0 && y < out_h; y++) {
        int64_t first, count;
        ret = weights(kind, in->h, out_h, y, &first, &count, taps);
        for (uint32_t x = 0; ret == 0 && x < out_w; x++) {
            double *o = ref_px(out, x, y);
            for (int64_t k = 0; k < count; k++)
                for (int c = 0; c < 4; c++)
                    o[c] += taps[k] * ref_px(&mid, x, (uint32_t)(first + k))[c];
        }
    }
    if (ret != 0)
        ref_image_free(out);
    ref_image_free(&mid);
    free(taps);
    return ret;
}

int ref_crop(const ref_image *in, uint32_t x, uint32_t y, uint32_t w, uint32_t h, ref_image *out)
{
    if (w == 0 || h == 0 || x > in->w || y > in->h || w > in->w - x || h > in->h - y)
        return vkfx_fail(VKFX_E_USAGE, "ref_crop: %ux%u at (%u, %u) outside %ux%u", w, h, x, y,
                         in->w, in->h);
    int ret = ref_image_alloc(out, w, h);
    for (uint32_t r = 0; ret == 0 && r < h; r++)
        memcpy(ref_px(out, 0, r), ref_px(in, x, y + r), sizeof(double) * 4 * w);
    return ret;
}

int ref_rotate(const ref_image *in, int angle, ref_image *out)
{
    if (angle != 90 && angle != 180 && angle != 270)
        return vkfx_fail(VKFX_E_USAGE, "ref_rotate: angle %d", angle);
    bool swap = angle != 180;
    int ret = ref_image_alloc(out, swap ? in->h : in->w, swap ? in->w : in->h);
    for (uint32_t y = 0; ret == 0 && y < in->h; y++) {
        for (uint32_t x = 0; x < in->w; x++) {
            /* where stored pixel (x, y) lands, turning clockwise */
            uint32_t ox = angle == 90 ? in->h - 1 - y : angle == 180 ? in->w - 1 - x : y;
            uint32_t oy = angle == 90 ? x : angle == 180 ? in->h - 1 - y : in->w - 1 - x;
            memcpy(ref_px(out, ox, oy), ref_px(in, x, y), sizeof(double) * 4);
        }
    }
    return ret;
}

int ref_flip(const ref_image *in, bool left_right, ref_image *out)
{
    int ret = ref_image_alloc(out, in->w, in->h);
    for (uint32_t y = 0; ret == 0 && y < in->h; y++)
        for (uint32_t x = 0; x < in->w; x++)
            memcpy(ref_px(out, left_right ? in->w - 1 - x : x, left_right ? y : in->h - 1 - y),
                   ref_px(in, x, y), sizeof(double) * 4);
    return ret;
}

int ref_unsharp(const ref_image *in, double sigma, double amount, double threshold, ref_image *out)
{
    ref_image blur = {0};
    int ret = ref_gauss(in, sigma, -1, &blur);
    if (ret == 0)
        ret = ref_image_alloc(out, in->w, in->h);
    for (size_t i = 0; ret == 0 && i < (size_t)in->w * in->h; i++) {
        const double *x = in->px + 4 * i, *b = blur.px + 4 * i;
        double *o = out->px + 4 * i;
        for (int c = 0; c < 3; c++)
            o[c] = fabs(x[c] - b[c]) > threshold ? x[c] + amount * (x[c] - b[c]) : x[c];
        o[3] = x[3];
    }
    ref_image_free(&blur);
    return ret;
}

/* The size resize makes of in from its options, as FILTERS.md words it: width and height as
 * given, one of them alone keeping the aspect ratio, or both sides times scale, rounded to
 * nearest and at least 1. fit=inside (or longest=N, an NxN box) scales by the smaller of the
 * box's ratios, fit=cover by the larger and keeps the box's middle; enlarge=0 keeps a side that
 * would grow at the input's (cover: the box's middle of the unscaled image). */
static uint32_t rounded(double v)
{
    v = floor(v + 0.5);
    return v < 1 ? 1 : (uint32_t)v;
}

enum { REF_FIT_EXACT, REF_FIT_INSIDE, REF_FIT_COVER };

int ref_filter_resize(const ref_image *in, ref_opts *o, int precision, ref_image *out)
{
    (void)precision;
    double w = ref_opt(o, "width"), h = ref_opt(o, "height"), s = ref_opt(o, "scale");
    double longest = ref_opt(o, "longest");
    int fit = (int)ref_opt(o, "fit");
    bool enlarge = ref_opt(o, "enlarge") != 0;
    uint32_t ow, oh;
    if (s != VKFX_UNSET) {
        ow = rounded(in->w * s);
        oh = rounded(in->h * s);
    } else if (longest != VKFX_UNSET || fit == REF_FIT_INSIDE) {
        double bw = longest != VKFX_UNSET ? longest : w != VKFX_UNSET ? w : INFINITY;
        double bh = longest != VKFX_UNSET ? longest : h != VKFX_UNSET ? h : INFINITY;
        if (bw / in->w <= bh / in->h) {
            ow = (uint32_t)bw;
            oh = rounded(in->h * bw / in->w);
        } else {
            ow = rounded(in->w * bh / in->h);
            oh = (uint32_t)bh;
        }
    } else if (fit == REF_FIT_COVER) {
        ow = (uint32_t)w;
        oh = (uint32_t)h;
    } else {
        ow = w != VKFX_UNSET ? (uint32_t)w : rounded(in->w * h / in->h);
        oh = h != VKFX_UNSET ? (uint32_t)h : rounded(in->h * w / in->w);
    }
    if (!enlarge && (ow > in->w || oh > in->h)) {
        ow = fit == REF_FIT_COVER && ow < in->w ? ow : in->w;
        oh = fit == REF_FIT_COVER && oh < in->h ? oh : in->h;
    }
    if (fit != REF_FIT_COVER)
        return ref_resize(in, ow, oh, (ref_resize_kind)ref_opt(o, "kernel"), out);
    /* The whole image scaled until it covers ow x oh, then its middle. */
    uint32_t cw = ow, ch = oh;
    if ((double)ow / in->w >= (double)oh / in->h) {
        uint32_t t = rounded(in->h * (double)ow / in->w);
        ch = t > oh ? t : oh;
    } else {
        uint32_t t = rounded(in->w * (double)oh / in->h);
        cw = t > ow ? t : ow;
    }
    ref_image big = {0};
    int ret = ref_resize(in, cw, ch, (ref_resize_kind)ref_opt(o, "kernel"), &big);
    if (ret == 0)
        ret = ref_image_alloc(out, ow, oh);
    for (uint32_t y = 0; ret == 0 && y < oh; y++)
        for (uint32_t x = 0; x < ow; x++)
            memcpy(ref_px(out, x, y), ref_px(&big, x + (cw - ow) / 2, y + (ch - oh) / 2),
                   sizeof(double) * 4);
    ref_image_free(&big);
    return ret;
}

int ref_filter_crop(const ref_image *in, ref_opts *o, int precision, ref_image *out)
{
    (void)precision;
    uint32_t x = (uint32_t)ref_opt(o, "x"), y = (uint32_t)ref_opt(o, "y");
    double w = ref_opt(o, "width"), h = ref_opt(o, "height");
    return ref_crop(in, x, y, w != VKFX_UNSET ? (uint32_t)w : in->w - x,
                    h != VKFX_UNSET ? (uint32_t)h : in->h - y, out);
}

int ref_filter_rotate(const ref_image *in, ref_opts *o, int precision, ref_image *out)
{
    (void)precision;
    static const int angles[] = {90, 180, 270};
    return ref_rotate(in, angles[(int)ref_opt(o, "angle")], out);
}

int ref_filter_flip(const ref_image *in, ref_opts *o, int precision, ref_image *out)
{
    (void)precision;
    return ref_flip(in, ref_opt(o, "axis") == 0, out);
}

int ref_filter_unsharp(const ref_image *in, ref_opts *o, int precision, ref_image *out)
{
    (void)precision;
    return ref_unsharp(in, ref_opt(o, "sigma"), ref_opt(o, "amount"), ref_opt(o, "threshold"),
                       out);
}
