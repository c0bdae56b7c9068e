#include "icc.h"

#include <lcms2.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"

struct vkfx_tone {
    uint32_t channels;
    cmsToneCurve *curve[3];
};

/* lcms2 reports through a handler per context: keep its last sentence for
 * the error message instead of letting it reach stderr. */
static void log_error(cmsContext ctx, cmsUInt32Number code, const char *text)
{
    (void)code;
    char *last = cmsGetContextUserData(ctx);
    snprintf(last, 256, "%s", text);
}

static int refuse(const char *name, const char *why)
{
    return vkfx_fail(VKFX_E_FORMAT,
                     "%s: its ICC profile %s; vkfx cannot linearise with it (--to-srgb converts "
                     "such files to sRGB first, --no-linearize takes the values as they are)",
                     name, why);
}

/* Whether the thresholds vkfx_tone_encode searches, of 8 and of 16-bit
 * codes, are finite and never decrease. lcms2's monotonicity check allows a
 * curve to fall a little (a fuzzed profile's fell by 2e-5 over a hundred
 * codes), which would make the binary search pick wrong codes. */
static bool thresholds_increase(const vkfx_tone *t, uint32_t c)
{
    static const uint32_t levels[2] = {256, 65536};
    for (int i = 0; i < 2; i++) {
        float prev = -INFINITY;
        for (uint32_t k = 0; k + 1 < levels[i]; k++) {
            float v = vkfx_tone_decode(t, c, (float)((k + 0.5) / (levels[i] - 1)));
            if (!(v >= prev) || !isfinite(v))
                return false;
            prev = v;
        }
    }
    return true;
}

/* A context whose messages land in last (256 bytes), and the profile
 * opened in it; the caller closes both (either may be NULL on failure). */
static int open_profile(const void *icc, size_t size, const char *name, char *last,
                        cmsContext *ctx, cmsHPROFILE *p)
{
    *p = NULL;
    *ctx = cmsCreateContext(NULL, last);
    if (!*ctx)
        return vkfx_fail(VKFX_E_NOMEM, "%s: out of host memory reading its ICC profile", name);
    cmsSetLogErrorHandlerTHR(*ctx, log_error);
    if (size <= UINT32_MAX)
        *p = cmsOpenProfileFromMemTHR(*ctx, icc, (cmsUInt32Number)size);
    if (!*p)
        return vkfx_fail(VKFX_E_FORMAT, "%s: its ICC profile is damaged (%s)", name,
                         last[0] ? last : "not a profile");
    return VKFX_OK;
}

/* vkfx_tone_from_icc, with what makes it refuse a profile it opens in *why. */
static int tone_from_icc(const void *icc, size_t size, const char *name, vkfx_tone **out,
                         const char **why)
{
    *out = NULL;
    *why = NULL;
    char last[256] = "";
    cmsContext ctx;
    cmsHPROFILE p;
    vkfx_tone *t = NULL;
    int ret = open_profile(icc, size, name, last, &ctx, &p);
    if (ret < 0)
        goto done;
    cmsColorSpaceSignature space = cmsGetColorSpace(p);
    static const cmsTagSignature rgb[3] = {cmsSigRedTRCTag, cmsSigGreenTRCTag, cmsSigBlueTRCTag};
    static const cmsTagSignature gray[1] = {cmsSigGrayTRCTag};
    const cmsTagSignature *tags = space == cmsSigRgbData    ? rgb
                                  : space == cmsSigGrayData ? gray
                                                            : NULL;
    if (!tags) {
        ret = refuse(name, *why = "is not for RGB or gray pixels");
        goto done;
    }
    t = calloc(1, sizeof *t);
    if (!t) {
        ret = vkfx_fail(VKFX_E_NOMEM, "%s: out of host memory reading its ICC profile", name);
        goto done;
    }
    t->channels = space == cmsSigRgbData ? 3 : 1;
    for (uint32_t c = 0; c < t->channels; c++) {
        const cmsToneCurve *curve = cmsIsTag(p, tags[c]) ? cmsReadTag(p, tags[c]) : NULL;
        if (!curve) {
            ret = refuse(name, *why = "has no tone curves (a LUT-based profile)");
            goto done;
        }
        if (!cmsIsToneCurveMonotonic(curve) ||
            cmsEvalToneCurveFloat(curve, 0.0f) >= cmsEvalToneCurveFloat(curve, 1.0f)) {
            ret = refuse(name, *why = "has a tone curve that is not increasing");
            goto done;
        }
        t->curve[c] = cmsDupToneCurve(curve);
        if (!t->curve[c]) {
            ret = vkfx_fail(VKFX_E_NOMEM, "%s: out of host memory reading its ICC profile", name);
            goto done;
        }
        if (!thresholds_increase(t, c)) {
            ret = refuse(name, *why = "has a tone curve that is not increasing");
            goto done;
        }
    }
    *out = t;
    t = NULL;
done:
    vkfx_tone_free(t);
    if (p)
        cmsCloseProfile(p);
    if (ctx)
        cmsDeleteContext(ctx);
    return ret;
}

