/* The check of how the device rounds to halves (glsl/half_probe.comp) and core/gpu/halfprobe.c:
 * its push constants. */
#ifndef VKFX_GLSL_HALF_PROBE_H
#define VKFX_GLSL_HALF_PROBE_H

#include "shared.h"

/* The pairs of floats to convert. */
#define HALF_PROBE_PUSH_BYTES 4
VKFX_PUSH_BEGIN(half_probe_push)
    VKFX_UINT(count);
VKFX_PUSH_END(half_probe_push)

#endif
