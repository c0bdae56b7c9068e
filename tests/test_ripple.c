/* ripple on the GPU (float32 heights) against its double reference in
 * tests/ref/ripple.c: random images and smooth ramps at 1x1, 1x257, 257x1 and
 * 333x517 in both precisions, two photos, the speed limit through the chain
 * parser, determinism per seed, and drops=0 as the identity. Tolerance: 8-bit
 * output within 1 code value on every sample (FILTERS.md). The ramps are what
 * make the comparison strong: their colour changes by 3 codes per pixel
 * along x and y, so an error in the height field's gradient times strength
 * shows up directly as a colour error in the output. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_harness.h"

static int ref_ripple_fn(const ref_image *in, ref_image *out, const void *arg, int precision)
{
    (void)precision;
    return ref_ripple(in, arg, out);
}

static int ref_identity_fn(const ref_image *in, ref_image *out, const void *arg, int precision)
{
    (void)arg;
    (void)precision;
    int ret = ref_image_alloc(out, in->w, in->h);
    if (ret == 0)
        memcpy(out->px, in->px, (size_t)in->w * in->h * 4 * sizeof(double));
    return ret;
}

/* Random RGBA with alpha codes in [64, 255]. The output is un-premultiplied,
 * which divides any error in the premultiplied colour by the interpolated
 * alpha A. Float32 on the device places the sample point to within about
 * 3e-5 pixel of the double reference (the height field's divergence after
 * the tested steps and the float coordinates of a 517-pixel image are both of
 * that order), and random premultiplied colour changes by up to 1 per pixel,
 * so the colour error is about 3e-5 / A, times up to 3300 codes per unit near
 * black (the sRGB slope): within 1 code only for A above 0.1 or so. Nearly
 * transparent pixels would test the division, not the filter (and at A = 0
 * FILTERS.md's "alpha 0 gives RGB 0" jump turns a 1e-40 pixel displacement,
 * 0 in float32, into a full-scale difference). */
static void random_pixels(vkfx_pixels *px, uint32_t w, uint32_t h, uint64_t seed)
{
    tc_random_pixels(px, w, h, 4, VKFX_SAMPLE_U8, seed);
    uint8_t *d = px->data;
    for (size_t i = 0; i < (size_t)w * h; i++)
        d[i * 4 + 3] = (uint8_t)(64 + d[i * 4 + 3] * 191 / 255);
}

static const uint32_t sizes[][2] = {{1, 1}, {1, 257}, {257, 1}, {333, 517}};
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

static void check_sizes(const th_case *base)
{
    th_gpu g;
    th_gpu_open(&g);
    int failures = 0;
    for (int precision = 16; precision <= 32; precision += 16) {
        th_case c = *base;
        c.precision = precision;
        for (size_t i = 0; i < NSIZES; i++) {
            vkfx_pixels px;
            random_pixels(&px, sizes[i][0], sizes[i][1], 31 + i);
            failures += !th_check(&g, &c, &px, 4, VKFX_SAMPLE_U8, "random");
            vkfx_pixels_free(&px);
            tc_ramp_pixels(&px, sizes[i][0], sizes[i][1]);
            failures += !th_check(&g, &c, &px, 4, VKFX_SAMPLE_U8, "ramp");
            vkfx_pixels_free(&px);
        }
    }
    th_gpu_close(&g);
    cr_assert_eq(failures, 0, "%d comparisons out of tolerance (worst pixels above)", failures);
}

/* The defaults: drops=8 seed=1 steps=200 speed=0.5 damping=0.01 strength=20. */
Test(ripple, defaults_everywhere, .timeout = 300)
{
    static const double a[6] = {8, 1, 200, 0.5, 0.01, 20};
    check_sizes(&(th_case){"ripple", ref_ripple_fn, a, 16, 1});
}

/* Many drops, fast waves at the stability limit's edge and a strong
 * refraction, so that displacements of several pixels are compared. */
Test(ripple, strong_fast_50_steps, .timeout = 300)
{
    static const double a[6] = {40, 7, 50, 0.7, 0.002, 60};
    check_sizes(&(th_case){"ripple:drops=40:seed=7:steps=50:speed=0.7:damping=0.002:strength=60",
                           ref_ripple_fn, a, 16, 1});
}

Test(ripple, photos, .timeout = 300)
{
    static const double a[6] = {12, 3, 120, 0.6, 0.01, 30};
    static const char *const names[] = {"chelsea.png", "coffee.png"};
    th_gpu g;
    th_gpu_open(&g);
    int failures = 0;
    for (size_t i = 0; i < 2; i++) {
        vkfx_pixels photo;
        cr_assert_eq(tc_load_photo(names[i], &photo), VKFX_OK, "%s: %s", names[i],
                     vkfx_error_message());
        failures += !th_check(&g,
                              &(th_case){"ripple:drops=12:seed=3:steps=120:speed=0.6:strength=30",
                                         ref_ripple_fn, a, 16, 1},
                              &photo, photo.channels, VKFX_SAMPLE_U8, names[i]);
        vkfx_pixels_free(&photo);
    }
    th_gpu_close(&g);
    cr_assert_eq(failures, 0, "%d comparisons out of tolerance (worst pixels above)", failures);
}

Test(ripple, speed_beyond_stability_is_usage_error)
{
    vkfx_chain *chain = NULL;
    int ret = vkfx_chain_parse("ripple:speed=0.71", &chain);
    cr_assert_eq(ret, VKFX_E_USAGE, "speed=0.71 (e = 0.5041) must be refused, got %d", ret);
    cr_assert_null(chain);
    cr_assert(strstr(vkfx_error_message(), "0.7071") != NULL, "message: %s", vkfx_error_message());
    cr_assert(strstr(vkfx_error_message(), "speed") != NULL, "message: %s", vkfx_error_message());
    ret = vkfx_chain_parse("ripple:speed=0.7071", &chain);
    cr_assert_eq(ret, VKFX_OK, "speed=0.7071 (e < 0.5) is stable: %s", vkfx_error_message());
    vkfx_chain_free(chain);
}

static bool same_bytes(const vkfx_pixels *a, const vkfx_pixels *b)
{
    return vkfx_pixels_bytes(a) == vkfx_pixels_bytes(b) &&
           memcmp(a->data, b->data, vkfx_pixels_bytes(a)) == 0;
}

Test(ripple, deterministic_per_seed, .timeout = 300)
{
    th_gpu g;
    th_gpu_open(&g);
    vkfx_pixels in, a, b, c, still;
    tc_ramp_pixels(&in, 200, 150);
    th_run(&g, "ripple:seed=5:steps=60", &in, in.channels, in.sample, 32, &a);
    th_run(&g, "ripple:seed=5:steps=60", &in, in.channels, in.sample, 32, &b);
    th_run(&g, "ripple:seed=6:steps=60", &in, in.channels, in.sample, 32, &c);
    th_run(&g, "ripple:drops=0", &in, in.channels, in.sample, 32, &still);
    cr_expect(same_bytes(&a, &b), "the same seed gave different bytes");
    cr_expect(!same_bytes(&a, &c), "seeds 5 and 6 gave the same bytes");
    cr_expect(!same_bytes(&a, &still), "the drops moved no pixel");
    vkfx_pixels_free(&in);
    vkfx_pixels_free(&a);
    vkfx_pixels_free(&b);
    vkfx_pixels_free(&c);
    vkfx_pixels_free(&still);
    th_gpu_close(&g);
}

Test(ripple, no_drops_is_identity, .timeout = 300)
{
    check_sizes(&(th_case){"ripple:drops=0:strength=500", ref_identity_fn, NULL, 16, 1});
}
