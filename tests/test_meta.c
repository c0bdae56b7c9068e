/* Tests of what makes a photo a photo besides its pixels: hostile
 * metadata (a deflate bomb in iCCP, lengths that lie, an ICC profile with a
 * JPEG marker missing, random damage) read within the limits; the EXIF
 * orientation read from and written into EXIF blocks of either byte order
 * (core/io/exif.c), pixels turned upright for each of the eight orientations
 * against turns composed here from two plain moves (core/io/orient.c), and ICC
 * tone curves read through lcms2 (core/io/icc.c) against the curves' own
 * formulas. */
#include <criterion/criterion.h>

#include <lcms2.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libdeflate.h>

#include "common.h"
#include "error.h"
#include "exif.h"
#include "fileio.h"
#include "icc.h"
#include "orient.h"

/* ------------------------------------------------------------------------ */
/* EXIF */

static void put16(uint8_t *p, uint32_t v, bool big)
{
    p[big ? 0 : 1] = (uint8_t)(v >> 8);
    p[big ? 1 : 0] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v, bool big)
{
    for (int i = 0; i < 4; i++)
        p[big ? i : 3 - i] = (uint8_t)(v >> (24 - 8 * i));
}

/* An EXIF block with "Exif\0\0" in front where prefix, IFD0 holding three
 * entries (ImageWidth, Orientation = o, Software), as cameras write them.
 * Returns its size; the orientation entry's type is type. */
static size_t make_exif(uint8_t *buf, bool big, bool prefix, uint32_t o, uint32_t type)
{
    memset(buf, 0, 128);
    uint8_t *t = buf;
    if (prefix) {
        memcpy(buf, "Exif\0\0", 6);
        t += 6;
    }
    memcpy(t, big ? "MM\0*" : "II*\0", 4);
    put32(t + 4, 8, big);
    put16(t + 8, 3, big);
    uint8_t *e = t + 10;
    put16(e, 0x0100, big); /* ImageWidth, LONG */
    put16(e + 2, 4, big);
    put32(e + 4, 1, big);
    put32(e + 8, 4000, big);
    e += 12;
    put16(e, 0x0112, big);
    put16(e + 2, type, big);
    put32(e + 4, 1, big);
    put16(e + 8, o, big);
    e += 12;
    put16(e, 0x0131, big); /* Software, ASCII, 4 bytes inline */
    put16(e + 2, 2, big);
    put32(e + 4, 4, big);
    memcpy(e + 8, "vkf", 4);
    e += 12;
    put32(e, 0, big); /* no next IFD */
    return (size_t)(e + 4 - buf);
}

Test(exif, orientation_in_both_byte_orders_with_and_without_prefix)
{
    uint8_t buf[128];
    for (int big = 0; big < 2; big++) {
        for (int prefix = 0; prefix < 2; prefix++) {
            for (uint32_t o = 1; o <= 8; o++) {
                size_t n = make_exif(buf, big, prefix, o, 3);
                cr_assert_eq(vkfx_exif_orientation(buf, n), (int)o, "big %d prefix %d o %u", big,
                             prefix, o);
                cr_assert(vkfx_exif_set_orientation(buf, n, 1));
                cr_assert_eq(vkfx_exif_orientation(buf, n), 1);
                /* only the value changed: the block is the one written with 1 */
                uint8_t want[128];
                cr_assert_eq(make_exif(want, big, prefix, 1, 3), n);
                cr_assert_eq(memcmp(buf, want, n), 0, "big %d prefix %d o %u", big, prefix, o);
            }
        }
    }
}

Test(exif, malformed_blocks_have_no_orientation)
{
    uint8_t buf[128];
    size_t n = make_exif(buf, false, true, 6, 3);
    cr_assert_eq(vkfx_exif_orientation(buf, n), 6);
    /* cut anywhere before the end of the orientation entry */
    for (size_t cut = 0; cut < 6 + 10 + 24; cut++)
        cr_assert_eq(vkfx_exif_orientation(buf, cut), 0, "cut at %zu", cut);
    /* out of range, wrong type, no entry, an IFD offset past the end, a count
     * that runs past the end */
    n = make_exif(buf, true, false, 9, 3);
    cr_assert_eq(vkfx_exif_orientation(buf, n), 0);
    cr_assert_eq(vkfx_exif_orientation(buf, make_exif(buf, true, false, 0, 3)), 0);
    n = make_exif(buf, true, false, 6, 4);
    cr_assert_eq(vkfx_exif_orientation(buf, n), 0);
    cr_assert(!vkfx_exif_set_orientation(buf, n, 1));
    n = make_exif(buf, false, false, 6, 3);
    put16(buf + 10 + 12, 0x0113, false);
    cr_assert_eq(vkfx_exif_orientation(buf, n), 0);
    n = make_exif(buf, false, false, 6, 3);
    put32(buf + 4, 0xfffffff0u, false);
    cr_assert_eq(vkfx_exif_orientation(buf, n), 0);
    n = make_exif(buf, false, false, 6, 3);
    put16(buf + 8, 0xffff, false);
    cr_assert_eq(vkfx_exif_orientation(buf, n), 0);
    memcpy(buf, "IM*\0", 4);
    cr_assert_eq(vkfx_exif_orientation(buf, n), 0);
    cr_assert_eq(vkfx_exif_orientation(NULL, 0), 0);
    cr_assert(!vkfx_exif_set_orientation(buf, n, 1));
    n = make_exif(buf, false, false, 6, 3);
    cr_assert(!vkfx_exif_set_orientation(buf, n, 9), "9 is no orientation");
    cr_assert_eq(vkfx_exif_orientation(buf, n), 6);
}

/* Random blocks with a valid header and random directories: never a read
 * outside the block (the ASan build checks), and any orientation found is in
 * range. */
