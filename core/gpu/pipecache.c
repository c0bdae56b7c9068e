#include "pipecache.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "safefile.h"

/* The directory, created if missing; NULL (and no warning) without a home. */
static char *cache_dir(void)
{
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    char base[4096];
    if (xdg && xdg[0] == '/')
        snprintf(base, sizeof(base), "%s", xdg);
    else if (home && *home)
        snprintf(base, sizeof(base), "%s/.cache", home);
    else
        return NULL;
    size_t len = strlen(base) + 8;
    char *dir = malloc(len);
    if (dir)
        snprintf(dir, len, "%s/vkfx", base);
    return dir;
}

/* Why data is not a cache of this device, or NULL if it is one. */
static const char *foreign(const vkfx_context *ctx, const unsigned char *data, size_t size)
{
    VkPipelineCacheHeaderVersionOne h;
    if (size < sizeof(h))
        return "too short to hold a header";
    memcpy(&h, data, sizeof(h));
    if (h.headerSize < sizeof(h) || h.headerSize > size ||
        h.headerVersion != VK_PIPELINE_CACHE_HEADER_VERSION_ONE)
        return "not a Vulkan pipeline cache";
    if (h.vendorID != ctx->props.vendorID || h.deviceID != ctx->props.deviceID ||
        memcmp(h.pipelineCacheUUID, ctx->props.pipelineCacheUUID, VK_UUID_SIZE) != 0)
        return "written by another device or driver";
    return NULL;
}

int vkfx_pipecache_open(vkfx_context *ctx)
{
    int ret = VKFX_OK;
    unsigned char *data = NULL;
    size_t size = 0;
    char *dir = ctx->opts.no_pipeline_cache ? NULL : cache_dir();
    if (dir) {
        size_t len = strlen(dir) + 64;
        ctx->pipeline_cache_path = malloc(len);
        if (ctx->pipeline_cache_path) {
            char *p = ctx->pipeline_cache_path;
            p += snprintf(p, len, "%s/pipelines-", dir);
            for (unsigned i = 0; i < VK_UUID_SIZE; i++)
                p += sprintf(p, "%02x", ctx->props.pipelineCacheUUID[i]);
            strcpy(p, ".bin");
        }
        free(dir);
    }
    if (ctx->pipeline_cache_path) {
        const char *why =
            vkfx_safefile_read_cache(ctx->pipeline_cache_path, SIZE_MAX / 2, &data, &size);
        if (!why && data)
            why = foreign(ctx, data, size);
        if (why == VKFX_CACHE_NOT_REGULAR) {
            /* Nothing is written to it either: replacing a link, FIFO, device
             * or directory someone put there is not a cache's business. */
            vkfx_log(ctx, "pipeline cache %s: not a regular file; ignored, none kept",
                     ctx->pipeline_cache_path);
            free(ctx->pipeline_cache_path);
            ctx->pipeline_cache_path = NULL;
        } else if (why) {
            vkfx_log(ctx, "pipeline cache %s: %s; starting an empty one", ctx->pipeline_cache_path,
                     why);
        }
        if (why) {
            free(data);
            data = NULL;
            size = 0;
        }
    }
    VkPipelineCacheCreateInfo ci = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO,
        .initialDataSize = data ? size : 0,
        .pInitialData = data,
    };
    VK_TRY(vkCreatePipelineCache(ctx->device, &ci, NULL, &ctx->pipeline_cache));
    ctx->pipeline_cache_read = data;
    ctx->pipeline_cache_read_size = data ? size : 0;
    data = NULL;
fail:
    free(data);
    return ret;
}

void vkfx_pipecache_take(vkfx_context *ctx)
{
    unsigned char *data = NULL;
    size_t size = 0;
    if (!ctx->pipeline_cache)
        return;
    if (ctx->pipeline_cache_path && ctx->pipelines_built &&
        vkGetPipelineCacheData(ctx->device, ctx->pipeline_cache, &size, NULL) == VK_SUCCESS &&
        (data = malloc(size ? size : 1)) &&
        vkGetPipelineCacheData(ctx->device, ctx->pipeline_cache, &size, data) == VK_SUCCESS &&
        /* The same bytes as the file's (where the driver keeps only a header, lavapipe's): no
         * rewrite, and no flush to disk. */
        !(size == ctx->pipeline_cache_read_size && size &&
          memcmp(data, ctx->pipeline_cache_read, size) == 0)) {
        ctx->pipeline_cache_out = data;
        ctx->pipeline_cache_out_size = size;
        data = NULL;
    }
    free(data);
    vkDestroyPipelineCache(ctx->device, ctx->pipeline_cache, NULL);
    ctx->pipeline_cache = VK_NULL_HANDLE;
}

void vkfx_pipecache_write(vkfx_context *ctx)
{
    const char *path = ctx->pipeline_cache_path;
    char *dir = path && ctx->pipeline_cache_out ? strdup(path) : NULL;
    if (dir) {
        *strrchr(dir, '/') = 0;
        int ret = vkfx_safefile_make_dirs(dir);
        if (ret == VKFX_OK)
            ret = vkfx_safefile_write_cache(path, ctx->pipeline_cache_out,
                                            ctx->pipeline_cache_out_size);
        free(dir);
        if (ret < 0 && !ctx->run_failed)
            vkfx_log(ctx, "pipeline cache not saved: %s", vkfx_error_message());
    }
    free(ctx->pipeline_cache_out);
    ctx->pipeline_cache_out = NULL;
    free(ctx->pipeline_cache_path);
    ctx->pipeline_cache_path = NULL;
    free(ctx->pipeline_cache_read);
    ctx->pipeline_cache_read = NULL;
}
