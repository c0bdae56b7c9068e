/* The unsharp filter's kernel (glsl/unsharp.comp) and core/filters/unsharp.c: its push
 * constants. */
#ifndef VKFX_GLSL_UNSHARP_H
#define VKFX_GLSL_UNSHARP_H

#include "shared.h"

#define UNSHARP_PUSH_BYTES 16
VKFX_PUSH_BEGIN(unsharp_push)
    VKFX_IVEC2(size);
    VKFX_FLOAT(amount);
    VKFX_FLOAT(threshold);
VKFX_PUSH_END(unsharp_push)

#endif