int vkfx_tone_from_icc(const void *icc, size_t size, const char *name, vkfx_tone **out)
{
    const char *why;
    return tone_from_icc(icc, size, name, out, &why);
}

void vkfx_tone_free(vkfx_tone *t)
{
    if (!t)
        return;
    for (uint32_t c = 0; c < 3; c++)
        if (t->curve[c])
            cmsFreeToneCurve(t->curve[c]);
    free(t);
}

uint32_t vkfx_tone_channels(const vkfx_tone *t)
{
    return t->channels;
}

float vkfx_tone_decode(const vkfx_tone *t, uint32_t c, float v)
{
    const cmsToneCurve *curve = t->curve[t->channels == 1 ? 0 : c];
    if (cmsGetToneCurveParametricType(curve) != 0)
        return cmsEvalToneCurveFloat(curve, v);
    /* A sampled curve, interpolated linearly between its entries as ICC's
     * 'curv' type says, in double: lcms2 would round the input to 16 bits,
     * which merges neighbouring 16-bit codes where the curve is flatter than
     * the identity. */
    uint32_t n = cmsGetToneCurveEstimatedTableEntries(curve);
    const cmsUInt16Number *table = cmsGetToneCurveEstimatedTable(curve);
    if (n < 2 || !table)
        return cmsEvalToneCurveFloat(curve, v);
    double pos = (v <= 0 ? 0 : v >= 1 ? 1 : v) * (n - 1);
    uint32_t i = pos >= n - 1 ? n - 2 : (uint32_t)pos;
    return (float)((table[i] + (pos - i) * ((double)table[i + 1] - table[i])) / 65535.0);
}

void vkfx_tone_thresholds(const vkfx_tone *t, uint32_t c, uint32_t levels, float *thresholds)
{
    for (uint32_t k = 0; k + 1 < levels; k++)
        thresholds[k] = vkfx_tone_decode(t, c, (float)((k + 0.5) / (levels - 1)));
}

/* The first of thresholds[lo..hi) above v (hi where none is): with the thresholds below lo at
 * or below v, the number of thresholds at or below v. */
