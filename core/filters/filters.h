/* Host sides of the filters: each file defines one vkfx_filter descriptor
 * that core/registry.c lists, plus what other filters reuse of it. */
#ifndef VKFX_FILTERS_H
#define VKFX_FILTERS_H

#include "../filter.h"
#include "../graph.h"

extern const vkfx_filter vkfx_filter_gauss;
extern const vkfx_filter vkfx_filter_box;
extern const vkfx_filter vkfx_filter_sobel;
extern const vkfx_filter vkfx_filter_cartoon;
extern const vkfx_filter vkfx_filter_ripple;
extern const vkfx_filter vkfx_filter_bilateral;
extern const vkfx_filter vkfx_filter_box3;
extern const vkfx_filter vkfx_filter_histogram;
extern const vkfx_filter vkfx_filter_tonemap;

/* The separable Gaussian of FILTERS.md from src to dst; radius < 0 takes
 * the default floor(3 sigma + 0.5), at least 1. */
int vkfx_gauss_record(vkfx_graph *g, double sigma, int radius, vkfx_image *src, vkfx_image *dst);
int vkfx_gauss_default_radius(double sigma);

#endif
