/* resize's kernels (glsl/resize.comp, glsl/resize_rows.comp) and core/filters/resize.c: the
 * specialization-constant ids and push constants they share. The weight table the host writes
 * holds, for each axis, the first input index and tap count of every output (two words each),
 * then the outputs' weights as floats, tap k of output i at word (2 + k) * outputs + i (taps
 * rows). resize_rows' table then holds, for each run of work-group-wide outputs, the first
 * input its outputs read and the end of the furthest run (two words a run). */
#ifndef VKFX_GLSL_RESIZE_H
#define VKFX_GLSL_RESIZE_H

#include "shared.h"

/* resize_rows: the shared capacity of a row's span, in texels. */
#define RESIZE_SPEC_SPAN 4

/* resize: one axis (vertical != 0: along y). */
#if !defined(VULKAN) || defined(RESIZE_AXIS)
#define RESIZE_PUSH_BYTES 12
VKFX_PUSH_BEGIN(resize_push)
    VKFX_IVEC2(size); /* of the pass's output */
    VKFX_UINT(vertical);
VKFX_PUSH_END(resize_push)
#endif

/* resize_rows: along x, with the spans of tiles of work-group-wide runs of outputs. */
#if !defined(VULKAN) || defined(RESIZE_ROWS)
#define RESIZE_ROWS_PUSH_BYTES 12
VKFX_PUSH_BEGIN(resize_rows_push)
    VKFX_IVEC2(size); /* of the pass's output */
    VKFX_UINT(tiles); /* the word where each tile's input span starts */
VKFX_PUSH_END(resize_rows_push)
#endif

#endif