static uint32_t first_above(const float *thresholds, uint32_t lo, uint32_t hi, float v)
{
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (thresholds[mid] <= v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

uint32_t vkfx_tone_encode(const float *thresholds, uint32_t levels, float v)
{
    /* the number of thresholds at or below v: a midpoint itself rounds up */
    return first_above(thresholds, 0, levels - 1, v);
}

/* Which of t's curves a colour channel of an image of n channels takes: a
 * gray image under an RGB profile takes green's, the one closest to
 * luminance. */
static uint32_t curve_for(const vkfx_tone *t, uint32_t n, uint32_t c)
{
    return t->channels == 1 ? 0 : n <= 2 ? 1 : c;
}

/* out shaped as in with samples of sample, and a table of n floats. */
static int alloc_pair(const vkfx_pixels *in, vkfx_sample sample, size_t n, vkfx_pixels *out,
                      float **table)
{
    *out = vkfx_pixels_layout(in);
    *table = malloc(sizeof(float) * n);
    int ret = *table ? vkfx_pixels_alloc(out, in->width, in->height, in->channels, sample)
                     : vkfx_fail(VKFX_E_NOMEM, "out of host memory for the profile's curves");
    if (ret < 0) {
        free(*table);
        *table = NULL;
    }
    return ret;
}

int vkfx_tone_table(const vkfx_tone *t, uint32_t channels, vkfx_sample sample, float **table)
{
    uint32_t colours = channels <= 2 ? 1 : 3, levels = sample == VKFX_SAMPLE_U16 ? 65536 : 256;
    float *lut = malloc(sizeof(float) * levels * colours);
    *table = lut;
    if (!lut)
        return vkfx_fail(VKFX_E_NOMEM, "out of host memory for the profile's curves");
    for (uint32_t c = 0; c < colours; c++)
        for (uint32_t k = 0; k < levels; k++)
            lut[c * levels + k] =
                vkfx_tone_decode(t, curve_for(t, channels, c), (float)k / (levels - 1));
    return VKFX_OK;
}

/* vkfx_tone_encode's search narrowed first by the float's own bits: the floats in [0, 1]
 * fall in BUCKETS runs of equal exponent and leading mantissa bits, and starts[b] counts the
 * thresholds below run b's least float. A value of run b then has at least starts[b] and at
 * most starts[b + 1] thresholds at or below it, and the search looks only between the two:
 * the same codes (the thresholds never decrease), without the eight or sixteen unpredictable
 * branches a sample that took most of a pixel's time. */
#define BUCKET_SHIFT 13
#define BUCKETS      ((0x3f800000u >> BUCKET_SHIFT) + 2) /* up to the one after 1.0's */

static uint32_t float_bits(float v)
{
    uint32_t u;
    memcpy(&u, &v, sizeof(u));
    return u;
}

static void bucket_starts(const float *thresholds, uint32_t count, uint32_t *starts)
{
    uint32_t k = 0;
    for (uint32_t b = 0; b < BUCKETS; b++) {
        uint32_t bits = b << BUCKET_SHIFT;
        float least;
        memcpy(&least, &bits, sizeof(least));
        while (k < count && thresholds[k] < least)
            k++;
        starts[b] = k;
    }
}

/* vkfx_tone_encode(thresholds, ...) for v in [0, 1]. */
static uint32_t encode_bucketed(const float *thresholds, const uint32_t *starts, float v)
{
    uint32_t b = float_bits(v) >> BUCKET_SHIFT;
    return first_above(thresholds, starts[b], starts[b + 1], v);
}

int vkfx_tone_encode_pixels(const vkfx_tone *t, const vkfx_pixels *in, vkfx_sample sample,
                            vkfx_pixels *out)
{
    uint32_t n = in->channels, colours = n <= 2 ? 1 : 3;
    bool u16 = sample == VKFX_SAMPLE_U16;
    uint32_t levels = u16 ? 65536 : 256;
    float *th;
    int ret = alloc_pair(in, sample, (size_t)(levels - 1) * 3, out, &th);
    uint32_t *starts = ret < 0 ? NULL : malloc(sizeof(*starts) * BUCKETS * colours);
    if (ret == VKFX_OK && !starts) {
        vkfx_pixels_free(out);
        ret = vkfx_fail(VKFX_E_NOMEM, "out of host memory for the profile's curves");
    }
    if (ret < 0) {
        free(th);
        return ret;
    }
    for (uint32_t c = 0; c < colours; c++) {
        float *tc = th + (size_t)c * (levels - 1);
        vkfx_tone_thresholds(t, curve_for(t, n, c), levels, tc);
        bucket_starts(tc, levels - 1, starts + (size_t)c * BUCKETS);
    }
    const float *src = in->data;
    uint8_t *d8 = out->data;
    uint16_t *d16 = out->data;
    size_t i = 0;
    for (size_t p = 0; p < (size_t)in->width * in->height; p++)
        for (uint32_t ch = 0; ch < n; ch++, i++) {
            float v = src[i] > 0 ? (src[i] < 1 ? src[i] : 1) : 0; /* NaN gives 0 */
            uint32_t code = ch < colours ? encode_bucketed(th + (size_t)ch * (levels - 1),
                                                           starts + (size_t)ch * BUCKETS, v)
                                         : (uint32_t)floorf(v * (levels - 1) + 0.5f);
            if (u16)
                d16[i] = (uint16_t)code;
            else
                d8[i] = (uint8_t)code;
        }
    free(starts);
    free(th);
    out->linear = false;
    return VKFX_OK;
}

/* A profile whose curves stay this close to the sRGB curve everywhere has
 * sRGB's curve: the 1024-entry table of the common sRGB profiles is within
 * 2e-5 of it (16-bit table entries and the interpolation between them),
 * while gamma 2.2 is 0.02 away. */
#define SRGB_SAME 1e-4

double vkfx_srgb_decode(double c)
{
    return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4);
}

double vkfx_srgb_encode(double v)
{
    return v <= 0.0031308 ? 12.92 * v : 1.055 * pow(v, 1.0 / 2.4) - 0.055;
}

double vkfx_tone_srgb_error(const vkfx_tone *t)
{
    double worst = 0;
    for (uint32_t c = 0; c < t->channels; c++) {
        for (uint32_t k = 0; k <= 4096; k++) {
            double v = k / 4096.0;
            double e = fabs(vkfx_tone_decode(t, c, (float)v) - vkfx_srgb_decode(v));
            worst = e > worst ? e : worst;
        }
    }
    return worst;
}

/* px (8/16-bit) from its profile to sRGB, relative colorimetric, alpha
 * copied: RGB pixels to sRGB, gray ones to gray with the sRGB curve. */
static int to_srgb(const vkfx_blob *icc, vkfx_pixels *px, const char *name)
{
    char last[256] = "";
    cmsContext ctx;
    cmsHPROFILE src, dst = NULL;
    cmsToneCurve *srgb_curve = NULL;
    cmsHTRANSFORM xf = NULL;
    bool gray = px->channels <= 2, u16 = px->sample == VKFX_SAMPLE_U16;
    int ret = open_profile(icc->data, icc->size, name, last, &ctx, &src);
    if (ret < 0)
        goto done;
    cmsColorSpaceSignature space = cmsGetColorSpace(src);
    if (space != (gray ? cmsSigGrayData : cmsSigRgbData)) {
        ret = vkfx_fail(VKFX_E_FORMAT,
                        "%s: its ICC profile is for %s pixels, the image has %s ones; vkfx "
                        "cannot convert it to sRGB (--no-linearize keeps the values as they are)",
                        name, space == cmsSigCmykData ? "CMYK" : "other", gray ? "gray" : "RGB");
        goto done;
    }
    if (gray) {
        /* sRGB's curve: IEC 61966-2-1's parameters, ICC parametric type 4 */
        static const double p[5] = {2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045};
        srgb_curve = cmsBuildParametricToneCurve(ctx, 4, p);
        dst = srgb_curve ? cmsCreateGrayProfileTHR(ctx, cmsD50_xyY(), srgb_curve) : NULL;
    } else {
        dst = cmsCreate_sRGBProfileTHR(ctx);
    }
    static const cmsUInt32Number formats[2][2][2] = {
        {{TYPE_RGB_8, TYPE_RGBA_8}, {TYPE_RGB_16, TYPE_RGBA_16}},
        {{TYPE_GRAY_8, TYPE_GRAYA_8}, {TYPE_GRAY_16, TYPE_GRAYA_16}},
    };
    bool alpha = px->channels == 2 || px->channels == 4;
    cmsUInt32Number fmt = formats[gray][u16][alpha];
    xf = dst ? cmsCreateTransformTHR(ctx, src, fmt, dst, fmt, INTENT_RELATIVE_COLORIMETRIC,
                                     cmsFLAGS_COPY_ALPHA)
             : NULL;
    if (!xf) {
        ret = vkfx_fail(VKFX_E_FORMAT, "%s: lcms2 cannot convert its ICC profile to sRGB (%s)",
                        name, last[0] ? last : "no transform");
        goto done;
    }
    size_t stride = (size_t)px->width * px->channels * vkfx_sample_size(px->sample);
    for (uint32_t y = 0; y < px->height; y++) {
        void *row = (unsigned char *)px->data + stride * y;
        cmsDoTransform(xf, row, row, px->width);
    }
done:
    if (xf)
        cmsDeleteTransform(xf);
    if (dst)
        cmsCloseProfile(dst);
    if (src)
        cmsCloseProfile(src);
    if (srgb_curve)
        cmsFreeToneCurve(srgb_curve);
    if (ctx)
        cmsDeleteContext(ctx);
    return ret;
}

/* The solution of m x = b (Cramer's rule); false where m is singular. */
static bool solve3(const double m[3][3], const double b[3], double x[3])
{
    double det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
                 m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
                 m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
    if (!(fabs(det) > 1e-12))
        return false;
    for (int k = 0; k < 3; k++) {
        double a[3][3];
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 3; c++)
                a[r][c] = c == k ? b[r] : m[r][c];
        x[k] = (a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) -
                a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) +
                a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0])) /
               det;
    }
    return true;
}

