/* vkfx bench's reference kernels (glsl/copy.comp, glsl/copy_sat.comp, glsl/read.comp) and
 * core/run/bench.c: their push constants. */
#ifndef VKFX_GLSL_BENCH_H
#define VKFX_GLSL_BENCH_H

#include "shared.h"

/* copy and copy_sat */
#define COPY_PUSH_BYTES 8
#if !defined(VULKAN) || defined(COPY)
VKFX_PUSH_BEGIN(copy_push)
    VKFX_IVEC2(size);
VKFX_PUSH_END(copy_push)
#endif

/* read: never is NaN, so that the flag it writes where a sample equals it is never set, and
 * the compiler cannot drop the reads. */
#define READ_PUSH_BYTES 12
#if !defined(VULKAN) || defined(READ)
VKFX_PUSH_BEGIN(read_push)
    VKFX_IVEC2(size);
    VKFX_FLOAT(never);
VKFX_PUSH_END(read_push)
#endif

#endif
