/* The bilateral filter's kernel (glsl/bilateral.comp) and core/filters/bilateral.c: its
 * specialization-constant ids and push constants. */
#ifndef VKFX_GLSL_BILATERAL_H
#define VKFX_GLSL_BILATERAL_H

#include "shared.h"

/* The shared tile's capacity for the radius (0: direct reads). */
#define BILATERAL_SPEC_HALO 4
/* --fast: the device's exp per tap instead of the table, its own rounding. */
#define BILATERAL_SPEC_FAST 5
/* Outputs per invocation, down a column (1, 2 or 4). */
#define BILATERAL_SPEC_ROWS 6
/* The shared window as packed halves (an rgba16f input only: exact). */
#define BILATERAL_SPEC_HALF_TILE 7
/* The weight table copied into shared memory. */
#define BILATERAL_SPEC_SHARED_TABLE 8
/* The table's index and fraction without float-int conversions (the same values). */
#define BILATERAL_SPEC_NO_CONVERT 9

/* The weight's table (binding 2, FILTERS.md's bilateral): entry i holds exp(-x) at
 * x = i / BILATERAL_STEPS and its rise to the next entry's x, for x below 24; the weight is 0
 * beyond (exp(-24) < 4e-11). */
#define BILATERAL_STEPS 64
#define BILATERAL_ENTRIES (24 * BILATERAL_STEPS)

#define BILATERAL_PUSH_BYTES 20
VKFX_PUSH_BEGIN(bilateral_push)
    VKFX_IVEC2(size);
    VKFX_INT(radius);
    VKFX_FLOAT(s_factor); /* BILATERAL_STEPS times the float nearest 1/(2 S^2) */
    VKFX_FLOAT(t_factor); /* BILATERAL_STEPS times the float nearest 1/(2 T^2) */
VKFX_PUSH_END(bilateral_push)

#endif