Test(exif, random_directories_stay_in_bounds)
{
    uint64_t state = 12345;
    for (int i = 0; i < 20000; i++) {
        size_t n = 8 + (size_t)(i % 120);
        uint8_t *buf = malloc(n);
        cr_assert(buf);
        for (size_t k = 0; k < n; k++) {
            state = state * 6364136223846793005u + 1442695040888963407u;
            buf[k] = (uint8_t)(state >> 56);
        }
        bool big = i & 1;
        memcpy(buf, big ? "MM\0*" : "II*\0", 4);
        put32(buf + 4, 8 + (uint32_t)(i % 5), big);
        int o = vkfx_exif_orientation(buf, n);
        cr_assert(o >= 0 && o <= 8);
        if (o)
            cr_assert(vkfx_exif_set_orientation(buf, n, 1));
        free(buf);
    }
}

/* ------------------------------------------------------------------------ */
/* Orientation of pixels */

/* Plain moves on a grid of w x h 32-bit values. */
static uint32_t *mirror_lr(const uint32_t *in, uint32_t w, uint32_t h)
{
    uint32_t *out = malloc(sizeof(uint32_t) * w * h);
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++)
            out[y * w + x] = in[y * w + (w - 1 - x)];
    return out;
}

/* clockwise: the bottom-left corner goes to the top left; the result is h x w */
static uint32_t *turn_cw(const uint32_t *in, uint32_t w, uint32_t h)
{
    uint32_t *out = malloc(sizeof(uint32_t) * w * h);
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++)
            out[x * h + (h - 1 - y)] = in[y * w + x];
    return out;
}

/* What EXIF says each value means, as moves applied to the stored image:
 * 2 mirror, 3 two turns, 4 mirror and two turns, 5 mirror and three turns,
 * 6 one turn, 7 mirror and one turn, 8 three turns. */
static uint32_t *upright(const uint32_t *in, uint32_t w, uint32_t h, int o, uint32_t *ow,
                         uint32_t *oh)
{
    static const int mirror[9] = {0, 0, 1, 0, 1, 1, 0, 1, 0};
    static const int turns[9] = {0, 0, 0, 2, 2, 3, 1, 1, 3};
    uint32_t *cur = malloc(sizeof(uint32_t) * w * h);
    memcpy(cur, in, sizeof(uint32_t) * w * h);
    if (mirror[o]) {
        uint32_t *next = mirror_lr(cur, w, h);
        free(cur);
        cur = next;
    }
    for (int t = 0; t < turns[o]; t++) {
        uint32_t *next = turn_cw(cur, w, h);
        free(cur);
        cur = next;
        uint32_t s = w;
        w = h;
        h = s;
    }
    *ow = w;
    *oh = h;
    return cur;
}

Test(orient, eight_orientations_against_composed_moves)
{
    static const uint32_t sizes[][2] = {{5, 3}, {1, 7}, {4, 4}, {1, 1}};
    static const vkfx_sample samples[] = {VKFX_SAMPLE_U8, VKFX_SAMPLE_U16, VKFX_SAMPLE_F32};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        uint32_t w = sizes[s][0], h = sizes[s][1];
        uint32_t *ids = malloc(sizeof(uint32_t) * w * h);
        for (uint32_t i = 0; i < w * h; i++)
            ids[i] = i;
        for (int o = 1; o <= 8; o++) {
            uint32_t ow, oh;
            uint32_t *want = upright(ids, w, h, o, &ow, &oh);
            uint32_t sw, sh;
            vkfx_orient_size(o, w, h, &sw, &sh);
            cr_assert(sw == ow && sh == oh, "o %d: size %ux%u, moves give %ux%u", o, sw, sh, ow,
                      oh);
            for (size_t k = 0; k < sizeof samples / sizeof samples[0]; k++) {
                for (uint32_t channels = 1; channels <= 4; channels += 3) {
                    vkfx_pixels px = {.linear = false, .straight = true};
                    cr_assert_eq(vkfx_pixels_alloc(&px, w, h, channels, samples[k]), VKFX_OK);
                    /* every sample names its pixel and channel */
                    for (uint32_t i = 0; i < w * h; i++) {
                        for (uint32_t c = 0; c < channels; c++) {
                            uint32_t v = i * 4 + c;
                            size_t at = (size_t)i * channels + c;
                            if (samples[k] == VKFX_SAMPLE_U8)
                                ((uint8_t *)px.data)[at] = (uint8_t)v;
                            else if (samples[k] == VKFX_SAMPLE_U16)
                                ((uint16_t *)px.data)[at] = (uint16_t)v;
                            else
                                ((float *)px.data)[at] = (float)v;
                        }
                    }
                    cr_assert_eq(vkfx_pixels_orient(&px, o), VKFX_OK);
                    cr_assert(px.width == ow && px.height == oh);
                    for (uint32_t i = 0; i < ow * oh; i++) {
                        for (uint32_t c = 0; c < channels; c++) {
                            uint32_t v = want[i] * 4 + c;
                            size_t at = (size_t)i * channels + c;
                            double got = samples[k] == VKFX_SAMPLE_U8    ? ((uint8_t *)px.data)[at]
                                         : samples[k] == VKFX_SAMPLE_U16 ? ((uint16_t *)px.data)[at]
                                                                         : ((float *)px.data)[at];
                            double expect = samples[k] == VKFX_SAMPLE_U8 ? (uint8_t)v : v;
                            cr_assert_eq(got, expect,
                                         "%ux%u o %d sample %zu channels %u: pixel (%u, %u) "
                                         "channel %u is %g, want %g",
                                         w, h, o, k, channels, i % ow, i / ow, c, got, expect);
                        }
                    }
                    vkfx_pixels_free(&px);
                }
            }
            free(want);
        }
        free(ids);
    }
}

