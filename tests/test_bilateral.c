/* bilateral on the GPU against tests/ref/bilateral.c: random images at the
 * awkward sizes in both internal precisions, the shared photos, every
 * channel layout, radii larger than the image, and both of the kernel's
 * paths (window in shared memory, window read through the texture cache).
 * At --precision 16 the input is rounded to half before the kernel reads it,
 * and the reference gets the same rounded input (gpu_harness), so the range
 * weights agree. Tolerance: 8-bit output within 1 code value (FILTERS.md). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "context.h"
#include "filter.h"
#include "gpu_harness.h"

typedef struct bilateral_arg {
    double sigma_s, sigma_r;
    int radius; /* -1: the default */
} bilateral_arg;

static int ref_bilateral_fn(const ref_image *in, ref_image *out, const void *arg, int precision)
{
    (void)precision;
    const bilateral_arg *a = arg;
    return ref_bilateral(in, a->sigma_s, a->sigma_r, a->radius, out);
}

/* Bytes of the kernel's shared window for radius r (glsl/bilateral.comp). */
static uint32_t window_bytes(uint32_t r)
{
    return (16 + 2 * r) * (16 + 2 * r) * 16;
}

static const uint32_t sizes[][2] = {{1, 1}, {1, 257}, {257, 1}, {333, 517}, {1024, 768}};
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

/* Random RGBA at every awkward size in both precisions. */
static int check_random(th_gpu *g, const th_case *base, size_t nsizes)
{
    return th_check_random_sizes(g, base, sizes, nsizes, 4, 31);
}

/* The default radius (6) keeps the window in shared memory. */
Test(bilateral, default_random_everywhere, .timeout = 300)
{
    th_gpu g;
    th_gpu_open(&g);
    static const bilateral_arg a = {3.0, 0.1, -1};
    cr_assert_leq(window_bytes(6), g.ctx->props.limits.maxComputeSharedMemorySize);
    int failures = check_random(
        &g, &(th_case){"bilateral:sigma_s=3:sigma_r=0.1", ref_bilateral_fn, &a, 16, 1}, NSIZES);
    th_gpu_close(&g);
    cr_assert_eq(failures, 0, "%d comparisons out of tolerance (worst pixels above)", failures);
}

/* Photos have the smooth regions and sharp edges the filter is for. */
Test(bilateral, photos, .timeout = 300)
{
    th_gpu g;
    th_gpu_open(&g);
    static const bilateral_arg a = {3.0, 0.1, -1};
    int failures = 0;
    for (int precision = 16; precision <= 32; precision += 16) {
        th_case c = {"bilateral:sigma_s=3:sigma_r=0.1", ref_bilateral_fn, &a, precision, 1};
        for (const char *const *name = tc_photos(); *name; name++) {
            vkfx_pixels photo, cut;
            cr_assert_eq(tc_load_photo(*name, &photo), VKFX_OK, "%s: %s", *name,
                         vkfx_error_message());
            uint32_t w = photo.width < 333 ? photo.width : 333;
            uint32_t h = photo.height < 517 ? photo.height : 517;
            cr_assert_eq(tc_fit(&photo, w, h, &cut), VKFX_OK);
            failures += !th_check(&g, &c, &cut, cut.channels, VKFX_SAMPLE_U8, *name);
            vkfx_pixels_free(&cut);
            vkfx_pixels_free(&photo);
        }
    }
    th_gpu_close(&g);
    cr_assert_eq(failures, 0, "%d comparisons out of tolerance (worst pixels above)", failures);
}

Test(bilateral, channels_and_tiny_images)
{
    th_gpu g;
    th_gpu_open(&g);
    static const bilateral_arg a = {1.5, 0.2, -1};
    int failures = 0;
    for (int precision = 16; precision <= 32; precision += 16)
        failures += th_check_small(&g, &(th_case){"bilateral:sigma_s=1.5:sigma_r=0.2",
                                                  ref_bilateral_fn, &a, precision, 1});
    th_gpu_close(&g);
    cr_assert_eq(failures, 0, "%d comparisons out of tolerance (worst pixels above)", failures);
}

/* Radius 40 does not fit in shared memory on lavapipe (32 KiB), nor on
 * most devices: the texture-cache path, with a window larger than the
 * image. */
Test(bilateral, radius_larger_than_image)
{
    th_gpu g;
    th_gpu_open(&g);
    static const bilateral_arg a = {20.0, 0.3, 40};
    cr_assert_gt(window_bytes(40), g.ctx->props.limits.maxComputeSharedMemorySize);
    int failures = 0;
    for (int precision = 16; precision <= 32; precision += 16)
        failures += th_check_small(&g, &(th_case){"bilateral:sigma_s=20:sigma_r=0.3:radius=40",
                                                  ref_bilateral_fn, &a, precision, 1});
    th_gpu_close(&g);
    cr_assert_eq(failures, 0, "%d comparisons out of tolerance (worst pixels above)", failures);
}

/* Around the shared-memory limit: the largest radius whose window fits
 * (on lavapipe 14, a tile sized to the radius itself rather than the next
 * power of two) and the smallest that does not, over several work groups. */
