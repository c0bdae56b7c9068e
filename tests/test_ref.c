/* Sanity checks of the references in tests/ref/ and of the harness helpers:
 * hand-computed values and invariants, so that a wrong reference cannot make
 * a wrong kernel pass. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "error.h"
#include "half.h"
#include "ref/ref.h"

static const double eps = 1e-12;

static void fill(ref_image *img, uint32_t w, uint32_t h, double r, double g, double b, double a)
{
    cr_assert_eq(ref_image_alloc(img, w, h), 0);
    for (uint32_t y = 0; y < h; y++) {
        for (uint32_t x = 0; x < w; x++) {
            double *p = ref_px(img, x, y);
            p[0] = r;
            p[1] = g;
            p[2] = b;
            p[3] = a;
        }
    }
}

/* Largest |a - b| over every sample; the images must have the same size. */
static double max_diff(const ref_image *a, const ref_image *b)
{
    cr_assert(a->w == b->w && a->h == b->h);
    double m = 0.0;
    for (size_t i = 0; i < (size_t)a->w * a->h * 4; i++) {
        double d = fabs(a->px[i] - b->px[i]);
        if (!(d <= m))
            m = d;
    }
    return m;
}

static void expect_px(const ref_image *img, uint32_t x, uint32_t y, double r, double g, double b,
                      double a, double tol)
{
    const double *p = ref_px(img, x, y);
    const double want[4] = {r, g, b, a};
    for (int c = 0; c < 4; c++)
        cr_expect(fabs(p[c] - want[c]) <= tol, "(%u,%u) c=%d: got %.17g want %.17g", x, y, c, p[c],
                  want[c]);
}

/* ---- Pixels ---- */

static void roundtrip(vkfx_sample s, uint32_t channels, bool linear, uint64_t seed)
{
    vkfx_pixels in = {0}, want = {0}, out = {0};
    tc_random_pixels(&in, 37, 23, channels, s, seed);
    tc_random_pixels(&want, 37, 23, channels, s, seed);
    /* alpha 0 loses the colour: the contract writes it back as 0 */
    if (channels == 2 || channels == 4) {
        size_t bytes = vkfx_sample_size(s);
        uint8_t *d = want.data;
        for (size_t i = 0; i < (size_t)37 * 23; i++) {
            uint8_t *px = d + i * channels * bytes;
            float af;
            bool zero = false;
            switch (s) {
            case VKFX_SAMPLE_U8:
                zero = px[(channels - 1) * bytes] == 0;
                break;
            case VKFX_SAMPLE_U16:
                zero = ((uint16_t *)px)[channels - 1] == 0;
                break;
            case VKFX_SAMPLE_F32:
                memcpy(&af, px + (channels - 1) * bytes, sizeof af);
                zero = af == 0.0f;
                break;
            }
            if (zero)
                memset(px, 0, (channels - 1) * bytes);
        }
    }
    ref_image img = {0};
    cr_assert_eq(ref_decode(&in, linear, &img), 0);
    out.channels = channels;
    out.sample = s;
    out.linear = in.linear;
    cr_assert_eq(ref_encode(&img, linear, &out), 0);
    tc_diff d = tc_compare(&out, &want, 0.0);
    if (!tc_diff_ok(&d)) {
        char what[96];
        snprintf(what, sizeof what, "decode/encode sample=%d channels=%u linear=%d", (int)s,
                 channels, (int)linear);
        tc_report(&d, what);
    }
    cr_expect(tc_diff_ok(&d));
    ref_image_free(&img);
    vkfx_pixels_free(&in);
    vkfx_pixels_free(&want);
    vkfx_pixels_free(&out);
}

/* core/base/half.h against what IEEE 754 asks of a conversion to half, on every
 * half: each converts back to itself; a float between two neighbours goes to
 * the nearer, a midpoint to the one with an even code; past 65504 to
 * infinity from the tie at 65520 on; a NaN stays a NaN. */
Test(half, every_half_and_every_midpoint)
{
    for (uint32_t sign = 0; sign <= 0x8000; sign += 0x8000)
        for (uint32_t h = 0; h < 0x7c00; h++) {
            uint16_t lo = (uint16_t)(sign | h), hi = (uint16_t)(sign | (h + 1));
            float a = vkfx_half_to_float(lo), b = vkfx_half_to_float(hi);
            cr_assert_eq(vkfx_half_from_float(a), lo, "%04x", lo);
            float value = (h >> 10) ? ldexpf(1.0f + (float)(h & 0x3ff) / 1024, (int)(h >> 10) - 15)
                                    : ldexpf((float)h, -24);
            cr_assert_eq(a, sign ? -value : value, "%04x", lo);
            if (h == 0x7bff)
                continue;
            float mid = a + (b - a) / 2;
            uint16_t even = (lo & 1) ? hi : lo;
            cr_assert_eq(vkfx_half_from_float(mid), even, "the midpoint above %04x", lo);
            cr_assert_eq(vkfx_half_from_float(nextafterf(mid, 0.0f)), lo, "%04x", lo);
            cr_assert_eq(vkfx_half_from_float(nextafterf(mid, sign ? -INFINITY : INFINITY)), hi, "%04x", lo);
        }
    cr_assert_eq(vkfx_half_from_float(65519.99f), 0x7bff);
    cr_assert_eq(vkfx_half_from_float(65520.0f), 0x7c00);
    cr_assert_eq(vkfx_half_from_float(-65520.0f), 0xfc00);
    cr_assert_eq(vkfx_half_from_float(INFINITY), 0x7c00);
    cr_assert_eq(vkfx_half_from_float(ldexpf(1.0f, -25)), 0, "the tie below the smallest half");
    cr_assert_eq(vkfx_half_from_float(nextafterf(ldexpf(1.0f, -25), 1.0f)), 1);
    cr_assert_eq(vkfx_half_from_float(1e-30f), 0);
    cr_assert(isinf(vkfx_half_to_float(0x7c00)) && isnan(vkfx_half_to_float(0x7e01)));
    cr_assert_eq(vkfx_half_from_float(NAN) & 0x7e00, 0x7e00);
}

