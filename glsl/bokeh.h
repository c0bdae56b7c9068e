/* The bokeh's kernels (glsl/bokeh_*.comp) and core/filters/bokeh.c: their push constants. */
#ifndef VKFX_GLSL_BOKEH_H
#define VKFX_GLSL_BOKEH_H

#include "shared.h"

/* bokeh_append, bokeh_count, bokeh_gather (through glsl/bokeh.glsl): which pixels are hot
 * spots, their circle of confusion, the room for spots. */
#define BOKEH_SPOTS_PUSH_BYTES 32
#if !defined(VULKAN) || defined(BOKEH_SPOTS)
VKFX_PUSH_BEGIN(bokeh_spots_push)
    VKFX_IVEC2(size);
    VKFX_FLOAT(threshold);
    VKFX_FLOAT(focus);
    VKFX_FLOAT(inv_range);
    VKFX_FLOAT(maxcoc);
    VKFX_UINT(disparity);
    VKFX_UINT(max_spots);
VKFX_PUSH_END(bokeh_spots_push)
#endif

/* bokeh_redo, bokeh_offsets: the rows, the room for spots. */
#define BOKEH_ROWS_PUSH_BYTES 8
#if !defined(VULKAN) || defined(BOKEH_ROWS)
VKFX_PUSH_BEGIN(bokeh_rows_push)
    VKFX_UINT(nrows);
    VKFX_UINT(max_spots);
VKFX_PUSH_END(bokeh_rows_push)
#endif

/* bokeh_splat: the spots' gain, the aperture's blades (0: a disc), the cosine and sine of the
 * angle between neighbouring corners (2 pi / blades), from the host: the device's differ
 * between devices. */
#define BOKEH_SPLAT_PUSH_BYTES 24
#if !defined(VULKAN) || defined(BOKEH_SPLAT)
VKFX_PUSH_BEGIN(bokeh_splat_push)
    VKFX_IVEC2(size);
    VKFX_FLOAT(gain);
    VKFX_UINT(blades);
    VKFX_FLOAT(cos_step);
    VKFX_FLOAT(sin_step);
VKFX_PUSH_END(bokeh_splat_push)
#endif

#define BOKEH_COMBINE_PUSH_BYTES 8
#if !defined(VULKAN) || defined(BOKEH_COMBINE)
VKFX_PUSH_BEGIN(bokeh_combine_push)
    VKFX_IVEC2(size);
VKFX_PUSH_END(bokeh_combine_push)
#endif

#endif