Test(orient, out_of_range_values_keep_the_pixels)
{
    vkfx_pixels px = {.straight = true};
    tc_random_pixels(&px, 3, 2, 3, VKFX_SAMPLE_U8, 7);
    void *before = px.data;
    for (int o = -1; o <= 9; o += (o == 1 ? 8 : 1)) {
        cr_assert_eq(vkfx_pixels_orient(&px, o), VKFX_OK);
        cr_assert(px.data == before && px.width == 3 && px.height == 2, "o %d", o);
    }
    vkfx_pixels_free(&px);
}

/* ------------------------------------------------------------------------ */
/* ICC tone curves */

/* A profile's bytes, made with lcms2 (freed with free). */
static void *save(cmsHPROFILE p, size_t *size)
{
    cmsUInt32Number n = 0;
    cr_assert(cmsSaveProfileToMem(p, NULL, &n));
    void *mem = malloc(n);
    cr_assert(cmsSaveProfileToMem(p, mem, &n));
    cmsCloseProfile(p);
    *size = n;
    return mem;
}

static cmsHPROFILE rgb_profile(cmsToneCurve *r, cmsToneCurve *g, cmsToneCurve *b)
{
    cmsCIExyY d65 = {0.3127, 0.3290, 1.0};
    cmsCIExyYTRIPLE prim = {{0.64, 0.33, 1.0}, {0.21, 0.71, 1.0}, {0.15, 0.06, 1.0}};
    cmsToneCurve *curves[3] = {r, g, b};
    cmsHPROFILE p = cmsCreateRGBProfile(&d65, &prim, curves);
    cr_assert(p);
    return p;
}

/* vkfx_tone_encode_pixels gives vkfx_tone_encode's code for every sample: each code's value,
 * each threshold and the floats just beside it, 0, 1, beyond them and NaN, at 8 and 16 bits. */
static void check_encode_pixels(const vkfx_tone *t, const char *what)
{
    static const uint32_t levels[] = {256, 65536};
    float *thr = malloc(sizeof(float) * 65535 * 3);
    for (int l = 0; l < 2; l++) {
        uint32_t n = levels[l], count = 4 * n + 6;
        vkfx_pixels in, out;
        cr_assert_eq(vkfx_pixels_alloc(&in, count, 1, 3, VKFX_SAMPLE_F32), VKFX_OK);
        for (uint32_t c = 0; c < 3; c++)
            vkfx_tone_thresholds(t, vkfx_tone_channels(t) == 1 ? 0 : c, n,
                                 thr + (size_t)c * (n - 1));
        float *px = in.data;
        for (uint32_t c = 0; c < 3; c++) {
            const float *tc = thr + (size_t)c * (n - 1);
            for (uint32_t k = 0; k + 1 < n; k++) {
                px[3 * (4 * k) + c] = tc[k];
                px[3 * (4 * k + 1) + c] = nextafterf(tc[k], -1.0f);
                px[3 * (4 * k + 2) + c] = nextafterf(tc[k], 2.0f);
                px[3 * (4 * k + 3) + c] = vkfx_tone_decode(t, vkfx_tone_channels(t) == 1 ? 0 : c,
                                                           (float)((double)k / (n - 1)));
            }
            static const float edges[10] = {0.0f, 1.0f, -0.5f,  1.5f,  1e-40f,
                                            NAN,  0.5f, 0.999f, 1e-6f, 0.25f};
            for (uint32_t e = 0; e < 10; e++)
                px[3 * (4 * (n - 1) + e) + c] = edges[e];
        }
        cr_assert_eq(vkfx_tone_encode_pixels(t, &in, l ? VKFX_SAMPLE_U16 : VKFX_SAMPLE_U8, &out),
                     VKFX_OK);
        for (size_t i = 0; i < (size_t)count * 3; i++) {
            float v = px[i] > 0 ? (px[i] < 1 ? px[i] : 1) : 0;
            uint32_t want = vkfx_tone_encode(thr + (i % 3) * (n - 1), n, v);
            uint32_t got = l ? ((uint16_t *)out.data)[i] : ((uint8_t *)out.data)[i];
            cr_assert_eq(got, want, "%s: %u levels, channel %zu, %.9g: %u, searched %u", what, n,
                         i % 3, px[i], got, want);
        }
        vkfx_pixels_free(&in);
        vkfx_pixels_free(&out);
    }
    free(thr);
}

/* Every code decodes and encodes back to itself, at 8 and 16 bits, and whole images encode
 * as codes one by one do. */
static void check_round_trip(const vkfx_tone *t, const char *what)
{
    check_encode_pixels(t, what);
    static const uint32_t levels[] = {256, 65536};
    float *thr = malloc(sizeof(float) * 65535);
    for (uint32_t c = 0; c < 3; c++) {
        for (int l = 0; l < 2; l++) {
            uint32_t n = levels[l];
            vkfx_tone_thresholds(t, c, n, thr);
            for (uint32_t k = 0; k < n; k++) {
                float v = vkfx_tone_decode(t, c, (float)((double)k / (n - 1)));
                uint32_t back = vkfx_tone_encode(thr, n, v);
                cr_assert_eq(back, k,
                             "%s: channel %u, %u levels: code %u decodes to %.9g and "
                             "encodes to %u",
                             what, c, n, k, v, back);
            }
        }
    }
    free(thr);
}

/* Adobe RGB (1998) as icc-profiles-free ships it (a Debian package of
 * .ci/packages-test.txt): its curves are c^(563/256). */
