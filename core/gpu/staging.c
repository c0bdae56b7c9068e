#include "staging.h"

#include <stdlib.h>
#include <string.h>

#include "copy.h"
#include "error.h"

int vkfx_ring_init(vkfx_ring *r, uint64_t size)
{
    memset(r, 0, sizeof(*r));
    r->size = size;
    r->cap = 16;
    r->live = calloc(r->cap, sizeof(*r->live));
    return r->live ? VKFX_OK : vkfx_fail(VKFX_E_NOMEM, "out of host memory");
}

void vkfx_ring_fini(vkfx_ring *r)
{
    free(r->live);
    memset(r, 0, sizeof(*r));
}

static int push_live(vkfx_ring *r, uint64_t end, uint64_t ticket)
{
    if (r->count == r->cap) {
        vkfx_ring_entry *grown = calloc(r->cap * 2, sizeof(*grown));
        if (!grown)
            return vkfx_fail(VKFX_E_NOMEM, "out of host memory");
        for (size_t i = 0; i < r->count; i++)
            grown[i] = r->live[(r->first + i) % r->cap];
        free(r->live);
        r->live = grown;
        r->first = 0;
        r->cap *= 2;
    }
    r->live[(r->first + r->count) % r->cap] = (vkfx_ring_entry){end, ticket};
    r->count++;
    return VKFX_OK;
}

int vkfx_ring_alloc(vkfx_ring *r, uint64_t n, uint64_t align, uint64_t ticket, uint64_t *offset)
{
    if (n == 0 || n > r->size || align == 0 || (align & (align - 1)))
        return vkfx_fail(VKFX_E_LIMIT, "staging request of %llu bytes cannot fit %llu bytes",
                         (unsigned long long)n, (unsigned long long)r->size);
    if (r->count == 0)
        r->head = r->tail = 0;
    uint64_t start = (r->head + align - 1) & ~(align - 1);
    if (r->count == 0 || r->head > r->tail) {
        /* Free space is [head, size) and then [0, tail). */
        if (start + n <= r->size) {
            *offset = start;
        } else if (n <= r->tail || r->count == 0) {
            *offset = 0; /* wrap; the skipped end comes back when tail passes it */
        } else {
            return 1;
        }
    } else {
        /* head <= tail with live allocations: free space is [head, tail). */
        if (start + n > r->tail)
            return 1;
        *offset = start;
    }
    int ret = push_live(r, *offset + n, ticket);
    if (ret < 0)
        return ret;
    r->head = *offset + n;
    return VKFX_OK;
}

uint64_t vkfx_ring_oldest(const vkfx_ring *r)
{
    return r->count ? r->live[r->first].ticket : 0;
}

void vkfx_ring_retire(vkfx_ring *r, uint64_t done)
{
    while (r->count && r->live[r->first].ticket <= done) {
        r->tail = r->live[r->first].end;
        r->first = (r->first + 1) % r->cap;
        r->count--;
    }
    if (r->count == 0)
        r->head = r->tail = 0;
}

/* A copy in flight: for read-backs, where its bytes go once it completes. */
struct vkfx_staging_chunk {
    uint64_t ticket;
    VkCommandBuffer cmd;
    uint64_t offset, size;
    void *host_dst;
};

int vkfx_staging_create(vkfx_context *ctx, uint64_t size, vkfx_staging **out)
{
    *out = NULL;
    if (size == 0) {
        size = ctx->opts.staging_bytes;
        if (size == 0)
            size = 64ull << 20;
    }
    if (size < 256)
        return vkfx_fail(VKFX_E_USAGE, "staging memory of %llu bytes is too small (at least 256)",
                         (unsigned long long)size);
    vkfx_staging *s = calloc(1, sizeof(*s));
    if (!s)
        return vkfx_fail(VKFX_E_NOMEM, "out of host memory");
    s->ctx = ctx;
    s->limit = size;
    /* Quarter-size chunks keep the CPU filling one while the GPU copies others. */
    s->chunk = size / 4 < 256 ? 256 : size / 4;
    *out = s;
    return VKFX_OK;
}

