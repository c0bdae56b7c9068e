/* Large host copies on several threads: moving an image in and out of the
 * staging ring is the one step of a batch that runs on a single thread
 * (the one feeding the GPU) for every file, and a single core copies only a
 * fraction of what the memory can move. */
#ifndef VKFX_COPY_H
#define VKFX_COPY_H

#include <stddef.h>

/* memcpy(dst, src, n), spread over up to 8 threads when n is large. */
void vkfx_copy(void *dst, const void *src, size_t n);

#endif
