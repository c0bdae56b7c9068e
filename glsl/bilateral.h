/* The bilateral filter's kernel (glsl/bilateral.comp) and core/filters/bilateral.c: its
 * specialization-constant ids and push constants. */
#ifndef VKFX_GLSL_BILATERAL_H
#define VKFX_GLSL_BILATERAL_H

#include "shared.h"

/* The shared tile's capacity for the radius (0: direct reads). */
#define BILATERAL_SPEC_HALO 4
/* --fast: the device's exp per tap instead of the table, its own rounding. */
#define BILATERAL_SPEC_FAST 5

/* The weight's table (binding 2, FILTERS.md's bilateral): entry i holds exp(-x) at
 * x = i / BILATERAL_STEPS and its rise to the next entry's x, for x below 24; the weight is 0
 * beyond (exp(-24) < 4e-11). */
#define BILATERAL_STEPS 64
#define BILATERAL_ENTRIES (24 * BILATERAL_STEPS)

#define BILATERAL_PUSH_BYTES 20
VKFX_PUSH_BEGIN(bilateral_push)
    VKFX_IVEC2(size);
    VKFX_INT(radius);
    VKFX_FLOAT(inv_two_s2); /* 1/(2 S^2) */
    VKFX_FLOAT(inv_two_t2); /* 1/(2 T^2) */
VKFX_PUSH_END(bilateral_push)

#endif