Test(icc, adobe_rgb_decodes_with_its_gamma)
{
    const char *path = "/usr/share/color/icc/compatibleWithAdobeRGB1998.icc";
    FILE *f = fopen(path, "rb");
    cr_assert(f, "%s is missing: install icc-profiles-free", path);
    static unsigned char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    vkfx_tone *t;
    cr_assert_eq(vkfx_tone_from_icc(buf, n, path, &t), VKFX_OK, "%s", vkfx_error_message());
    cr_assert_eq(vkfx_tone_channels(t), 3);
    double worst = 0;
    for (uint32_t c = 0; c < 3; c++) {
        for (int k = 0; k <= 1000; k++) {
            double v = k / 1000.0, want = pow(v, 563.0 / 256.0);
            double d = fabs(vkfx_tone_decode(t, c, (float)v) - want);
            worst = d > worst ? d : worst;
        }
    }
    /* float evaluation of a power: a few float steps at most */
    cr_assert(worst < 2e-6, "Adobe RGB decode is %.3g off c^(563/256)", worst);
    check_round_trip(t, "Adobe RGB");
    vkfx_tone_free(t);
}

/* Three different gammas, one per channel: each channel keeps its own. */
Test(icc, rgb_channels_keep_their_own_curves)
{
    cmsToneCurve *g[3] = {cmsBuildGamma(NULL, 1.8), cmsBuildGamma(NULL, 2.2),
                          cmsBuildGamma(NULL, 2.6)};
    size_t n;
    void *mem = save(rgb_profile(g[0], g[1], g[2]), &n);
    for (int c = 0; c < 3; c++)
        cmsFreeToneCurve(g[c]);
    vkfx_tone *t;
    cr_assert_eq(vkfx_tone_from_icc(mem, n, "three.icc", &t), VKFX_OK, "%s", vkfx_error_message());
    static const double gamma[3] = {1.8, 2.2, 2.6};
    for (uint32_t c = 0; c < 3; c++) {
        double d = fabs(vkfx_tone_decode(t, c, 0.5f) - pow(0.5, gamma[c]));
        cr_assert(d < 1e-6, "channel %u: %.9g, want 0.5^%g", c, vkfx_tone_decode(t, c, 0.5f),
                  gamma[c]);
    }
    check_round_trip(t, "three gammas");
    vkfx_tone_free(t);
    free(mem);
}

/* A gray profile: one curve for every channel. */
Test(icc, gray_gamma_profile)
{
    cmsCIExyY d65 = {0.3127, 0.3290, 1.0};
    cmsToneCurve *g = cmsBuildGamma(NULL, 1.8);
    size_t n;
    void *mem = save(cmsCreateGrayProfile(&d65, g), &n);
    cmsFreeToneCurve(g);
    vkfx_tone *t;
    cr_assert_eq(vkfx_tone_from_icc(mem, n, "gray.icc", &t), VKFX_OK, "%s", vkfx_error_message());
    cr_assert_eq(vkfx_tone_channels(t), 1);
    for (uint32_t c = 0; c < 3; c++)
        cr_assert(fabs(vkfx_tone_decode(t, c, 0.25f) - pow(0.25, 1.8)) < 1e-6);
    check_round_trip(t, "gray 1.8");
    vkfx_tone_free(t);
    free(mem);
}

/* A sampled curve (17 entries, not a power): decoding follows the table,
 * linearly between its entries, as ICC's 'curv' type says. */
Test(icc, sampled_curve_follows_its_table)
{
    cmsUInt16Number table[17];
    for (int i = 0; i < 17; i++) {
        double x = i / 16.0;
        table[i] = (cmsUInt16Number)lround(65535 * (0.7 * x * x * x + 0.3 * x));
    }
    cmsToneCurve *s = cmsBuildTabulatedToneCurve16(NULL, 17, table);
    size_t n;
    void *mem = save(rgb_profile(s, s, s), &n);
    cmsFreeToneCurve(s);
    vkfx_tone *t;
    cr_assert_eq(vkfx_tone_from_icc(mem, n, "sampled.icc", &t), VKFX_OK, "%s",
                 vkfx_error_message());
    double worst = 0;
    for (int k = 0; k <= 4096; k++) {
        double v = k / 4096.0, pos = v * 16;
        int i = (int)pos < 16 ? (int)pos : 15;
        double want = (table[i] + (pos - i) * (table[i + 1] - table[i])) / 65535.0;
        double d = fabs(vkfx_tone_decode(t, 1, (float)v) - want);
        worst = d > worst ? d : worst;
    }
    /* the same interpolation, rounded to float */
    cr_assert(worst < 1e-7, "sampled curve is %.3g off its table", worst);
    check_round_trip(t, "sampled");
    vkfx_tone_free(t);
    free(mem);
}

Test(icc, unusable_profiles_are_refused_with_the_reason)
{
    size_t n;
    void *lab = save(cmsCreateLab4Profile(NULL), &n);
    vkfx_tone *t = NULL;
    cr_assert_eq(vkfx_tone_from_icc(lab, n, "lab.icc", &t), VKFX_E_FORMAT);
    cr_assert(t == NULL);
    cr_assert(strstr(vkfx_error_message(), "lab.icc: its ICC profile is not for RGB or gray"), "%s",
              vkfx_error_message());
    free(lab);

    cmsToneCurve *g = cmsBuildGamma(NULL, 2.2);
    cmsHPROFILE p = rgb_profile(g, g, g);
    cmsFreeToneCurve(g);
    cr_assert(cmsWriteTag(p, cmsSigGreenTRCTag, NULL));
    void *lut = save(p, &n);
    cr_assert_eq(vkfx_tone_from_icc(lut, n, "lut.icc", &t), VKFX_E_FORMAT);
    cr_assert(strstr(vkfx_error_message(), "no tone curves") &&
                  strstr(vkfx_error_message(), "--to-srgb"),
              "%s", vkfx_error_message());
    free(lut);

    cmsUInt16Number down[2] = {65535, 0};
    cmsToneCurve *d = cmsBuildTabulatedToneCurve16(NULL, 2, down);
    void *dec = save(rgb_profile(d, d, d), &n);
    cmsFreeToneCurve(d);
    cr_assert_eq(vkfx_tone_from_icc(dec, n, "down.icc", &t), VKFX_E_FORMAT);
    cr_assert(strstr(vkfx_error_message(), "not increasing"), "%s", vkfx_error_message());
    free(dec);

    static const char junk[] = "not a profile at all, just words";
    cr_assert_eq(vkfx_tone_from_icc(junk, sizeof junk, "junk.icc", &t), VKFX_E_FORMAT);
    cr_assert(strstr(vkfx_error_message(), "junk.icc: its ICC profile is damaged"), "%s",
              vkfx_error_message());
}