Test(ref_pixels, decode_encode_is_identity)
{
    for (uint32_t ch = 1; ch <= 4; ch++) {
        roundtrip(VKFX_SAMPLE_U8, ch, false, 100 + ch);
        roundtrip(VKFX_SAMPLE_U8, ch, true, 200 + ch);
        roundtrip(VKFX_SAMPLE_U16, ch, false, 300 + ch);
        roundtrip(VKFX_SAMPLE_U16, ch, true, 400 + ch);
        roundtrip(VKFX_SAMPLE_F32, ch, true, 500 + ch);
    }
}

Test(ref_pixels, decode_known_values)
{
    /* RGBA u8 (128, 0, 255, 51): sRGB 128/255 is 0.21586050011389926 linear */
    uint8_t rgba[4] = {128, 0, 255, 51};
    vkfx_pixels in = {.width = 1,
                      .height = 1,
                      .channels = 4,
                      .sample = VKFX_SAMPLE_U8,
                      .straight = true,
                      .data = rgba};
    ref_image img = {0};
    cr_assert_eq(ref_decode(&in, false, &img), 0);
    expect_px(&img, 0, 0, 0.21586050011389926 * 0.2, 0.0, 0.2, 0.2, 1e-15);
    ref_image_free(&img);

    /* --linear skips the curve */
    cr_assert_eq(ref_decode(&in, true, &img), 0);
    expect_px(&img, 0, 0, 128.0 / 255 * 0.2, 0.0, 0.2, 0.2, 1e-15);
    ref_image_free(&img);

    /* gray+alpha u16: a gray on the linear segment of the curve, then alpha 0 */
    uint16_t ga[4] = {1000, 32768, 65535, 0};
    vkfx_pixels g = {.width = 2,
                     .height = 1,
                     .channels = 2,
                     .sample = VKFX_SAMPLE_U16,
                     .straight = true,
                     .data = ga};
    cr_assert_eq(ref_decode(&g, false, &img), 0);
    double v0 = 1000.0 / 65535 / 12.92 * (32768.0 / 65535);
    expect_px(&img, 0, 0, v0, v0, v0, 32768.0 / 65535, 1e-15);
    expect_px(&img, 1, 0, 0.0, 0.0, 0.0, 0.0, 0.0);
    ref_image_free(&img);

    /* gray u8 without alpha: R=G=B, alpha 1; sRGB 10/255 = 0.003035269835488375 */
    uint8_t gray = 10;
    vkfx_pixels g1 = {.width = 1,
                      .height = 1,
                      .channels = 1,
                      .sample = VKFX_SAMPLE_U8,
                      .straight = true,
                      .data = &gray};
    cr_assert_eq(ref_decode(&g1, false, &img), 0);
    expect_px(&img, 0, 0, 0.003035269835488375, 0.003035269835488375, 0.003035269835488375, 1.0,
              1e-17);
    ref_image_free(&img);

    /* F32 is used as is, even when flagged non-linear */
    float f[3] = {0.5f, 2.0f, -1.0f};
    vkfx_pixels fp = {.width = 1,
                      .height = 1,
                      .channels = 3,
                      .sample = VKFX_SAMPLE_F32,
                      .straight = true,
                      .data = f};
    cr_assert_eq(ref_decode(&fp, false, &img), 0);
    expect_px(&img, 0, 0, 0.5, 2.0, -1.0, 1.0, 0.0);
    ref_image_free(&img);
}

