/* The summed-area table's kernels (glsl/sat_tile.comp, compiled as sat_sums* and sat_table*,
 * glsl/sat_carry.comp, glsl/sat_export.comp) and core/filters/sat.c:
 * their specialization-constant ids and push constants. */
#ifndef VKFX_GLSL_SAT_H
#define VKFX_GLSL_SAT_H

#include "shared.h"

/* The sums and table passes: the fixed-point shift, blocks of 4 rows down a band. */
#define SAT_SPEC_SHIFT 4
#define SAT_SPEC_STEPS 5
/* sat_carry: add the sums left of each tile (the pass down the columns). */
#define SAT_SPEC_ADD_LEFT 4

#define SAT_TILE_PUSH_BYTES 8
#if !defined(VULKAN) || defined(SAT_TILE)
VKFX_PUSH_BEGIN(sat_tile_push)
    VKFX_IVEC2(size);
VKFX_PUSH_END(sat_tile_push)
#endif

/* sat_carry: the lines, their length in entries, the strides of the lines' entries and of
 * the left sums; with ADD_LEFT the sums pass's tile and the image height. */
#define SAT_CARRY_PUSH_BYTES 28
#if !defined(VULKAN) || defined(SAT_CARRY)
VKFX_PUSH_BEGIN(sat_carry_push)
    VKFX_UINT(nlines);
    VKFX_UINT(len);
    VKFX_UINT(estride);
    VKFX_UINT(lstride);
    VKFX_UINT(tile_w);
    VKFX_UINT(tile_h);
    VKFX_UINT(height);
VKFX_PUSH_END(sat_carry_push)
#endif

/* sat_export: the rows first .. first + rows - 1. */
#define SAT_EXPORT_PUSH_BYTES 16
#if !defined(VULKAN) || defined(SAT_EXPORT)
VKFX_PUSH_BEGIN(sat_export_push)
    VKFX_IVEC2(size);
    VKFX_INT(first);
    VKFX_INT(rows);
VKFX_PUSH_END(sat_export_push)
#endif

#endif