static bool xy_of(const cmsCIEXYZ *v, double *x, double *y)
{
    double s = v->X + v->Y + v->Z;
    if (!(s > 1e-9) || !isfinite(s))
        return false;
    *x = v->X / s;
    *y = v->Y / s;
    return true;
}

bool vkfx_icc_primaries(const void *icc, size_t size, double xy[8])
{
    char last[256] = "";
    cmsContext ctx = cmsCreateContext(NULL, last);
    cmsHPROFILE p = NULL;
    bool ok = false;
    if (ctx) {
        cmsSetLogErrorHandlerTHR(ctx, log_error);
        if (size <= UINT32_MAX)
            p = cmsOpenProfileFromMemTHR(ctx, icc, (cmsUInt32Number)size);
    }
    if (p && cmsGetColorSpace(p) == cmsSigRgbData) {
        static const cmsTagSignature tags[3] = {cmsSigRedColorantTag, cmsSigGreenColorantTag,
                                                cmsSigBlueColorantTag};
        const cmsFloat64Number *chad = cmsReadTag(p, cmsSigChromaticAdaptationTag); /* 3x3, by rows */
        const cmsCIEXYZ *wtpt = cmsReadTag(p, cmsSigMediaWhitePointTag);
        cmsCIEXYZ white = *cmsD50_XYZ();
        double w[3], d50[3] = {white.X, white.Y, white.Z};
        if (chad) {
            double m[3][3];
            for (int r = 0; r < 3; r++)
                for (int c = 0; c < 3; c++)
                    m[r][c] = chad[3 * r + c];
            if (solve3(m, d50, w))
                white = (cmsCIEXYZ){w[0], w[1], w[2]};
        } else if (wtpt) {
            white = *wtpt;
        }
        ok = xy_of(&white, &xy[6], &xy[7]);
        for (int c = 0; ok && c < 3; c++) {
            const cmsCIEXYZ *col = cmsReadTag(p, tags[c]);
            cmsCIEXYZ back;
            ok = col && cmsAdaptToIlluminant(&back, cmsD50_XYZ(), &white, col) &&
                 xy_of(&back, &xy[2 * c], &xy[2 * c + 1]);
        }
    }
    if (p)
        cmsCloseProfile(p);
    if (ctx)
        cmsDeleteContext(ctx);
    return ok;
}