Test(ref_pixels, encode_known_values)
{
    ref_image img = {0};
    cr_assert_eq(ref_image_alloc(&img, 5, 1), 0);
    const double px[5][4] = {
        {0.25, 0.25, 0.25, 0.5},  /* straight 0.5: sRGB 0.7353569831 -> 188, 48192 */
        {0.2, 0.0, 0.0, 0.2},     /* straight red 1: luminance 0.2126 */
        {0.3, 0.3, 0.3, 0.0},     /* alpha 0: colour written as 0 */
        {2.5, -1.0, 0.001, 1.0},  /* clamped for integers, kept for F32 */
        {0.002, 0.002, 0.002, 1}, /* linear segment: 12.92*0.002*255 = 6.59 -> 7 */
    };
    memcpy(img.px, px, sizeof px);

    vkfx_pixels o8 = {.channels = 4, .sample = VKFX_SAMPLE_U8};
    cr_assert_eq(ref_encode(&img, false, &o8), 0);
    /* 0.001 is on the linear segment too: 12.92 * 0.001 * 255 = 3.29 -> 3 */
    const uint8_t want8[5][4] = {
        {188, 188, 188, 128}, {255, 0, 0, 51}, {0, 0, 0, 0}, {255, 0, 3, 255}, {7, 7, 7, 255}};
    cr_expect_arr_eq(o8.data, want8, sizeof want8);
    vkfx_pixels_free(&o8);

    vkfx_pixels o16 = {.channels = 3, .sample = VKFX_SAMPLE_U16};
    cr_assert_eq(ref_encode(&img, false, &o16), 0);
    cr_expect_eq(((uint16_t *)o16.data)[0], 48192);
    cr_expect_eq(((uint16_t *)o16.data)[3], 65535);
    vkfx_pixels_free(&o16);

    /* gray, linear: Y = 0.2126 of the straight red pixel -> floor(54.713) = 54 */
    vkfx_pixels og = {.channels = 2, .sample = VKFX_SAMPLE_U8};
    cr_assert_eq(ref_encode(&img, true, &og), 0);
    const uint8_t *g = og.data;
    cr_expect_eq(g[0], 128); /* 0.5 * 255 + 0.5 */
    cr_expect_eq(g[1], 128);
    cr_expect_eq(g[2], 54);
    cr_expect_eq(g[3], 51);
    cr_expect_eq(g[4], 0);
    cr_expect_eq(g[5], 0);
    vkfx_pixels_free(&og);

    /* out->linear means the same as the argument */
    vkfx_pixels ol = {.channels = 1, .sample = VKFX_SAMPLE_U8, .linear = true};
    cr_assert_eq(ref_encode(&img, false, &ol), 0);
    cr_expect_eq(((uint8_t *)ol.data)[1], 54);
    vkfx_pixels_free(&ol);

    vkfx_pixels of = {.channels = 4, .sample = VKFX_SAMPLE_F32};
    cr_assert_eq(ref_encode(&img, false, &of), 0);
    const float *f = of.data;
    cr_expect(f[0] == 0.5f && f[3] == 0.5f);
    cr_expect(f[12] == 2.5f && f[13] == -1.0f && f[14] == 0.001f);
    vkfx_pixels_free(&of);
    ref_image_free(&img);
}

/* ---- Blurs ---- */

Test(ref_gauss, default_radius)
{
    cr_expect_eq(ref_gauss_default_radius(0.1), 1);
    cr_expect_eq(ref_gauss_default_radius(0.5), 2);
    cr_expect_eq(ref_gauss_default_radius(1.0), 3);
    cr_expect_eq(ref_gauss_default_radius(2.5), 8);
    cr_expect_lt(ref_gauss(&(ref_image){0}, 0.0, -1, &(ref_image){0}), 0);
}

Test(ref_gauss, constant_stays_constant)
{
    ref_image in = {0}, out = {0};
    fill(&in, 17, 13, 0.3, 0.5, 0.7, 0.9);
    const double sigmas[] = {0.6, 2.0, 10.0};
    const int radii[] = {-1, 1, 40}; /* 40 exceeds both sides */
    for (int i = 0; i < 3; i++) {
        cr_assert_eq(ref_gauss(&in, sigmas[i], radii[i], &out), 0);
        cr_expect_leq(max_diff(&in, &out), eps, "sigma=%g radius=%d", sigmas[i], radii[i]);
        ref_image_free(&out);
    }
    ref_image_free(&in);
}

Test(ref_gauss, impulse_response)
{
    const uint32_t n = 129, m = 64;
    const double sigma = 2.5;
    const int r = 8;
    ref_image in = {0}, out = {0};
    fill(&in, n, n, 0, 0, 0, 0);
    double *c = ref_px(&in, m, m);
    c[0] = 1.0;
    c[1] = 2.0;
    c[2] = -3.0;
    c[3] = 1.0;
    cr_assert_eq(ref_gauss(&in, sigma, -1, &out), 0);

    double sum[4] = {0};
    for (uint32_t y = 0; y < n; y++)
        for (uint32_t x = 0; x < n; x++)
            for (int k = 0; k < 4; k++)
                sum[k] += ref_px(&out, x, y)[k];
    cr_expect(fabs(sum[0] - 1.0) < eps && fabs(sum[1] - 2.0) < eps && fabs(sum[2] + 3.0) < eps &&
                  fabs(sum[3] - 1.0) < eps,
              "sums %g %g %g %g", sum[0], sum[1], sum[2], sum[3]);

    double w[9], ws = 0.0;
    for (int k = 0; k <= r; k++) {
        w[k] = exp(-k * k / (2 * sigma * sigma));
        ws += k ? 2 * w[k] : w[k];
    }
    for (int dx = -r - 2; dx <= r + 2; dx++) {
        for (int dy = -r - 2; dy <= r + 2; dy++) {
            double want = abs(dx) > r || abs(dy) > r ? 0.0 : w[abs(dx)] * w[abs(dy)] / (ws * ws);
            double got = ref_px(&out, m + dx, m + dy)[0];
            cr_expect(fabs(got - want) < eps, "(%d,%d): got %g want %g", dx, dy, got, want);
        }
    }
    ref_image_free(&in);
    ref_image_free(&out);
}

