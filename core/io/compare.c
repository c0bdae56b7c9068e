/* Host-side image comparison for vkfx compare: plain loops in double
 * precision, since golden images are small and the answer must not depend
 * on the device. */
#include "compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"

/* Window of the standard SSIM (Wang, Bovik, Sheikh, Simoncelli 2004). */
#define SSIM_WINDOW 11
#define SSIM_SIGMA  1.5
#define SSIM_K1     0.01
#define SSIM_K2     0.03

const char *vkfx_metric_name(vkfx_metric m)
{
    switch (m) {
    case VKFX_METRIC_MAXABS:
        return "maxabs";
    case VKFX_METRIC_PSNR:
        return "psnr";
    case VKFX_METRIC_SSIM:
        return "ssim";
    }
    return "?";
}

int vkfx_metric_parse(const char *s, vkfx_metric *m)
{
    static const vkfx_metric all[] = {VKFX_METRIC_MAXABS, VKFX_METRIC_PSNR, VKFX_METRIC_SSIM};
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
        if (!strcmp(s, vkfx_metric_name(all[i]))) {
            *m = all[i];
            return VKFX_OK;
        }
    }
    return vkfx_fail(VKFX_E_USAGE, "unknown metric '%s'; choose maxabs, psnr or ssim", s);
}

double vkfx_metric_default_tolerance(vkfx_metric m)
{
    switch (m) {
    case VKFX_METRIC_MAXABS:
        return 0;
    case VKFX_METRIC_PSNR:
        return 40;
    case VKFX_METRIC_SSIM:
        return 0.99;
    }
    return 0;
}

bool vkfx_metric_passes(vkfx_metric m, double value, double tolerance)
{
    if (isnan(value))
        return false;
    switch (m) {
    case VKFX_METRIC_MAXABS:
        return value <= tolerance;
    case VKFX_METRIC_PSNR:
    case VKFX_METRIC_SSIM:
        return value >= tolerance;
    }
    return false;
}

/* Sample i of px normalised: 8-bit / 255, 16-bit / 65535, float as is. */
static double sample_at(const vkfx_pixels *px, size_t i)
{
    switch (px->sample) {
    case VKFX_SAMPLE_U8:
        return ((const uint8_t *)px->data)[i] / 255.0;
    case VKFX_SAMPLE_U16:
        return ((const uint16_t *)px->data)[i] / 65535.0;
    case VKFX_SAMPLE_F32:
        return ((const float *)px->data)[i];
    }
    return 0;
}

/* Pixel (x, y) as RGBA: gray is copied to R, G and B, a missing alpha is 1. */
static void rgba_at(const vkfx_pixels *px, size_t x, size_t y, double v[4])
{
    size_t i = (y * px->width + x) * px->channels;
    double s[4] = {0, 0, 0, 1};
    for (uint32_t c = 0; c < px->channels && c < 4; c++)
        s[c] = sample_at(px, i + c);
    switch (px->channels) {
    case 1:
    case 2:
        v[0] = v[1] = v[2] = s[0];
        v[3] = px->channels == 2 ? s[1] : 1;
        break;
    default:
        memcpy(v, s, sizeof(s));
        break;
    }
}

static bool has_colour(const vkfx_pixels *px)
{
    return px->channels >= 3;
}

static bool has_alpha(const vkfx_pixels *px)
{
    return px->channels == 2 || px->channels == 4;
}

static double luma_at(const vkfx_pixels *px, size_t x, size_t y)
{
    double v[4];
    rgba_at(px, x, y, v);
    if (!has_colour(px))
        return v[0];
    return 0.2126 * v[0] + 0.7152 * v[1] + 0.0722 * v[2];
}

/* Normalised Gaussian weights of n taps centred on (n - 1) / 2. */
static void gauss_weights(double *w, int n)
{
    double sum = 0, c = (n - 1) / 2.0;
    for (int i = 0; i < n; i++) {
        w[i] = exp(-(i - c) * (i - c) / (2 * SSIM_SIGMA * SSIM_SIGMA));
        sum += w[i];
    }
    for (int i = 0; i < n; i++)
        w[i] /= sum;
}

enum { Q_A, Q_B, Q_AA, Q_BB, Q_AB, Q_COUNT };

/* Mean SSIM of the luma over every window position that lies wholly inside
 * the image (MATLAB's 'valid'); an image narrower or shorter than the window
 * shrinks it along that axis. Rows of horizontally filtered moments are kept
 * in a ring of kh rows, so memory grows with the width only. */
