/* The pipeline cache kept on disk between runs, so that a warm start skips
 * compiling the kernels: $XDG_CACHE_HOME/vkfx (else ~/.cache/vkfx), one file
 * per device named by its pipelineCacheUUID. */
#ifndef VKFX_PIPECACHE_H
#define VKFX_PIPECACHE_H

#include "context.h"

/* Creates ctx->pipeline_cache, seeded from the device's file when that is
 * readable and was written by this device and driver; otherwise it warns
 * (through the context's log) and starts empty. A path that is not a
 * regular file (a FIFO, a directory) is never read nor written. VKFX_PIPELINE_CACHE=0 keeps
 * the cache in memory only. Fails only when Vulkan does. */
int vkfx_pipecache_open(vkfx_context *ctx);

/* Keeps the cache's bytes in memory when this run compiled pipelines it did
 * not hold and they differ from the file's, then destroys ctx->pipeline_cache
 * (before the device goes). */
void vkfx_pipecache_take(vkfx_context *ctx);
/* Writes the bytes kept (through core/include/safefile.h); a failure to write is a
 * warning, not an error, and none after a failed run. */
void vkfx_pipecache_write(vkfx_context *ctx);

#endif