/* The textbook loop, to check the summed end taps of ref_separable. */
static void naive_gauss(const ref_image *in, double sigma, int r, ref_image *out)
{
    ref_image tmp = {0};
    fill(&tmp, in->w, in->h, 0, 0, 0, 0);
    fill(out, in->w, in->h, 0, 0, 0, 0);
    double sum = 0.0;
    for (int k = -r; k <= r; k++)
        sum += exp(-k * k / (2 * sigma * sigma));
    for (uint32_t y = 0; y < in->h; y++)
        for (uint32_t x = 0; x < in->w; x++)
            for (int k = -r; k <= r; k++)
                for (int c = 0; c < 4; c++)
                    ref_px(&tmp, x, y)[c] +=
                        exp(-k * k / (2 * sigma * sigma)) / sum * ref_at(in, (int64_t)x + k, y)[c];
    for (uint32_t y = 0; y < in->h; y++)
        for (uint32_t x = 0; x < in->w; x++)
            for (int k = -r; k <= r; k++)
                for (int c = 0; c < 4; c++)
                    ref_px(out, x, y)[c] += exp(-k * k / (2 * sigma * sigma)) / sum *
                                            ref_at(&tmp, x, (int64_t)y + k)[c];
    ref_image_free(&tmp);
}

Test(ref_gauss, matches_textbook_loop)
{
    const struct {
        uint32_t w, h;
        double sigma;
        int r;
    } cases[] = {{7, 5, 3.0, 20}, {13, 11, 0.5, 1}, {1, 9, 1.5, 4},
                 {9, 1, 1.5, 4},  {1, 1, 2, 6},     {16, 16, 1.2, 15}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        vkfx_pixels px = {0};
        tc_random_pixels(&px, cases[i].w, cases[i].h, 4, VKFX_SAMPLE_U8, 7 + i);
        ref_image in = {0}, got = {0}, want = {0};
        cr_assert_eq(ref_decode(&px, false, &in), 0);
        cr_assert_eq(ref_gauss(&in, cases[i].sigma, cases[i].r, &got), 0);
        naive_gauss(&in, cases[i].sigma, cases[i].r, &want);
        cr_expect_leq(max_diff(&got, &want), eps, "%ux%u sigma=%g radius=%d", cases[i].w,
                      cases[i].h, cases[i].sigma, cases[i].r);
        ref_image_free(&in);
        ref_image_free(&got);
        ref_image_free(&want);
        vkfx_pixels_free(&px);
    }
}

Test(ref_box, radius_zero_is_identity)
{
    vkfx_pixels px = {0};
    tc_random_pixels(&px, 11, 7, 4, VKFX_SAMPLE_F32, 42);
    ref_image in = {0}, out = {0};
    cr_assert_eq(ref_decode(&px, false, &in), 0);
    cr_assert_eq(ref_box(&in, 0, &out), 0);
    cr_expect_eq(memcmp(in.px, out.px, sizeof(double) * 4 * 11 * 7), 0);
    ref_image_free(&in);
    ref_image_free(&out);
    vkfx_pixels_free(&px);
}

Test(ref_box, hand_computed)
{
    /* 3x3 image v(x, y) = x + 3y in R, 10 v in G, 1 in B, alpha 1 */
    ref_image in = {0}, out = {0};
    fill(&in, 3, 3, 0, 0, 1, 1);
    for (uint32_t y = 0; y < 3; y++) {
        for (uint32_t x = 0; x < 3; x++) {
            ref_px(&in, x, y)[0] = x + 3.0 * y;
            ref_px(&in, x, y)[1] = 10 * (x + 3.0 * y);
        }
    }
    cr_assert_eq(ref_box(&in, 1, &out), 0);
    /* centre: mean of 0..8 */
    expect_px(&out, 1, 1, 4.0, 40.0, 1, 1, eps);
    /* (0,0): columns {0,0,1}, rows {0,0,1}: (3*1 + 3*3*1) / 9 */
    expect_px(&out, 0, 0, 12.0 / 9, 120.0 / 9, 1, 1, eps);
    /* (1,0): columns {0,1,2}, rows {0,0,1}: (3*3 + 3*3*1) / 9 */
    expect_px(&out, 1, 0, 2.0, 20.0, 1, 1, eps);
    /* (2,2): columns {1,2,2}, rows {1,2,2}: (3*5 + 3*3*5) / 9 */
    expect_px(&out, 2, 2, 60.0 / 9, 600.0 / 9, 1, 1, eps);
    ref_image_free(&out);

    /* radius 5 > image: at (0,0) taps -5..5 read 0 six times, 1 once, 2 four
     * times: mean coordinate 9/11 along each axis */
    cr_assert_eq(ref_box(&in, 5, &out), 0);
    expect_px(&out, 0, 0, 36.0 / 11, 360.0 / 11, 1, 1, eps);
    ref_image_free(&out);
    ref_image_free(&in);
}

/* ---- Geometry ---- */

static void random_ref(ref_image *img, uint32_t w, uint32_t h, uint64_t seed)
{
    vkfx_pixels px = {0};
    tc_random_pixels(&px, w, h, 4, VKFX_SAMPLE_F32, seed);
    cr_assert_eq(ref_decode(&px, false, img), 0);
    vkfx_pixels_free(&px);
}

