#include "spare.h"

#include <stdint.h>
#include <stdlib.h>

struct vkfx_spares {
    vkfx_image **images;
    size_t nimages, capimages;
    vkfx_buffer **buffers;
    size_t nbuffers, capbuffers;
    VkDescriptorPool *pools;
    size_t npools, cappools;
    VkQueryPool queries;
    uint32_t nqueries;
};

/* Takes entry i out, the last one moving into its place: the spares' order means nothing. */
#define TAKE(array, n, i)                                                                          \
    do {                                                                                           \
        (array)[i] = (array)[--(n)];                                                               \
    } while (0)

vkfx_image *vkfx_spare_image(vkfx_context *ctx, uint32_t width, uint32_t height, VkFormat format)
{
    vkfx_spares *s = ctx->spares;
    for (size_t i = 0; s && i < s->nimages; i++) {
        vkfx_image *img = s->images[i];
        if (img->width == width && img->height == height && img->format == format) {
            TAKE(s->images, s->nimages, i);
            ctx->spare_bytes -= img->bytes;
            return img;
        }
    }
    return NULL;
}

/* Spare i made again at size bytes on its own memory, or NULL where that memory is too small.
 * Buffers of one usage share their memory types and alignment (the Vulkan specification says
 * so), so only the size is checked. */
static vkfx_buffer *remade(vkfx_context *ctx, size_t i, VkDeviceSize size)
{
    vkfx_spares *s = ctx->spares;
    vkfx_buffer *b = s->buffers[i];
    VkBufferCreateInfo bci = {
        .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
        .size = size,
        .usage = b->usage,
        .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
    };
    VkBuffer nb = VK_NULL_HANDLE;
    if (vkCreateBuffer(ctx->device, &bci, NULL, &nb) != VK_SUCCESS)
        return NULL;
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(ctx->device, nb, &req);
    if (req.size > b->allocated || vkBindBufferMemory(ctx->device, nb, b->memory, 0) != VK_SUCCESS) {
        vkDestroyBuffer(ctx->device, nb, NULL);
        return NULL;
    }
    vkDestroyBuffer(ctx->device, b->buffer, NULL);
    vkfx_count(&ctx->objects_made, 1);
    vkfx_count(&ctx->objects_freed, 1);
    b->buffer = nb;
    b->size = size;
    TAKE(s->buffers, s->nbuffers, i);
    ctx->spare_bytes -= b->allocated;
    return b;
}

vkfx_buffer *vkfx_spare_buffer(vkfx_context *ctx, VkDeviceSize size, VkBufferUsageFlags usage,
                               vkfx_memory where)
{
    vkfx_spares *s = ctx->spares;
    /* vkfx_buffer_create's size: a buffer of another size would change what VK_WHOLE_SIZE
     * and a shader's array length mean. */
    VkDeviceSize made = size ? size : 4;
    size_t fits = SIZE_MAX;
    for (size_t i = 0; s && i < s->nbuffers; i++) {
        vkfx_buffer *b = s->buffers[i];
        if (b->usage != usage || b->where != where)
            continue;
        if (b->size == made) {
            TAKE(s->buffers, s->nbuffers, i);
            ctx->spare_bytes -= b->allocated;
            return b;
        }
        /* Memory that holds this size with no more than as much again to spare. */
        if (b->allocated >= made && b->allocated <= 2 * made &&
            (fits == SIZE_MAX || b->allocated < s->buffers[fits]->allocated))
            fits = i;
    }
    /* Another size on a spare's memory: the compressed bytes of JPEG files and the tables
     * made from them differ a little from file to file, and a new VkBuffer costs far less
     * than the allocation of its memory. */
    return fits == SIZE_MAX ? NULL : remade(ctx, fits, made);
}

VkDescriptorPool vkfx_spare_descriptor_pool(vkfx_context *ctx)
{
    vkfx_spares *s = ctx->spares;
    if (!s || !s->npools)
        return VK_NULL_HANDLE;
    return s->pools[--s->npools];
}

