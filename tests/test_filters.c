/* Every filter on the GPU against its C reference in tests/ref: random
 * images and the shared photos, at awkward sizes (1x1, 1x257, 257x1,
 * 333x517, 1024x768) and radii larger than the image, in both internal
 * precisions. At --precision 16 every image vkfx stores is rgba16f (the
 * decoded input, a separable filter's row result, the output of each link),
 * and the references round at the same places. Tolerances: 8-bit output within 1 code value on
 * every sample (FILTERS.md asks for it); 16-bit output within 1/4096 of full scale with rgba32f
 * inside (the internal format, not the kernel, limits 16-bit output at rgba16f); float output
 * within 1e-3 relative. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "context.h"
#include "gpu_harness.h"

typedef struct sobel_arg {
    bool invert;
    double gain;
} sobel_arg;

static int ref_sobel_fn(const ref_image *in, ref_image *out, const void *arg, int precision)
{
    (void)precision;
    const sobel_arg *a = arg;
    return ref_sobel(in, a->invert, a->gain, out);
}

/* Between links the image is stored in the internal format: at 16 the
 * reference rounds there to half as well. */
static int ref_gauss_then_sobel(const ref_image *in, ref_image *out, const void *arg, int precision)
{
    (void)arg;
    ref_image tmp = {0};
    int ret = ref_gauss_stored(in, 1.5, -1, precision == 16, &tmp);
    if (ret == 0 && precision == 16)
        ref_round_half(&tmp);
    if (ret == 0)
        ret = ref_sobel(&tmp, true, 2.0, out);
    ref_image_free(&tmp);
    return ret;
}

static const uint32_t sizes[][2] = {{1, 1}, {1, 257}, {257, 1}, {333, 517}, {1024, 768}};
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

/* Random RGBA at every awkward size, both precisions; then every photo at
 * its own size and at the awkward ones cut from it. */
static void check_everywhere(const th_case *base)
{
    th_gpu g;
    th_gpu_open(&g);
    int failures = 0;
    failures += th_check_random_sizes(&g, base, sizes, NSIZES, 4, 7);
    th_case c = *base;
    c.precision = 16;
    for (const char *const *name = tc_photos(); *name; name++) {
        vkfx_pixels photo;
        cr_assert_eq(tc_load_photo(*name, &photo), VKFX_OK, "%s: %s", *name, vkfx_error_message());
        failures += !th_check(&g, &c, &photo, photo.channels, VKFX_SAMPLE_U8, *name);
        vkfx_pixels cut;
        for (size_t i = 0; i < NSIZES - 1; i++) {
            cr_assert_eq(tc_fit(&photo, sizes[i][0], sizes[i][1], &cut), VKFX_OK);
            failures += !th_check(&g, &c, &cut, cut.channels, VKFX_SAMPLE_U8, *name);
            vkfx_pixels_free(&cut);
        }
        vkfx_pixels_free(&photo);
    }
    th_gpu_close(&g);
    cr_assert_eq(failures, 0, "%d comparisons out of tolerance (worst pixels above)", failures);
}

/* Radii larger than the image, tiny images, every channel layout. */
static void check_small(const th_case *base)
{
    th_gpu g;
    th_gpu_open(&g);
    int failures = th_check_small(&g, base);
    th_gpu_close(&g);
    cr_assert_eq(failures, 0, "%d comparisons out of tolerance (worst pixels above)", failures);
}

/* Each of the n cases on a random RGBA image and on the first shared photo cut to 333x517,
 * sides that are not multiples of the one-pass kernels' tiles; fails the test if any is out
 * of tolerance. (Random RGBA at 333x517 as well took half the time of these tests and
 * reached nothing the two do not.) */
static void check_odd_sizes(const th_case *cases, size_t n, unsigned seed)
{
    th_gpu g;
    th_gpu_open(&g);
    vkfx_pixels photo, cut;
    cr_assert_eq(tc_load_photo(tc_photos()[0], &photo), VKFX_OK, "%s", vkfx_error_message());
    cr_assert_eq(tc_fit(&photo, 333, 517, &cut), VKFX_OK);
    vkfx_pixels_free(&photo);
    int failures = 0;
    for (size_t i = 0; i < n; i++) {
        vkfx_pixels px; /* the same random image at 97x61 as before */
        tc_random_pixels(&px, 97, 61, 4, VKFX_SAMPLE_U8, seed + (unsigned)(i * 2 + 1));
        failures += !th_check(&g, &cases[i], &px, 4, VKFX_SAMPLE_U8, "random");
        vkfx_pixels_free(&px);
        failures += !th_check(&g, &cases[i], &cut, cut.channels, VKFX_SAMPLE_U8, tc_photos()[0]);
    }
    vkfx_pixels_free(&cut);
    th_gpu_close(&g);
    cr_assert_eq(failures, 0, "%d comparisons out of tolerance (worst pixels above)", failures);
}

