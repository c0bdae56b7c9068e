/* One command buffer for a whole chain: filters record their passes here,
 * and the graph puts a barrier before a pass only when it reads or writes
 * something an earlier pass wrote (or writes what one read) since the last
 * barrier. Optional timestamps time every pass. */
#ifndef VKFX_GRAPH_H
#define VKFX_GRAPH_H

#include <stdbool.h>
#include <stdint.h>

#include "context.h"
#include "gpu.h"
#include "kernel.h"
#include "staging.h"

typedef struct vkfx_graph vkfx_graph;

/* What filters know of the device, read-only: limits and features that decide which kernel
 * runs and with what shape. Filled when the graph begins; filters reach nothing else of the
 * context. */
typedef struct vkfx_caps {
    uint32_t shared_memory;        /* maxComputeSharedMemorySize, bytes */
    uint32_t storage_buffer_range; /* maxStorageBufferRange, bytes */
    uint32_t subgroup_size;        /* the device's default subgroup size */
    uint32_t min_subgroup_size, max_subgroup_size;
    bool subgroup_arith;        /* subgroupInclusiveAdd and friends in compute */
    bool subgroup_size_control; /* a pipeline may require a subgroup size */
    bool shader_int64;          /* 64-bit integers in shaders */
    bool int64_atomics;         /* 64-bit atomics on storage buffers */
    bool subgroup_int64;        /* subgroup arithmetic on 64-bit integers */
    /* 16x16x16 matrix products of halves summed in float32 (VK_NV_cooperative_matrix). */
    bool matrix16;
    bool cpu; /* a software device (VK_PHYSICAL_DEVICE_TYPE_CPU, such as lavapipe) */
    /* --fast: filters may use the device's own faster arithmetic (matrix units, its exp,
     * contracted multiply-adds), whose bits differ between devices; false: every filter gives
     * the same bytes on every device (README, "Determinism"). */
    bool fast;
} vkfx_caps;

/* A resource a pass binds, in the kernel's binding order. */
typedef struct vkfx_use {
    vkfx_image *image;
    vkfx_buffer *buffer;
    bool write;
} vkfx_use;

typedef struct vkfx_dispatch {
    vkfx_kernel *kernel;
    const char *label; /* "gauss.h": for --timings */
    vkfx_use use[VKFX_MAX_BINDINGS];
    const void *push;
    uint32_t groups[3];
    vkfx_buffer *indirect; /* dispatch size from this buffer instead of groups */
    VkDeviceSize indirect_offset;
} vkfx_dispatch;

int vkfx_graph_begin(vkfx_context *ctx, uint32_t width, uint32_t height, VkFormat format,
                     bool timings, vkfx_graph **out);
/* Submits the recorded work and waits for it: vkfx_graph_submit, then
 * vkfx_graph_wait, which also reads the pass timings. */
int vkfx_graph_run(vkfx_graph *g);
int vkfx_graph_submit(vkfx_graph *g);
int vkfx_graph_wait(vkfx_graph *g);
/* Pass timings of the finished run (NULL/0 without timings). */
int vkfx_graph_timings(vkfx_graph *g, const vkfx_pass_time **times, uint32_t *count);
void vkfx_graph_destroy(vkfx_graph *g);
/* Filters' reports of a finished run (their finish hooks); keys are copied.
 * More than VKFX_MAX_NOTES in one run is VKFX_E_LIMIT. */
int vkfx_graph_note(vkfx_graph *g, const char *key, uint64_t value);
void vkfx_graph_notes(vkfx_graph *g, const vkfx_note **notes, uint32_t *count);

vkfx_context *vkfx_graph_context(vkfx_graph *g);
const vkfx_caps *vkfx_graph_caps(const vkfx_graph *g);
/* vkfx_kernel_get on the graph's context. */
int vkfx_graph_kernel(vkfx_graph *g, const vkfx_kernel_desc *desc, const vkfx_spec *spec,
                      vkfx_kernel **out);
/* vkfx_context_pack_rne on the graph's context: whether packHalf2x16 rounds to nearest even. */
int vkfx_graph_pack_rne(vkfx_graph *g, bool *rne);
uint32_t vkfx_graph_width(vkfx_graph *g);
uint32_t vkfx_graph_height(vkfx_graph *g);
VkFormat vkfx_graph_format(vkfx_graph *g);
/* The size of the image the filter recording now writes: set by vkfx_record_chain before a
 * filter that reshapes the image records (filter.h, size). */
