/* The histogram's kernels (glsl/histogram.comp, compiled as histogram and histogram_sg) and
 * core/filters/histogram.c: their specialization-constant ids and push constants. */
#ifndef VKFX_GLSL_HISTOGRAM_H
#define VKFX_GLSL_HISTOGRAM_H

#include "shared.h"

/* Rows each invocation walks. */
#define HISTOGRAM_SPEC_PER 4

#define HISTOGRAM_PUSH_BYTES 8
VKFX_PUSH_BEGIN(histogram_push)
    VKFX_IVEC2(size);
VKFX_PUSH_END(histogram_push)

#endif
