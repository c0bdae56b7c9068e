/* What C and GLSL share: a header that both a filter's C file (core/filters/) and its kernels
 * (glsl/) include defines their specialization-constant ids and push constants once, through
 * these macros. In GLSL (glslang defines VULKAN) a push block is the uniform block `pc`; in C it is a struct of
 * the same layout (scalars and vectors of 4-byte members, std430), whose size the kernel
 * descriptor takes and _Static_assert checks against the header's stated size. A header with
 * several push blocks gives each its own guard: GLSL declares only the block of the kernel
 * that defines that guard before the include, C declares them all. */
#ifndef VKFX_GLSL_SHARED_H
#define VKFX_GLSL_SHARED_H

#ifdef VULKAN
#define VKFX_PUSH_BEGIN(type) layout(push_constant) uniform type {
#define VKFX_PUSH_END(type) } pc;
#define VKFX_IVEC2(name) ivec2 name
#define VKFX_INT(name) int name
#define VKFX_UINT(name) uint name
#define VKFX_FLOAT(name) float name
#define VKFX_FLOATS(name, n) float name[n]
#else
#include <stdint.h>
#define VKFX_PUSH_BEGIN(type) typedef struct type {
#define VKFX_PUSH_END(type) } type;
#define VKFX_IVEC2(name) int32_t name[2]
#define VKFX_INT(name) int32_t name
#define VKFX_UINT(name) uint32_t name
#define VKFX_FLOAT(name) float name
#define VKFX_FLOATS(name, n) float name[n]
/* The index in vkfx_spec.extra of specialization constant id (kernels' own ids start at 4),
 * and the count of extra constants up to and including id. */
#define VKFX_SPEC(id) ((id) - 4)
#define VKFX_SPEC_COUNT(id) ((id) - 3)
#endif

#endif
