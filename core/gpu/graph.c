#include "graph.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "spare.h"
#include "variant.h"

enum { HAZ_READ = 1, HAZ_WRITE = 2 };

typedef struct tracked {
    const void *resource;
    int state; /* HAZ_* accesses since the last barrier */
} tracked;

#define MAX_QUERIES 1024

struct vkfx_graph {
    vkfx_context *ctx;
    vkfx_caps caps;
    vkfx_staging *staging;
    const char *input_path;
    vkfx_maps *maps;
    uint32_t width, height;
    uint32_t source_width, source_height;
    VkFormat format;
    VkCommandBuffer cmd;
    VkDescriptorPool *pools;
    size_t npools;
    vkfx_image **images;
    size_t nimages;
    vkfx_buffer **buffers;
    size_t nbuffers;
    tracked *track;
    size_t ntrack, captrack;
    VkQueryPool queries;
    uint32_t nqueries;
    char (*labels)[48];
    vkfx_pass_time *times;
    uint32_t ntimes;
    vkfx_note notes[VKFX_MAX_NOTES];
    uint32_t nnotes;
    char forced[256]; /* vkfx_graph_force_variants */
    bool variant_refused;
    const vkfx_cancel *cancel;
    uint32_t dispatches;
    bool submitted;
    bool ended;
    uint64_t ticket; /* of the last submission */
};

vkfx_context *vkfx_graph_context(vkfx_graph *g)
{
    return g->ctx;
}
const vkfx_caps *vkfx_graph_caps(const vkfx_graph *g)
{
    return &g->caps;
}
int vkfx_graph_kernel(vkfx_graph *g, const vkfx_kernel_desc *desc, const vkfx_spec *spec,
                      vkfx_kernel **out)
{
    return vkfx_kernel_get(g->ctx, desc, spec, out);
}
int vkfx_graph_pack_rne(vkfx_graph *g, bool *rne)
{
    return vkfx_context_pack_rne(g->ctx, rne);
}
uint32_t vkfx_graph_width(vkfx_graph *g)
{
    return g->width;
}
uint32_t vkfx_graph_height(vkfx_graph *g)
{
    return g->height;
}
VkFormat vkfx_graph_format(vkfx_graph *g)
{
    return g->format;
}
void vkfx_graph_set_size(vkfx_graph *g, uint32_t width, uint32_t height)
{
    g->width = width;
    g->height = height;
}
void vkfx_graph_set_source(vkfx_graph *g, uint32_t width, uint32_t height)
{
    g->source_width = width;
    g->source_height = height;
}
void vkfx_graph_source(const vkfx_graph *g, uint32_t *width, uint32_t *height)
{
    *width = g->source_width ? g->source_width : g->width;
    *height = g->source_height ? g->source_height : g->height;
}
void vkfx_graph_set_staging(vkfx_graph *g, vkfx_staging *staging)
{
    g->staging = staging;
}
void vkfx_graph_set_input_path(vkfx_graph *g, const char *path)
{
    g->input_path = path;
}
const char *vkfx_graph_input_path(vkfx_graph *g)
{
    return g->input_path;
}
void vkfx_graph_set_fast(vkfx_graph *g, bool fast)
{
    g->caps.fast = fast;
}

int vkfx_graph_force_variants(vkfx_graph *g, const char *list)
{
    if (strlen(list) >= sizeof(g->forced))
        return vkfx_fail(VKFX_E_USAGE, "VKFX_VARIANT: '%.40s...' is longer than %zu bytes", list,
                         sizeof(g->forced) - 1);
    snprintf(g->forced, sizeof(g->forced), "%s", list);
    return VKFX_OK;
}
const char *vkfx_graph_forced_variants(const vkfx_graph *g)
{
    return g->forced;
}
void vkfx_graph_note_refused_variant(vkfx_graph *g)
{
    g->variant_refused = true;
}
bool vkfx_graph_variant_was_refused(const vkfx_graph *g)
{
    return g->variant_refused;
}
void vkfx_graph_set_maps(vkfx_graph *g, vkfx_maps *maps)
{
    g->maps = maps;
}
vkfx_maps *vkfx_graph_maps(vkfx_graph *g)
{
    return g->maps;
}