/* ------------------------------------------------------------------------ */
/* Metadata in files, hostile ones included */

/* A small image of fmt in memory, written by vkfx with meta. */
static unsigned char *encoded(vkfx_file_format fmt, const vkfx_meta *meta, size_t *size)
{
    vkfx_pixels px;
    tc_random_pixels(&px, 9, 7, 3, VKFX_SAMPLE_U8, 11);
    char path[] = "/tmp/vkfx-meta-XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    vkfx_save_opts opts = {.meta = meta};
    cr_assert_eq(vkfx_file_save_fd(fd, path, fmt, &px, &opts), VKFX_OK, "%s",
                 vkfx_error_message());
    close(fd);
    unsigned char *data = (unsigned char *)tc_slurp(path, size);
    unlink(path);
    vkfx_pixels_free(&px);
    cr_assert(data);
    return data;
}

/* EXIF with IFD0 (Orientation = o, the Exif pointer) and an Exif directory
 * (ISOSpeedRatings 400, its Interoperability pointer) and an
 * Interoperability directory (index "R98"), in either byte order: 88 bytes. */
static size_t make_exif_dirs(uint8_t *buf, bool big, uint32_t o)
{
    memset(buf, 0, 88);
    memcpy(buf, big ? "MM\0*" : "II*\0", 4);
    put32(buf + 4, 8, big);
    const uint32_t entries[][5] = {
        /* at, tag, type, count, value */
        {8, 0x0112, 3, 1, o},    {8, 0x8769, 4, 1, 38},  {38, 0x8827, 3, 1, 400},
        {38, 0xa005, 4, 1, 68},  {68, 0x0001, 2, 4, 0},
    };
    for (size_t i = 0; i < sizeof(entries) / sizeof(entries[0]); i++) {
        uint8_t *d = buf + entries[i][0];
        uint32_t k = d[big ? 1 : 0]++; /* the directory's count, one more */
        uint8_t *e = d + 2 + 12 * k;
        put16(e, entries[i][1], big);
        put16(e + 2, entries[i][2], big);
        put32(e + 4, entries[i][3], big);
        if (entries[i][2] == 3)
            put16(e + 8, entries[i][4], big);
        else if (entries[i][2] == 2)
            memcpy(e + 8, "R98", 4);
        else
            put32(e + 8, entries[i][4], big);
    }
    return 88;
}

static vkfx_meta sample_meta(void)
{
    vkfx_meta m = {0};
    uint8_t exif[128];
    size_t n = make_exif_dirs(exif, false, 6);
    cr_assert_eq(vkfx_blob_set(&m.exif, exif, n, "t", "EXIF"), VKFX_OK);
    cmsHPROFILE p = cmsCreate_sRGBProfile();
    size_t icc_n;
    void *icc = save(p, &icc_n);
    cr_assert_eq(vkfx_blob_set(&m.icc, icc, icc_n, "t", "ICC profile"), VKFX_OK);
    free(icc);
    cr_assert_eq(vkfx_blob_set(&m.xmp, "<x/>", 4, "t", "XMP"), VKFX_OK);
    cr_assert_eq(vkfx_meta_add_text(&m, "Title", 5, "cat", 3), VKFX_OK);
    m.has_res = true;
    m.res_x = m.res_y = 72;
    m.res_unit = VKFX_RES_PER_INCH;
    return m;
}

/* What vkfx writes it reads back, turned upright once (EXIF 6 then says 1). */
Test(meta, files_round_trip_and_turn)
{
    vkfx_meta m = sample_meta();
    const vkfx_file_format fmts[] = {VKFX_FILE_PNG, VKFX_FILE_JPEG, VKFX_FILE_TIFF, VKFX_FILE_WEBP};
    for (size_t f = 0; f < 4; f++) {
        size_t size;
        unsigned char *data = encoded(fmts[f], &m, &size);
        vkfx_pixels px;
        vkfx_meta got;
        cr_assert_eq(vkfx_file_load_memory_meta(data, size, "x", &px, &got), VKFX_OK, "%s",
                     vkfx_error_message());
        unsigned want = vkfx_meta_kinds(&m) & ~vkfx_file_meta_dropped(fmts[f], &m);
        cr_expect_eq(vkfx_meta_kinds(&got), want, "%s: kinds %x, want %x",
                     vkfx_file_format_name(fmts[f]), vkfx_meta_kinds(&got), want);
        cr_expect(got.icc.size == m.icc.size && !memcmp(got.icc.data, m.icc.data, m.icc.size));
        if (got.exif.data) {
            cr_expect_eq(got.stored_orientation, 6);
            cr_expect_eq(got.applied_orientation, 6);
            cr_expect_eq(vkfx_exif_orientation(got.exif.data, got.exif.size), 1);
            cr_expect_eq(px.width, 7, "%s: not turned", vkfx_file_format_name(fmts[f]));
        }
        vkfx_meta_free(&got);
        vkfx_pixels_free(&px);
        free(data);
    }
    vkfx_meta_free(&m);
}

