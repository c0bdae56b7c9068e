/* The pipeline cache kept on disk between runs, so that a warm start skips
 * compiling the kernels: $XDG_CACHE_HOME/vkfx (else ~/.cache/vkfx), one file
 * per device named by its pipelineCacheUUID. */
#ifndef VKFX_PIPECACHE_H
#define VKFX_PIPECACHE_H

#include "context.h"

/* Creates ctx->pipeline_cache, seeded from the device's file when that is
 * readable and was written by this device and driver; otherwise it warns
 * (through the context's log) and starts empty. VKFX_PIPELINE_CACHE=0 keeps
 * the cache in memory only. Fails only when Vulkan does. */
int vkfx_pipecache_open(vkfx_context *ctx);

/* Writes the cache back (a temporary file renamed over the old one) when
 * this run built pipelines; a failure to write is a warning, not an error.
 * Destroys ctx->pipeline_cache. */
void vkfx_pipecache_close(vkfx_context *ctx);

/* mkdir -p: 0, or -1 with errno. */
int vkfx_make_dirs(const char *dir);

#endif