void vkfx_staging_destroy(vkfx_staging *s)
{
    if (!s)
        return;
    vkfx_staging_drain(s);
    vkfx_buffer_destroy(s->ctx, s->buffer);
    vkfx_ring_fini(&s->ring);
    free(s->flight);
    free(s);
}

static int retire_oldest(vkfx_staging *s);

/* Makes the mapped memory hold at least min(n, limit) bytes: mapping host
 * memory for the GPU costs time in proportion to its size, so a small image
 * gets a small ring, grown (by powers of two, after the copies in flight end)
 * when a larger transfer comes. */
static int fit(vkfx_staging *s, uint64_t n)
{
    int ret = VKFX_OK;
    uint64_t want = n < s->limit ? n : s->limit;
    if (s->buffer && s->ring.size >= want)
        return VKFX_OK;
    uint64_t size = 256;
    while (size < want)
        size *= 2;
    size = size < s->limit ? size : s->limit;
    while (s->nflight)
        TRY(retire_oldest(s));
    vkfx_buffer_destroy(s->ctx, s->buffer);
    s->buffer = NULL;
    vkfx_ring_fini(&s->ring);
    TRY(vkfx_ring_init(&s->ring, size));
    TRY(vkfx_buffer_create(s->ctx, size,
                           VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                           VKFX_MEM_UPLOAD, &s->buffer));
fail:
    return ret;
}

/* Waits for the oldest copy in flight, copies read-back bytes out, frees it. */
static int retire_oldest(vkfx_staging *s)
{
    int ret = VKFX_OK;
    if (s->nflight == 0)
        return VKFX_OK;
    vkfx_staging_chunk c = s->flight[0];
    TRY(vkfx_wait(s->ctx, c.ticket));
    if (c.host_dst)
        vkfx_copy(c.host_dst, (char *)s->buffer->mapped + c.offset, c.size);
    vkfx_cmd_free(s->ctx, c.cmd);
    memmove(s->flight, s->flight + 1, (s->nflight - 1) * sizeof(*s->flight));
    s->nflight--;
    vkfx_ring_retire(&s->ring, c.ticket);
fail:
    return ret;
}

int vkfx_staging_drain(vkfx_staging *s)
{
    int ret = VKFX_OK;
    while (s->nflight)
        TRY(retire_oldest(s));
fail:
    return ret;
}

static int reserve(vkfx_staging *s, uint64_t n, uint64_t *offset)
{
    int ret;
    uint64_t ticket = s->ctx->timeline_value + 1;
    while ((ret = vkfx_ring_alloc(&s->ring, n, 16, ticket, offset)) == 1) {
        if (s->nflight == 0)
            return vkfx_fail(VKFX_E_LIMIT, "staging ring full with nothing in flight");
        TRY(retire_oldest(s));
    }
fail:
    return ret;
}

/* Makes room to track one more copy, before it is submitted: a submitted copy is always
 * tracked, so that its command buffer goes back only once the copy has completed. */
static int flight_room(vkfx_staging *s)
{
    if (s->nflight == s->capflight) {
        size_t cap = s->capflight ? s->capflight * 2 : 8;
        vkfx_staging_chunk *grown = realloc(s->flight, cap * sizeof(*grown));
        if (!grown)
            return vkfx_fail(VKFX_E_NOMEM, "out of host memory");
        s->flight = grown;
        s->capflight = cap;
    }
    return VKFX_OK;
}

/* One chunk: a copy between the ring and a device buffer, with the barriers
 * that order it against compute work before and after it on the queue. */