static int add_pool(vkfx_graph *g)
{
    int ret = VKFX_OK;
    VkDescriptorPool *grown = realloc(g->pools, (g->npools + 1) * sizeof(*grown));
    if (!grown)
        return vkfx_fail(VKFX_E_NOMEM, "out of host memory");
    g->pools = grown;
    g->pools[g->npools] = vkfx_spare_descriptor_pool(g->ctx);
    if (g->pools[g->npools]) {
        g->npools++;
        return VKFX_OK;
    }
    VkDescriptorPoolSize sizes[] = {
        {VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 256},
        {VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 256},
        {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 256},
    };
    VkDescriptorPoolCreateInfo pci = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
        .maxSets = 128,
        .poolSizeCount = 3,
        .pPoolSizes = sizes,
    };
    VK_TRY(vkCreateDescriptorPool(g->ctx->device, &pci, NULL, &g->pools[g->npools]));
    vkfx_count(&g->ctx->objects_made, 1);
    g->npools++;
fail:
    return ret;
}

int vkfx_graph_begin(vkfx_context *ctx, uint32_t width, uint32_t height, VkFormat format,
                     bool timings, vkfx_graph **out)
{
    int ret = VKFX_OK;
    *out = NULL;
    vkfx_graph *g = calloc(1, sizeof(*g));
    if (!g)
        return vkfx_fail(VKFX_E_NOMEM, "out of host memory");
    g->ctx = ctx;
    g->caps = (vkfx_caps){
        .shared_memory = ctx->props.limits.maxComputeSharedMemorySize,
        .storage_buffer_range = ctx->props.limits.maxStorageBufferRange,
        .subgroup_size = ctx->subgroup_size,
        .min_subgroup_size = ctx->min_subgroup_size,
        .max_subgroup_size = ctx->max_subgroup_size,
        .subgroup_arith = ctx->subgroup_arith,
        .subgroup_size_control = ctx->subgroup_size_control,
        .shader_int64 = ctx->shader_int64,
        .int64_atomics = ctx->int64_atomics,
        .subgroup_int64 = ctx->subgroup_int64,
        .matrix16 = ctx->matrix16,
        .cpu = ctx->props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU,
    };
    g->width = width;
    g->height = height;
    g->format = format;
    const char *forced = ctx->opts.variants;
    if (forced && *forced)
        TRY(vkfx_graph_force_variants(g, forced));
    TRY(add_pool(g));
    TRY(vkfx_cmd_begin(ctx, false, &g->cmd));
    if (timings && ctx->timestamps) {
        VkQueryPoolCreateInfo qci = {
            .sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
            .queryType = VK_QUERY_TYPE_TIMESTAMP,
            .queryCount = MAX_QUERIES,
        };
        g->queries = vkfx_spare_query_pool(ctx, MAX_QUERIES);
        if (!g->queries) {
            VK_TRY(vkCreateQueryPool(ctx->device, &qci, NULL, &g->queries));
            vkfx_count(&ctx->objects_made, 1);
        }
        g->labels = calloc(MAX_QUERIES, sizeof(*g->labels));
        if (!g->labels) {
            ret = vkfx_fail(VKFX_E_NOMEM, "out of host memory");
            goto fail;
        }
        vkCmdResetQueryPool(g->cmd, g->queries, 0, MAX_QUERIES);
    }
    *out = g;
    return VKFX_OK;
fail:
    vkfx_graph_destroy(g);
    return ret;
}

void vkfx_graph_destroy(vkfx_graph *g)
{
    if (!g)
        return;
    vkfx_context *ctx = g->ctx;
    /* Only this graph's work must be over: a batch keeps the next image's
     * work in flight while it finishes this one. */
    uint64_t done = 0;
    bool idle = true;
    if (g->cmd && g->submitted &&
        (vkGetSemaphoreCounterValue(ctx->device, ctx->timeline, &done) != VK_SUCCESS ||
         done < g->ticket))
        idle = vkQueueWaitIdle(ctx->queue) == VK_SUCCESS;
    /* Copies into the graph's buffers may still be in flight when recording
     * failed before any submission (a filter refusing its options after the
     * input was uploaded): they must land before the buffers go. */
    if (g->staging)
        idle = vkfx_staging_drain(g->staging) == VKFX_OK && idle;
    if (idle) {
        /* Nothing uses them any more: the next graph may. */
        vkfx_cmd_free(ctx, g->cmd);
        vkfx_spares_return(ctx, g->images, g->nimages, g->buffers, g->nbuffers, g->pools, g->npools,
                           g->queries, MAX_QUERIES);
    } else {
        /* The device is lost or the work's end unknown; destroyed, as a lost device allows. */
        if (g->cmd) {
            vkFreeCommandBuffers(ctx->device, ctx->pool, 1, &g->cmd);
            vkfx_count(&ctx->objects_freed, 1);
        }
        for (size_t i = 0; i < g->npools; i++)
            vkDestroyDescriptorPool(ctx->device, g->pools[i], NULL);
        vkfx_count(&ctx->objects_freed, g->npools);
        for (size_t i = 0; i < g->nimages; i++)
            vkfx_image_destroy(ctx, g->images[i]);
        for (size_t i = 0; i < g->nbuffers; i++)
            vkfx_buffer_destroy(ctx, g->buffers[i]);
        if (g->queries) {
            vkDestroyQueryPool(ctx->device, g->queries, NULL);
            vkfx_count(&ctx->objects_freed, 1);
        }
    }
    free(g->pools);
    free(g->images);
    free(g->buffers);
    free(g->track);
    free(g->labels);
    free(g->times);
    free(g);
}

