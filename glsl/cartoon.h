/* The cartoon filter's kernel (glsl/cartoon.comp) and core/filters/cartoon.c: its
 * specialization-constant ids and push constants. */
#ifndef VKFX_GLSL_CARTOON_H
#define VKFX_GLSL_CARTOON_H

#include "shared.h"

/* Outputs down per invocation. */
#define CARTOON_SPEC_PER 4

#define CARTOON_PUSH_BYTES 12
VKFX_PUSH_BEGIN(cartoon_push)
    VKFX_IVEC2(size);
    VKFX_FLOAT(gain);
VKFX_PUSH_END(cartoon_push)

#endif
