/* Device resources: buffers and the rgba16f/rgba32f images filters read
 * (sampled, texelFetch) and write (storage, no format qualifier). */
#ifndef VKFX_GPU_H
#define VKFX_GPU_H

#include <stdbool.h>
#include <stdint.h>

#include "context.h"

typedef enum vkfx_memory {
    VKFX_MEM_DEVICE, /* device-local */
    VKFX_MEM_UPLOAD, /* host-visible, coherent: staging both ways */
} vkfx_memory;

typedef struct vkfx_buffer {
    VkBuffer buffer;
    VkDeviceMemory memory;
    VkDeviceSize size;
    VkDeviceSize allocated; /* bytes of device memory behind it */
    void *mapped;           /* host-visible buffers only */
    VkBufferUsageFlags usage;
    vkfx_memory where;
} vkfx_buffer;

int vkfx_buffer_create(vkfx_context *ctx, VkDeviceSize size, VkBufferUsageFlags usage,
                       vkfx_memory where, vkfx_buffer **out);
void vkfx_buffer_destroy(vkfx_context *ctx, vkfx_buffer *b);

typedef struct vkfx_image {
    VkImage image;
    VkImageView view;
    VkDeviceMemory memory;
    VkDeviceSize bytes;
    uint32_t width, height;
    VkFormat format;
} vkfx_image;

int vkfx_image_create(vkfx_context *ctx, uint32_t width, uint32_t height, VkFormat format,
                      vkfx_image **out);
void vkfx_image_destroy(vkfx_context *ctx, vkfx_image *img);

/* Bytes of one texel of the formats vkfx uses for images. */
uint32_t vkfx_format_texel_bytes(VkFormat format);

#endif