/* A PNG with chunk (type, body) inserted after IHDR, CRC right. */
static unsigned char *png_with_chunk(const char *type, const unsigned char *body, size_t n,
                                     size_t *size)
{
    vkfx_meta none = {0};
    size_t base_n;
    unsigned char *base = encoded(VKFX_FILE_PNG, &none, &base_n);
    unsigned char *out = malloc(base_n + n + 12);
    cr_assert(out);
    memcpy(out, base, 33);
    unsigned char *c = out + 33;
    c[0] = (unsigned char)(n >> 24);
    c[1] = (unsigned char)(n >> 16);
    c[2] = (unsigned char)(n >> 8);
    c[3] = (unsigned char)n;
    memcpy(c + 4, type, 4);
    memcpy(c + 8, body, n);
    uint32_t crc = libdeflate_crc32(libdeflate_crc32(0, type, 4), body, n);
    for (int i = 0; i < 4; i++)
        c[8 + n + (size_t)i] = (unsigned char)(crc >> (24 - 8 * i));
    memcpy(c + 12 + n, base + 33, base_n - 33);
    *size = base_n + n + 12;
    free(base);
    return out;
}

/* 64 MiB of zeros deflate to 64 KiB: the profile is dropped at 16 MiB,
 * without taking more, and the pixels read as sRGB with a note. */
Test(meta, iccp_deflate_bomb_is_dropped)
{
    size_t big = (size_t)64 << 20;
    unsigned char *zeros = calloc(1, big);
    struct libdeflate_compressor *c = libdeflate_alloc_compressor(9);
    size_t bound = libdeflate_zlib_compress_bound(c, big);
    unsigned char *body = malloc(14 + bound);
    cr_assert(zeros && c && body);
    memcpy(body, "bomb\0\0", 6);
    size_t n = libdeflate_zlib_compress(c, zeros, big, body + 6, bound);
    cr_assert(n > 0);
    size_t size;
    unsigned char *png = png_with_chunk("iCCP", body, 6 + n, &size);
    vkfx_pixels px;
    vkfx_meta m;
    cr_assert_eq(vkfx_file_load_memory_meta(png, size, "bomb.png", &px, &m), VKFX_OK, "%s",
                 vkfx_error_message());
    cr_assert(strstr(m.note, "bomb.png: its ICC profile is larger than 16 MiB") &&
                  strstr(m.note, "read as sRGB"),
              "%s", m.note);
    cr_assert_null(m.icc.data);
    vkfx_pixels_free(&px);
    vkfx_meta_free(&m);
    free(png);
    free(body);
    free(zeros);
    libdeflate_free_compressor(c);
}

/* A chunk that declares more bytes than the file holds (found by fuzz_decode:
 * libpng allocated the declared 2 GiB before reading): refused before any
 * decoder sees it, naming the chunk. */
Test(meta, png_chunk_longer_than_the_file_is_refused)
{
    static const char *types[] = {"eXIf", "iTXt", "tEXt", "zTXt", "iCCP", "sPLT", "IDAT"};
    for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
        size_t size;
        unsigned char *png =
            png_with_chunk(types[i], (const unsigned char *)"Exif\0\0MM", 8, &size);
        /* the declared length, big-endian, right after IHDR (33 bytes in) */
        png[33] = 0x7e;
        png[34] = 0;
        png[35] = 0;
        png[36] = 0x50;
        vkfx_pixels px = {.data = (void *)1};
        vkfx_meta m;
        cr_assert_eq(vkfx_file_load_memory_meta(png, size, "long.png", &px, &m), VKFX_E_FORMAT,
                     "%s", types[i]);
        char want[64];
        snprintf(want, sizeof(want), "its %s chunk declares 2113929296 bytes", types[i]);
        cr_assert(strstr(vkfx_error_message(), "long.png: corrupt or truncated PNG") &&
                      strstr(vkfx_error_message(), want),
                  "%s", vkfx_error_message());
        cr_assert_null(px.data);
        free(png);
    }
}

/* Text is kept up to VKFX_META_MAX_BYTES in all: many chunks, each within
 * the limit, cannot add up to more (64 zTXt bombs would be 1 GiB). */
Test(meta, text_is_bounded_in_all)
{
    size_t big = VKFX_META_MAX_BYTES / 3;
    char *t = malloc(big);
    cr_assert(t);
    memset(t, 'a', big);
    vkfx_meta m = {0};
    for (int i = 0; i < 5; i++)
        cr_assert_eq(vkfx_meta_add_text(&m, "Comment", 7, t, big), VKFX_OK);
    cr_assert_eq(m.ntexts, 2, "kept %u texts of %zu bytes", m.ntexts, big);
    cr_assert_leq(m.text_bytes, (size_t)VKFX_META_MAX_BYTES);
    cr_assert_eq(vkfx_meta_add_text(&m, "Title", 5, "short", 5), VKFX_OK);
    cr_assert_eq(m.ntexts, 3, "a short text still fits");
    vkfx_meta_free(&m);
    free(t);
}

/* An iTXt whose fields run off its end, a pHYs of the wrong length, an eXIf
 * that is not EXIF: nothing read past a chunk, the image still loads. */
