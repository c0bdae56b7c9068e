/* The kernel of crop, rotate and flip (glsl/remap.comp) and core/filters/geometry.c: its push
 * constants. */
#ifndef VKFX_GLSL_REMAP_H
#define VKFX_GLSL_REMAP_H

#include "shared.h"

#define REMAP_PUSH_BYTES 32
VKFX_PUSH_BEGIN(remap_push)
    VKFX_IVEC2(size); /* of the output */
    VKFX_IVEC2(origin);
    VKFX_IVEC2(step_x);
    VKFX_IVEC2(step_y);
VKFX_PUSH_END(remap_push)

#endif
