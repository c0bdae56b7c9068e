/* box3 on the GPU against the C reference ref_box(radius 1) (FILTERS.md: the
 * same result as box:radius=1) for both thread orders: random RGBA at awkward
 * sizes (1x1, 1x257, 257x1, 333x517, 1024x768, none a multiple of the 16x16
 * tile but 1024x768) in both internal precisions, every shared photo at its
 * own size, and every channel layout on tiny images. Tolerance: 1 code value
 * at 8 bits, as the box tests. The two orders only move which invocation
 * computes a pixel, so their outputs must also be byte for byte equal, which
 * the last test checks on float outputs where no rounding hides a difference. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_harness.h"

static const char *const orders[] = {"box3:order=linear", "box3:order=zorder"};
#define NORDERS (sizeof(orders) / sizeof(orders[0]))

static int ref_box3_fn(const ref_image *in, ref_image *out, const void *arg, int precision)
{
    (void)arg;
    (void)precision;
    return ref_box(in, 1, out);
}

static const uint32_t sizes[][2] = {{1, 1}, {1, 257}, {257, 1}, {333, 517}, {1024, 768}};
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

static void check_random(const char *chain)
{
    th_gpu g;
    th_gpu_open(&g);
    int failures = 0;
    failures +=
        th_check_random_sizes(&g, &(th_case){chain, ref_box3_fn, NULL, 16, 1}, sizes, NSIZES, 4, 7);
    th_gpu_close(&g);
    cr_assert_eq(failures, 0, "%d comparisons out of tolerance (worst pixels above)", failures);
}

static void check_photos(const char *chain)
{
    th_gpu g;
    th_gpu_open(&g);
    int failures = 0;
    for (int precision = 16; precision <= 32; precision += 16)
        failures += th_check_photos(&g, &(th_case){chain, ref_box3_fn, NULL, precision, 1});
    th_gpu_close(&g);
    cr_assert_eq(failures, 0, "%d comparisons out of tolerance (worst pixels above)", failures);
}

/* Images smaller than one tile and than the 3x3 window, every channel layout. */
static void check_small(const char *chain)
{
    th_gpu g;
    th_gpu_open(&g);
    int failures = th_check_small(&g, &(th_case){chain, ref_box3_fn, NULL, 16, 1});
    th_gpu_close(&g);
    cr_assert_eq(failures, 0, "%d comparisons out of tolerance (worst pixels above)", failures);
}

Test(box3, linear_random_everywhere, .timeout = 300)
{
    check_random(orders[0]);
}

Test(box3, zorder_random_everywhere, .timeout = 300)
{
    check_random(orders[1]);
}

Test(box3, linear_photos, .timeout = 300)
{
    check_photos(orders[0]);
}

Test(box3, zorder_photos, .timeout = 300)
{
    check_photos(orders[1]);
}

Test(box3, linear_small_every_channel_count)
{
    check_small(orders[0]);
}

Test(box3, zorder_small_every_channel_count)
{
    check_small(orders[1]);
}

/* Byte-for-byte equality of the two orders (and of the default with linear); on a mismatch
 * names the first differing byte. */
static int check_equal(th_gpu *g, const vkfx_pixels *in, vkfx_sample sample, int precision,
                       const char *what)
{
    static const char *const chains[] = {"box3:order=linear", "box3:order=zorder", "box3"};
    vkfx_pixels out[3];
    for (size_t i = 0; i < 3; i++)
        th_run(g, chains[i], in, in->channels, sample, precision, &out[i]);
    int failures = 0;
    size_t bytes = vkfx_pixels_bytes(&out[0]);
    for (size_t i = 1; i < 3; i++) {
        cr_assert_eq(vkfx_pixels_bytes(&out[i]), bytes);
        if (memcmp(out[0].data, out[i].data, bytes) == 0)
            continue;
        size_t b = 0;
        while (((const unsigned char *)out[0].data)[b] == ((const unsigned char *)out[i].data)[b])
            b++;
        size_t px = b / (vkfx_sample_size(sample) * in->channels);
        fprintf(stderr,
                "%s %ux%u %uch %s rgba%df: [%s] and [%s] differ first at byte %zu "
                "(pixel %zu, %zu)\n",
                what, in->width, in->height, in->channels,
                sample == VKFX_SAMPLE_F32 ? "float" : "8-bit", precision, chains[0], chains[i], b,
                px % in->width, px / in->width);
        failures++;
    }
    for (size_t i = 0; i < 3; i++)
        vkfx_pixels_free(&out[i]);
    return failures;
}

Test(box3, linear_equals_zorder_exactly, .timeout = 300)
{
    th_gpu g;
    th_gpu_open(&g);
    int failures = 0;
    for (int precision = 16; precision <= 32; precision += 16)
        for (size_t i = 0; i < NSIZES; i++) {
            vkfx_pixels px;
            tc_random_pixels(&px, sizes[i][0], sizes[i][1], 4, VKFX_SAMPLE_U8, 40 + i);
            failures += check_equal(&g, &px, VKFX_SAMPLE_U8, precision, "random");
            failures += check_equal(&g, &px, VKFX_SAMPLE_F32, precision, "random");
            vkfx_pixels_free(&px);
        }
    vkfx_pixels photo;
    cr_assert_eq(tc_load_photo("coffee.png", &photo), VKFX_OK, "%s", vkfx_error_message());
    failures += check_equal(&g, &photo, VKFX_SAMPLE_F32, 32, "coffee.png");
    failures += check_equal(&g, &photo, VKFX_SAMPLE_F32, 16, "coffee.png");
    vkfx_pixels_free(&photo);
    th_gpu_close(&g);
    cr_assert_eq(failures, 0, "%d order pairs not byte-identical (first differences above)",
                 failures);
}
