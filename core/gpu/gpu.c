#include "gpu.h"

#include <stdlib.h>

#include "error.h"
#include "spare.h"

static int find_memory(vkfx_context *ctx, uint32_t type_bits, VkMemoryPropertyFlags want,
                       VkMemoryPropertyFlags avoid, uint32_t *index)
{
    /* First pass honours avoid (host-visible staging that is not device-local keeps the small
     * BAR heap free); the second takes anything that has what is wanted. */
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t i = 0; i < ctx->mem.memoryTypeCount; i++) {
            VkMemoryPropertyFlags f = ctx->mem.memoryTypes[i].propertyFlags;
            if (!(type_bits & (1u << i)) || (f & want) != want)
                continue;
            if (pass == 0 && (f & avoid))
                continue;
            *index = i;
            return VKFX_OK;
        }
    return vkfx_fail(VKFX_E_NOMEM, "no suitable Vulkan memory type");
}

static int allocate(vkfx_context *ctx, VkMemoryRequirements req, vkfx_memory where,
                    VkDeviceMemory *mem)
{
    int ret = VKFX_OK;
    uint32_t type = 0;
    if (where == VKFX_MEM_DEVICE)
        TRY(find_memory(ctx, req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0, &type));
    /* Staging is read back as well as written: cached host memory where the
     * device has it, since reading write-combined memory runs at a fraction
     * of memcpy's speed. */
    else if (find_memory(ctx, req.memoryTypeBits,
                         VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                             VK_MEMORY_PROPERTY_HOST_COHERENT_BIT |
                             VK_MEMORY_PROPERTY_HOST_CACHED_BIT,
                         VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, &type) < 0) {
        vkfx_error_clear();
        TRY(find_memory(ctx, req.memoryTypeBits,
                        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                        VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, &type));
    }
    VkMemoryAllocateInfo ai = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
        .allocationSize = req.size,
        .memoryTypeIndex = type,
    };
    VkResult r = vkAllocateMemory(ctx->device, &ai, NULL, mem);
    /* Spares that a run of another shape left must not make it fail. */
    if ((r == VK_ERROR_OUT_OF_DEVICE_MEMORY || r == VK_ERROR_OUT_OF_HOST_MEMORY) &&
        vkfx_spares_release(ctx))
        r = vkAllocateMemory(ctx->device, &ai, NULL, mem);
    if (r == VK_SUCCESS) {
        vkfx_count(&ctx->objects_made, 1);
        vkfx_count(&ctx->allocations, 1);
    }
    if (r == VK_ERROR_OUT_OF_DEVICE_MEMORY || r == VK_ERROR_OUT_OF_HOST_MEMORY)
        return vkfx_fail(VKFX_E_NOMEM,
                         "out of %s memory allocating %.1f MiB (vkfx holds %.1f MiB there)",
                         where == VKFX_MEM_DEVICE ? "GPU" : "GPU-visible host",
                         req.size / 1048576.0, ctx->device_bytes / 1048576.0);
    VK_TRY(r);
    ctx->device_bytes += req.size;
    if (!ctx->aside && ctx->device_bytes > ctx->device_bytes_peak)
        ctx->device_bytes_peak = ctx->device_bytes;
fail:
    return ret;
}

/* n rounded up to the next of eight steps between powers of two (at most 12.5% more). A buffer
 * of n bytes on the device gets the class of n + n/8, so that the memory of one file's buffer
 * holds the next file's when that is up to an eighth larger (vkfx_spare_buffer). */
static VkDeviceSize size_class(VkDeviceSize n)
{
    if (n < 16)
        return n;
    VkDeviceSize step = 1;
    while (step * 16 <= n)
        step <<= 1;
    return (n + step - 1) / step * step;
}

int vkfx_buffer_create(vkfx_context *ctx, VkDeviceSize size, VkBufferUsageFlags usage,
                       vkfx_memory where, vkfx_buffer **out)
{
    int ret = VKFX_OK;
    vkfx_buffer *b = calloc(1, sizeof(*b));
    *out = NULL;
    if (!b)
        return vkfx_fail(VKFX_E_NOMEM, "out of host memory");
    b->size = size ? size : 4;
    b->usage = usage;
    b->where = where;
    VkBufferCreateInfo bci = {
        .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
        .size = b->size,
        .usage = usage,
        .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
    };
    VK_TRY(vkCreateBuffer(ctx->device, &bci, NULL, &b->buffer));
    vkfx_count(&ctx->objects_made, 1);
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(ctx->device, b->buffer, &req);
    if (where == VKFX_MEM_DEVICE)
        req.size = size_class(req.size + req.size / 8);
    TRY(allocate(ctx, req, where, &b->memory));
    b->allocated = req.size;
    VK_TRY(vkBindBufferMemory(ctx->device, b->buffer, b->memory, 0));
    if (where == VKFX_MEM_UPLOAD)
        VK_TRY(vkMapMemory(ctx->device, b->memory, 0, VK_WHOLE_SIZE, 0, &b->mapped));
    *out = b;
    return VKFX_OK;
fail:
    vkfx_buffer_destroy(ctx, b);
    return ret;
}