int vkfx_graph_image(vkfx_graph *g, uint32_t width, uint32_t height, VkFormat format,
                     vkfx_image **out)
{
    int ret = VKFX_OK;
    vkfx_image *img = NULL;
    vkfx_image **grown = realloc(g->images, (g->nimages + 1) * sizeof(*grown));
    if (!grown)
        return vkfx_fail(VKFX_E_NOMEM, "out of host memory");
    g->images = grown;
    img = vkfx_spare_image(g->ctx, width, height, format);
    if (!img)
        TRY(vkfx_image_create(g->ctx, width, height, format, &img));
    g->images[g->nimages++] = img;
    /* Every image lives in GENERAL: read by texelFetch, written by imageStore. A spare's
     * contents are undefined too, and the work that used it has completed. */
    VkImageMemoryBarrier2 b = {
        .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER_2,
        .srcStageMask = VK_PIPELINE_STAGE_2_NONE,
        .dstStageMask = VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_2_COPY_BIT,
        .dstAccessMask = VK_ACCESS_2_SHADER_READ_BIT | VK_ACCESS_2_SHADER_WRITE_BIT |
                         VK_ACCESS_2_TRANSFER_READ_BIT | VK_ACCESS_2_TRANSFER_WRITE_BIT,
        .oldLayout = VK_IMAGE_LAYOUT_UNDEFINED,
        .newLayout = VK_IMAGE_LAYOUT_GENERAL,
        .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
        .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
        .image = img->image,
        .subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1},
    };
    VkDependencyInfo dep = {
        .sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO,
        .imageMemoryBarrierCount = 1,
        .pImageMemoryBarriers = &b,
    };
    vkCmdPipelineBarrier2(g->cmd, &dep);
    *out = img;
fail:
    return ret;
}

int vkfx_graph_buffer(vkfx_graph *g, VkDeviceSize size, VkBufferUsageFlags extra_usage,
                      vkfx_buffer **out)
{
    int ret = VKFX_OK;
    vkfx_buffer *buf = NULL;
    vkfx_buffer **grown = realloc(g->buffers, (g->nbuffers + 1) * sizeof(*grown));
    if (!grown)
        return vkfx_fail(VKFX_E_NOMEM, "out of host memory");
    g->buffers = grown;
    VkBufferUsageFlags usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                               VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT |
                               extra_usage;
    buf = vkfx_spare_buffer(g->ctx, size, usage, VKFX_MEM_DEVICE);
    if (!buf)
        TRY(vkfx_buffer_create(g->ctx, size, usage, VKFX_MEM_DEVICE, &buf));
    g->buffers[g->nbuffers++] = buf;
    *out = buf;
fail:
    return ret;
}

static tracked *find_track(vkfx_graph *g, const void *res)
{
    for (size_t i = 0; i < g->ntrack; i++)
        if (g->track[i].resource == res)
            return &g->track[i];
    if (g->ntrack == g->captrack) {
        size_t cap = g->captrack ? g->captrack * 2 : 16;
        tracked *grown = realloc(g->track, cap * sizeof(*grown));
        if (!grown)
            return NULL;
        g->track = grown;
        g->captrack = cap;
    }
    g->track[g->ntrack] = (tracked){res, 0};
    return &g->track[g->ntrack++];
}

