/* Compute pipelines built from embedded SPIR-V. Every kernel follows one
 * binding convention, declared in its descriptor: the bindings of set 0 in
 * order, sampled images (inputs, read with texelFetch) first by convention,
 * then storage images (outputs), then storage buffers. Specialization
 * constants 0-2 are the work-group size, 3 the subgroup size and 15 whether
 * the output is rgba16f; kernels add their own from 4 on. */
#ifndef VKFX_KERNEL_H
#define VKFX_KERNEL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "context.h"

typedef enum vkfx_binding {
    VKFX_BIND_SAMPLED,       /* sampler2D, read with texelFetch */
    VKFX_BIND_STORAGE_IMAGE, /* image2D without format, written */
    VKFX_BIND_BUFFER,        /* storage buffer */
} vkfx_binding;

#define VKFX_MAX_BINDINGS 8
/* Specialization constants: 0-3 (work group, subgroup), up to 8 extra from 4 on, 14 and 15. */
#define VKFX_MAX_SPEC 14

typedef struct vkfx_kernel_desc {
    const char *name;
    const uint32_t *code;
    size_t code_size; /* bytes */
    uint32_t nbind;
    vkfx_binding bind[VKFX_MAX_BINDINGS];
    uint32_t push_size;
} vkfx_kernel_desc;

/* The embedded SPIR-V arrays are named vkfx_spv_NAME. */
#define VKFX_SPV(name) .code = vkfx_spv_##name, .code_size = sizeof(vkfx_spv_##name)

/* The descriptor of kernel NAME (glsl/NAME.comp) that reads one image at binding 0 and writes
 * one at binding 1, with push constants of type push_type. */
#define VKFX_IMAGE_KERNEL(kname, push_type)                                                        \
    {                                                                                              \
        .name = #kname, VKFX_SPV(kname), .nbind = 2,                                               \
        .bind = {VKFX_BIND_SAMPLED, VKFX_BIND_STORAGE_IMAGE}, .push_size = sizeof(push_type),      \
    }

typedef struct vkfx_spec {
    uint32_t local[3];
    uint32_t subgroup; /* 0: let the device choose (no required size) */
    uint32_t extra[VKFX_MAX_SPEC - 6];
    uint32_t nextra;
    uint32_t half_out; /* constant 15: the output image is rgba16f */
    uint32_t pack_rne; /* constant 14: let packHalf2x16 round (ctx->pack_rne; PACK_RNE) */
} vkfx_spec;

/* The halo a kernel's shared tile holds for radius r: the least power of two from first up
 * that is at least r, so that one pipeline serves a range of radii, where bytes(halo, shape)
 * is within limit; else r itself where that is; else 0 (the kernel reads through the texture
 * cache). */
uint32_t vkfx_pick_halo(uint32_t r, uint32_t first, uint32_t limit,
                        uint32_t (*bytes)(uint32_t halo, uint32_t shape), uint32_t shape);

/* half_out for a kernel writing an image of this format. */
uint32_t vkfx_half_out(VkFormat output);

/* A weight the host computed for a kernel's multiply-adds on halves, rounded to the nearest
 * float of VKFX_WEIGHT_BITS significant bits (ties to even; weights below 2^-100 become 0): its
 * product with any half is then exact in float, so that a device contracting the multiply and
 * the add into one operation gives the bits of one that does not. */
#define VKFX_WEIGHT_BITS 13
float vkfx_exact_weight(double w);

struct vkfx_kernel {
    const vkfx_kernel_desc *desc;
    vkfx_spec spec;
    VkDescriptorSetLayout set_layout;
    VkPipelineLayout layout;
    VkPipeline pipeline;
    vkfx_context *ctx;
    bool compiled; /* not found in the pipeline cache */
    double build_ms; /* vkCreateComputePipelines' wall time */
    /* A build started by vkfx_kernel_prepare, on its own thread until joined. */
    bool building;
    pthread_t thread;
    int ret;
    char *message; /* its error */
    struct vkfx_kernel *next;
};

/* Returns the pipeline for desc specialised with spec, building it once per
 * context. With spec->subgroup set and subgroup size control available the
 * pipeline requires exactly that size and full subgroups. */
int vkfx_kernel_get(vkfx_context *ctx, const vkfx_kernel_desc *desc, const vkfx_spec *spec,
                    vkfx_kernel **out);
/* Starts building a kernel a later vkfx_kernel_get of the same thread will
 * ask for, on a thread of its own, so that the compilations of a first run
 * overlap; nothing when it is built or started already, or when no thread can
 * be started. A failure is reported by that vkfx_kernel_get. */
void vkfx_kernel_prepare(vkfx_context *ctx, const vkfx_kernel_desc *desc, const vkfx_spec *spec);
/* Waits for the builds started by vkfx_kernel_prepare. */
void vkfx_kernels_wait(vkfx_context *ctx);
void vkfx_kernels_destroy(vkfx_context *ctx);

#endif
