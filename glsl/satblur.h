/* The summed-area blur's kernel (glsl/satblur.comp) and core/filters/satblur.c: its
 * specialization-constant ids and push constants. */
#ifndef VKFX_GLSL_SATBLUR_H
#define VKFX_GLSL_SATBLUR_H

#include "shared.h"

/* Where the radius comes from (0: the push constants, 1: the map, 2: the depth), the table's
 * fixed-point shift, the smooth shape (two nested boxes). */
#define SATBLUR_SPEC_MODE 4
#define SATBLUR_SPEC_SHIFT 5
#define SATBLUR_SPEC_SMOOTH 6

/* The radius (mode 0), the map's scale (mode 1), the circle of confusion (mode 2). */
#define SATBLUR_PUSH_BYTES 32
VKFX_PUSH_BEGIN(satblur_push)
    VKFX_IVEC2(size);
    VKFX_INT(radius);
    VKFX_FLOAT(scale);
    VKFX_FLOAT(focus);
    VKFX_FLOAT(inv_range);
    VKFX_FLOAT(maxcoc);
    VKFX_UINT(disparity);
VKFX_PUSH_END(satblur_push)

#endif
