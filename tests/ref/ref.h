/* Plain C references of the filters as the project's filter contract
 * (FILTERS.md) defines them, the yardstick the GPU kernels are tested
 * against: slow, obvious, double precision. */
#ifndef VKFX_TESTS_REF_H
#define VKFX_TESTS_REF_H

#include <stdbool.h>
#include <stdint.h>

#include "pixels.h"

/* Linear-light, premultiplied RGBA: 4 doubles per pixel, rows top to bottom. */
typedef struct ref_image {
    uint32_t w, h;
    double *px;
} ref_image;

/* Allocates a zero-filled w x h image; 0 or VKFX_E_NOMEM. */
int ref_image_alloc(ref_image *img, uint32_t w, uint32_t h);
/* Accepts NULL and an already freed image. */
void ref_image_free(ref_image *img);

/* The pixel at (x, y), which must lie inside the image. */
static inline double *ref_px(const ref_image *img, uint32_t x, uint32_t y)
{
    return img->px + ((size_t)y * img->w + x) * 4;
}

/* Clamp-to-edge access: coordinates outside the image read the nearest pixel. */
static inline const double *ref_at(const ref_image *img, int64_t x, int64_t y)
{
    int64_t cx = x < 0 ? 0 : x >= (int64_t)img->w ? (int64_t)img->w - 1 : x;
    int64_t cy = y < 0 ? 0 : y >= (int64_t)img->h ? (int64_t)img->h - 1 : y;
    return ref_px(img, (uint32_t)cx, (uint32_t)cy);
}

/* File samples to linear premultiplied RGBA: U8/U16 normalised and sRGB-
 * decoded unless linear or in->linear, F32 used as is, gray expanded to
 * R=G=B, missing alpha set to 1, then premultiplied. out is allocated. */
int ref_decode(const vkfx_pixels *in, bool linear, ref_image *out);

/* The reverse: out->channels, out->sample and out->linear are set by the
 * caller; out->data is allocated here. Un-premultiply (alpha 0 gives RGB 0);
 * U8/U16 clamp to [0,1], sRGB-encode colour unless linear or out->linear,
 * round to nearest; F32 is written linear and unclamped. Gray outputs hold
 * the luminance of the un-premultiplied linear colour. */
int ref_encode(const ref_image *img, bool linear, vkfx_pixels *out);

/* Each filter allocates out, which must not be in; 0 or a negative status. */

/* out (w x h, no larger than in) = the mean of in over each pixel's
 * footprint, source pixels weighted by the area of them it covers: the
 * preview's downscale (core/io/resample.h). */
int ref_area_downscale(const ref_image *in, uint32_t w, uint32_t h, ref_image *out);

/* Gaussian of standard deviation sigma > 0 over taps |k| <= radius (radius < 0:
 * max(1, floor(3 sigma + 0.5))), horizontal then vertical, clamp-to-edge. */
int ref_gauss(const ref_image *in, double sigma, int radius, ref_image *out);
/* The same with the row result rounded to half and the weights to 13 significant bits when
 * half_mid: what vkfx computes at --precision 16, where every stored image is rgba16f. */
int ref_gauss_stored(const ref_image *in, double sigma, int radius, bool half_mid, ref_image *out);
int ref_gauss_default_radius(double sigma);
/* Mean over the (2 radius + 1)^2 window, clamp-to-edge; radius 0 copies. */
int ref_box(const ref_image *in, int radius, ref_image *out);
/* The separable convolution both blurs use: taps[0..2 radius] are the
 * weights of offsets -radius..radius, applied along x, then along y. */
int ref_separable(const ref_image *in, const double *taps, int radius, ref_image *out);
int ref_separable_stored(const ref_image *in, const double *taps, int radius, bool half_mid,
                         ref_image *out);

/* Sobel edge value e in [0,1] at (x, y), from the premultiplied RGB. */
double ref_edge_value(const ref_image *in, uint32_t x, uint32_t y, double gain);
/* Straight colour e (1 - e if invert) with the pixel's alpha, premultiplied. */
int ref_sobel(const ref_image *in, bool invert, double gain, ref_image *out);
/* b = gauss(sigma), out = (b.rgb * (1 - e(b, gain)), b.a). */
int ref_cartoon(const ref_image *in, double sigma, double gain, ref_image *out);
int ref_ripple(const ref_image *in, const double opt[6], ref_image *out); /* see ref/ripple.c */
int ref_bilateral(const ref_image *in, double sigma_s, double sigma_r, int radius, ref_image *out);
/* The same with exp itself for the weight (FILTERS.md's table before it): what the table's
 * outputs are measured against. */
int ref_bilateral_exp(const ref_image *in, double sigma_s, double sigma_r, int radius,
                      ref_image *out);
/* counts[256 c + bin] for c = R', G', B', luma Y' of histogram (FILTERS.md);
 * ref_histogram_add counts one pixel given its three 8-bit codes. */
void ref_histogram(const ref_image *in, uint32_t counts[4 * 256]);
void ref_histogram_add(uint32_t counts[4 * 256], uint32_t r, uint32_t g, uint32_t b);
/* Global Reinhard with key A and white point W (W <= 0: none). */
int ref_tonemap(const ref_image *in, double key, double white, ref_image *out);

/* The circle of confusion of FILTERS.md "Depth of field" for depth z. */
typedef struct ref_coc_params {
    double focus, range, maxcoc;
    bool disparity;
} ref_coc_params;
double ref_coc(double z, const ref_coc_params *p);

