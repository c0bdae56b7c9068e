/* The Gaussian's kernels (glsl/gauss_*.comp) and core/filters/gauss.c: specialization-constant
 * ids beyond glsl/tiles.h and the push constants every one of them takes. */
#ifndef VKFX_GLSL_GAUSS_H
#define VKFX_GLSL_GAUSS_H

#include "shared.h"
#include "tiles.h"

/* The weights ride in the push constants (gauss_row, gauss_col, gauss_fused, gauss_mma). */
#define GAUSS_SPEC_W_PUSH 8
/* How the taps are rounded (glsl/gauss_taps.glsl): each operation on its own, products of
 * halves and 13-bit weights that are exact, or as the device likes (--fast). */
#define GAUSS_SPEC_MODE 10
#define GAUSS_ROUNDED 0
#define GAUSS_EXACT 1
#define GAUSS_FAST 2
/* gauss_col: the radius, outputs per invocation. */
#define COL_SPEC_R 4
#define COL_SPEC_PER 5
/* gauss_mma: the radius, along rows (else columns), steps of 32 outputs per group. */
#define MMA_SPEC_R 4
#define MMA_SPEC_ROWS 5
#define MMA_SPEC_SEG 6
/* gauss_h: the tile (the group's width), the shared capacity for the radius. */
#define H_SPEC_TILE 4
#define H_SPEC_HALO 5
/* gauss_v: outputs per invocation, the shared capacity for the radius. */
#define V_SPEC_ROWS 4
#define V_SPEC_HALO 5

/* Weights w_0..w_R in the push constants below this radius: 128 bytes in all, the least any
 * device allows. amount and threshold: unsharp's, for the one-pass kernel that applies it;
 * amount is cartoon's gain in glsl/cartoon_fused.comp. */
#define GAUSS_PUSH_TAPS 25
#define GAUSS_PUSH_BYTES 128
VKFX_PUSH_BEGIN(gauss_push)
    VKFX_IVEC2(size);
    VKFX_INT(radius);
    VKFX_FLOAT(inv_two_sigma2);
    VKFX_FLOAT(norm);
    VKFX_FLOAT(amount);
    VKFX_FLOAT(threshold);
    VKFX_FLOATS(w, GAUSS_PUSH_TAPS);
VKFX_PUSH_END(gauss_push)

#endif
