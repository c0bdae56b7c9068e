/* resize's kernels (glsl/resize.comp, resize_rows.comp, resize_walk.comp) and
 * core/filters/resize.c: the specialization-constant ids and push constants they share. The
 * weight table the host writes holds, for each axis, the first input index and tap count of
 * every output (two words each), then the outputs' weights as floats, tap k of output i at
 * word (2 + k) * outputs + i (taps rows). resize_rows' table then holds, for each run of
 * work-group-wide outputs, the first input its outputs read and the end of the furthest run
 * (two words a run). resize_walk's tables are in glsl/resize_walk.comp; resize_ratio reads the
 * axis's table alone. */
#ifndef VKFX_GLSL_RESIZE_H
#define VKFX_GLSL_RESIZE_H

#include "shared.h"

/* resize_rows: the shared capacity of a row's span, in texels. */
#define RESIZE_SPEC_SPAN 4
/* resize_walk: the inputs each invocation reads before it adds them. */
#define RESIZE_SPEC_UNROLL 5
/* resize_walk: the most outputs an input feeds (the running sums in registers). */
#define RESIZE_WALK_SLOTS 7
/* resize_ratio: the input size over the output size, and the taps of an output off the edges. */
#define RESIZE_SPEC_RATIO 6
#define RESIZE_SPEC_TAPS 7

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

/* resize_walk: one axis that shrinks, each invocation walking a line. */
#if !defined(VULKAN) || defined(RESIZE_WALK)
#define RESIZE_WALK_PUSH_BYTES 16
VKFX_PUSH_BEGIN(resize_walk_push)
    VKFX_IVEC2(size); /* of the pass's output */
    VKFX_UINT(vertical);
    VKFX_UINT(seg); /* outputs a segment */
VKFX_PUSH_END(resize_walk_push)
#endif

/* resize_ratio: one axis whose input is a whole number of times its output. */
#if !defined(VULKAN) || defined(RESIZE_RATIO)
#define RESIZE_RATIO_PUSH_BYTES 28
VKFX_PUSH_BEGIN(resize_ratio_push)
    VKFX_IVEC2(size); /* of the pass's output */
    VKFX_UINT(vertical);
    VKFX_UINT(seg); /* outputs a segment */
    VKFX_UINT(lo);  /* outputs [lo, hi) read R i + first on with the weights of output lo */
    VKFX_UINT(hi);
    VKFX_INT(first);
VKFX_PUSH_END(resize_ratio_push)
#endif

#endif