int vkfx_icc_from_primaries(const double xy[8], const char *name, vkfx_blob *icc)
{
    static const double rec709[8] = {0.64, 0.33, 0.30, 0.60, 0.15, 0.06, 0.3127, 0.3290};
    bool same = true, sane = true;
    for (int i = 0; i < 8; i++) {
        same = same && fabs(xy[i] - rec709[i]) < 1e-4;
        sane = sane && xy[i] > 0 && xy[i] < 1;
    }
    if (same || !sane)
        return VKFX_OK;
    char last[256] = "";
    cmsContext ctx = cmsCreateContext(NULL, last);
    if (!ctx)
        return vkfx_fail(VKFX_E_NOMEM, "%s: out of host memory for its chromaticities", name);
    cmsSetLogErrorHandlerTHR(ctx, log_error);
    static const double srgb[5] = {2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045};
    cmsToneCurve *curve = cmsBuildParametricToneCurve(ctx, 4, srgb);
    cmsToneCurve *curves[3] = {curve, curve, curve};
    cmsCIExyY white = {xy[6], xy[7], 1};
    cmsCIExyYTRIPLE prim = {{xy[0], xy[1], 1}, {xy[2], xy[3], 1}, {xy[4], xy[5], 1}};
    cmsHPROFILE p = curve ? cmsCreateRGBProfileTHR(ctx, &white, &prim, curves) : NULL;
    cmsUInt32Number n = 0;
    int ret = VKFX_OK;
    void *buf = NULL;
    /* primaries that make no profile (all on a line) give none */
    if (p && cmsSaveProfileToMem(p, NULL, &n) && (buf = malloc(n)) &&
        cmsSaveProfileToMem(p, buf, &n))
        ret = vkfx_blob_set(icc, buf, n, name, "ICC profile");
    free(buf);
    if (p)
        cmsCloseProfile(p);
    if (curve)
        cmsFreeToneCurve(curve);
    cmsDeleteContext(ctx);
    return ret;
}

