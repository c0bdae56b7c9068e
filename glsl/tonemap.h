/* The tone mapper's kernels (glsl/tonemap_reduce.comp, glsl/tonemap_sum.comp,
 * glsl/tonemap_apply.comp) and core/filters/tonemap.c: their
 * specialization-constant ids and push constants. */
#ifndef VKFX_GLSL_TONEMAP_H
#define VKFX_GLSL_TONEMAP_H

#include "shared.h"

/* tonemap_reduce: rows each invocation walks down its column. */
#define TONEMAP_SPEC_PER 4

#define TONEMAP_REDUCE_PUSH_BYTES 8
#if !defined(VULKAN) || defined(TONEMAP_REDUCE)
VKFX_PUSH_BEGIN(tonemap_reduce_push)
    VKFX_IVEC2(size);
VKFX_PUSH_END(tonemap_reduce_push)
#endif

/* tonemap_sum: the partials, 1 / the pixels they cover (rounded to float), the key. */
#define TONEMAP_SUM_PUSH_BYTES 12
#if !defined(VULKAN) || defined(TONEMAP_SUM)
VKFX_PUSH_BEGIN(tonemap_sum_push)
    VKFX_UINT(count);
    VKFX_FLOAT(inv_pixels);
    VKFX_FLOAT(key);
VKFX_PUSH_END(tonemap_sum_push)
#endif

/* tonemap_apply: 1 / W^2 (0: no white point). */
#define TONEMAP_APPLY_PUSH_BYTES 12
#if !defined(VULKAN) || defined(TONEMAP_APPLY)
VKFX_PUSH_BEGIN(tonemap_apply_push)
    VKFX_IVEC2(size);
    VKFX_FLOAT(inv_w2);
VKFX_PUSH_END(tonemap_apply_push)
#endif

#endif