Test(meta, png_chunks_that_lie_stay_in_bounds)
{
    static const struct {
        const char *type;
        const char *body;
        size_t n;
    } cases[] = {
        {"iTXt", "Comment\0\1\0en", 12}, {"iTXt", "XML:com.adobe.xmp", 17},
        {"zTXt", "k\0\0garbage", 10},     {"pHYs", "\0\0\0\1", 4},
        {"eXIf", "MM\0*\0\0\0\7", 8},    {"iCCP", "p", 1},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        size_t size;
        unsigned char *png = png_with_chunk(cases[i].type, (const unsigned char *)cases[i].body,
                                            cases[i].n, &size);
        vkfx_pixels px;
        vkfx_meta m;
        int ret = vkfx_file_load_memory_meta(png, size, "lie.png", &px, &m);
        /* a deflate stream that is not one is an error; the rest are ignored */
        if (!strcmp(cases[i].type, "zTXt"))
            cr_expect_eq(ret, VKFX_E_FORMAT, "case %zu", i);
        else
            cr_expect_eq(ret, VKFX_OK, "case %zu: %s", i, vkfx_error_message());
        cr_expect_eq(m.stored_orientation, 0, "case %zu", i);
        vkfx_meta_free(&m);
        vkfx_pixels_free(&px);
        free(png);
    }
}

/* A profile split over three APP2 markers reads whole; with the second
 * marker gone it is no profile at all. */
Test(meta, jpeg_icc_with_a_marker_missing)
{
    vkfx_meta m = {0};
    unsigned char big[150000];
    for (size_t i = 0; i < sizeof(big); i++)
        big[i] = (unsigned char)(i * 7);
    cr_assert_eq(vkfx_blob_set(&m.icc, big, sizeof(big), "t", "ICC profile"), VKFX_OK);
    size_t size;
    unsigned char *jpg = encoded(VKFX_FILE_JPEG, &m, &size);
    vkfx_meta got;
    vkfx_pixels px;
    cr_assert_eq(vkfx_file_load_memory_meta(jpg, size, "icc.jpg", &px, &got), VKFX_OK);
    cr_assert(got.icc.size == sizeof(big) && !memcmp(got.icc.data, big, sizeof(big)));
    vkfx_meta_free(&got);
    vkfx_pixels_free(&px);
    /* cut out the second APP2 */
    size_t at = 2, seen = 0;
    while (at + 4 < size) {
        size_t len = (size_t)jpg[at + 2] << 8 | jpg[at + 3];
        if (jpg[at + 1] == 0xe2 && ++seen == 2) {
            memmove(jpg + at, jpg + at + 2 + len, size - at - 2 - len);
            size -= 2 + len;
            break;
        }
        at += 2 + len;
    }
    cr_assert_eq(seen, 2);
    cr_assert_eq(vkfx_file_load_memory_meta(jpg, size, "icc.jpg", &px, &got), VKFX_OK);
    cr_expect_null(got.icc.data);
    vkfx_meta_free(&got);
    vkfx_pixels_free(&px);
    vkfx_meta_free(&m);
    free(jpg);
}

/* Random damage to files full of metadata: every load ends, with an image
 * or an error, and no piece of metadata over the limit. */
Test(meta, damaged_files_with_metadata)
{
    vkfx_meta m = sample_meta();
    const vkfx_file_format fmts[] = {VKFX_FILE_PNG, VKFX_FILE_JPEG, VKFX_FILE_TIFF, VKFX_FILE_WEBP};
    uint64_t state = 99;
    for (size_t f = 0; f < 4; f++) {
        size_t size;
        unsigned char *data = encoded(fmts[f], &m, &size);
        unsigned char *copy = malloc(size);
        for (int round = 0; round < 200; round++) {
            memcpy(copy, data, size);
            for (int k = 0; k < 4; k++) {
                state = state * 6364136223846793005ull + 1442695040888963407ull;
                copy[(state >> 33) % size] = (unsigned char)(state >> 20);
            }
            size_t cut = round % 5 == 0 ? (size_t)((state >> 40) % size) : size;
            vkfx_pixels px;
            vkfx_meta got;
            if (vkfx_file_load_memory_meta(copy, cut, "damaged", &px, &got) == VKFX_OK) {
                cr_expect(got.icc.size <= VKFX_META_MAX_BYTES && got.xmp.size <= VKFX_META_MAX_BYTES);
                vkfx_pixels_free(&px);
            }
            vkfx_meta_free(&got);
        }
        free(copy);
        free(data);
    }
    vkfx_meta_free(&m);
}

/* EXIF with Exif and Interoperability directories, in either byte order,
 * through a TIFF: the file takes the EXIF's byte order, libtiff reads the
 * directories vkfx appended, and the EXIF read back is the one written, byte
 * for byte, its orientation 1 once the pixels are turned. */
Test(meta, tiff_exif_directories_in_both_byte_orders)
{
    for (int big = 0; big < 2; big++) {
        vkfx_meta m = {0};
        uint8_t exif[88], want[88];
        size_t n = make_exif_dirs(exif, big, 6);
        cr_assert_eq(vkfx_blob_set(&m.exif, exif, n, "t", "EXIF"), VKFX_OK);
        size_t size;
        unsigned char *tif = encoded(VKFX_FILE_TIFF, &m, &size);
        cr_expect_eq(memcmp(tif, big ? "MM" : "II", 2), 0, "big %d: the file's byte order", big);
        vkfx_pixels px;
        vkfx_meta got;
        cr_assert_eq(vkfx_file_load_memory_meta(tif, size, "x.tif", &px, &got), VKFX_OK, "%s",
                     vkfx_error_message());
        make_exif_dirs(want, big, 1);
        cr_expect(got.exif.size == 86 && !memcmp(got.exif.data, want, 86),
                  "big %d: EXIF of %zu bytes read back", big, got.exif.size);
        cr_expect_eq(px.width, 7, "big %d: not turned", big);
        vkfx_meta_free(&got);
        vkfx_pixels_free(&px);
        vkfx_meta_free(&m);
        free(tif);
    }
}

/* Directories that point at themselves or at each other, and random damage:
 * the copy ends, reads nothing outside the block (the ASan build checks) and
 * follows pointers no deeper than Interoperability. */
