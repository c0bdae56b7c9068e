/* Comparing two images on the host for golden-image checks: one metric
 * (largest difference, PSNR or SSIM) over samples normalised to [0,1], and
 * a per-pixel difference map that can be rendered as a heat map. */
#ifndef VKFX_COMPARE_H
#define VKFX_COMPARE_H

#include <stdbool.h>
#include <stdint.h>

#include "pixels.h"

typedef enum vkfx_metric {
    VKFX_METRIC_MAXABS, /* largest |a - b| of any sample, in 8-bit codes (x255) */
    VKFX_METRIC_PSNR,   /* 10 log10(1 / MSE) in dB; +inf when equal */
    VKFX_METRIC_SSIM,   /* mean SSIM of the luma, 11x11 Gaussian window, sigma 1.5 */
} vkfx_metric;

typedef struct vkfx_compare_result {
    double value;       /* the metric; NaN when the sizes differ */
    bool size_mismatch; /* nothing else is compared then, and diff is NULL */
    uint32_t width, height;
    float *diff;     /* width*height largest |a - b| over the channels, or NULL */
    double max_diff; /* the largest entry of diff, normalised (0..1 for 8/16 bit) */
    uint64_t samples, differing; /* the samples compared, and those not equal */
} vkfx_compare_result;

/* "maxabs", "psnr", "ssim"; parse fails with VKFX_E_USAGE naming the choices. */
const char *vkfx_metric_name(vkfx_metric m);
int vkfx_metric_parse(const char *s, vkfx_metric *m);
/* 0 for maxabs (exact), 40 dB for psnr, 0.99 for ssim. */
double vkfx_metric_default_tolerance(vkfx_metric m);
/* maxabs passes when value <= tolerance, psnr and ssim when value >= it. */
bool vkfx_metric_passes(vkfx_metric m, double value, double tolerance);

/* Compares a and b channel by channel on their common layout: gray expands
 * to RGB when the other image has colour, a missing alpha counts as 1.
 * 8-bit samples are divided by 255, 16-bit by 65535, float taken as is.
 * Images of different sizes are a result (size_mismatch), not an error.
 * With want_diff, out->diff is allocated; free it with
 * vkfx_compare_result_free. */
int vkfx_compare(const vkfx_pixels *a, const vkfx_pixels *b, vkfx_metric m, bool want_diff,
                 vkfx_compare_result *out);
void vkfx_compare_result_free(vkfx_compare_result *r);

/* An 8-bit RGB heat map of r->diff: black where equal, rising through red
 * and yellow to white at the largest difference in the image; any nonzero
 * difference gets a nonzero red. */
int vkfx_compare_heatmap(const vkfx_compare_result *r, vkfx_pixels *out);

#endif
