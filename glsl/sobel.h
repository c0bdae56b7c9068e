/* The Sobel filter's kernel (glsl/sobel.comp) and core/filters/sobel.c: its
 * specialization-constant ids and push constants. */
#ifndef VKFX_GLSL_SOBEL_H
#define VKFX_GLSL_SOBEL_H

#include "shared.h"

/* Outputs down per invocation. */
#define SOBEL_SPEC_PER 4

#define SOBEL_PUSH_BYTES 16
VKFX_PUSH_BEGIN(sobel_push)
    VKFX_IVEC2(size);
    VKFX_FLOAT(gain);
    VKFX_UINT(invert);
VKFX_PUSH_END(sobel_push)

#endif