static int ssim_luma(const vkfx_pixels *a, const vkfx_pixels *b, double *out)
{
    const int w = (int)a->width, h = (int)a->height;
    const int kw = w < SSIM_WINDOW ? w : SSIM_WINDOW, kh = h < SSIM_WINDOW ? h : SSIM_WINDOW;
    const int ow = w - kw + 1, oh = h - kh + 1;
    const double c1 = (SSIM_K1 * 1.0) * (SSIM_K1 * 1.0), c2 = (SSIM_K2 * 1.0) * (SSIM_K2 * 1.0);
    double gx[SSIM_WINDOW], gy[SSIM_WINDOW];
    gauss_weights(gx, kw);
    gauss_weights(gy, kh);

    double *la = malloc(sizeof(double) * (size_t)w * 2);
    double *ring = malloc(sizeof(double) * Q_COUNT * (size_t)kh * (size_t)ow);
    if (!la || !ring) {
        free(la);
        free(ring);
        return vkfx_fail(VKFX_E_NOMEM, "out of host memory for SSIM of a %dx%d image", w, h);
    }
    double *lb = la + w;
    double total = 0;
    int next_row = 0; /* the first row not yet filtered into the ring */
    for (int oy = 0; oy < oh; oy++) {
        for (; next_row < oy + kh; next_row++) {
            for (int x = 0; x < w; x++) {
                la[x] = luma_at(a, (size_t)x, (size_t)next_row);
                lb[x] = luma_at(b, (size_t)x, (size_t)next_row);
            }
            double *slot = ring + (size_t)(next_row % kh) * Q_COUNT * ow;
            for (int x = 0; x < ow; x++) {
                double s[Q_COUNT] = {0};
                for (int k = 0; k < kw; k++) {
                    double va = la[x + k], vb = lb[x + k];
                    s[Q_A] += gx[k] * va;
                    s[Q_B] += gx[k] * vb;
                    s[Q_AA] += gx[k] * va * va;
                    s[Q_BB] += gx[k] * vb * vb;
                    s[Q_AB] += gx[k] * va * vb;
                }
                for (int q = 0; q < Q_COUNT; q++)
                    slot[(size_t)q * ow + x] = s[q];
            }
        }
        for (int x = 0; x < ow; x++) {
            double m[Q_COUNT] = {0};
            for (int k = 0; k < kh; k++) {
                const double *slot = ring + (size_t)((oy + k) % kh) * Q_COUNT * ow;
                for (int q = 0; q < Q_COUNT; q++)
                    m[q] += gy[k] * slot[(size_t)q * ow + x];
            }
            double va = m[Q_AA] - m[Q_A] * m[Q_A];
            double vb = m[Q_BB] - m[Q_B] * m[Q_B];
            double cov = m[Q_AB] - m[Q_A] * m[Q_B];
            total += ((2 * m[Q_A] * m[Q_B] + c1) * (2 * cov + c2)) /
                     ((m[Q_A] * m[Q_A] + m[Q_B] * m[Q_B] + c1) * (va + vb + c2));
        }
    }
    *out = total / ((double)ow * oh);
    free(la);
    free(ring);
    return VKFX_OK;
}

int vkfx_compare(const vkfx_pixels *a, const vkfx_pixels *b, vkfx_metric m, bool want_diff,
                 vkfx_compare_result *out)
{
    memset(out, 0, sizeof(*out));
    out->value = NAN;
    if (a->width != b->width || a->height != b->height) {
        out->size_mismatch = true;
        return VKFX_OK;
    }
    if (!a->width || !a->height)
        return vkfx_fail(VKFX_E_FORMAT, "cannot compare empty images");
    out->width = a->width;
    out->height = a->height;
    const size_t npix = (size_t)a->width * a->height;
    if (want_diff && !(out->diff = malloc(sizeof(float) * npix)))
        return vkfx_fail(VKFX_E_NOMEM, "out of host memory for a %ux%u difference map", a->width,
                         a->height);

    /* The common layout: colour if either has it, alpha if either has it. */
    const uint32_t ncolour = has_colour(a) || has_colour(b) ? 3 : 1;
    const bool alpha = has_alpha(a) || has_alpha(b);
    double sum_sq = 0, max_abs = 0;
    for (size_t y = 0; y < a->height; y++) {
        for (size_t x = 0; x < a->width; x++) {
            double va[4], vb[4], worst = 0;
            rgba_at(a, x, y, va);
            rgba_at(b, x, y, vb);
            for (uint32_t c = 0; c < 4; c++) {
                if (c >= ncolour && (c != 3 || !alpha))
                    continue;
                double d = fabs(va[c] - vb[c]);
                out->samples++;
                out->differing += d != 0;
                sum_sq += d * d;
                worst = d > worst ? d : worst;
            }
            max_abs = worst > max_abs ? worst : max_abs;
            if (out->diff)
                out->diff[y * a->width + x] = (float)worst;
        }
    }
    out->max_diff = max_abs;

    switch (m) {
    case VKFX_METRIC_MAXABS:
        /* 8-bit codes, rounded to 1e-6 so that 3/255 - 0 reads back as 3. */
        out->value = round(max_abs * 255.0 * 1e6) / 1e6;
        break;
    case VKFX_METRIC_PSNR: {
        double mse = sum_sq / ((double)npix * (ncolour + (alpha ? 1 : 0)));
        out->value = mse > 0 ? 10 * log10(1 / mse) : INFINITY;
        break;
    }
    case VKFX_METRIC_SSIM: {
        int ret = ssim_luma(a, b, &out->value);
        if (ret < 0) {
            vkfx_compare_result_free(out);
            return ret;
        }
        break;
    }
    }
    return VKFX_OK;
}

void vkfx_compare_result_free(vkfx_compare_result *r)
{
    if (!r)
        return;
    free(r->diff);
    r->diff = NULL;
}

static uint8_t to_u8(double v)
{
    v = v < 0 ? 0 : v > 1 ? 1 : v;
    return (uint8_t)lround(v * 255);
}

int vkfx_compare_heatmap(const vkfx_compare_result *r, vkfx_pixels *out)
{
    if (!r->diff)
        return vkfx_fail(VKFX_E_USAGE, "no difference map to render");
    int ret = vkfx_pixels_alloc(out, r->width, r->height, 3, VKFX_SAMPLE_U8);
    if (ret < 0)
        return ret;
    out->linear = false;
    out->straight = true;
    uint8_t *p = out->data;
    const size_t npix = (size_t)r->width * r->height;
    for (size_t i = 0; i < npix; i++, p += 3) {
        double d = r->diff[i];
        double t = r->max_diff > 0 ? d / r->max_diff : 0;
        p[0] = to_u8(3 * t);
        p[1] = to_u8(3 * t - 1);
        p[2] = to_u8(3 * t - 2);
        if (d > 0 && !p[0])
            p[0] = 1;
    }
    return VKFX_OK;
}