Test(gauss, sigma3_everywhere, .timeout = 600)
{
    static const th_gauss_arg a = {3.0, -1};
    check_everywhere(&(th_case){"gauss:sigma=3", th_ref_gauss, &a, 16, 1});
}

Test(gauss, sigma_0_5_explicit_radius, .timeout = 300)
{
    static const th_gauss_arg a = {0.5, 4};
    check_everywhere(&(th_case){"gauss:sigma=0.5:radius=4", th_ref_gauss, &a, 16, 1});
}

/* Radius 24: the two unrolled passes (glsl/gauss_row.comp, glsl/gauss_col.comp) with the
 * weights in push constants; on a device with matrix units, the passes of
 * glsl/gauss_mma.comp. */
Test(gauss, sigma8_everywhere, .timeout = 600)
{
    static const th_gauss_arg a = {8.0, -1};
    check_everywhere(&(th_case){"gauss:sigma=8", th_ref_gauss, &a, 16, 1});
}

/* Radii 13 and 18: on a device with matrix units, the passes of glsl/gauss_mma.comp with
 * three and four blocks of weights (radius 24 above has four, radius 30 and 32 five). */
Test(gauss, radius_13_and_18, .timeout = 300)
{
    th_gpu g;
    th_gpu_open(&g);
    vkfx_pixels photo, cut, px;
    cr_assert_eq(tc_load_photo("coffee.png", &photo), VKFX_OK);
    cr_assert_eq(tc_fit(&photo, 600, 200, &cut), VKFX_OK);
    tc_random_pixels(&px, 97, 41, 4, VKFX_SAMPLE_U8, 9);
    static const th_gauss_arg a = {4.3, -1}, b = {6.0, -1};
    int failures = 0;
    for (int i = 0; i < 2; i++) {
        th_case c = {i ? "gauss:sigma=6" : "gauss:sigma=4.3", th_ref_gauss, i ? &b : &a, 16, 1};
        failures += !th_check(&g, &c, &cut, 3, VKFX_SAMPLE_U8, "coffee.png");
        failures += !th_check(&g, &c, &px, 4, VKFX_SAMPLE_U8, "random");
    }
    vkfx_pixels_free(&px);
    vkfx_pixels_free(&cut);
    vkfx_pixels_free(&photo);
    th_gpu_close(&g);
    cr_assert_eq(failures, 0, "%d comparisons out of tolerance (worst pixels above)", failures);
}

/* Infinities in a float image, more than two radii apart (a window holding both signs would
 * make NaN, which the NVIDIA driver does not keep): outputs whose window holds one are
 * infinite like the reference's, the rest unharmed. At radius 24 on a device
 * with matrix units this is the path of glsl/gauss_mma.comp that leaves the matrices for
 * multiply-adds; radius 6 is the one-pass kernel. */
Test(gauss, infinities, .timeout = 300)
{
    th_gpu g;
    th_gpu_open(&g);
    vkfx_pixels px;
    tc_random_pixels(&px, 150, 90, 3, VKFX_SAMPLE_F32, 21);
    float *f = px.data;
    f[(10 * 150 + 20) * 3 + 0] = INFINITY;
    f[(70 * 150 + 30) * 3 + 1] = -INFINITY;
    f[(45 * 150 + 140) * 3 + 2] = INFINITY;
    static const th_gauss_arg a = {8.0, -1}, b = {2.0, -1};
    int failures = 0;
    for (int precision = 16; precision <= 32; precision += 16) {
        failures += !th_check(&g, &(th_case){"gauss:sigma=8", th_ref_gauss, &a, precision, 1e-3},
                              &px, 3, VKFX_SAMPLE_F32, "random float with infinities");
        failures += !th_check(&g, &(th_case){"gauss:sigma=2", th_ref_gauss, &b, precision, 1e-3},
                              &px, 3, VKFX_SAMPLE_F32, "random float with infinities");
    }
    vkfx_pixels_free(&px);
    th_gpu_close(&g);
    cr_assert_eq(failures, 0, "%d comparisons out of tolerance (worst pixels above)", failures);
}

