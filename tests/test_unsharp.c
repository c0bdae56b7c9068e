/* unsharp on the GPU against ref_unsharp (tests/ref/geometry.c): random images at awkward sizes,
 * the photos, both precisions, with and without a threshold; 8-bit output within 1 code value. */
#include <criterion/criterion.h>
#include <stdio.h>

#include "gpu_harness.h"

typedef struct unsharp_arg {
    double sigma, amount, threshold;
} unsharp_arg;

static int ref_fn(const ref_image *in, ref_image *out, const void *arg, int precision)
{
    (void)precision;
    const unsharp_arg *a = arg;
    return ref_unsharp(in, a->sigma, a->amount, a->threshold, out);
}

Test(unsharp, random_and_photos_both_precisions, .timeout = 600)
{
    static const unsharp_arg args[] = {{1, 1, 0}, {2.5, 0.6, 0}, {0.7, 3, 0.02}};
    static const uint32_t sizes[][2] = {{1, 1}, {1, 57}, {57, 1}, {131, 77}};
    th_gpu g;
    th_gpu_open(&g);
    int failures = 0;
    for (size_t a = 0; a < sizeof(args) / sizeof(args[0]); a++) {
        char chain[128];
        snprintf(chain, sizeof(chain), "unsharp:sigma=%g:amount=%g:threshold=%g", args[a].sigma,
                 args[a].amount, args[a].threshold);
        failures += th_check_random_sizes(&g, &(th_case){chain, ref_fn, &args[a], 16, 1}, sizes,
                                          sizeof(sizes) / sizeof(sizes[0]), 3, 2980);
        failures += th_check_photos(&g, &(th_case){chain, ref_fn, &args[a], 16, 1});
    }
    th_gpu_close(&g);
    cr_assert_eq(failures, 0, "%d comparisons out of tolerance (worst pixels above)", failures);
}