struct vkfx_cmyk {
    cmsContext ctx;
    cmsHTRANSFORM xf;
    char last[256];
};

void vkfx_cmyk_close(vkfx_cmyk *x)
{
    if (!x)
        return;
    if (x->xf)
        cmsDeleteTransform(x->xf);
    if (x->ctx)
        cmsDeleteContext(x->ctx);
    free(x);
}

vkfx_cmyk *vkfx_cmyk_open(const void *icc, size_t size, bool inverted)
{
    vkfx_cmyk *x = calloc(1, sizeof *x);
    if (!x || size > UINT32_MAX)
        goto fail;
    x->ctx = cmsCreateContext(NULL, x->last);
    if (!x->ctx)
        goto fail;
    cmsSetLogErrorHandlerTHR(x->ctx, log_error);
    cmsHPROFILE src = cmsOpenProfileFromMemTHR(x->ctx, icc, (cmsUInt32Number)size);
    cmsHPROFILE dst = cmsCreate_sRGBProfileTHR(x->ctx);
    if (src && dst && cmsGetColorSpace(src) == cmsSigCmykData)
        x->xf = cmsCreateTransformTHR(x->ctx, src, inverted ? TYPE_CMYK_8_REV : TYPE_CMYK_8, dst,
                                      TYPE_RGB_8, INTENT_RELATIVE_COLORIMETRIC, 0);
    if (src)
        cmsCloseProfile(src);
    if (dst)
        cmsCloseProfile(dst);
    if (x->xf)
        return x;
fail:
    vkfx_cmyk_close(x);
    return NULL;
}

void vkfx_cmyk_to_srgb(vkfx_cmyk *x, const uint8_t *cmyk, uint8_t *rgb, uint32_t width)
{
    cmsDoTransform(x->xf, cmyk, rgb, width);
}

void vkfx_cmyk_plain(const uint8_t *cmyk, uint8_t *rgb, uint32_t width, bool inverted)
{
    for (uint32_t x = 0; x < width; x++) {
        unsigned k = inverted ? cmyk[4 * x + 3] : 255u - cmyk[4 * x + 3];
        for (int c = 0; c < 3; c++) {
            unsigned v = inverted ? cmyk[4 * x + c] : 255u - cmyk[4 * x + c];
            rgb[3 * x + c] = (uint8_t)((v * k + 127) / 255);
        }
    }
}

int vkfx_lab_to_srgb(const float *lab, uint8_t *rgb, uint32_t channels, size_t n, const char *name)
{
    char last[256] = "";
    int ret = VKFX_OK;
    cmsContext ctx = cmsCreateContext(NULL, last);
    if (!ctx)
        return vkfx_fail(VKFX_E_NOMEM, "%s: out of host memory converting L*a*b*", name);
    cmsSetLogErrorHandlerTHR(ctx, log_error);
    cmsHPROFILE src = cmsCreateLab4ProfileTHR(ctx, NULL), dst = cmsCreate_sRGBProfileTHR(ctx);
    cmsHTRANSFORM xf = src && dst ? cmsCreateTransformTHR(ctx, src, TYPE_Lab_FLT, dst, TYPE_RGB_8,
                                                          INTENT_RELATIVE_COLORIMETRIC, 0)
                                  : NULL;
    uint8_t *row = malloc(3 * 4096);
    if (!xf || !row)
        ret = vkfx_fail(VKFX_E_NOMEM, "%s: lcms2 cannot convert L*a*b* to sRGB (%s)", name,
                        last[0] ? last : "out of host memory");
    for (size_t at = 0; ret == VKFX_OK && at < n; at += 4096) {
        size_t k = n - at < 4096 ? n - at : 4096;
        cmsDoTransform(xf, lab + 3 * at, row, (cmsUInt32Number)k);
        for (size_t i = 0; i < k; i++)
            memcpy(rgb + (at + i) * channels, row + 3 * i, 3);
    }
    free(row);
    if (xf)
        cmsDeleteTransform(xf);
    if (src)
        cmsCloseProfile(src);
    if (dst)
        cmsCloseProfile(dst);
    cmsDeleteContext(ctx);
    return ret;
}

