/* The 3x3 box's kernel (glsl/box3.comp) and core/filters/box3.c: its specialization-constant
 * ids and push constants. */
#ifndef VKFX_GLSL_BOX3_H
#define VKFX_GLSL_BOX3_H

#include "shared.h"

/* The order invocations walk the image in (0: rows, 1: Morton). */
#define BOX3_SPEC_ORDER 4

#define BOX3_PUSH_BYTES 8
VKFX_PUSH_BEGIN(box3_push)
    VKFX_IVEC2(size);
VKFX_PUSH_END(box3_push)

#endif
