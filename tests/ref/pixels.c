/* The "Pixels" section of FILTERS.md: file samples to linear premultiplied
 * RGBA doubles and back. */
#include <math.h>
#include <stdlib.h>

#include "error.h"
#include "half.h"
#include "ref.h"

int ref_image_alloc(ref_image *img, uint32_t w, uint32_t h)
{
    size_t n = (size_t)w * h * 4;
    img->w = w;
    img->h = h;
    img->px = calloc(n ? n : 1, sizeof(double));
    if (!img->px)
        return vkfx_fail(VKFX_E_NOMEM, "out of host memory for a %ux%u reference image", w, h);
    return VKFX_OK;
}

void ref_image_free(ref_image *img)
{
    if (!img)
        return;
    free(img->px);
    img->px = NULL;
}

double ref_srgb_to_linear(double c)
{
    return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4);
}

double ref_linear_to_srgb(double v)
{
    return v <= 0.0031308 ? 12.92 * v : 1.055 * pow(v, 1.0 / 2.4) - 0.055;
}

double ref_luma(double r, double g, double b)
{
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/* Sample i of px as stored, normalised to [0,1] for the integer types. */
static double load_sample(const vkfx_pixels *px, size_t i)
{
    switch (px->sample) {
    case VKFX_SAMPLE_U8:
        return ((const uint8_t *)px->data)[i] / 255.0;
    case VKFX_SAMPLE_U16:
        return ((const uint16_t *)px->data)[i] / 65535.0;
    case VKFX_SAMPLE_F32:
        return ((const float *)px->data)[i];
    }
    return 0.0;
}

static double clamp01(double v)
{
    /* fmax first so that NaN becomes 0 rather than passing through */
    return fmin(fmax(v, 0.0), 1.0);
}

/* Stores v, a colour (sRGB-encoded for integer samples unless linear) or an
 * alpha (never encoded). */
static void store_sample(vkfx_pixels *px, size_t i, double v, bool linear, bool is_alpha)
{
    switch (px->sample) {
    case VKFX_SAMPLE_U8:
    case VKFX_SAMPLE_U16: {
        double max = px->sample == VKFX_SAMPLE_U8 ? 255.0 : 65535.0;
        v = clamp01(v);
        if (!linear && !is_alpha)
            v = ref_linear_to_srgb(v);
        double code = floor(v * max + 0.5);
        if (px->sample == VKFX_SAMPLE_U8)
            ((uint8_t *)px->data)[i] = (uint8_t)code;
        else
            ((uint16_t *)px->data)[i] = (uint16_t)code;
        break;
    }
    case VKFX_SAMPLE_F32:
        ((float *)px->data)[i] = (float)v;
        break;
    }
}

int ref_decode(const vkfx_pixels *in, bool linear, ref_image *out)
{
    if (in->channels < 1 || in->channels > 4)
        return vkfx_fail(VKFX_E_USAGE, "ref_decode: %u channels", in->channels);
    int ret = ref_image_alloc(out, in->width, in->height);
    if (ret < 0)
        return ret;
    bool transfer = in->sample != VKFX_SAMPLE_F32 && !linear && !in->linear;
    uint32_t nc = in->channels;
    for (uint32_t y = 0; y < in->height; y++) {
        for (uint32_t x = 0; x < in->width; x++) {
            size_t base = ((size_t)y * in->width + x) * nc;
            double s[4];
            for (uint32_t c = 0; c < nc; c++)
                s[c] = load_sample(in, base + c);
            bool has_alpha = nc == 2 || nc == 4;
            uint32_t ncolour = nc <= 2 ? 1 : 3;
            double alpha = has_alpha ? s[nc - 1] : 1.0;
            double rgb[3];
            for (uint32_t c = 0; c < 3; c++) {
                double v = s[ncolour == 1 ? 0 : c];
                rgb[c] = transfer ? ref_srgb_to_linear(v) : v;
            }
            double *p = ref_px(out, x, y);
            /* OpenEXR colour arrives premultiplied already (straight false). */
            for (uint32_t c = 0; c < 3; c++)
                p[c] = in->straight ? rgb[c] * alpha : rgb[c];
            p[3] = alpha;
        }
    }
    return VKFX_OK;
}

int ref_encode(const ref_image *img, bool linear, vkfx_pixels *out)
{
    uint32_t nc = out->channels;
    if (nc < 1 || nc > 4)
        return vkfx_fail(VKFX_E_USAGE, "ref_encode: %u channels", nc);
    int ret = vkfx_pixels_alloc(out, img->w, img->h, nc, out->sample);
    if (ret < 0)
        return ret;
    out->straight = true;
    bool lin = linear || out->linear;
    for (uint32_t y = 0; y < img->h; y++) {
        for (uint32_t x = 0; x < img->w; x++) {
            const double *p = ref_px(img, x, y);
            double a = p[3];
            double rgb[3];
            for (uint32_t c = 0; c < 3; c++)
                rgb[c] = a == 0.0 ? 0.0 : p[c] / a;
            size_t base = ((size_t)y * img->w + x) * nc;
            if (nc <= 2) {
                store_sample(out, base, ref_luma(rgb[0], rgb[1], rgb[2]), lin, false);
            } else {
                for (uint32_t c = 0; c < 3; c++)
                    store_sample(out, base + c, rgb[c], lin, false);
            }
            if (nc == 2 || nc == 4)
                store_sample(out, base + nc - 1, a, lin, true);
        }
    }
    return VKFX_OK;
}

void ref_round_half(ref_image *img)
{
    size_t n = (size_t)img->w * img->h * 4;
    for (size_t i = 0; i < n; i++)
        img->px[i] = (double)vkfx_half_round((float)img->px[i]); /* the device rounds from float */
}
