/* The ripple's kernels (glsl/ripple_step.comp, glsl/ripple_apply.comp) and
 * core/filters/ripple.c: their specialization-constant ids and push constants. */
#ifndef VKFX_GLSL_RIPPLE_H
#define VKFX_GLSL_RIPPLE_H

#include "shared.h"

/* ripple_step: the radius of a drop's disc. */
#define RIPPLE_SPEC_RADIUS 4

/* ripple_step: the scheme's coefficients, whether this is step 0 (the drops), the drops. */
#define RIPPLE_STEP_PUSH_BYTES 28
#if !defined(VULKAN) || defined(RIPPLE_STEP)
VKFX_PUSH_BEGIN(ripple_step_push)
    VKFX_IVEC2(size);
    VKFX_FLOAT(k1);
    VKFX_FLOAT(k2);
    VKFX_FLOAT(k3);
    VKFX_UINT(init);
    VKFX_UINT(ndrops);
VKFX_PUSH_END(ripple_step_push)
#endif

/* No float operation of the ripple sees a subnormal, which devices may flush to zero or keep
 * (Vulkan leaves it to each): heights and displacements below 2^-64 in magnitude become 0
 * (ripple_flush), and so do coefficients below 2^-32 (core/filters/ripple.c), so that every
 * product and sum of the scheme stays a normal float or exactly 0. */
#define RIPPLE_TINY_COEFF 0x1p-32
#ifdef VULKAN
float ripple_flush(float v)
{
    return abs(v) < uintBitsToFloat(0x1f800000u) ? 0.0 : v; // 2^-64
}
#endif

/* ripple_apply: pixels of displacement per unit of slope. */
#define RIPPLE_APPLY_PUSH_BYTES 12
#if !defined(VULKAN) || defined(RIPPLE_APPLY)
VKFX_PUSH_BEGIN(ripple_apply_push)
    VKFX_IVEC2(size);
    VKFX_FLOAT(strength);
VKFX_PUSH_END(ripple_apply_push)
#endif

#endif
