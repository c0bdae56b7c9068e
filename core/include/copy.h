/* Large host copies on several threads: moving an image in and out of the
 * staging ring is the one step of a batch that runs on a single thread
 * (the one feeding the GPU) for every file, and a single core copies only a
 * fraction of what the memory can move. */
#ifndef VKFX_COPY_H
#define VKFX_COPY_H

#include <stddef.h>

/* memcpy(dst, src, n), spread over up to 8 threads when n is large (fewer where
 * vkfx_copy_set_threads says so). */
void vkfx_copy(void *dst, const void *src, size_t n);

/* The most threads a copy takes from now on: n >= 1, or 0 for the default of up to 8. A
 * batch whose codec threads keep the other cores busy sets 1: helper threads would only
 * take turns with them. */
void vkfx_copy_set_threads(int n);

#endif