static int copy_chunk(vkfx_staging *s, VkBuffer device_buf, uint64_t device_off, uint64_t ring_off,
                      uint64_t n, bool upload, void *host_dst)
{
    int ret = VKFX_OK;
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    uint64_t ticket = 0;
    TRY(flight_room(s));
    TRY(vkfx_cmd_begin(s->ctx, true, &cmd));
    VkMemoryBarrier2 before = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER_2,
        .srcStageMask = VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_2_COPY_BIT,
        .srcAccessMask = VK_ACCESS_2_SHADER_WRITE_BIT | VK_ACCESS_2_TRANSFER_WRITE_BIT,
        .dstStageMask = VK_PIPELINE_STAGE_2_COPY_BIT,
        .dstAccessMask = VK_ACCESS_2_TRANSFER_READ_BIT | VK_ACCESS_2_TRANSFER_WRITE_BIT,
    };
    if (upload)
        before.srcAccessMask |= VK_ACCESS_2_SHADER_READ_BIT;
    VkDependencyInfo dep = {
        .sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO,
        .memoryBarrierCount = 1,
        .pMemoryBarriers = &before,
    };
    vkCmdPipelineBarrier2(cmd, &dep);
    VkBufferCopy region = {
        .srcOffset = upload ? ring_off : device_off,
        .dstOffset = upload ? device_off : ring_off,
        .size = n,
    };
    if (upload)
        vkCmdCopyBuffer(cmd, s->buffer->buffer, device_buf, 1, &region);
    else
        vkCmdCopyBuffer(cmd, device_buf, s->buffer->buffer, 1, &region);
    VkMemoryBarrier2 after = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER_2,
        .srcStageMask = VK_PIPELINE_STAGE_2_COPY_BIT,
        .srcAccessMask = VK_ACCESS_2_TRANSFER_WRITE_BIT,
        .dstStageMask = upload
                            ? VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_2_COPY_BIT
                            : VK_PIPELINE_STAGE_2_HOST_BIT,
        .dstAccessMask = upload ? VK_ACCESS_2_SHADER_READ_BIT | VK_ACCESS_2_TRANSFER_READ_BIT
                                : VK_ACCESS_2_HOST_READ_BIT,
    };
    dep.pMemoryBarriers = &after;
    vkCmdPipelineBarrier2(cmd, &dep);
    VK_TRY(vkEndCommandBuffer(cmd));
    TRY(vkfx_submit(s->ctx, cmd, &ticket));
    s->flight[s->nflight++] = (vkfx_staging_chunk){ticket, cmd, ring_off, n, host_dst};
    s->chunks_moved++;
    return VKFX_OK;
fail:
    vkfx_cmd_free(s->ctx, cmd);
    return ret;
}

int vkfx_staging_upload(vkfx_staging *s, VkBuffer dst, uint64_t offset, const void *src, uint64_t n)
{
    int ret = VKFX_OK;
    TRY(fit(s, n));
    for (uint64_t done = 0; done < n;) {
        uint64_t piece = n - done < s->chunk ? n - done : s->chunk;
        uint64_t ring_off = 0;
        TRY(reserve(s, piece, &ring_off));
        vkfx_copy((char *)s->buffer->mapped + ring_off, (const char *)src + done, piece);
        TRY(copy_chunk(s, dst, offset + done, ring_off, piece, true, NULL));
        done += piece;
    }
fail:
    return ret;
}

int vkfx_staging_download(vkfx_staging *s, VkBuffer src, uint64_t offset, void *dst, uint64_t n)
{
    int ret = VKFX_OK;
    TRY(fit(s, n));
    for (uint64_t done = 0; done < n;) {
        uint64_t piece = n - done < s->chunk ? n - done : s->chunk;
        uint64_t ring_off = 0;
        TRY(reserve(s, piece, &ring_off));
        TRY(copy_chunk(s, src, offset + done, ring_off, piece, false, (char *)dst + done));
        done += piece;
    }
    TRY(vkfx_staging_drain(s));
fail:
    return ret;
}
