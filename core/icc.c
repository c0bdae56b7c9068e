#include "icc.h"

#include <lcms2.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

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

int vkfx_tone_from_icc(const void *icc, size_t size, const char *name, vkfx_tone **out)
{
    *out = NULL;
    char last[256] = "";
    cmsContext ctx = cmsCreateContext(NULL, last);
    if (!ctx)
        return vkfx_fail(VKFX_E_NOMEM, "%s: out of host memory reading its ICC profile", name);
    cmsSetLogErrorHandlerTHR(ctx, log_error);
    int ret = VKFX_OK;
    vkfx_tone *t = NULL;
    cmsHPROFILE p =
        size <= UINT32_MAX ? cmsOpenProfileFromMemTHR(ctx, icc, (cmsUInt32Number)size) : NULL;
    if (!p) {
        ret = vkfx_fail(VKFX_E_FORMAT, "%s: its ICC profile is damaged (%s)", name,
                        last[0] ? last : "not a profile");
        goto done;
    }
    cmsColorSpaceSignature space = cmsGetColorSpace(p);
    static const cmsTagSignature rgb[3] = {cmsSigRedTRCTag, cmsSigGreenTRCTag, cmsSigBlueTRCTag};
    static const cmsTagSignature gray[1] = {cmsSigGrayTRCTag};
    const cmsTagSignature *tags = space == cmsSigRgbData    ? rgb
                                  : space == cmsSigGrayData ? gray
                                                            : NULL;
    if (!tags) {
        ret = refuse(name, "is not for RGB or gray pixels");
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
            ret = refuse(name, "has no tone curves (a LUT-based profile)");
            goto done;
        }
        if (!cmsIsToneCurveMonotonic(curve) ||
            cmsEvalToneCurveFloat(curve, 0.0f) >= cmsEvalToneCurveFloat(curve, 1.0f)) {
            ret = refuse(name, "has a tone curve that is not increasing");
            goto done;
        }
        t->curve[c] = cmsDupToneCurve(curve);
        if (!t->curve[c]) {
            ret = vkfx_fail(VKFX_E_NOMEM, "%s: out of host memory reading its ICC profile", name);
            goto done;
        }
        if (!thresholds_increase(t, c)) {
            ret = refuse(name, "has a tone curve that is not increasing");
            goto done;
        }
    }
    *out = t;
    t = NULL;
done:
    vkfx_tone_free(t);
    if (p)
        cmsCloseProfile(p);
    cmsDeleteContext(ctx);
    return ret;
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

uint32_t vkfx_tone_encode(const float *thresholds, uint32_t levels, float v)
{
    /* the number of thresholds at or below v: a midpoint itself rounds up */
    uint32_t lo = 0, hi = levels - 1;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (thresholds[mid] <= v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}