/* Interpolating kernels at the same size give the input back: their taps
 * fall on whole offsets, where lanczos3 and linear are 0 but at 0, and
 * box covers one sample. Mitchell (B = C = 1/3) is not interpolating: 1/18
 * of each neighbour, 8/9 of the sample itself. */
Test(ref_geometry, same_size)
{
    ref_image in = {0}, out = {0};
    random_ref(&in, 13, 9, 3);
    static const ref_resize_kind exact[] = {REF_RESIZE_LANCZOS3, REF_RESIZE_LINEAR, REF_RESIZE_BOX};
    for (int k = 0; k < 3; k++) {
        cr_assert_eq(ref_resize(&in, 13, 9, exact[k], &out), 0);
        cr_expect_leq(max_diff(&in, &out), eps, "kernel %d", exact[k]);
        ref_image_free(&out);
    }
    cr_assert_eq(ref_resize(&in, 13, 9, REF_RESIZE_MITCHELL, &out), 0);
    for (int c = 0; c < 4; c++) {
        double want = 0;
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++)
                want += (dx ? 1.0 / 18 : 8.0 / 9) * (dy ? 1.0 / 18 : 8.0 / 9) *
                        ref_px(&in, 5 + dx, 4 + dy)[c];
        cr_expect(fabs(ref_px(&out, 5, 4)[c] - want) < eps, "channel %d", c);
    }
    ref_image_free(&out);
    ref_image_free(&in);
}

Test(ref_geometry, kernels_by_hand)
{
    cr_expect(fabs(ref_resize_kernel(REF_RESIZE_LANCZOS3, 0.5) -
                   (sin(M_PI / 2) / (M_PI / 2)) * (sin(M_PI / 6) / (M_PI / 6))) < eps);
    cr_expect_eq(ref_resize_kernel(REF_RESIZE_LANCZOS3, 3.0), 0.0);
    cr_expect(fabs(ref_resize_kernel(REF_RESIZE_MITCHELL, 0.0) - 8.0 / 9) < eps);
    cr_expect(fabs(ref_resize_kernel(REF_RESIZE_MITCHELL, 1.0) - 1.0 / 18) < eps);
    cr_expect_eq(ref_resize_kernel(REF_RESIZE_MITCHELL, 2.0), 0.0);
    cr_expect(fabs(ref_resize_kernel(REF_RESIZE_LINEAR, -0.25) - 0.75) < eps);
    cr_expect_eq(ref_resize_kernel(REF_RESIZE_BOX, 0.5), 1.0);
    cr_expect_eq(ref_resize_kernel(REF_RESIZE_BOX, -0.5), 0.0);
}

/* Box halving averages 2x2 blocks; linear doubling puts 3/4 of the nearer
 * sample and 1/4 of the other; an odd shrink to one pixel weighs every
 * sample alike with box; constant images stay constant at any factor. */
Test(ref_geometry, shrink_and_grow_by_hand)
{
    ref_image in = {0}, out = {0};
    random_ref(&in, 8, 6, 5);
    cr_assert_eq(ref_resize(&in, 4, 3, REF_RESIZE_BOX, &out), 0);
    for (uint32_t y = 0; y < 3; y++)
        for (uint32_t x = 0; x < 4; x++)
            for (int c = 0; c < 4; c++) {
                double want =
                    (ref_px(&in, 2 * x, 2 * y)[c] + ref_px(&in, 2 * x + 1, 2 * y)[c] +
                     ref_px(&in, 2 * x, 2 * y + 1)[c] + ref_px(&in, 2 * x + 1, 2 * y + 1)[c]) /
                    4;
                cr_expect(fabs(ref_px(&out, x, y)[c] - want) < eps, "(%u, %u) %d", x, y, c);
            }
    ref_image_free(&out);

    cr_assert_eq(ref_resize(&in, 16, 6, REF_RESIZE_LINEAR, &out), 0);
    /* output 3: centre 1.75, between the centres of inputs 1 (1.5) and 2 (2.5) */
    for (int c = 0; c < 4; c++) {
        double want = 0.75 * ref_px(&in, 1, 2)[c] + 0.25 * ref_px(&in, 2, 2)[c];
        cr_expect(fabs(ref_px(&out, 3, 2)[c] - want) < eps, "channel %d", c);
        /* output 0: centre 0.25, its window clipped to input 0 alone */
        cr_expect(fabs(ref_px(&out, 0, 2)[c] - ref_px(&in, 0, 2)[c]) < eps);
    }
    ref_image_free(&out);

    cr_assert_eq(ref_resize(&in, 1, 1, REF_RESIZE_BOX, &out), 0);
    for (int c = 0; c < 4; c++) {
        double want = 0;
        for (uint32_t y = 0; y < 6; y++)
            for (uint32_t x = 0; x < 8; x++)
                want += ref_px(&in, x, y)[c] / 48;
        cr_expect(fabs(ref_px(&out, 0, 0)[c] - want) < eps, "channel %d", c);
    }
    ref_image_free(&out);
    ref_image_free(&in);

    fill(&in, 37, 23, 0.25, 0.5, 0.125, 1);
    static const uint32_t sizes[][2] = {{1, 1}, {36, 22}, {5, 3}, {600, 17}, {2, 300}};
    for (int k = 0; k < 4; k++) {
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            cr_assert_eq(ref_resize(&in, sizes[i][0], sizes[i][1], (ref_resize_kind)k, &out), 0);
            for (uint32_t y = 0; y < out.h; y++)
                for (uint32_t x = 0; x < out.w; x++)
                    expect_px(&out, x, y, 0.25, 0.5, 0.125, 1, 1e-12);
            ref_image_free(&out);
        }
    }
    ref_image_free(&in);
}