/* Where packHalf2x16 rounds to the nearest half, ties to even (lavapipe's does), the one-pass
 * Gaussian and the matrix kernels let it round their halves; with VKFX_HALF_PACK=0 they round
 * bit by bit. Both must give the same bytes, on values whose halves are subnormal too. */
Test(gauss, rounding_by_conversion_matches_rounding_by_bits, .timeout = 300)
{
    th_gpu hw, bits;
    th_gpu_open(&hw);
    setenv("VKFX_HALF_PACK", "0", 1);
    th_gpu_open(&bits);
    unsetenv("VKFX_HALF_PACK");
    bool rne_hw = false, rne_bits = true;
    cr_assert_eq(vkfx_context_pack_rne(hw.ctx, &rne_hw), VKFX_OK, "%s", vkfx_error_message());
    cr_assert_eq(vkfx_context_pack_rne(bits.ctx, &rne_bits), VKFX_OK, "%s", vkfx_error_message());
    cr_assert(rne_hw, "%s: packHalf2x16 does not round to nearest even",
              vkfx_context_device_name(hw.ctx));
    cr_assert(!rne_bits, "VKFX_HALF_PACK=0 did not keep the conversion out");
    vkfx_pixels px;
    tc_random_pixels(&px, 333, 517, 4, VKFX_SAMPLE_F32, 33);
    float *f = px.data;
    for (size_t i = 0; i < (size_t)333 * 517 * 4; i += 3)
        f[i] = ldexpf(f[i], -(int)(i % 29)); /* down to 2^-28: subnormal halves and below */
    static const char *const chains[] = {"gauss:sigma=2", "gauss:sigma=3:radius=10",
                                         "gauss:sigma=8", "cartoon"};
    for (size_t c = 0; c < sizeof(chains) / sizeof(*chains); c++) {
        vkfx_pixels a, b;
        th_run(&hw, chains[c], &px, 4, VKFX_SAMPLE_F32, 16, &a);
        th_run(&bits, chains[c], &px, 4, VKFX_SAMPLE_F32, 16, &b);
        size_t n = (size_t)a.width * a.height * 4, first = n;
        for (size_t i = 0; i < n && first == n; i++)
            if (memcmp((float *)a.data + i, (float *)b.data + i, sizeof(float)) != 0)
                first = i;
        cr_expect_eq(first, n, "%s: sample %zu (x=%zu y=%zu c=%zu) %a by conversion, %a by bits",
                     chains[c], first, first / 4 % a.width, first / 4 / a.width, first % 4,
                     first < n ? ((float *)a.data)[first] : 0.0,
                     first < n ? ((float *)b.data)[first] : 0.0);
        vkfx_pixels_free(&a);
        vkfx_pixels_free(&b);
    }
    vkfx_pixels_free(&px);
    th_gpu_close(&bits);
    th_gpu_close(&hw);
}

/* Every radius of the one-pass kernel (glsl/gauss_fused.comp), each with its own shape from
 * the table in core/filters/gauss.c. */
Test(gauss, every_one_pass_radius, .timeout = 600)
{
    static const th_gauss_arg args[] = {{2.0, 1}, {2.0, 2}, {2.0, 3}, {2.0, 4}, {2.0, 5},
                                        {2.0, 6}, {2.0, 7}, {2.0, 8}, {3.0, 9}, {3.0, 10}};
    enum { N = sizeof(args) / sizeof(args[0]) };
    static char chains[N][48];
    th_case cases[N];
    for (size_t i = 0; i < N; i++) {
        snprintf(chains[i], sizeof(chains[i]), "gauss:sigma=%g:radius=%d", args[i].sigma,
                 args[i].radius);
        cases[i] = (th_case){chains[i], th_ref_gauss, &args[i], 16, 1};
    }
    check_odd_sizes(cases, N, 70);
}

Test(gauss, radius_larger_than_image)
{
    static const th_gauss_arg a = {10.0, -1};
    check_small(&(th_case){"gauss:sigma=10", th_ref_gauss, &a, 16, 1});
}

/* 512 taps each side stays in shared memory on most devices; 1500 does not
 * fit anywhere and takes the direct-read path. */