void vkfx_graph_set_size(vkfx_graph *g, uint32_t width, uint32_t height);
/* The size the chain's first filter takes its sizes from when the input was decoded smaller
 * than its file (shrink-on-load; vkfx_run_opts.source_width); 0 x 0: the input's. */
void vkfx_graph_set_source(vkfx_graph *g, uint32_t width, uint32_t height);
void vkfx_graph_source(const vkfx_graph *g, uint32_t *width, uint32_t *height);
/* The staging memory vkfx_graph_upload copies through (set by whoever runs
 * the graph). */
void vkfx_graph_set_staging(vkfx_graph *g, vkfx_staging *staging);
/* Variants to run instead of the first that applies, "family:variant[,family:variant]..."
 * (core/gpu/variant.h); when the graph begins, the context's (VKFX_VARIANT). Taken as given: the
 * run layer checks the names against the filters' families (vkfx_variants_check). */
int vkfx_graph_force_variants(vkfx_graph *g, const char *list);
/* Sets caps.fast for the filters recorded after it (vkfx_run_opts.fast, vkfx_bench_opts.fast). */
void vkfx_graph_set_fast(vkfx_graph *g, bool fast);
const char *vkfx_graph_forced_variants(const vkfx_graph *g);
/* A forced variant did not apply (recording failed with VKFX_E_USAGE saying so): set by
 * vkfx_variant_record, read by vkfx bench --variants to skip that case. */
void vkfx_graph_note_refused_variant(vkfx_graph *g);
bool vkfx_graph_variant_was_refused(const vkfx_graph *g);
/* The file the chain's input came from (NULL if none): what depth=self reads. */
void vkfx_graph_set_input_path(vkfx_graph *g, const char *path);
const char *vkfx_graph_input_path(vkfx_graph *g);
/* Polled between passes (NULL: never): the work then goes to the device
 * one pass at a time, each waited for, so that a stop takes effect at
 * the next pass instead of after the whole chain. */
void vkfx_graph_set_cancel(vkfx_graph *g, const vkfx_cancel *cancel);

/* Decoded auxiliary maps the filters take instead of reading their files
 * (NULL: they read them); kept by whoever runs the graph. */
void vkfx_graph_set_maps(vkfx_graph *g, vkfx_maps *maps);
vkfx_maps *vkfx_graph_maps(vkfx_graph *g);

/* Temporaries that live as long as the graph, ready for use (layout GENERAL). */
int vkfx_graph_image(vkfx_graph *g, uint32_t width, uint32_t height, VkFormat format,
                     vkfx_image **out);
int vkfx_graph_buffer(vkfx_graph *g, VkDeviceSize size, VkBufferUsageFlags extra_usage,
                      vkfx_buffer **out);

/* A temporary buffer holding a copy of size host bytes (a filter's
 * auxiliary map), uploaded now, before the graph's work is submitted. */
int vkfx_graph_upload(vkfx_graph *g, const void *data, VkDeviceSize size, vkfx_buffer **out);

int vkfx_graph_dispatch(vkfx_graph *g, const vkfx_dispatch *d);
/* The one pass of a single-kernel filter: desc specialised with spec, from src (binding 0) to
 * dst (binding 1) with push, in work groups that each make tile_w x tile_h outputs, enough of
 * them to cover the graph's image. */
int vkfx_graph_pass(vkfx_graph *g, const vkfx_kernel_desc *desc, const vkfx_spec *spec,
                    const char *label, const void *push, vkfx_image *src, vkfx_image *dst,
                    uint32_t tile_w, uint32_t tile_h);
/* Transfers, ordered against the passes before and after them like dispatches: every 32-bit
 * word of buf set to value; size bytes of data (a multiple of 4, at most 65536) copied into
 * the start of buf inside the command buffer; the first size bytes of src copied to dst. */
int vkfx_graph_fill(vkfx_graph *g, vkfx_buffer *buf, uint32_t value);
int vkfx_graph_update(vkfx_graph *g, vkfx_buffer *buf, const void *data, VkDeviceSize size);
int vkfx_graph_copy(vkfx_graph *g, vkfx_buffer *src, vkfx_buffer *dst, VkDeviceSize size);

/* Makes what the given stage wrote with the given access (a transfer, a
 * shader) visible to the host once the run has finished, for results the host
 * reads from mapped memory. */
void vkfx_graph_host_reads(vkfx_graph *g, VkPipelineStageFlags2 stage, VkAccessFlags2 access);
/* Groups needed to cover n items with groups of size local. */
static inline uint32_t vkfx_groups(uint32_t n, uint32_t local)
{
    return (n + local - 1) / local;
}

#endif