static int order_uses(vkfx_graph *g, const vkfx_use *uses, size_t n)
{
    bool hazard = false;
    for (size_t i = 0; i < n; i++) {
        const void *res = uses[i].image ? (const void *)uses[i].image : uses[i].buffer;
        if (!res)
            continue;
        tracked *t = find_track(g, res);
        if (!t)
            return vkfx_fail(VKFX_E_NOMEM, "out of host memory");
        if ((t->state & HAZ_WRITE) || (uses[i].write && t->state))
            hazard = true;
    }
    if (hazard) {
        VkMemoryBarrier2 b = {
            .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER_2,
            .srcStageMask = VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_2_COPY_BIT |
                            VK_PIPELINE_STAGE_2_CLEAR_BIT,
            .srcAccessMask = VK_ACCESS_2_SHADER_WRITE_BIT | VK_ACCESS_2_TRANSFER_WRITE_BIT,
            .dstStageMask = VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_2_COPY_BIT |
                            VK_PIPELINE_STAGE_2_CLEAR_BIT | VK_PIPELINE_STAGE_2_DRAW_INDIRECT_BIT,
            .dstAccessMask = VK_ACCESS_2_SHADER_READ_BIT | VK_ACCESS_2_SHADER_WRITE_BIT |
                             VK_ACCESS_2_TRANSFER_READ_BIT | VK_ACCESS_2_TRANSFER_WRITE_BIT |
                             VK_ACCESS_2_INDIRECT_COMMAND_READ_BIT,
        };
        VkDependencyInfo dep = {
            .sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO,
            .memoryBarrierCount = 1,
            .pMemoryBarriers = &b,
        };
        vkCmdPipelineBarrier2(g->cmd, &dep);
        for (size_t i = 0; i < g->ntrack; i++)
            g->track[i].state = 0;
    }
    for (size_t i = 0; i < n; i++) {
        const void *res = uses[i].image ? (const void *)uses[i].image : uses[i].buffer;
        if (res)
            find_track(g, res)->state |= uses[i].write ? HAZ_WRITE : HAZ_READ;
    }
    return VKFX_OK;
}

int vkfx_graph_pass(vkfx_graph *g, const vkfx_kernel_desc *desc, const vkfx_spec *spec,
                    const char *label, const void *push, vkfx_image *src, vkfx_image *dst,
                    uint32_t tile_w, uint32_t tile_h)
{
    int ret = VKFX_OK;
    vkfx_kernel *k = NULL;
    TRY(vkfx_kernel_get(g->ctx, desc, spec, &k));
    vkfx_dispatch d = {
        .kernel = k,
        .label = label,
        .use = {{.image = src}, {.image = dst, .write = true}},
        .push = push,
        .groups = {vkfx_groups(g->width, tile_w), vkfx_groups(g->height, tile_h), 1},
    };
    TRY(vkfx_graph_dispatch(g, &d));
fail:
    return ret;
}

int vkfx_graph_fill(vkfx_graph *g, vkfx_buffer *buf, uint32_t value)
{
    vkfx_use use = {.buffer = buf, .write = true};
    int ret = order_uses(g, &use, 1);
    if (ret == VKFX_OK)
        vkCmdFillBuffer(g->cmd, buf->buffer, 0, VK_WHOLE_SIZE, value);
    return ret;
}

int vkfx_graph_update(vkfx_graph *g, vkfx_buffer *buf, const void *data, VkDeviceSize size)
{
    vkfx_use use = {.buffer = buf, .write = true};
    int ret = order_uses(g, &use, 1);
    if (ret == VKFX_OK)
        vkCmdUpdateBuffer(g->cmd, buf->buffer, 0, size, data);
    return ret;
}

int vkfx_graph_copy(vkfx_graph *g, vkfx_buffer *src, vkfx_buffer *dst, VkDeviceSize size)
{
    vkfx_use uses[2] = {{.buffer = src}, {.buffer = dst, .write = true}};
    int ret = order_uses(g, uses, 2);
    if (ret == VKFX_OK)
        vkCmdCopyBuffer(g->cmd, src->buffer, dst->buffer, 1, &(VkBufferCopy){.size = size});
    return ret;
}

static void stamp(vkfx_graph *g, const char *label)
{
    if (!g->queries || g->nqueries >= MAX_QUERIES)
        return;
    snprintf(g->labels[g->nqueries], sizeof(g->labels[0]), "%s", label ? label : "");
    vkCmdWriteTimestamp2(g->cmd, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, g->queries, g->nqueries++);
}

