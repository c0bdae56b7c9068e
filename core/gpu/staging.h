/* Persistent host-visible staging memory, suballocated as a ring: uploads
 * and read-backs go through it in chunks, so an image of any size moves
 * through a bounded amount of mapped memory while the GPU copies earlier
 * chunks. The memory is taken at the first transfer, no larger than it
 * needs. */
#ifndef VKFX_STAGING_H
#define VKFX_STAGING_H

#include <stddef.h>
#include <stdint.h>

#include "context.h"
#include "gpu.h"

/* The ring itself, free of Vulkan: allocations are released in the order
 * they were made, each once its ticket (a timeline value) has passed. */
typedef struct vkfx_ring_entry {
    uint64_t end;    /* offset just past the allocation */
    uint64_t ticket; /* timeline value after which it is free */
} vkfx_ring_entry;

typedef struct vkfx_ring {
    uint64_t size;
    uint64_t head; /* next free offset */
    uint64_t tail; /* start of the oldest live allocation */
    vkfx_ring_entry *live;
    size_t first, count, cap; /* circular queue of live allocations */
} vkfx_ring;

int vkfx_ring_init(vkfx_ring *r, uint64_t size);
void vkfx_ring_fini(vkfx_ring *r);
/* Allocates n bytes at an offset that is a multiple of align (a power of
 * two). Returns VKFX_OK, 1 when the ring must first retire its oldest live
 * allocation (wait for vkfx_ring_oldest), or VKFX_E_LIMIT when n can never
 * fit. */
int vkfx_ring_alloc(vkfx_ring *r, uint64_t n, uint64_t align, uint64_t ticket, uint64_t *offset);
/* Ticket of the oldest live allocation; 0 when the ring is empty. */
uint64_t vkfx_ring_oldest(const vkfx_ring *r);
/* Releases every live allocation whose ticket is at most done. */
void vkfx_ring_retire(vkfx_ring *r, uint64_t done);

typedef struct vkfx_staging_chunk vkfx_staging_chunk;

struct vkfx_staging {
    vkfx_context *ctx;
    vkfx_buffer *buffer;
    vkfx_ring ring;             /* as large as the buffer; empty before the first copy */
    uint64_t limit;             /* the most mapped memory taken */
    uint64_t chunk;             /* largest piece one copy moves */
    vkfx_staging_chunk *flight; /* submitted copies not yet retired */
    size_t nflight, capflight;
    uint64_t chunks_moved; /* for tests: how many copies were submitted */
};

/* Copies n host bytes to dst at offset. Returns once every chunk is
 * submitted; later submissions on the queue see the data after a transfer
 * to compute barrier. */
int vkfx_staging_upload(vkfx_staging *s, VkBuffer dst, uint64_t offset, const void *src,
                        uint64_t n);
/* Copies n bytes at offset of src back to host memory; returns when done. */
int vkfx_staging_download(vkfx_staging *s, VkBuffer src, uint64_t offset, void *dst, uint64_t n);
/* Waits for every copy in flight and releases its staging memory. */
int vkfx_staging_drain(vkfx_staging *s);

#endif
