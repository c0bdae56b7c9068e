/* The grayscale filter's kernel (glsl/grayscale.comp) and core/filters/grayscale.c: its push
 * constants. */
#ifndef VKFX_GLSL_GRAYSCALE_H
#define VKFX_GLSL_GRAYSCALE_H

#include "shared.h"

#define GRAYSCALE_PUSH_BYTES 8
VKFX_PUSH_BEGIN(grayscale_push)
    VKFX_IVEC2(size);
VKFX_PUSH_END(grayscale_push)

#endif
