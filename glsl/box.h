/* The box's kernels (glsl/box_*.comp) and core/filters/box.c: specialization-constant ids
 * beyond glsl/tiles.h and the push constants every one of them takes. */
#ifndef VKFX_GLSL_BOX_H
#define VKFX_GLSL_BOX_H

#include "shared.h"
#include "tiles.h"

/* box_h: outputs per invocation. box_v: outputs down per invocation. */
#define BOX_H_SPEC_SEG 4
#define BOX_V_SPEC_PER 4

#define BOX_PUSH_BYTES 16
VKFX_PUSH_BEGIN(box_push)
    VKFX_IVEC2(size);
    VKFX_INT(radius);
    VKFX_FLOAT(scale);
VKFX_PUSH_END(box_push)

#endif