Test(gauss, radius_512_and_1500, .timeout = 600)
{
    th_gpu g;
    th_gpu_open(&g);
    vkfx_pixels photo, cut;
    cr_assert_eq(tc_load_photo("coffee.png", &photo), VKFX_OK);
    cr_assert_eq(tc_fit(&photo, 600, 200, &cut), VKFX_OK);
    static const th_gauss_arg a = {170.0, 512}, b = {40.0, 1500};
    int failures = !th_check(&g, &(th_case){"gauss:sigma=170:radius=512", th_ref_gauss, &a, 16, 1},
                             &cut, 3, VKFX_SAMPLE_U8, "coffee.png");
    vkfx_pixels px;
    tc_random_pixels(&px, 97, 41, 4, VKFX_SAMPLE_U8, 5);
    failures += !th_check(&g, &(th_case){"gauss:sigma=40:radius=1500", th_ref_gauss, &b, 32, 1},
                          &px, 4, VKFX_SAMPLE_U8, "random");
    vkfx_pixels_free(&px);
    vkfx_pixels_free(&cut);
    vkfx_pixels_free(&photo);
    th_gpu_close(&g);
    cr_assert_eq(failures, 0);
}

Test(box, radius1_everywhere, .timeout = 600)
{
    static const int r = 1;
    check_everywhere(&(th_case){"box:radius=1", th_ref_box, &r, 16, 1});
}

Test(box, radius15_everywhere, .timeout = 600)
{
    static const int r = 15;
    check_everywhere(&(th_case){"box:radius=15", th_ref_box, &r, 16, 1});
}

/* Every radius of the one-pass kernel (glsl/box_fused.comp), each with its own shape from the
 * table in core/filters/box.c. */