void vkfx_buffer_destroy(vkfx_context *ctx, vkfx_buffer *b)
{
    if (!b)
        return;
    if (b->buffer) {
        vkDestroyBuffer(ctx->device, b->buffer, NULL);
        vkfx_count(&ctx->objects_freed, 1);
    }
    if (b->memory) {
        vkFreeMemory(ctx->device, b->memory, NULL);
        vkfx_count(&ctx->objects_freed, 1);
        ctx->device_bytes -= b->allocated;
    }
    free(b);
}

uint32_t vkfx_format_texel_bytes(VkFormat format)
{
    switch ((int)format) {
    case VK_FORMAT_R16G16B16A16_SFLOAT:
        return 8;
    case VK_FORMAT_R32G32B32A32_SFLOAT:
    case VK_FORMAT_R32G32B32A32_UINT:
        return 16;
    case VK_FORMAT_R32_SFLOAT:
    case VK_FORMAT_R32_UINT:
        return 4;
    case VK_FORMAT_R16_SFLOAT:
        return 2;
    }
    return 16;
}

int vkfx_image_create(vkfx_context *ctx, uint32_t width, uint32_t height, VkFormat format,
                      vkfx_image **out)
{
    int ret = VKFX_OK;
    *out = NULL;
    if (width > ctx->props.limits.maxImageDimension2D ||
        height > ctx->props.limits.maxImageDimension2D)
        return vkfx_fail(VKFX_E_LIMIT, "a %ux%u image exceeds this device's largest 2D image (%u)",
                         width, height, ctx->props.limits.maxImageDimension2D);
    vkfx_image *img = calloc(1, sizeof(*img));
    if (!img)
        return vkfx_fail(VKFX_E_NOMEM, "out of host memory");
    img->width = width;
    img->height = height;
    img->format = format;
    VkImageCreateInfo ici = {
        .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
        .imageType = VK_IMAGE_TYPE_2D,
        .format = format,
        .extent = {width, height, 1},
        .mipLevels = 1,
        .arrayLayers = 1,
        .samples = VK_SAMPLE_COUNT_1_BIT,
        .tiling = VK_IMAGE_TILING_OPTIMAL,
        .usage = VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_STORAGE_BIT |
                 VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT,
        .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
        .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
    };
    VK_TRY(vkCreateImage(ctx->device, &ici, NULL, &img->image));
    vkfx_count(&ctx->objects_made, 1);
    VkMemoryRequirements req;
    vkGetImageMemoryRequirements(ctx->device, img->image, &req);
    img->bytes = req.size;
    TRY(allocate(ctx, req, VKFX_MEM_DEVICE, &img->memory));
    VK_TRY(vkBindImageMemory(ctx->device, img->image, img->memory, 0));
    VkImageViewCreateInfo vci = {
        .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
        .image = img->image,
        .viewType = VK_IMAGE_VIEW_TYPE_2D,
        .format = format,
        .subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1},
    };
    VK_TRY(vkCreateImageView(ctx->device, &vci, NULL, &img->view));
    vkfx_count(&ctx->objects_made, 1);
    *out = img;
    return VKFX_OK;
fail:
    vkfx_image_destroy(ctx, img);
    return ret;
}

void vkfx_image_destroy(vkfx_context *ctx, vkfx_image *img)
{
    if (!img)
        return;
    if (img->view) {
        vkDestroyImageView(ctx->device, img->view, NULL);
        vkfx_count(&ctx->objects_freed, 1);
    }
    if (img->image) {
        vkDestroyImage(ctx->device, img->image, NULL);
        vkfx_count(&ctx->objects_freed, 1);
    }
    if (img->memory) {
        vkFreeMemory(ctx->device, img->memory, NULL);
        vkfx_count(&ctx->objects_freed, 1);
        ctx->device_bytes -= img->bytes;
    }
    free(img);
}