/* Four quarter turns and two mirrors give the input back; one turn moves
 * the top-left corner to the top right; a crop copies its rectangle and
 * refuses one that leaves the image. */
Test(ref_geometry, turns_mirrors_crops)
{
    ref_image in = {0}, a = {0}, b = {0};
    random_ref(&in, 7, 4, 9);
    cr_assert_eq(ref_rotate(&in, 90, &a), 0);
    cr_assert(a.w == 4 && a.h == 7);
    cr_expect_eq(memcmp(ref_px(&a, 3, 0), ref_px(&in, 0, 0), sizeof(double) * 4), 0);
    cr_expect_eq(memcmp(ref_px(&a, 0, 6), ref_px(&in, 6, 3), sizeof(double) * 4), 0);
    for (int t = 0; t < 3; t++) {
        cr_assert_eq(ref_rotate(&a, 90, &b), 0);
        ref_image_free(&a);
        a = b;
    }
    cr_expect_leq(max_diff(&in, &a), 0.0);
    ref_image_free(&a);
    cr_assert_eq(ref_rotate(&in, 180, &a), 0);
    cr_assert_eq(ref_rotate(&a, 180, &b), 0);
    cr_expect_leq(max_diff(&in, &b), 0.0);
    ref_image_free(&a);
    ref_image_free(&b);
    cr_assert_eq(ref_rotate(&in, 270, &a), 0);
    cr_expect_eq(memcmp(ref_px(&a, 0, 6), ref_px(&in, 0, 0), sizeof(double) * 4), 0);
    cr_assert_eq(ref_rotate(&a, 90, &b), 0);
    cr_expect_leq(max_diff(&in, &b), 0.0);
    ref_image_free(&a);
    ref_image_free(&b);
    for (int lr = 0; lr < 2; lr++) {
        cr_assert_eq(ref_flip(&in, lr, &a), 0);
        cr_expect_eq(
            memcmp(ref_px(&a, lr ? 6 : 0, lr ? 0 : 3), ref_px(&in, 0, 0), sizeof(double) * 4), 0);
        cr_assert_eq(ref_flip(&a, lr, &b), 0);
        cr_expect_leq(max_diff(&in, &b), 0.0);
        ref_image_free(&a);
        ref_image_free(&b);
    }
    cr_assert_eq(ref_crop(&in, 2, 1, 5, 3, &a), 0);
    cr_assert(a.w == 5 && a.h == 3);
    cr_expect_eq(memcmp(ref_px(&a, 4, 2), ref_px(&in, 6, 3), sizeof(double) * 4), 0);
    ref_image_free(&a);
    cr_expect_eq(ref_crop(&in, 3, 0, 5, 1, &a), VKFX_E_USAGE);
    cr_expect_eq(ref_crop(&in, 0, 4, 1, 1, &a), VKFX_E_USAGE);
    ref_image_free(&in);
}

/* Amount 0 or a threshold above every difference changes nothing; on a
 * step edge the dark side gets darker and the bright side brighter, by
 * amount times the distance to the blur. */
Test(ref_geometry, unsharp)
{
    ref_image in = {0}, out = {0}, blur = {0};
    fill(&in, 9, 5, 0.2, 0.2, 0.2, 1);
    for (uint32_t y = 0; y < 5; y++)
        for (uint32_t x = 5; x < 9; x++)
            ref_px(&in, x, y)[0] = ref_px(&in, x, y)[1] = ref_px(&in, x, y)[2] = 0.6;
    cr_assert_eq(ref_unsharp(&in, 1.0, 0.0, 0.0, &out), 0);
    cr_expect_leq(max_diff(&in, &out), 0.0);
    ref_image_free(&out);
    cr_assert_eq(ref_unsharp(&in, 1.0, 2.0, 1.0, &out), 0);
    cr_expect_leq(max_diff(&in, &out), 0.0);
    ref_image_free(&out);
    cr_assert_eq(ref_unsharp(&in, 1.0, 1.5, 0.0, &out), 0);
    cr_assert_eq(ref_gauss(&in, 1.0, -1, &blur), 0);
    double b4 = ref_px(&blur, 4, 2)[0], b5 = ref_px(&blur, 5, 2)[0];
    cr_expect(b4 > 0.2 && b5 < 0.6);
    expect_px(&out, 4, 2, 0.2 + 1.5 * (0.2 - b4), 0.2 + 1.5 * (0.2 - b4), 0.2 + 1.5 * (0.2 - b4), 1,
              eps);
    expect_px(&out, 5, 2, 0.6 + 1.5 * (0.6 - b5), 0.6 + 1.5 * (0.6 - b5), 0.6 + 1.5 * (0.6 - b5), 1,
              eps);
    expect_px(&out, 0, 0, 0.2, 0.2, 0.2, 1, 1e-6);
    ref_image_free(&blur);
    ref_image_free(&out);
    ref_image_free(&in);
}

/* ---- Edges ---- */

