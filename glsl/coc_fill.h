/* The hole fill of FILTERS.md "Holes in a depth map" (glsl/coc_fill.comp) and
 * core/filters/coc.c: its push constants. */
#ifndef VKFX_GLSL_COC_FILL_H
#define VKFX_GLSL_COC_FILL_H

#include "shared.h"

/* The map's size, the value that marks no data, along columns (else rows),
 * and whether a larger value is farther (kind=depth; else disparity). */
#define COC_FILL_PUSH_BYTES 20
VKFX_PUSH_BEGIN(coc_fill_push)
    VKFX_IVEC2(size);
    VKFX_FLOAT(hole);
    VKFX_UINT(vertical);
    VKFX_UINT(larger_farther);
VKFX_PUSH_END(coc_fill_push)

#endif