void vkfx_graph_set_cancel(vkfx_graph *g, const vkfx_cancel *cancel)
{
    g->cancel = cancel;
}

/* The passes recorded so far run to their end, then the cancel check is
 * asked; a new command buffer takes the passes after. Barriers recorded
 * there order them after the work submitted before, as submission order
 * on the one queue allows. */
static int pass_boundary(vkfx_graph *g)
{
    int ret = VKFX_OK;
    VK_TRY(vkEndCommandBuffer(g->cmd));
    TRY(vkfx_submit(g->ctx, g->cmd, &g->ticket));
    g->submitted = true;
    TRY(vkfx_wait(g->ctx, g->ticket));
    vkfx_cmd_free(g->ctx, g->cmd);
    g->cmd = VK_NULL_HANDLE;
    if (g->cancel->stop(g->cancel->user))
        return vkfx_fail(VKFX_E_STOPPED, "stopped after %u passes", g->dispatches - 1);
    TRY(vkfx_cmd_begin(g->ctx, false, &g->cmd));
fail:
    return ret;
}

int vkfx_graph_dispatch(vkfx_graph *g, const vkfx_dispatch *d)
{
    int ret = VKFX_OK;
    const vkfx_kernel_desc *desc = d->kernel->desc;
    vkfx_use uses[VKFX_MAX_BINDINGS + 1];
    size_t nuses = 0;
    if (g->cancel && g->dispatches++ > 0)
        TRY(pass_boundary(g));
    for (uint32_t i = 0; i < desc->nbind; i++)
        uses[nuses++] = d->use[i];
    if (d->indirect)
        uses[nuses++] = (vkfx_use){.buffer = d->indirect};
    TRY(order_uses(g, uses, nuses));

    VkDescriptorSet set = VK_NULL_HANDLE;
    VkDescriptorSetAllocateInfo ai = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
        .descriptorPool = g->pools[g->npools - 1],
        .descriptorSetCount = 1,
        .pSetLayouts = &d->kernel->set_layout,
    };
    VkResult r = vkAllocateDescriptorSets(g->ctx->device, &ai, &set);
    if (r == VK_ERROR_OUT_OF_POOL_MEMORY || r == VK_ERROR_FRAGMENTED_POOL) {
        TRY(add_pool(g));
        ai.descriptorPool = g->pools[g->npools - 1];
        r = vkAllocateDescriptorSets(g->ctx->device, &ai, &set);
    }
    VK_TRY(r);
    VkWriteDescriptorSet w[VKFX_MAX_BINDINGS];
    VkDescriptorImageInfo ii[VKFX_MAX_BINDINGS];
    VkDescriptorBufferInfo bi[VKFX_MAX_BINDINGS];
    for (uint32_t i = 0; i < desc->nbind; i++) {
        w[i] = (VkWriteDescriptorSet){
            .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
            .dstSet = set,
            .dstBinding = i,
            .descriptorCount = 1,
        };
        switch (desc->bind[i]) {
        case VKFX_BIND_SAMPLED:
        case VKFX_BIND_STORAGE_IMAGE:
            if (!d->use[i].image) {
                ret = vkfx_fail(VKFX_E_USAGE, "%s: binding %u needs an image", desc->name, i);
                goto fail;
            }
            ii[i] = (VkDescriptorImageInfo){g->ctx->sampler, d->use[i].image->view,
                                            VK_IMAGE_LAYOUT_GENERAL};
            w[i].descriptorType = desc->bind[i] == VKFX_BIND_SAMPLED
                                      ? VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER
                                      : VK_DESCRIPTOR_TYPE_STORAGE_IMAGE;
            w[i].pImageInfo = &ii[i];
            break;
        case VKFX_BIND_BUFFER:
            if (!d->use[i].buffer) {
                ret = vkfx_fail(VKFX_E_USAGE, "%s: binding %u needs a buffer", desc->name, i);
                goto fail;
            }
            bi[i] = (VkDescriptorBufferInfo){d->use[i].buffer->buffer, 0, VK_WHOLE_SIZE};
            w[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
            w[i].pBufferInfo = &bi[i];
            break;
        }
    }
    vkUpdateDescriptorSets(g->ctx->device, desc->nbind, w, 0, NULL);
    if (g->nqueries == 0)
        stamp(g, "start");
    vkCmdBindPipeline(g->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, d->kernel->pipeline);
    vkCmdBindDescriptorSets(g->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, d->kernel->layout, 0, 1, &set,
                            0, NULL);
    if (desc->push_size)
        vkCmdPushConstants(g->cmd, d->kernel->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0,
                           desc->push_size, d->push);
    if (d->indirect)
        vkCmdDispatchIndirect(g->cmd, d->indirect->buffer, d->indirect_offset);
    else if (d->groups[0] && d->groups[1] && d->groups[2])
        vkCmdDispatch(g->cmd, d->groups[0], d->groups[1], d->groups[2]);
    stamp(g, d->label ? d->label : desc->name);
fail:
    return ret;
}