Test(ref_sobel, constant_is_flat)
{
    ref_image in = {0}, out = {0};
    fill(&in, 9, 6, 0.2, 0.3, 0.4, 0.5);
    cr_assert_eq(ref_sobel(&in, false, 1000.0, &out), 0);
    for (uint32_t y = 0; y < 6; y++)
        for (uint32_t x = 0; x < 9; x++)
            expect_px(&out, x, y, 0, 0, 0, 0.5, 0.0);
    ref_image_free(&out);
    cr_assert_eq(ref_sobel(&in, true, 1.0, &out), 0);
    for (uint32_t y = 0; y < 6; y++)
        for (uint32_t x = 0; x < 9; x++)
            expect_px(&out, x, y, 0.5, 0.5, 0.5, 0.5, 0.0);
    ref_image_free(&out);
    ref_image_free(&in);
}

Test(ref_sobel, step_edges)
{
    /* vertical step 0 -> 0.2 between x = 3 and 4: gx = (1+2+1) * 0.2 at both
     * columns, gy = 0, so e = 0.8 * (0.2126 + 0.7152 + 0.0722) = 0.8 */
    ref_image in = {0}, out = {0};
    fill(&in, 8, 5, 0, 0, 0, 1);
    for (uint32_t y = 0; y < 5; y++)
        for (uint32_t x = 4; x < 8; x++)
            ref_px(&in, x, y)[0] = ref_px(&in, x, y)[1] = ref_px(&in, x, y)[2] = 0.2;
    cr_assert_eq(ref_sobel(&in, false, 1.0, &out), 0);
    for (uint32_t y = 0; y < 5; y++) {
        for (uint32_t x = 0; x < 8; x++) {
            double e = x == 3 || x == 4 ? 0.8 : 0.0;
            expect_px(&out, x, y, e, e, e, 1, eps);
        }
    }
    ref_image_free(&out);
    cr_assert_eq(ref_sobel(&in, true, 2.0, &out), 0); /* 1.6 clamps to 1 */
    expect_px(&out, 3, 2, 0, 0, 0, 1, eps);
    expect_px(&out, 0, 2, 1, 1, 1, 1, eps);
    ref_image_free(&out);
    ref_image_free(&in);

    /* horizontal step in red only, alpha 0.5 (premultiplied red 0.05 below
     * y = 2): gy = 4 * 0.05, e = 0.2 * 0.2126 * G, stored times alpha */
    fill(&in, 4, 6, 0, 0, 0, 0.5);
    for (uint32_t y = 3; y < 6; y++)
        for (uint32_t x = 0; x < 4; x++)
            ref_px(&in, x, y)[0] = 0.05;
    cr_assert_eq(ref_sobel(&in, false, 3.0, &out), 0);
    double e = 0.2 * 0.2126 * 3.0;
    for (uint32_t x = 0; x < 4; x++) {
        expect_px(&out, x, 1, 0, 0, 0, 0.5, eps);
        expect_px(&out, x, 2, e * 0.5, e * 0.5, e * 0.5, 0.5, eps);
        expect_px(&out, x, 3, e * 0.5, e * 0.5, e * 0.5, 0.5, eps);
        expect_px(&out, x, 4, 0, 0, 0, 0.5, eps);
    }
    ref_image_free(&out);
    ref_image_free(&in);
}

Test(ref_sobel, ramp_and_clamped_edge)
{
    /* blue ramp 0.01 x: inside gx = 4 * 0.02, at the clamped ends 4 * 0.01 */
    ref_image in = {0}, out = {0};
    fill(&in, 6, 3, 0, 0, 0, 1);
    for (uint32_t y = 0; y < 3; y++)
        for (uint32_t x = 0; x < 6; x++)
            ref_px(&in, x, y)[2] = 0.01 * x;
    cr_assert_eq(ref_sobel(&in, false, 10.0, &out), 0);
    double inner = 10.0 * 0.0722 * 0.08, end = 10.0 * 0.0722 * 0.04;
    for (uint32_t y = 0; y < 3; y++) {
        expect_px(&out, 0, y, end, end, end, 1, eps);
        expect_px(&out, 2, y, inner, inner, inner, 1, eps);
        expect_px(&out, 5, y, end, end, end, 1, eps);
    }
    ref_image_free(&out);
    ref_image_free(&in);
}

Test(ref_cartoon, constant_stays_constant)
{
    ref_image in = {0}, out = {0};
    fill(&in, 23, 19, 0.1, 0.4, 0.6, 0.8);
    cr_assert_eq(ref_cartoon(&in, 2.0, 4.0, &out), 0);
    cr_expect_leq(max_diff(&in, &out), eps);
    ref_image_free(&out);
    ref_image_free(&in);
}