VkQueryPool vkfx_spare_query_pool(vkfx_context *ctx, uint32_t count)
{
    vkfx_spares *s = ctx->spares;
    if (!s || !s->queries || s->nqueries != count)
        return VK_NULL_HANDLE;
    VkQueryPool q = s->queries;
    s->queries = VK_NULL_HANDLE;
    return q;
}

bool vkfx_spares_release(vkfx_context *ctx)
{
    vkfx_spares *s = ctx->spares;
    if (!s)
        return false;
    bool memory = s->nimages || s->nbuffers;
    for (size_t i = 0; i < s->nimages; i++) {
        ctx->spare_bytes -= s->images[i]->bytes;
        vkfx_image_destroy(ctx, s->images[i]);
    }
    for (size_t i = 0; i < s->nbuffers; i++) {
        ctx->spare_bytes -= s->buffers[i]->allocated;
        vkfx_buffer_destroy(ctx, s->buffers[i]);
    }
    for (size_t i = 0; i < s->npools; i++)
        vkDestroyDescriptorPool(ctx->device, s->pools[i], NULL);
    vkfx_count(&ctx->objects_freed, s->npools);
    if (s->queries) {
        vkDestroyQueryPool(ctx->device, s->queries, NULL);
        vkfx_count(&ctx->objects_freed, 1);
    }
    s->nimages = s->nbuffers = s->npools = 0;
    s->queries = VK_NULL_HANDLE;
    return memory;
}

/* Makes array, of capacity cap, hold at least n entries; ok becomes false when it cannot. */
#define ROOM(array, cap, n, ok)                                                                    \
    do {                                                                                           \
        if ((n) > (cap)) {                                                                         \
            void *grown_ = realloc((array), (n) * sizeof(*(array)));                               \
            if (grown_) {                                                                          \
                (array) = grown_;                                                                  \
                (cap) = (n);                                                                       \
            } else {                                                                               \
                (ok) = false;                                                                      \
            }                                                                                      \
        }                                                                                          \
    } while (0)

void vkfx_spares_return(vkfx_context *ctx, vkfx_image **images, size_t nimages,
                        vkfx_buffer **buffers, size_t nbuffers, VkDescriptorPool *pools,
                        size_t npools, VkQueryPool queries, uint32_t nqueries)
{
    vkfx_spares_release(ctx);
    vkfx_spares *s = ctx->spares;
    if (!s)
        s = ctx->spares = calloc(1, sizeof(*s));
    bool kept = s != NULL;
    if (kept) {
        ROOM(s->images, s->capimages, nimages, kept);
        ROOM(s->buffers, s->capbuffers, nbuffers, kept);
        ROOM(s->pools, s->cappools, npools, kept);
    }
    for (size_t i = 0; i < npools; i++)
        if (kept && vkResetDescriptorPool(ctx->device, pools[i], 0) == VK_SUCCESS) {
            s->pools[s->npools++] = pools[i];
        } else {
            vkDestroyDescriptorPool(ctx->device, pools[i], NULL);
            vkfx_count(&ctx->objects_freed, 1);
        }
    for (size_t i = 0; i < nimages; i++)
        if (kept) {
            s->images[s->nimages++] = images[i];
            ctx->spare_bytes += images[i]->bytes;
        } else {
            vkfx_image_destroy(ctx, images[i]);
        }
    for (size_t i = 0; i < nbuffers; i++)
        if (kept) {
            s->buffers[s->nbuffers++] = buffers[i];
            ctx->spare_bytes += buffers[i]->allocated;
        } else {
            vkfx_buffer_destroy(ctx, buffers[i]);
        }
    if (queries && kept) {
        s->queries = queries;
        s->nqueries = nqueries;
    } else if (queries) {
        vkDestroyQueryPool(ctx->device, queries, NULL);
        vkfx_count(&ctx->objects_freed, 1);
    }
}

void vkfx_spares_destroy(vkfx_context *ctx)
{
    vkfx_spares_release(ctx);
    if (ctx->spares) {
        free(ctx->spares->images);
        free(ctx->spares->buffers);
        free(ctx->spares->pools);
        free(ctx->spares);
        ctx->spares = NULL;
    }
}
