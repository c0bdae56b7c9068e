/* The diffusion depth of field's kernel (glsl/dof.comp) and core/filters/dof.c: its
 * specialization-constant ids and push constants. */
#ifndef VKFX_GLSL_DOF_H
#define VKFX_GLSL_DOF_H

#include "shared.h"

/* Along columns (else rows). */
#define DOF_SPEC_VERTICAL 4

/* The circle of confusion, the diffusion per pixel of it, rows each invocation takes. */
#define DOF_PUSH_BYTES 32
VKFX_PUSH_BEGIN(dof_push)
    VKFX_IVEC2(size);
    VKFX_FLOAT(focus);
    VKFX_FLOAT(inv_range);
    VKFX_FLOAT(maxcoc);
    VKFX_FLOAT(strength);
    VKFX_UINT(disparity);
    VKFX_INT(rows_per_invocation);
VKFX_PUSH_END(dof_push)

#endif