Test(meta, exif_directory_copy_stays_in_bounds)
{
    uint8_t buf[88];
    size_t n = make_exif_dirs(buf, false, 1);
    put32(buf + 10 + 12 + 8, 8, false); /* the Exif pointer leads back to IFD0 */
    vkfx_blob out = {0};
    uint32_t kept;
    cr_assert_eq(vkfx_exif_copy_ifd(buf, n, 8, 0, NULL, 0, 8, &out, &kept, "t"), VKFX_OK);
    cr_expect_eq(kept, 2);
    /* IFD0, then IFD0 again as the Exif directory without the pointer, which
     * is not followed (nor kept) from there */
    cr_expect_eq(out.size, 30 + 18, "%zu bytes", out.size);
    free(out.data);
    uint64_t state = 7;
    for (int round = 0; round < 20000; round++) {
        uint8_t copy[88];
        make_exif_dirs(copy, round & 1, 3);
        for (int k = 0; k < 1 + round % 6; k++) {
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            copy[(state >> 33) % n] = (uint8_t)(state >> 20);
        }
        size_t cut = (state >> 40) % (n + 1);
        uint8_t *exact = malloc(cut ? cut : 1);
        memcpy(exact, copy, cut);
        vkfx_blob b = {0};
        int ret = vkfx_exif_from_tiff(exact, cut, "t", &b);
        cr_expect(ret == VKFX_OK || ret == VKFX_E_FORMAT);
        cr_expect(b.size <= VKFX_META_MAX_BYTES);
        free(b.data);
        free(exact);
    }
}

/* A TIFF takes a big-endian EXIF's byte order: 16-bit and float samples
 * (through the predictors) read back as they were written. */
Test(meta, big_endian_tiff_keeps_deep_samples)
{
    vkfx_meta m = {0};
    uint8_t exif[88];
    size_t n = make_exif_dirs(exif, true, 1);
    cr_assert_eq(vkfx_blob_set(&m.exif, exif, n, "t", "EXIF"), VKFX_OK);
    const vkfx_sample samples[2] = {VKFX_SAMPLE_U16, VKFX_SAMPLE_F32};
    for (int s = 0; s < 2; s++) {
        vkfx_pixels px, got;
        tc_random_pixels(&px, 13, 5, 4, samples[s], 40 + s);
        char path[] = "/tmp/vkfx-meta-XXXXXX";
        int fd = mkstemp(path);
        cr_assert(fd >= 0);
        vkfx_save_opts opts = {.meta = &m};
        cr_assert_eq(vkfx_file_save_fd(fd, path, VKFX_FILE_TIFF, &px, &opts), VKFX_OK, "%s",
                     vkfx_error_message());
        close(fd);
        size_t size;
        unsigned char *data = (unsigned char *)tc_slurp(path, &size);
        unlink(path);
        cr_assert(data && !memcmp(data, "MM", 2));
        cr_assert_eq(vkfx_file_load_memory(data, size, "x.tif", &got), VKFX_OK, "%s",
                     vkfx_error_message());
        cr_expect(got.sample == px.sample && got.channels == 4 &&
                      !memcmp(got.data, px.data, vkfx_pixels_bytes(&px)),
                  "sample %d: the pixels changed", s);
        vkfx_pixels_free(&got);
        vkfx_pixels_free(&px);
        free(data);
    }
    vkfx_meta_free(&m);
}

/* Extension segments whose GUID, full length or offset lie (random bytes in
 * their heads): every load ends, nothing read outside the file (the ASan
 * build checks), the XMP within the limit. */
Test(meta, jpeg_extended_xmp_that_lies)
{
    vkfx_meta m = {0};
    size_t big = 140000;
    char *x = malloc(big);
    cr_assert(x);
    memset(x, 'x', big);
    static const char head[] = "<x:xmpmeta><rdf:RDF>", tail[] = "</rdf:RDF></x:xmpmeta>";
    memcpy(x, head, sizeof(head) - 1);
    memcpy(x + big - sizeof(tail) + 1, tail, sizeof(tail) - 1);
    cr_assert_eq(vkfx_blob_set(&m.xmp, x, big, "t", "XMP"), VKFX_OK);
    free(x);
    size_t size;
    unsigned char *jpg = encoded(VKFX_FILE_JPEG, &m, &size);
    vkfx_pixels px;
    vkfx_meta got;
    cr_assert_eq(vkfx_file_load_memory_meta(jpg, size, "x.jpg", &px, &got), VKFX_OK);
    cr_expect(strstr((const char *)got.xmp.data, "xxxxx</rdf:RDF>"), "not reassembled");
    vkfx_meta_free(&got);
    vkfx_pixels_free(&px);
    /* where the extension segments' heads are */
    size_t heads[8], nheads = 0, at = 2;
    while (at + 4 < size && jpg[at + 1] != 0xda && nheads < 8) {
        size_t len = (size_t)jpg[at + 2] << 8 | jpg[at + 3];
        if (jpg[at + 1] == 0xe1 && !memcmp(jpg + at + 4, "http://ns.adobe.com/xmp/extension/", 35))
            heads[nheads++] = at + 4 + 35;
        at += 2 + len;
    }
    cr_assert_eq(nheads, 3);
    unsigned char *copy = malloc(size);
    uint64_t state = 5;
    for (int round = 0; round < 300; round++) {
        memcpy(copy, jpg, size);
        for (int k = 0; k < 3; k++) {
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            copy[heads[(state >> 20) % nheads] + (state >> 33) % 40] = (unsigned char)(state >> 50);
        }
        if (vkfx_file_load_memory_meta(copy, size, "lie.jpg", &px, &got) == VKFX_OK) {
            cr_expect(got.xmp.size <= VKFX_META_MAX_BYTES);
            vkfx_pixels_free(&px);
        }
        vkfx_meta_free(&got);
    }
    free(copy);
    free(jpg);
    vkfx_meta_free(&m);
}
