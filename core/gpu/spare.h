/* Device objects that finished runs leave to the next: images, buffers, descriptor pools and a
 * timestamp pool, taken by a graph of the same shapes instead of made afresh, so that a batch
 * of like files makes none after its first few. Everything here is idle (the work that used it
 * has completed), its contents undefined; what the graphs begun since the last return did not
 * take is released at the next return, so no more than one graph's objects wait here. */
#ifndef VKFX_SPARE_H
#define VKFX_SPARE_H

#include <stdbool.h>

#include "context.h"
#include "gpu.h"

/* A spare image of this size and format, or NULL: the caller then makes one. */
vkfx_image *vkfx_spare_image(vkfx_context *ctx, uint32_t width, uint32_t height, VkFormat format);
/* A spare buffer made with exactly these arguments of vkfx_buffer_create, or NULL. */
vkfx_buffer *vkfx_spare_buffer(vkfx_context *ctx, VkDeviceSize size, VkBufferUsageFlags usage,
                               vkfx_memory where);
/* A spare descriptor pool (reset, every set freed) or VK_NULL_HANDLE. */
VkDescriptorPool vkfx_spare_descriptor_pool(vkfx_context *ctx);
/* A spare timestamp pool of count queries (to be reset before use) or VK_NULL_HANDLE. */
VkQueryPool vkfx_spare_query_pool(vkfx_context *ctx, uint32_t count);

/* Takes what one graph used, once its work has completed (or was never submitted): releases
 * the spares the graphs begun since the last return left, and keeps these in their place.
 * The arrays stay the caller's; on a host allocation failure the objects are released. */
void vkfx_spares_return(vkfx_context *ctx, vkfx_image **images, size_t nimages,
                        vkfx_buffer **buffers, size_t nbuffers, VkDescriptorPool *pools,
                        size_t npools, VkQueryPool queries, uint32_t nqueries);
/* Releases every spare; returns whether device memory was among them (an allocation that
 * failed may then succeed). */
bool vkfx_spares_release(vkfx_context *ctx);
/* Releases every spare and the room they took: the device is closing. */
void vkfx_spares_destroy(vkfx_context *ctx);

#endif