Test(box, every_one_pass_radius, .timeout = 600)
{
    static const int radii[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    enum { N = sizeof(radii) / sizeof(radii[0]) };
    static char chains[N][32];
    th_case cases[N];
    for (size_t i = 0; i < N; i++) {
        snprintf(chains[i], sizeof(chains[i]), "box:radius=%d", radii[i]);
        cases[i] = (th_case){chains[i], th_ref_box, &radii[i], 16, 1};
    }
    check_odd_sizes(cases, N, 40);
}

Test(box, radius0_is_identity)
{
    static const int r = 0;
    check_small(&(th_case){"box:radius=0", th_ref_box, &r, 16, 0});
}

Test(box, radius_larger_than_image)
{
    static const int r = 40;
    check_small(&(th_case){"box:radius=40", th_ref_box, &r, 16, 1});
}

/* Beyond the shared-memory row segment the row pass reads through the
 * texture cache instead. */
Test(box, radius_1000)
{
    static const int r = 1000;
    check_small(&(th_case){"box:radius=1000", th_ref_box, &r, 16, 1});
}

Test(sobel, default_everywhere, .timeout = 600)
{
    static const sobel_arg a = {false, 1.0};
    check_everywhere(&(th_case){"sobel", ref_sobel_fn, &a, 16, 1});
}

Test(sobel, inverted_gain)
{
    static const sobel_arg a = {true, 3.5};
    check_small(&(th_case){"sobel:invert=1:gain=3.5", ref_sobel_fn, &a, 16, 1});
}

Test(cartoon, default_everywhere, .timeout = 600)
{
    static const double a[2] = {2.0, 4.0};
    check_everywhere(&(th_case){"cartoon", th_ref_cartoon, a, 16, 1});
}

Test(cartoon, options_small)
{
    static const double a[2] = {4.5, 1.5};
    check_small(&(th_case){"cartoon:sigma=4.5:gain=1.5", th_ref_cartoon, a, 16, 1});
}

/* cartoon run with force as VKFX_VARIANT (NULL: none) into float RGBA; *fused: no Gaussian pass
 * of its own ran, only the one dispatch labelled cartoon. */
static void cartoon_run(th_gpu *g, const char *text, const vkfx_pixels *in, int precision,
                        const char *force, vkfx_pixels *out, bool *fused)
{
    vkfx_chain *chain = NULL;
    cr_assert_eq(vkfx_chain_parse(text, &chain), VKFX_OK, "%s: %s", text, vkfx_error_message());
    vkfx_run_opts opts = {.precision = precision, .timings = true};
    vkfx_run_result r;
    *out = (vkfx_pixels){.channels = 4, .sample = VKFX_SAMPLE_F32};
    g->ctx->opts.variants = force;
    int ret = vkfx_run(g->ctx, g->staging, chain, in, out, &opts, &r);
    g->ctx->opts.variants = NULL;
    vkfx_chain_free(chain);
    cr_assert_eq(ret, VKFX_OK, "%s %ux%u: %s", text, in->width, in->height, vkfx_error_message());
    bool gauss = false, cartoon = false;
    for (uint32_t i = 0; i < r.ntimes; i++) {
        gauss |= strncmp(r.times[i].label, "gauss", 5) == 0;
        cartoon |= strcmp(r.times[i].label, "cartoon") == 0;
    }
    cr_assert(cartoon, "%s: no cartoon pass", text);
    *fused = !gauss;
    free(r.times);
}

/* Where the one-pass Gaussian applies (radii up to 10), cartoon blurs and darkens in one dispatch
 * by default and gives the bytes of its separate passes (the blur stored in float, then
 * glsl/cartoon.comp) at both precisions: random images at sizes that are no multiple of its tile,
 * narrower or shorter than the blur's radius, and a photo. */
Test(cartoon, one_dispatch_same_bytes_as_separate_passes, .timeout = 300)
{
    static const char *const chains[] = {"cartoon:sigma=0.5:gain=8", "cartoon",
                                         "cartoon:sigma=3.4:gain=2"};
    static const uint32_t sizes[][2] = {{1, 1}, {33, 17}, {3, 70}, {70, 3}, {97, 61}};
    enum { NSIZES_C = sizeof(sizes) / sizeof(sizes[0]) };
    th_gpu g;
    th_gpu_open(&g);
    vkfx_pixels inputs[NSIZES_C + 1], photo;
    for (size_t i = 0; i < NSIZES_C; i++)
        tc_random_pixels(&inputs[i], sizes[i][0], sizes[i][1], 4, VKFX_SAMPLE_U8, 440 + i);
    cr_assert_eq(tc_load_photo(tc_photos()[0], &photo), VKFX_OK, "%s", vkfx_error_message());
    cr_assert_eq(tc_fit(&photo, 131, 77, &inputs[NSIZES_C]), VKFX_OK);
    vkfx_pixels_free(&photo);
    int differ = 0;
    for (size_t c = 0; c < sizeof(chains) / sizeof(chains[0]); c++)
        for (int precision = 16; precision <= 32; precision += 16)
            for (size_t i = 0; i <= NSIZES_C; i++) {
                const vkfx_pixels *in = &inputs[i];
                vkfx_pixels one, two;
                bool fused, separate_fused;
                cartoon_run(&g, chains[c], in, precision, NULL, &one, &fused);
                cartoon_run(&g, chains[c], in, precision, "cartoon:separate", &two,
                            &separate_fused);
                cr_expect(fused, "%s %ux%u: the Gaussian ran a pass of its own", chains[c],
                          in->width, in->height);
                cr_expect(!separate_fused, "%s: cartoon:separate ran no Gaussian", chains[c]);
                const size_t bytes = (size_t)in->width * in->height * 4 * sizeof(float);
                if (memcmp(one.data, two.data, bytes) != 0) {
                    differ++;
                    cr_log_error("%s %ux%u rgba%df: one dispatch and separate passes differ",
                                 chains[c], in->width, in->height, precision);
                }
                vkfx_pixels_free(&one);
                vkfx_pixels_free(&two);
            }
    for (size_t i = 0; i <= NSIZES_C; i++)
        vkfx_pixels_free(&inputs[i]);
    th_gpu_close(&g);
    cr_assert_eq(differ, 0, "%d runs differ", differ);
}

/* Beyond the one-pass kernel's radius cartoon takes its separate passes, and forcing the one
 * dispatch there is refused. */
Test(cartoon, large_sigma_takes_separate_passes)
{
    th_gpu g;
    th_gpu_open(&g);
    vkfx_pixels in, out;
    tc_random_pixels(&in, 40, 30, 4, VKFX_SAMPLE_U8, 450);
    bool fused;
    cartoon_run(&g, "cartoon:sigma=3.6", &in, 16, NULL, &out, &fused);
    cr_expect(!fused, "radius 11 ran in one dispatch");
    vkfx_pixels_free(&out);
    g.ctx->opts.variants = "cartoon:fused";
    th_expect_usage_error(&g, "cartoon:sigma=3.6", &in, "cartoon:fused does not apply");
    g.ctx->opts.variants = NULL;
    vkfx_pixels_free(&in);
    th_gpu_close(&g);
}

Test(chain, gauss_then_sobel)
{
    check_small(
        &(th_case){"gauss:sigma=1.5,sobel:invert=1:gain=2", ref_gauss_then_sobel, NULL, 16, 1});
    check_small(
        &(th_case){"gauss:sigma=1.5,sobel:invert=1:gain=2", ref_gauss_then_sobel, NULL, 32, 1});
}

/* 16-bit and float outputs: the tolerance the internal precision allows. */
Test(precision, sixteen_bit_and_float_outputs, .timeout = 300)
{
    th_gpu g;
    th_gpu_open(&g);
    static const th_gauss_arg a = {2.0, -1};
    int failures = 0;
    vkfx_pixels px16, pxf;
    tc_random_pixels(&px16, 333, 217, 4, VKFX_SAMPLE_U16, 11);
    failures += !th_check(&g, &(th_case){"gauss:sigma=2", th_ref_gauss, &a, 32, 65535.0 / 4096},
                          &px16, 4, VKFX_SAMPLE_U16, "random 16-bit");
    tc_random_pixels(&pxf, 333, 217, 3, VKFX_SAMPLE_F32, 12);
    failures += !th_check(&g, &(th_case){"gauss:sigma=2", th_ref_gauss, &a, 32, 1e-3}, &pxf, 3,
                          VKFX_SAMPLE_F32, "random float");
    failures += !th_check(&g, &(th_case){"gauss:sigma=2", th_ref_gauss, &a, 16, 1e-3}, &pxf, 3,
                          VKFX_SAMPLE_F32, "random float");
    /* Radius 32, the largest the unrolled passes take; beyond 26 they compute their weights. */
    static const th_gauss_arg b = {5.0, 32};
    failures += !th_check(&g, &(th_case){"gauss:sigma=5:radius=32", th_ref_gauss, &b, 16, 1e-3},
                          &pxf, 3, VKFX_SAMPLE_F32, "random float");
    vkfx_pixels_free(&px16);
    vkfx_pixels_free(&pxf);
    th_gpu_close(&g);
    cr_assert_eq(failures, 0);
}

/* FILTERS.md's sRGB encode, the code of linear v in [0, 1] at top = 255 or 65535, in double. */
static uint32_t srgb_code(double v, double top)
{
    double e = v <= 0.0031308 ? 12.92 * v : 1.055 * pow(v, 1.0 / 2.4) - 0.055;
    return (uint32_t)floor(e * top + 0.5);
}

/* The least float of sRGB code k at depth top (k >= 1). */
static float srgb_least(uint32_t k, double top)
{
    double x = (k - 0.5) / top;
    x = x <= 0.04045 ? x / 12.92 : pow((x + 0.055) / 1.055, 2.4);
    float f = (float)x;
    while (srgb_code(f, top) < k)
        f = nextafterf(f, 2.0f);
    while (srgb_code(nextafterf(f, 0.0f), top) >= k)
        f = nextafterf(f, 0.0f);
    return f;
}

/* glsl/portable.glsl's portable_recip on the host, each operation rounded to float on its own
 * (volatile: no contraction, no wider intermediate). */
static float portable_recip(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof(u));
    u = 0x7ef311c3u - u;
    float guess;
    memcpy(&guess, &u, sizeof(u));
    volatile float r = guess;
    for (int step = 0; step < 3; step++) {
        volatile float xr = x * r;
        volatile float e = 1.0f - xr;
        volatile float re = r * e;
        r = r + re;
    }
    return r;
}