/* px to sRGB through meta's profile, which goes (no profile means sRGB), or read as sRGB
 * where lcms2 cannot apply it; a note saying why where why is not NULL. */
static int converted_to_srgb(vkfx_meta *meta, vkfx_pixels *px, const char *name, const char *why,
                             const char **how)
{
    int ret = to_srgb(&meta->icc, px, name);
    if (ret == VKFX_E_FORMAT) {
        vkfx_meta_icc_damaged(meta, vkfx_error_message());
        return VKFX_OK;
    }
    if (ret < 0)
        return ret;
    free(meta->icc.data);
    meta->icc = (vkfx_blob){0};
    if (why)
        snprintf(meta->note, sizeof(meta->note),
                 "%s: its ICC profile %s; converted to sRGB through it (lcms2)", name, why);
    *how = "icc converted to srgb";
    return VKFX_OK;
}

int vkfx_icc_prepare(vkfx_meta *meta, vkfx_pixels *px, bool linear, bool srgb, const char *name,
                     vkfx_tone **tone, const char **how)
{
    *tone = NULL;
    bool coded = px->sample != VKFX_SAMPLE_F32 && !px->linear;
    *how = !coded ? "linear" : linear ? "as stored" : "srgb";
    if (meta->cmyk && !srgb)
        snprintf(meta->note, sizeof(meta->note),
                 "%s: CMYK inks, converted to sRGB through its CMYK ICC profile", name);
    if (meta->cmyk) {
        /* converted on decode: the pixels are sRGB, which no profile means */
        free(meta->icc.data);
        meta->icc = (vkfx_blob){0};
        *how = "icc converted to srgb";
        return VKFX_OK;
    }
    if (!meta->icc.data || !coded)
        return VKFX_OK;
    if (linear) {
        *how = "as stored, icc kept";
        return VKFX_OK;
    }
    if (srgb)
        return converted_to_srgb(meta, px, name, NULL, how);
    const char *why;
    int ret = tone_from_icc(meta->icc.data, meta->icc.size, name, tone, &why);
    if (ret == VKFX_E_FORMAT && !why) {
        vkfx_meta_icc_damaged(meta, vkfx_error_message());
        return VKFX_OK;
    }
    if (ret == VKFX_E_FORMAT) {
        /* No curves to linearise with: lcms2 takes the pixels to sRGB, the working space
         * (linear sRGB) and the output's (no profile) then those of every sRGB file. */
        vkfx_error_clear();
        return converted_to_srgb(meta, px, name, why, how);
    }
    if (ret < 0)
        return ret;
    *how = "icc curves";
    if (vkfx_tone_srgb_error(*tone) <= SRGB_SAME) {
        /* sRGB's own curve, sampled: the exact curve serves (FILTERS.md), and the GPU's
         * sRGB path stays the one every sRGB photo takes. */
        vkfx_tone_free(*tone);
        *tone = NULL;
        *how = "srgb curve of its icc";
    }
    return VKFX_OK;
}

void vkfx_icc_description(const vkfx_blob *icc, char *out, size_t size)
{
    out[0] = 0;
    if (!icc->data)
        return;
    cmsHPROFILE h = cmsOpenProfileFromMem(icc->data, (cmsUInt32Number)icc->size);
    if (!h)
        return;
    if (cmsGetProfileInfoASCII(h, cmsInfoDescription, "en", "US", out, (cmsUInt32Number)size) == 0)
        out[0] = 0;
    cmsCloseProfile(h);
}
