#include "pipecache.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"

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

int vkfx_make_dirs(const char *dir)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s", dir);
    for (char *p = path + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            if (mkdir(path, 0755) != 0 && errno != EEXIST)
                return -1;
            *p = '/';
        }
    return mkdir(path, 0755) != 0 && errno != EEXIST ? -1 : 0;
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

static unsigned char *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    unsigned char *data = NULL;
    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0) {
        long n = ftell(f);
        if (n >= 0 && fseek(f, 0, SEEK_SET) == 0 && (data = malloc(n ? (size_t)n : 1)) &&
            fread(data, 1, (size_t)n, f) != (size_t)n) {
            free(data);
            data = NULL;
        }
        *size = n > 0 ? (size_t)n : 0;
    }
    fclose(f);
    return data;
}

int vkfx_pipecache_open(vkfx_context *ctx)
{
    int ret = VKFX_OK;
    unsigned char *data = NULL;
    size_t size = 0;
    const char *off = getenv("VKFX_PIPELINE_CACHE");
    char *dir = off && strcmp(off, "0") == 0 ? NULL : cache_dir();
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
    if (ctx->pipeline_cache_path && access(ctx->pipeline_cache_path, F_OK) == 0) {
        data = read_file(ctx->pipeline_cache_path, &size);
        const char *why = data ? foreign(ctx, data, size) : strerror(errno);
        if (why) {
            vkfx_log(ctx, "pipeline cache %s: %s; starting an empty one", ctx->pipeline_cache_path,
                     why);
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
fail:
    free(data);
    return ret;
}

void vkfx_pipecache_close(vkfx_context *ctx)
{
    unsigned char *data = NULL;
    size_t size = 0;
    char *tmp = NULL;
    const char *path = ctx->pipeline_cache_path;
    if (!ctx->pipeline_cache)
        goto done;
    if (!path || !ctx->pipelines_built ||
        vkGetPipelineCacheData(ctx->device, ctx->pipeline_cache, &size, NULL) != VK_SUCCESS ||
        !(data = malloc(size)) ||
        vkGetPipelineCacheData(ctx->device, ctx->pipeline_cache, &size, data) != VK_SUCCESS)
        goto done;
    size_t len = strlen(path) + 32;
    char *dir = strdup(path);
    tmp = malloc(len);
    if (!dir || !tmp) {
        free(dir);
        goto done;
    }
    *strrchr(dir, '/') = 0;
    snprintf(tmp, len, "%s.%ld.tmp", path, (long)getpid());
    FILE *f = vkfx_make_dirs(dir) == 0 ? fopen(tmp, "wb") : NULL;
    free(dir);
    bool ok = f && fwrite(data, 1, size, f) == size;
    if (f && fclose(f) != 0)
        ok = false;
    if (!ok || rename(tmp, path) != 0) {
        if (!ctx->run_failed)
            vkfx_log(ctx, "pipeline cache %s: not saved: %s", path, strerror(errno));
        unlink(tmp);
    }
done:
    if (ctx->pipeline_cache)
        vkDestroyPipelineCache(ctx->device, ctx->pipeline_cache, NULL);
    ctx->pipeline_cache = VK_NULL_HANDLE;
    free(tmp);
    free(data);
    free(ctx->pipeline_cache_path);
    ctx->pipeline_cache_path = NULL;
}
