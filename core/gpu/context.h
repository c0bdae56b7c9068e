/* The Vulkan instance and device through volk: device choice, optional
 * validation, one compute queue, and the timeline semaphore every
 * submission signals. */
#ifndef VKFX_CONTEXT_H
#define VKFX_CONTEXT_H

#include <stdbool.h>
#include <stdint.h>
#include <volk.h>

#include "vkerror.h"
#include "vkfx.h"

typedef struct vkfx_kernel vkfx_kernel;
typedef struct vkfx_spares vkfx_spares;

struct vkfx_context {
    VkInstance instance;
    VkDebugUtilsMessengerEXT messenger;
    VkPhysicalDevice phys;
    VkDevice device;
    VkQueue queue;
    uint32_t queue_family;
    VkPhysicalDeviceProperties props;
    VkPhysicalDeviceMemoryProperties mem;
    uint32_t subgroup_size, min_subgroup_size, max_subgroup_size;
    uint32_t max_workgroup_subgroups; /* with a required subgroup size */
    bool subgroup_arith;              /* subgroupInclusiveAdd and friends in compute */
    bool subgroup_size_control;
    bool shader_int64;   /* 64-bit integers in shaders (summed-area tables) */
    bool int64_atomics;  /* 64-bit atomics on storage buffers (bokeh's splats) */
    bool subgroup_int64; /* subgroup arithmetic on 64-bit integers (summed-area tables) */
    bool pipeline_stats; /* log the driver's statistics of each pipeline (VKFX_PIPELINE_STATS) */
    /* Matrix units: VK_NV_cooperative_matrix with 16x16x16 products of halves summed in
     * float32 in a subgroup (glsl/gauss_mma.comp); off with VKFX_MATRIX=0. */
    bool matrix16;
    /* packHalf2x16 gives the nearest half, ties to even: checked the first time a kernel asks
     * (core/gpu/halfprobe.c); false with VKFX_HALF_PACK=0. */
    bool pack_checked, pack_rne;
    bool timestamps;
    double timestamp_period_ns;
    VkCommandPool pool;
    VkSemaphore timeline;
    uint64_t timeline_value;        /* last value a submission will signal */
    VkSampler sampler;              /* nearest, unnormalised-free texelFetch reads */
    vkfx_kernel *kernels;           /* pipelines built so far */
    VkPipelineCache pipeline_cache; /* core/gpu/pipecache.c */
    char *pipeline_cache_path;      /* its file, NULL when none is kept */
    bool pipelines_built;           /* this run compiled pipelines the cache lacked */
    bool run_failed;                /* vkfx_context_destroy_after_failure */
    vkfx_context_times times;       /* host wall-clock of start-up and kernel builds */
    uint64_t device_bytes;          /* device memory allocated now, spares' included */
    vkfx_spares *spares;            /* core/gpu/spare.h */
    uint64_t spare_bytes;           /* device memory of the spares, idle */
    /* Command buffers given back and reset, for vkfx_cmd_begin to take before allocating one. */
    VkCommandBuffer idle_cmds[8];
    unsigned nidle_cmds;
    uint64_t device_bytes_peak;
    /* Vulkan objects made and released for runs (images, views, buffers, memory allocations,
     * descriptor and query pools, command buffers): tests check that a batch reuses them. */
    uint64_t objects_made, objects_freed;
    /* Of objects_made, the device memory allocations (vkAllocateMemory): the costly kind, which
     * a buffer of another size on a spare's memory avoids. */
    uint64_t allocations;
    volatile unsigned validation_messages;
    /* The pipeline cache file's bytes as read (to tell a change) and as kept to be written. */
    unsigned char *pipeline_cache_read, *pipeline_cache_out;
    size_t pipeline_cache_read_size, pipeline_cache_out_size;
    /* Above 0 while the context does work of its own aside from a run (the half-conversion
     * check): its allocations are not in the peak. */
    unsigned aside;
    vkfx_log_fn log;
    void *log_user;
    /* As created with; tests change the knobs (tile, variants, staging_bytes) between runs. */
    vkfx_context_opts opts;
};

/* Counts n objects made or released in objects_made or objects_freed; the pipeline builds'
 * threads make none, but the count is atomic so that no thread need know which it is. */
static inline void vkfx_count(uint64_t *counter, uint64_t n)
{
    __atomic_fetch_add(counter, n, __ATOMIC_RELAXED);
}

/* Submits an ended cmd signalling the next timeline value, returned in ticket. */
int vkfx_submit(vkfx_context *ctx, VkCommandBuffer cmd, uint64_t *ticket);
/* Waits until the timeline reaches ticket. */
int vkfx_wait(vkfx_context *ctx, uint64_t ticket);
/* Begins a command buffer; once: it is submitted a single time. */
int vkfx_cmd_begin(vkfx_context *ctx, bool once, VkCommandBuffer *cmd);
/* Gives back a command buffer that is not pending (never submitted, or its work complete). */
void vkfx_cmd_free(vkfx_context *ctx, VkCommandBuffer cmd);

/* Logs through the context's log function (validation messages, warnings). */
void vkfx_log(vkfx_context *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
