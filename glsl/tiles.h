/* Specialization-constant ids of the shared tiles of separable filters (glsl/rowtile.glsl,
 * glsl/fusedtile.glsl), as the Gaussian's and the box's kernels take them; included by
 * core/filters/gauss.c, core/filters/box.c and their kernels. */
#ifndef VKFX_GLSL_TILES_H
#define VKFX_GLSL_TILES_H

/* The row passes (gauss_row, box_row): the radius (gauss) or the shared capacity for it (box),
 * outputs per invocation, rows per group, a tile of halves. */
#define ROW_SPEC_R 4
#define ROW_SPEC_RUN 5
#define ROW_SPEC_ROWS 6
#define ROW_SPEC_HALF_TILE 7
/* The one-pass kernels (gauss_fused, box_fused): the radius, outputs down per invocation, rows
 * of 32 invocations, row results across per invocation, row results column by column. */
#define FUSED_SPEC_R 4
#define FUSED_SPEC_PER 5
#define FUSED_SPEC_LY 6
#define FUSED_SPEC_RUN 7
#define FUSED_SPEC_BY_COLUMN 9
/* gauss_fused: row results kept as halves (0, for an rgba16f output), as floats (1, for an
 * rgba32f one), or as floats with unsharp applied to the blur before the store (2). */
#define FUSED_SPEC_FLOAT 11

#endif