Test(bilateral, shared_limit_both_paths, .timeout = 300)
{
    th_gpu g;
    th_gpu_open(&g);
    uint32_t limit = g.ctx->props.limits.maxComputeSharedMemorySize;
    int fit = 1;
    while (fit < 64 && window_bytes((uint32_t)fit + 1) <= limit)
        fit++;
    int failures = 0;
    for (int r = fit; r <= fit + 1 && r <= 64; r++) {
        bilateral_arg a = {r / 2.0, 0.15, r};
        char chain[96];
        snprintf(chain, sizeof(chain), "bilateral:sigma_s=%g:sigma_r=0.15:radius=%d", a.sigma_s, r);
        vkfx_pixels px;
        tc_random_pixels(&px, 83, 61, 4, VKFX_SAMPLE_U8, 400 + (uint64_t)r);
        for (int precision = 16; precision <= 32; precision += 16)
            failures += !th_check(&g, &(th_case){chain, ref_bilateral_fn, &a, precision, 1}, &px, 4,
                                  VKFX_SAMPLE_U8, "random");
        vkfx_pixels_free(&px);
    }
    th_gpu_close(&g);
    cr_assert_eq(failures, 0, "%d comparisons out of tolerance (worst pixels above)", failures);
}

/* With sigma_r far above any colour distance the range weights are all
 * close to 1 and the filter tends to the Gaussian-weighted window mean. */
Test(bilateral, large_sigma_r, .timeout = 300)
{
    th_gpu g;
    th_gpu_open(&g);
    static const bilateral_arg a = {2.0, 10.0, -1};
    int failures = check_random(
        &g, &(th_case){"bilateral:sigma_s=2:sigma_r=10", ref_bilateral_fn, &a, 16, 1}, NSIZES - 1);
    th_gpu_close(&g);
    cr_assert_eq(failures, 0, "%d comparisons out of tolerance (worst pixels above)", failures);
}

/* The radius sigma_s derives, floor(2 sigma_s + 0.5), stays within the radius option's range
 * up to sigma_s's own maximum: a derived radius the option would refuse ran a window the
 * kernel was never checked at (sigma_s=100 gave radius 200 and black outputs). */
Test(bilateral, derived_radius_within_the_radius_option)
{
    const vkfx_option *sigma = NULL, *radius = NULL;
    for (const vkfx_option *o = vkfx_filter_find("bilateral")->options; o->name; o++) {
        if (strcmp(o->name, "sigma_s") == 0)
            sigma = o;
        if (strcmp(o->name, "radius") == 0)
            radius = o;
    }
    cr_assert(sigma && radius);
    double derived = floor(2.0 * sigma->max + 0.5);
    cr_assert_leq(derived, radius->max, "sigma_s=%g derives radius %g beyond radius's %g",
                  sigma->max, derived, radius->max);
    static const bilateral_arg a = {32, 0.3, -1};
    th_gpu g;
    th_gpu_open(&g);
    vkfx_pixels px;
    tc_random_pixels(&px, 23, 17, 4, VKFX_SAMPLE_U8, 291);
    cr_expect(th_check(&g,
                       &(th_case){"bilateral:sigma_s=32:sigma_r=0.3", ref_bilateral_fn, &a, 16, 1},
                       &px, 4, VKFX_SAMPLE_U8, "sigma_s at its maximum"));
    vkfx_pixels_free(&px);
    th_gpu_close(&g);
}

/* FILTERS.md's weight table against exp itself (the filter's contract before the table), both
 * in double in the reference: on the photos as 8-bit files, no code moves by more than 1. */
Test(bilateral, table_within_one_code_of_exp, .timeout = 300)
{
    static const double sigmas[][2] = {{3.0, 0.1}, {4.0, 0.08}, {1.5, 0.02}};
    int worst = 0;
    size_t moved = 0, total = 0;
    for (const char *const *name = tc_photos(); *name; name++) {
        vkfx_pixels photo, cut;
        cr_assert_eq(tc_load_photo(*name, &photo), VKFX_OK, "%s: %s", *name, vkfx_error_message());
        cr_assert_eq(tc_fit(&photo, photo.width < 160 ? photo.width : 160,
                            photo.height < 120 ? photo.height : 120, &cut),
                     VKFX_OK);
        for (size_t s = 0; s < sizeof(sigmas) / sizeof(sigmas[0]); s++) {
            ref_image in, table, exact;
            vkfx_pixels a = {.channels = cut.channels, .sample = VKFX_SAMPLE_U8};
            vkfx_pixels b = a;
            cr_assert_eq(ref_decode(&cut, false, &in), VKFX_OK);
            cr_assert_eq(ref_bilateral(&in, sigmas[s][0], sigmas[s][1], -1, &table), VKFX_OK);
            cr_assert_eq(ref_bilateral_exp(&in, sigmas[s][0], sigmas[s][1], -1, &exact), VKFX_OK);
            cr_assert_eq(ref_encode(&table, false, &a), VKFX_OK);
            cr_assert_eq(ref_encode(&exact, false, &b), VKFX_OK);
            const uint8_t *pa = a.data, *pb = b.data;
            for (size_t i = 0; i < vkfx_pixels_bytes(&a); i++) {
                int d = abs((int)pa[i] - (int)pb[i]);
                worst = d > worst ? d : worst;
                moved += d != 0;
                total++;
            }
            vkfx_pixels_free(&a);
            vkfx_pixels_free(&b);
            ref_image_free(&in);
            ref_image_free(&table);
            ref_image_free(&exact);
        }
        vkfx_pixels_free(&cut);
        vkfx_pixels_free(&photo);
    }
    cr_log_info("bilateral table against exp: %zu of %zu codes moved, by %d at most", moved, total,
                worst);
    cr_assert_leq(worst, 1, "a code moved by %d (%zu of %zu moved)", worst, moved, total);
}