/* satblur / satdof: the radius is fixed, floor(m * scale + 0.5) from map's
 * first channel m (map set, coc NULL), or floor(coc(z) + 0.5) with z from
 * map (map and coc set). Windows are clipped to the image. */
typedef struct ref_sat_params {
    int64_t radius;
    const vkfx_pixels *map;
    double scale;
    const ref_coc_params *coc;
    bool smooth;
} ref_sat_params;
/* The first channel of pixel i of a map, integer samples normalised by bit depth. */
double ref_map_value(const vkfx_pixels *map, size_t i);
int64_t ref_sat_radius(const ref_sat_params *p, size_t pixel);
int ref_satblur(const ref_image *in, const ref_sat_params *p, ref_image *out);

/* FILTERS.md "Holes in a depth map": z (w x h map values) with every value
 * equal to hole replaced, along rows, then along columns of the row result,
 * by the farther (larger when larger_farther, else smaller) of the nearest
 * values before and after it on its line that are not hole, or the only
 * one; a line with none keeps it. */
int ref_fill_holes(double *z, uint32_t w, uint32_t h, double hole, bool larger_farther);

/* dof: rows, then columns of the row result, each an implicit diffusion step
 * with beta = (strength * min(coc_i, coc_i+1))^2, coc per pixel (w x h); the
 * row result rounded to half when half_mid (rgba16f between the passes). */
int ref_dof(const ref_image *in, const double *coc, double strength, bool half_mid, ref_image *out);

/* bokeh in three steps: gather (hot spots: luminance > threshold and coc
 * >= 2, the first max in row-major order kept and their colour zeroed in
 * base_in; spots allocated here, free()), the caller's base blur of
 * base_in, then splat onto the base result in place. */
typedef struct ref_bokeh_params {
    double threshold, gain;
    int blades;
    size_t max;
} ref_bokeh_params;
typedef struct ref_bokeh_spot {
    uint32_t x, y;
    double coc, rgb[3];
} ref_bokeh_spot;
bool ref_bokeh_in_shape(int64_t dx, int64_t dy, int64_t R, int blades);
int ref_bokeh_gather(const ref_image *in, const double *coc, const ref_bokeh_params *p,
                     ref_image *base_in, ref_bokeh_spot **spots, size_t *kept, size_t *total);
void ref_bokeh_splat(ref_image *img, const ref_bokeh_spot *spots, size_t n,
                     const ref_bokeh_params *p);

/* One link of a parsed chain as the references of the registry test see it
 * (tests/test_registry.c): its options read by name from the filter's option
 * table. Every filter NAME has a reference
 *   int ref_filter_NAME(const ref_image *in, ref_opts *o, int precision, ref_image *out);
 * that reads its options from o, runs the plain reference on in (linear
 * premultiplied, already rounded to half at precision 16) and may widen o->tol,
 * the tolerance in 8-bit code values (1 unless it says why). */
typedef struct ref_opts {
    const struct vkfx_filter *filter;
    const void *params;
    double tol;
} ref_opts;
typedef int (*ref_filter_fn)(const ref_image *in, ref_opts *o, int precision, ref_image *out);
/* An INT, FLOAT, BOOL (0 or 1) or CHOICE (the index) option's value; VKFX_UNSET
 * where the filter derives it. An unknown name aborts. */
double ref_opt(const ref_opts *o, const char *name);
/* A PATH option's value, NULL if not given. */
const char *ref_opt_path(const ref_opts *o, const char *name);
/* The map a PATH option names, loaded (vkfx_file_load_map); false if not given. */
bool ref_opt_map(const ref_opts *o, const char *name, vkfx_pixels *map);
/* The depth-of-field options (depth, focus, range, maxcoc, kind): the depth map, loaded, and
 * the circle of confusion of each of its pixels (malloc'd). */
double *ref_opt_coc(const ref_opts *o, vkfx_pixels *depth, ref_coc_params *coc);

/* resize: separable, along x then along y, each output sample the weighted
 * sum Pillow's ImagingResample takes (FILTERS.md), in double. */
typedef enum ref_resize_kind {
    REF_RESIZE_LANCZOS3,
    REF_RESIZE_MITCHELL,
    REF_RESIZE_LINEAR,
    REF_RESIZE_BOX,
} ref_resize_kind;
double ref_resize_kernel(ref_resize_kind kind, double t);
double ref_resize_support(ref_resize_kind kind);
int ref_resize(const ref_image *in, uint32_t out_w, uint32_t out_h, ref_resize_kind kind,
               ref_image *out);
/* The w x h rectangle at (x, y), which must lie inside in. */
int ref_crop(const ref_image *in, uint32_t x, uint32_t y, uint32_t w, uint32_t h, ref_image *out);
/* A clockwise turn by angle 90, 180 or 270. */
int ref_rotate(const ref_image *in, int angle, ref_image *out);
/* Mirrored left to right (left_right) or top to bottom. */
int ref_flip(const ref_image *in, bool left_right, ref_image *out);
/* x + amount (x - gauss(sigma)) per colour channel where |x - blur| exceeds
 * threshold, x elsewhere; alpha kept; nothing clamped. */
int ref_unsharp(const ref_image *in, double sigma, double amount, double threshold,
                ref_image *out);

/* The transfer curves and luminance of FILTERS.md, for tests that need them. */
/* Rounds every value to the nearest IEEE half, as storing an image in
 * rgba16f between the links of a chain does. */
void ref_round_half(ref_image *img);
double ref_srgb_to_linear(double c);
double ref_linear_to_srgb(double v);
double ref_luma(double r, double g, double b);

#endif
