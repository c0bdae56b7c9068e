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

/* Writes the cache back (through core/safefile.h) when
 * this run built pipelines; a failure to write is a warning, not an error.
 * Destroys ctx->pipeline_cache. */
void vkfx_pipecache_close(vkfx_context *ctx);

#endif