int vkfx_graph_submit(vkfx_graph *g)
{
    int ret = VKFX_OK;
    if (!g->ended) {
        VK_TRY(vkEndCommandBuffer(g->cmd));
        g->ended = true;
    }
    TRY(vkfx_submit(g->ctx, g->cmd, &g->ticket));
    g->submitted = true;
fail:
    return ret;
}

int vkfx_graph_run(vkfx_graph *g)
{
    int ret = VKFX_OK;
    TRY(vkfx_graph_submit(g));
    TRY(vkfx_graph_wait(g));
fail:
    return ret;
}

int vkfx_graph_wait(vkfx_graph *g)
{
    int ret = VKFX_OK;
    TRY(vkfx_wait(g->ctx, g->ticket));
    if (g->queries && g->nqueries > 1) {
        uint64_t *ts = calloc(g->nqueries, sizeof(*ts));
        free(g->times);
        g->ntimes = 0;
        g->times = calloc(g->nqueries, sizeof(*g->times));
        if (!ts || !g->times) {
            free(ts);
            ret = vkfx_fail(VKFX_E_NOMEM, "out of host memory");
            goto fail;
        }
        VkResult r = vkGetQueryPoolResults(g->ctx->device, g->queries, 0, g->nqueries,
                                           g->nqueries * sizeof(uint64_t), ts, sizeof(uint64_t),
                                           VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
        if (r != VK_SUCCESS) {
            free(ts);
            VK_TRY(r);
        }
        for (uint32_t i = 1; i < g->nqueries; i++) {
            vkfx_pass_time *t = &g->times[g->ntimes++];
            snprintf(t->label, sizeof(t->label), "%s", g->labels[i]);
            t->ms = (double)(ts[i] - ts[i - 1]) * g->ctx->timestamp_period_ns * 1e-6;
        }
        free(ts);
    }
fail:
    return ret;
}

int vkfx_graph_timings(vkfx_graph *g, const vkfx_pass_time **times, uint32_t *count)
{
    *times = g->times;
    *count = g->ntimes;
    return VKFX_OK;
}

int vkfx_graph_note(vkfx_graph *g, const char *key, uint64_t value)
{
    if (g->nnotes == VKFX_MAX_NOTES)
        return vkfx_fail(VKFX_E_LIMIT, "more than %d reports from one chain", VKFX_MAX_NOTES);
    vkfx_note *n = &g->notes[g->nnotes++];
    snprintf(n->key, sizeof(n->key), "%s", key);
    n->value = value;
    return VKFX_OK;
}

void vkfx_graph_notes(vkfx_graph *g, const vkfx_note **notes, uint32_t *count)
{
    *notes = g->notes;
    *count = g->nnotes;
}

int vkfx_graph_upload(vkfx_graph *g, const void *data, VkDeviceSize size, vkfx_buffer **out)
{
    int ret = VKFX_OK;
    if (!g->staging)
        return vkfx_fail(VKFX_E_VULKAN, "this graph has no staging memory for uploads");
    TRY(vkfx_graph_buffer(g, size, 0, out));
    TRY(vkfx_staging_upload(g->staging, (*out)->buffer, 0, data, size));
fail:
    return ret;
}

void vkfx_graph_host_reads(vkfx_graph *g, VkPipelineStageFlags2 stage, VkAccessFlags2 access)
{
    VkMemoryBarrier2 b = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER_2,
        .srcStageMask = stage,
        .srcAccessMask = access,
        .dstStageMask = VK_PIPELINE_STAGE_2_HOST_BIT,
        .dstAccessMask = VK_ACCESS_2_HOST_READ_BIT,
    };
    VkDependencyInfo dep = {
        .sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO, .memoryBarrierCount = 1, .pMemoryBarriers = &b};
    vkCmdPipelineBarrier2(g->cmd, &dep);
}