/* Colour with alpha below 1 is multiplied by portable_recip(alpha) before it is encoded, the
 * same bits on every device: each colour sample is the least float of a code or the float below
 * it, each pixel with an alpha of its own, so that a quotient one float off lands in the
 * neighbouring code for many of them (the count is checked too), and the outputs must be the
 * codes of the host's own steps. */
Test(precision, unpremultiplied_codes_as_the_host, .timeout = 300)
{
    th_gpu g;
    th_gpu_open(&g);
    const double top = 255.0;
    const uint32_t w = 256, h = 40;
    vkfx_pixels px, out;
    tc_random_pixels(&px, w, h, 4, VKFX_SAMPLE_F32, 29);
    px.straight = true;
    float *v = px.data;
    uint32_t sensitive = 0;
    for (uint32_t i = 0; i < w * h; i++) {
        /* alpha in [1/16, 1), from a hash of the pixel's index */
        float a = 0.0625f + 0.9375f * (float)((i * 2654435761u) >> 8) / 16777216.0f;
        for (uint32_t c = 0; c < 3; c++) {
            uint32_t k = 1 + (3 * i + c) / 2 % (uint32_t)top;
            float f = srgb_least(k, top);
            v[4 * i + c] = (3 * i + c) % 2 ? nextafterf(f, 0.0f) : f;
            float p = v[4 * i + c] * a, q = p * portable_recip(a); /* as the device */
            sensitive += srgb_code(nextafterf(q, 2.0f), top) != srgb_code(q, top) ||
                         srgb_code(nextafterf(q, 0.0f), top) != srgb_code(q, top);
        }
        v[4 * i + 3] = a;
    }
    char chain[64];
    snprintf(chain, sizeof(chain), "crop:x=0:y=0:width=%u:height=%u", w, h);
    th_run(&g, chain, &px, 4, VKFX_SAMPLE_U8, 32, &out);
    uint32_t wrong = 0, first = 0;
    for (uint32_t i = 0; i < w * h; i++)
        for (uint32_t c = 0; c < 3; c++) {
            float a = v[4 * i + 3], p = v[4 * i + c] * a, q = p * portable_recip(a);
            if (((const uint8_t *)out.data)[4 * i + c] != srgb_code(q, top) && wrong++ == 0)
                first = 4 * i + c;
        }
    cr_expect_gt(sensitive, w * h, "only %u samples a float from another code", sensitive);
    cr_expect_eq(wrong, 0,
                 "%u of %u samples off the code of the host's quotient; the first: %.9g / %.9g "
                 "gave %u",
                 wrong, w * h * 3, v[first] * v[first | 3], v[first | 3],
                 ((const uint8_t *)out.data)[first]);
    vkfx_pixels_free(&px);
    vkfx_pixels_free(&out);
    th_gpu_close(&g);
}