Test(ref_cartoon, darkens_edges_only)
{
    /* a white half beside a black half: with a large gain the blurred edge
     * turns black, far from it the result is the blur, alpha always 1 */
    ref_image in = {0}, out = {0}, b = {0};
    fill(&in, 40, 5, 0, 0, 0, 1);
    for (uint32_t y = 0; y < 5; y++)
        for (uint32_t x = 20; x < 40; x++)
            ref_px(&in, x, y)[0] = ref_px(&in, x, y)[1] = ref_px(&in, x, y)[2] = 1.0;
    cr_assert_eq(ref_cartoon(&in, 1.0, 100.0, &out), 0);
    cr_assert_eq(ref_gauss(&in, 1.0, -1, &b), 0);
    expect_px(&out, 20, 2, 0, 0, 0, 1, eps);
    expect_px(&out, 19, 2, 0, 0, 0, 1, eps);
    expect_px(&out, 39, 2, 1, 1, 1, 1, eps);
    expect_px(&out, 0, 2, 0, 0, 0, 1, eps);
    cr_expect_gt(ref_px(&b, 20, 2)[0], 0.5);
    ref_image_free(&b);
    ref_image_free(&out);
    ref_image_free(&in);
}

/* ---- Harness ---- */

Test(harness, random_pixels_are_deterministic)
{
    vkfx_pixels a = {0}, b = {0}, c = {0};
    tc_random_pixels(&a, 13, 7, 3, VKFX_SAMPLE_U16, 1);
    tc_random_pixels(&b, 13, 7, 3, VKFX_SAMPLE_U16, 1);
    tc_random_pixels(&c, 13, 7, 3, VKFX_SAMPLE_U16, 2);
    cr_expect_eq(memcmp(a.data, b.data, vkfx_pixels_bytes(&a)), 0);
    cr_expect_neq(memcmp(a.data, c.data, vkfx_pixels_bytes(&a)), 0);
    cr_expect(!a.linear && a.straight);
    vkfx_pixels_free(&a);
    vkfx_pixels_free(&b);
    vkfx_pixels_free(&c);

    tc_random_pixels(&a, 64, 64, 1, VKFX_SAMPLE_F32, 3);
    const float *f = a.data;
    float lo = 1, hi = 0;
    for (size_t i = 0; i < 64 * 64; i++) {
        lo = f[i] < lo ? f[i] : lo;
        hi = f[i] > hi ? f[i] : hi;
    }
    cr_expect(a.linear && lo >= 0.0f && hi < 1.0f && lo < 0.01f && hi > 0.99f);
    vkfx_pixels_free(&a);
}

Test(harness, compare_finds_the_worst_sample)
{
    vkfx_pixels a = {0}, b = {0};
    tc_random_pixels(&a, 10, 4, 3, VKFX_SAMPLE_U8, 9);
    tc_random_pixels(&b, 10, 4, 3, VKFX_SAMPLE_U8, 9);
    tc_diff d = tc_compare(&a, &b, 0);
    cr_expect(tc_diff_ok(&d) && d.max_abs == 0);
    uint8_t *p = b.data;
    p[(2 * 10 + 7) * 3 + 1] ^= 0x80;
    p[0] ^= 1;
    d = tc_compare(&a, &b, 1);
    cr_expect(!tc_diff_ok(&d));
    cr_expect_eq(d.over, 1);
    cr_expect(d.x == 7 && d.y == 2 && d.c == 1 && d.max_abs == 128, "%u %u %u %g", d.x, d.y, d.c,
              d.max_abs);
    tc_report(&d, "expected failure report");
    vkfx_pixels_free(&b);

    tc_random_pixels(&b, 10, 4, 4, VKFX_SAMPLE_U8, 9);
    d = tc_compare(&a, &b, 1000);
    cr_expect(d.shape_mismatch && !tc_diff_ok(&d));
    tc_report(&d, "expected shape mismatch");
    vkfx_pixels_free(&a);
    vkfx_pixels_free(&b);

    float fa[3] = {1.0f, 1e-6f, NAN}, fb[3] = {1.001f, 0.0f, 0.5f};
    vkfx_pixels x = {.width = 3, .height = 1, .channels = 1, .sample = VKFX_SAMPLE_F32, .data = fa};
    vkfx_pixels y = x;
    y.data = fb;
    d = tc_compare_rel(&x, &y, 2e-3, 1e-3);
    cr_expect_eq(d.over, 1); /* only the NaN: 1e-3 relative, 1e-6 below the floor */
    cr_expect(d.x == 2 && isinf(d.max_abs));
}

Test(harness, crop_wraps_and_fits)
{
    vkfx_pixels src = {0}, dst = {0};
    tc_random_pixels(&src, 5, 3, 2, VKFX_SAMPLE_U16, 11);
    const uint16_t *s = src.data;
    cr_assert_eq(tc_crop(&src, 3, 1, 9, 7, &dst), 0);
    cr_expect(dst.width == 9 && dst.height == 7 && dst.channels == 2 && !dst.linear);
    const uint16_t *d = dst.data;
    for (uint32_t y = 0; y < 7; y++)
        for (uint32_t x = 0; x < 9; x++)
            for (uint32_t c = 0; c < 2; c++)
                cr_expect_eq(d[(y * 9 + x) * 2 + c], s[(((y + 1) % 3) * 5 + (x + 3) % 5) * 2 + c]);
    vkfx_pixels_free(&dst);

    /* 1 x 257 from a 5x3 image: centred column 2, rows tiled */
    cr_assert_eq(tc_fit(&src, 1, 257, &dst), 0);
    d = dst.data;
    for (uint32_t y = 0; y < 257; y++)
        cr_expect_eq(d[y * 2], s[((y % 3) * 5 + 2) * 2]);
    vkfx_pixels_free(&dst);
    vkfx_pixels_free(&src);
}
