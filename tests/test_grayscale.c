/* grayscale on the GPU against tests/ref/grayscale.c: random images at awkward sizes and every
 * channel layout, the shared photos, both precisions; 8-bit output within 1 code value. */
#include <criterion/criterion.h>

#include "gpu_harness.h"

int ref_grayscale(const ref_image *in, ref_image *out); /* tests/ref/grayscale.c */

static int ref_fn(const ref_image *in, ref_image *out, const void *arg, int precision)
{
    (void)arg;
    (void)precision;
    return ref_grayscale(in, out);
}

Test(grayscale, random_and_photos_both_precisions, .timeout = 300)
{
    static const uint32_t sizes[][2] = {{1, 1}, {1, 257}, {257, 1}, {333, 517}};
    th_gpu g;
    th_gpu_open(&g);
    int failures = 0;
    failures += th_check_random_sizes(&g, &(th_case){"grayscale", ref_fn, NULL, 16, 1}, sizes,
                                      sizeof(sizes) / sizeof(sizes[0]), 4, 600);
    for (int precision = 16; precision <= 32; precision += 16)
        failures += th_check_photos(&g, &(th_case){"grayscale", ref_fn, NULL, precision, 1});
    failures += th_check_small(&g, &(th_case){"grayscale", ref_fn, NULL, 16, 1});
    th_gpu_close(&g);
    cr_assert_eq(failures, 0, "%d comparisons out of tolerance (worst pixels above)", failures);
}

/* Y of a gray pixel is the pixel itself (the weights sum to 1). */
Test(grayscale, gray_input_is_unchanged)
{
    th_gpu g;
    th_gpu_open(&g);
    vkfx_pixels px, out;
    tc_random_pixels(&px, 31, 7, 1, VKFX_SAMPLE_U8, 610);
    th_run(&g, "grayscale", &px, 1, VKFX_SAMPLE_U8, 32, &out);
    const uint8_t *a = px.data, *b = out.data;
    for (size_t i = 0; i < 31 * 7; i++)
        cr_assert_eq(a[i], b[i], "sample %zu: %u became %u", i, a[i], b[i]);
    vkfx_pixels_free(&px);
    vkfx_pixels_free(&out);
    th_gpu_close(&g);
}