/* 8- and 16-bit sRGB outputs take FILTERS.md's code exactly, even for the floats either side
 * of each boundary between two codes, where the device's pow() alone can land in the
 * neighbouring code (glsl/encode.comp settles it with the host's table). */
Test(precision, srgb_codes_exact_at_every_boundary, .timeout = 300)
{
    th_gpu g;
    th_gpu_open(&g);
    for (int wide = 0; wide < 2; wide++) {
        const double top = wide ? 65535.0 : 255.0;
        const uint32_t n = 2 * (uint32_t)top, w = 512, h = (n + w - 1) / w;
        vkfx_pixels px, out;
        tc_random_pixels(&px, w, h, 3, VKFX_SAMPLE_F32, 13);
        float *v = px.data;
        for (uint32_t i = 0; i < w * h; i++) {
            /* The least float whose code is k, and the float below it. */
            float f = srgb_least(1 + (i / 2) % (uint32_t)top, top);
            if (i % 2)
                f = nextafterf(f, 0.0f);
            v[3 * i] = v[3 * i + 1] = v[3 * i + 2] = f;
        }
        /* A crop of the whole image moves the floats unchanged (box:radius=0's rolling sums
         * round in the last bit of a float). */
        char chain[64];
        snprintf(chain, sizeof(chain), "crop:x=0:y=0:width=%u:height=%u", w, h);
        th_run(&g, chain, &px, 3, wide ? VKFX_SAMPLE_U16 : VKFX_SAMPLE_U8, 32, &out);
        uint32_t wrong = 0, first = 0;
        for (uint32_t i = 0; i < w * h * 3; i++) {
            uint32_t got = wide ? ((const uint16_t *)out.data)[i] : ((const uint8_t *)out.data)[i];
            if (got != srgb_code(v[i], top) && wrong++ == 0)
                first = i;
        }
        cr_expect_eq(wrong, 0,
                     "%u of %u %d-bit samples off FILTERS.md's code; the first: %.9g gave %u, "
                     "not %u",
                     wrong, w * h * 3, wide ? 16 : 8, v[first],
                     wide ? ((const uint16_t *)out.data)[first]
                          : ((const uint8_t *)out.data)[first],
                     srgb_code(v[first], top));
        vkfx_pixels_free(&px);
        vkfx_pixels_free(&out);
    }
    th_gpu_close(&g);
}
