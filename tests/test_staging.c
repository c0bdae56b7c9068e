/* The staging ring and the chunked copies through it: the ring's placement
 * rules checked against a shadow model of live intervals (no Vulkan), then
 * uploads and read-backs of every awkward size through a staging far smaller
 * than the data, compared byte for byte, with the validation layer on. */
#include <criterion/criterion.h>

#include "leak.h"
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "context.h"
#include "error.h"
#include "gpu.h"
#include "staging.h"
#include "vkfx.h"

/* Criterion ignores a worker's exit status and reports a test before its
 * .fini runs, so the leak check runs right after each pure test's body. The
 * Vulkan tests skip it: the driver and the layer keep process-wide state. */

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static uint64_t rand_below(uint64_t *state, uint64_t n)
{
    return splitmix64(state) % n;
}

/* ---- the ring, without Vulkan ---- */

static uint64_t alloc_ok(vkfx_ring *r, uint64_t n, uint64_t align, uint64_t ticket)
{
    uint64_t off = UINT64_MAX;
    int ret = vkfx_ring_alloc(r, n, align, ticket, &off);
    cr_assert_eq(ret, VKFX_OK,
                 "alloc(n=%llu, align=%llu, ticket=%llu) returned %d, expected 0 "
                 "(ring size %llu, head %llu, tail %llu, live %zu): %s",
                 (unsigned long long)n, (unsigned long long)align, (unsigned long long)ticket, ret,
                 (unsigned long long)r->size, (unsigned long long)r->head,
                 (unsigned long long)r->tail, r->count, ret < 0 ? vkfx_error_message() : "");
    cr_assert_eq(off % align, 0, "alloc(n=%llu, align=%llu) gave unaligned offset %llu",
                 (unsigned long long)n, (unsigned long long)align, (unsigned long long)off);
    cr_assert_leq(off + n, r->size, "alloc(n=%llu) at %llu runs past the ring's %llu bytes",
                  (unsigned long long)n, (unsigned long long)off, (unsigned long long)r->size);
    return off;
}

static void alloc_waits(vkfx_ring *r, uint64_t n, uint64_t align, uint64_t want_oldest)
{
    uint64_t off = 12345;
    int ret = vkfx_ring_alloc(r, n, align, 999, &off);
    cr_assert_eq(ret, 1,
                 "alloc(n=%llu, align=%llu) returned %d (offset %llu), expected 1 (must wait); "
                 "ring size %llu, head %llu, tail %llu, live %zu",
                 (unsigned long long)n, (unsigned long long)align, ret, (unsigned long long)off,
                 (unsigned long long)r->size, (unsigned long long)r->head,
                 (unsigned long long)r->tail, r->count);
    cr_assert_eq(vkfx_ring_oldest(r), want_oldest, "oldest ticket is %llu, expected %llu",
                 (unsigned long long)vkfx_ring_oldest(r), (unsigned long long)want_oldest);
}

TEST(ring, alignment)
{
    static const uint64_t aligns[] = {1, 16, 256};
    for (size_t a = 0; a < sizeof(aligns) / sizeof(aligns[0]); a++) {
        vkfx_ring r;
        cr_assert_eq(vkfx_ring_init(&r, 4096), VKFX_OK);
        uint64_t t = 1;
        /* Odd sizes put the head off every alignment before each request. */
        for (uint64_t n = 1; n < 200; n += 37) {
            uint64_t off = alloc_ok(&r, n, aligns[a], t++);
            cr_assert_eq(off % aligns[a], 0, "align %llu: offset %llu",
                         (unsigned long long)aligns[a], (unsigned long long)off);
        }
        vkfx_ring_fini(&r);
    }

    /* Padding counts: 10 + 1010 bytes would fit 1024, but the second request
     * starts at 16, so it must wait for the first to be retired. */
    vkfx_ring r;
    cr_assert_eq(vkfx_ring_init(&r, 1024), VKFX_OK);
    cr_assert_eq(alloc_ok(&r, 10, 1, 7), 0);
    alloc_waits(&r, 1010, 16, 7);
    /* Without the padding straddling the end it fits right after the gap. */
    cr_assert_eq(alloc_ok(&r, 1008, 16, 8), 16);
    vkfx_ring_retire(&r, 8);
    cr_assert_eq(r.count, 0);
    cr_assert_eq(alloc_ok(&r, 10, 1, 9), 0);
    vkfx_ring_retire(&r, 9);
    cr_assert_eq(alloc_ok(&r, 1010, 16, 10), 0, "an empty ring starts over at 0");
    vkfx_ring_fini(&r);
}

TEST(ring, fill_exactly_then_wrap)
{
    vkfx_ring r;
    cr_assert_eq(vkfx_ring_init(&r, 1024), VKFX_OK);
    for (uint64_t i = 0; i < 4; i++)
        cr_assert_eq(alloc_ok(&r, 256, 256, i + 1), i * 256);
    cr_assert_eq(r.count, 4);
    /* Full to the last byte: even one byte has to wait for ticket 1. */
    alloc_waits(&r, 1, 1, 1);
    vkfx_ring_retire(&r, 0);
    alloc_waits(&r, 1, 1, 1);
    vkfx_ring_retire(&r, 1);
    cr_assert_eq(vkfx_ring_oldest(&r), 2);
    /* [0, 256) is free again: the next allocation wraps to it. */
    cr_assert_eq(alloc_ok(&r, 200, 16, 5), 0);
    cr_assert_eq(alloc_ok(&r, 48, 16, 6), 208);
    alloc_waits(&r, 16, 16, 2); /* head 256 = tail: full again */
    vkfx_ring_retire(&r, 2);
    cr_assert_eq(alloc_ok(&r, 256, 1, 7), 256);
    vkfx_ring_retire(&r, 4);
    /* Oldest live is now the wrapped ticket 5 at 0; [512, 1024) is free. */
    cr_assert_eq(vkfx_ring_oldest(&r), 5);
    cr_assert_eq(alloc_ok(&r, 512, 1, 8), 512);
    alloc_waits(&r, 1, 1, 5);
    vkfx_ring_fini(&r);
}

TEST(ring, retire_in_order)
{
    vkfx_ring r;
    cr_assert_eq(vkfx_ring_init(&r, 1000), VKFX_OK);
    cr_assert_eq(vkfx_ring_oldest(&r), 0, "an empty ring has no oldest ticket");
    alloc_ok(&r, 100, 1, 3);
    alloc_ok(&r, 100, 1, 3);
    alloc_ok(&r, 100, 1, 4);
    alloc_ok(&r, 100, 1, 6);
    cr_assert_eq(vkfx_ring_oldest(&r), 3);
    vkfx_ring_retire(&r, 2);
    cr_assert_eq(r.count, 4, "retire(2) freed tickets above 2");
    vkfx_ring_retire(&r, 3);
    cr_assert_eq(r.count, 2, "retire(3) must free both ticket-3 allocations, %zu live", r.count);
    cr_assert_eq(vkfx_ring_oldest(&r), 4);
    vkfx_ring_retire(&r, 5);
    cr_assert_eq(r.count, 1);
    cr_assert_eq(vkfx_ring_oldest(&r), 6);
    vkfx_ring_retire(&r, 100);
    cr_assert_eq(r.count, 0);
    cr_assert_eq(vkfx_ring_oldest(&r), 0);
    cr_assert_eq(r.head, 0, "an empty ring resets its head to 0, not %llu",
                 (unsigned long long)r.head);
    cr_assert_eq(alloc_ok(&r, 1, 256, 7), 0);
    vkfx_ring_fini(&r);
}

TEST(ring, bad_requests)
{
    vkfx_ring r;
    uint64_t off = 0;
    cr_assert_eq(vkfx_ring_init(&r, 4096), VKFX_OK);
    cr_assert_eq(vkfx_ring_alloc(&r, 4097, 1, 1, &off), VKFX_E_LIMIT,
                 "a request larger than the ring must be VKFX_E_LIMIT");
    cr_assert_eq(vkfx_ring_alloc(&r, UINT64_MAX, 1, 1, &off), VKFX_E_LIMIT);
    cr_assert_lt(vkfx_ring_alloc(&r, 0, 16, 1, &off), 0, "size 0 must be an error");
    static const uint64_t bad_aligns[] = {0, 3, 12, 48, 257};
    for (size_t i = 0; i < sizeof(bad_aligns) / sizeof(bad_aligns[0]); i++)
        cr_assert_lt(vkfx_ring_alloc(&r, 16, bad_aligns[i], 1, &off), 0,
                     "align %llu must be an error", (unsigned long long)bad_aligns[i]);
    cr_assert_eq(r.count, 0, "a refused request left a live allocation");
    /* The whole ring in one piece is fine, and errors do not disturb it. */
    cr_assert_eq(alloc_ok(&r, 4096, 256, 1), 0);
    cr_assert_eq(vkfx_ring_alloc(&r, 4097, 1, 2, &off), VKFX_E_LIMIT,
                 "too large is VKFX_E_LIMIT even when the ring is full (never 1)");
    cr_assert_eq(r.count, 1);
    vkfx_ring_fini(&r);
}

TEST(ring, unretirable_keeps_waiting)
{
    vkfx_ring r;
    cr_assert_eq(vkfx_ring_init(&r, 512), VKFX_OK);
    cr_assert_eq(alloc_ok(&r, 400, 16, 9), 0);
    for (uint64_t done = 0; done < 9; done++) {
        alloc_waits(&r, 200, 16, 9);
        vkfx_ring_retire(&r, done);
        cr_assert_eq(r.count, 1, "retire(%llu) freed an allocation of ticket 9",
                     (unsigned long long)done);
    }
    alloc_waits(&r, 200, 16, 9);
    vkfx_ring_retire(&r, 9);
    cr_assert_eq(alloc_ok(&r, 200, 16, 10), 0);
    vkfx_ring_fini(&r);
}

/* A shadow of the live allocations, oldest first. */
typedef struct shadow {
    uint64_t start[4096], end[4096], ticket[4096];
    size_t first, count;
} shadow;

static void shadow_retire(shadow *m, uint64_t done)
{
    while (m->count && m->ticket[m->first % 4096] <= done) {
        m->first++;
        m->count--;
    }
}

static void randomized(uint64_t seed, uint64_t size, int ops)
{
    static shadow m;
    memset(&m, 0, sizeof(m));
    vkfx_ring r;
    cr_assert_eq(vkfx_ring_init(&r, size), VKFX_OK);
    uint64_t state = seed, ticket = 1, done = 0, waits = 0, wraps = 0, prev_off = 0;
    for (int op = 0; op < ops; op++) {
        if (rand_below(&state, 4) == 0 && done < ticket - 1) {
            done += 1 + rand_below(&state, ticket - 1 - done);
            vkfx_ring_retire(&r, done);
            shadow_retire(&m, done);
            cr_assert_eq(r.count, m.count, "seed %llu op %d: retire(%llu) left %zu live, model %zu",
                         (unsigned long long)seed, op, (unsigned long long)done, r.count, m.count);
            continue;
        }
        /* Mostly small requests, now and then up to the whole ring. */
        uint64_t n = rand_below(&state, 8) == 0 ? 1 + rand_below(&state, size)
                                                : 1 + rand_below(&state, size / 8);
        uint64_t align = 1ull << rand_below(&state, 9);
        if (rand_below(&state, 3) == 0 || ticket <= done)
            ticket++; /* several allocations may share one ticket */
        uint64_t off = UINT64_MAX;
        int ret;
        while ((ret = vkfx_ring_alloc(&r, n, align, ticket, &off)) == 1) {
            cr_assert_gt(m.count, 0,
                         "seed %llu op %d: alloc(n=%llu, align=%llu) waits on an "
                         "empty ring",
                         (unsigned long long)seed, op, (unsigned long long)n,
                         (unsigned long long)align);
            uint64_t oldest = vkfx_ring_oldest(&r);
            cr_assert_eq(oldest, m.ticket[m.first % 4096],
                         "seed %llu op %d: oldest is %llu, model says %llu",
                         (unsigned long long)seed, op, (unsigned long long)oldest,
                         (unsigned long long)m.ticket[m.first % 4096]);
            if (oldest > done)
                done = oldest;
            vkfx_ring_retire(&r, done);
            shadow_retire(&m, done);
            waits++;
        }
        cr_assert_eq(ret, VKFX_OK, "seed %llu op %d: alloc(n=%llu, align=%llu) returned %d: %s",
                     (unsigned long long)seed, op, (unsigned long long)n, (unsigned long long)align,
                     ret, vkfx_error_message());
        cr_assert_eq(off % align, 0, "seed %llu op %d: offset %llu not a multiple of %llu",
                     (unsigned long long)seed, op, (unsigned long long)off,
                     (unsigned long long)align);
        cr_assert_leq(off + n, size, "seed %llu op %d: [%llu, %llu) runs past the ring's %llu",
                      (unsigned long long)seed, op, (unsigned long long)off,
                      (unsigned long long)(off + n), (unsigned long long)size);
        for (size_t i = 0; i < m.count; i++) {
            size_t k = (m.first + i) % 4096;
            cr_assert(off + n <= m.start[k] || off >= m.end[k],
                      "seed %llu op %d: new [%llu, %llu) (n=%llu, align=%llu) overlaps live "
                      "[%llu, %llu) of ticket %llu; ring head %llu tail %llu",
                      (unsigned long long)seed, op, (unsigned long long)off,
                      (unsigned long long)(off + n), (unsigned long long)n,
                      (unsigned long long)align, (unsigned long long)m.start[k],
                      (unsigned long long)m.end[k], (unsigned long long)m.ticket[k],
                      (unsigned long long)r.head, (unsigned long long)r.tail);
        }
        if (m.count && off < prev_off)
            wraps++;
        prev_off = off;
        cr_assert_lt(m.count, 4096, "model overflow");
        size_t k = (m.first + m.count) % 4096;
        m.start[k] = off;
        m.end[k] = off + n;
        m.ticket[k] = ticket;
        m.count++;
        cr_assert_eq(r.count, m.count);
    }
    /* A sequence that never waited or wrapped would test nothing. */
    cr_assert_gt(waits, (uint64_t)ops / 20, "seed %llu: only %llu waits", (unsigned long long)seed,
                 (unsigned long long)waits);
    cr_assert_gt(wraps, (uint64_t)ops / 50, "seed %llu: only %llu wraps past live data",
                 (unsigned long long)seed, (unsigned long long)wraps);
    vkfx_ring_retire(&r, ticket);
    cr_assert_eq(r.count, 0);
    cr_assert_eq(alloc_ok(&r, size, 1, ticket + 1), 0);
    vkfx_ring_fini(&r);
}

TEST(ring, randomized_never_overlaps)
{
    static const uint64_t sizes[] = {4096, 1000, 257, 65536 + 13};
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
        for (uint64_t seed = 1; seed <= 4; seed++)
            randomized(seed * 7919 + i, sizes[i], 20000);
}

/* ---- staging on the device ---- */

static char logged[8192];
static size_t logged_len;

static void on_log(void *user, const char *message)
{
    (void)user;
    int n = snprintf(logged + logged_len, sizeof(logged) - logged_len, "%s\n", message);
    if (n > 0)
        logged_len +=
            (size_t)n < sizeof(logged) - logged_len ? (size_t)n : sizeof(logged) - 1 - logged_len;
}

static vkfx_context *ctx;

static void open_context(void)
{
    const char *v = getenv("VKFX_VALIDATE");
    vkfx_context_opts opts = {
        .validate = v && strcmp(v, "1") == 0,
        .log = on_log,
    };
    logged[0] = 0;
    logged_len = 0;
    int ret = vkfx_context_create(&opts, &ctx);
    cr_assert_eq(ret, VKFX_OK, "vkfx_context_create: %d: %s", ret, vkfx_error_message());
}

static void close_context(void)
{
    unsigned msgs = ctx ? vkfx_context_validation_messages(ctx) : 0;
    vkfx_context_destroy(ctx);
    ctx = NULL;
    cr_assert_eq(msgs, 0, "%u validation message(s):\n%s", msgs, logged);
}

static vkfx_buffer *device_buffer(uint64_t size)
{
    vkfx_buffer *b = NULL;
    int ret =
        vkfx_buffer_create(ctx, size,
                           VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT |
                               VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                           VKFX_MEM_DEVICE, &b);
    cr_assert_eq(ret, VKFX_OK, "device buffer of %llu bytes: %s", (unsigned long long)size,
                 vkfx_error_message());
    return b;
}

static vkfx_staging *new_staging(uint64_t size)
{
    vkfx_staging *s = NULL;
    int ret = vkfx_staging_create(ctx, size, &s);
    cr_assert_eq(ret, VKFX_OK, "staging of %llu bytes: %d: %s", (unsigned long long)size, ret,
                 vkfx_error_message());
    return s;
}

static uint8_t *random_bytes(uint64_t n, uint64_t seed)
{
    uint8_t *p = malloc(n ? n : 1);
    cr_assert_not_null(p);
    for (uint64_t i = 0; i < n; i++)
        p[i] = (uint8_t)(splitmix64(&seed) >> 56);
    return p;
}

static void expect_same(const uint8_t *got, const uint8_t *want, uint64_t n, const char *what)
{
    for (uint64_t i = 0; i < n; i++)
        cr_assert_eq(got[i], want[i],
                     "%s: first difference at byte %llu of %llu: got 0x%02x, want 0x%02x", what,
                     (unsigned long long)i, (unsigned long long)n, got[i], want[i]);
}

static uint64_t chunks_for(const vkfx_staging *s, uint64_t n)
{
    return (n + s->chunk - 1) / s->chunk;
}

/* Uploads n bytes to dev at off, reads them back and compares, checking the
 * number of copies each way. The source is scribbled on as soon as the
 * upload returns: the bytes must already be in staging memory by then. */
static void round_trip(vkfx_staging *s, vkfx_buffer *dev, uint64_t off, uint64_t n, uint64_t seed)
{
    char what[160];
    snprintf(what, sizeof(what), "%llu bytes at offset %llu, staging %llu (chunk %llu)",
             (unsigned long long)n, (unsigned long long)off, (unsigned long long)s->ring.size,
             (unsigned long long)s->chunk);
    uint8_t *src = random_bytes(n, seed);
    uint8_t *want = malloc(n ? n : 1);
    uint8_t *got = malloc(n ? n : 1);
    cr_assert(want && got);
    memcpy(want, src, n);
    memset(got, 0xa5, n);

    uint64_t before = s->chunks_moved;
    int ret = vkfx_staging_upload(s, dev->buffer, off, src, n);
    cr_assert_eq(ret, VKFX_OK, "upload of %s: %d: %s", what, ret, vkfx_error_message());
    cr_assert_eq(s->chunks_moved - before, chunks_for(s, n),
                 "upload of %s took %llu copies, "
                 "expected %llu",
                 what, (unsigned long long)(s->chunks_moved - before),
                 (unsigned long long)chunks_for(s, n));
    cr_assert_leq(s->nflight, s->ring.size / 16, "%zu copies in flight after upload of %s",
                  s->nflight, what);
    memset(src, 0x5a, n);

    before = s->chunks_moved;
    ret = vkfx_staging_download(s, dev->buffer, off, got, n);
    cr_assert_eq(ret, VKFX_OK, "download of %s: %d: %s", what, ret, vkfx_error_message());
    cr_assert_eq(s->chunks_moved - before, chunks_for(s, n),
                 "download of %s took %llu copies, "
                 "expected %llu",
                 what, (unsigned long long)(s->chunks_moved - before),
                 (unsigned long long)chunks_for(s, n));
    cr_assert_eq(s->nflight, 0, "download of %s returned with %zu copies in flight", what,
                 s->nflight);
    expect_same(got, want, n, what);
    free(src);
    free(want);
    free(got);
}

Test(staging, large_through_small)
{
    open_context();
    const uint64_t n = (1u << 20) + 13;
    vkfx_staging *s = new_staging(4096);
    cr_assert_eq(s->chunk, 1024, "a 4096-byte staging moves 1024-byte chunks, not %llu",
                 (unsigned long long)s->chunk);
    vkfx_buffer *dev = device_buffer(n + 64);
    /* 1026 copies each way, so the ring wraps and waits hundreds of times. */
    round_trip(s, dev, 0, n, 1);
    round_trip(s, dev, 7, n, 2);
    cr_assert_eq(vkfx_staging_drain(s), VKFX_OK);
    vkfx_staging_destroy(s);
    vkfx_buffer_destroy(ctx, dev);
    close_context();
}

Test(staging, odd_sizes_and_offsets)
{
    open_context();
    vkfx_staging *s = new_staging(4096);
    const uint64_t c = s->chunk;
    vkfx_buffer *dev = device_buffer(16384);
    const uint64_t sizes[] = {1, 3, c - 1, c, c + 1, 2 * c + 5, 4 * c, 4 * c + 1, 3 * 4096 + 7};
    const uint64_t offsets[] = {0, 1, 3, 16, 255, 1021};
    uint64_t seed = 100;
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
        for (size_t j = 0; j < sizeof(offsets) / sizeof(offsets[0]); j++)
            if (offsets[j] + sizes[i] <= dev->size)
                round_trip(s, dev, offsets[j], sizes[i], seed++);
    /* The very last byte of the device buffer. */
    round_trip(s, dev, dev->size - 1, 1, seed++);
    vkfx_staging_destroy(s);
    vkfx_buffer_destroy(ctx, dev);
    close_context();
}

/* Pieces written at scattered offsets land exactly there and nowhere else:
 * the whole buffer read back in one go matches a host copy updated alike. */
Test(staging, scattered_writes)
{
    open_context();
    const uint64_t size = 40000;
    vkfx_staging *s = new_staging(1000); /* chunk 250: not a multiple of the ring's 16 */
    vkfx_buffer *dev = device_buffer(size);
    uint8_t *shadow_copy = random_bytes(size, 7);
    cr_assert_eq(vkfx_staging_upload(s, dev->buffer, 0, shadow_copy, size), VKFX_OK, "%s",
                 vkfx_error_message());
    uint64_t state = 99;
    for (int k = 0; k < 60; k++) {
        uint64_t n = 1 + rand_below(&state, k % 5 == 0 ? 3000 : 300);
        uint64_t off = rand_below(&state, size - n + 1);
        uint8_t *piece = random_bytes(n, 1000 + k);
        int ret = vkfx_staging_upload(s, dev->buffer, off, piece, n);
        cr_assert_eq(ret, VKFX_OK, "upload of %llu at %llu: %s", (unsigned long long)n,
                     (unsigned long long)off, vkfx_error_message());
        memcpy(shadow_copy + off, piece, n);
        free(piece);
    }
    uint8_t *got = malloc(size);
    cr_assert_not_null(got);
    cr_assert_eq(vkfx_staging_download(s, dev->buffer, 0, got, size), VKFX_OK, "%s",
                 vkfx_error_message());
    expect_same(got, shadow_copy, size, "40000 bytes after 60 scattered uploads, staging 1000");
    /* A read-back of a middle piece at an odd offset, smaller than a chunk. */
    uint8_t mid[77];
    cr_assert_eq(vkfx_staging_download(s, dev->buffer, 12345, mid, sizeof(mid)), VKFX_OK);
    expect_same(mid, shadow_copy + 12345, sizeof(mid), "77 bytes at 12345");
    free(got);
    free(shadow_copy);
    vkfx_staging_destroy(s);
    vkfx_buffer_destroy(ctx, dev);
    close_context();
}

Test(staging, single_chunk_and_minimum)
{
    open_context();
    vkfx_buffer *dev = device_buffer(5000);
    /* Staging larger than the data: one copy each way. */
    vkfx_staging *big = new_staging(1 << 20);
    round_trip(big, dev, 0, 5000, 1);
    round_trip(big, dev, 3, 4997, 2);
    round_trip(big, dev, 4999, 1, 3);
    cr_assert_eq(big->chunks_moved, 6, "%llu copies for three single-chunk round trips",
                 (unsigned long long)big->chunks_moved);
    vkfx_staging_destroy(big);
    /* The smallest staging there is: one 256-byte chunk fills it. */
    vkfx_staging *tiny = new_staging(256);
    cr_assert_eq(tiny->chunk, 256);
    round_trip(tiny, dev, 0, 5000, 4);
    round_trip(tiny, dev, 1, 257, 5);
    vkfx_staging_destroy(tiny);
    vkfx_buffer_destroy(ctx, dev);
    close_context();
}

Test(staging, sizes_and_default)
{
    open_context();
    vkfx_staging *s = (vkfx_staging *)(uintptr_t)1;
    int ret = vkfx_staging_create(ctx, 255, &s);
    cr_assert_lt(ret, 0, "a 255-byte staging must be refused");
    cr_assert_null(s, "a failed create leaves *out NULL");
    ret = vkfx_staging_create(ctx, 1, &s);
    cr_assert_lt(ret, 0, "a 1-byte staging must be refused");

    s = new_staging(0);
    cr_assert_eq(s->limit, 64ull << 20, "size 0 without staging_bytes gives %llu bytes",
                 (unsigned long long)s->limit);
    vkfx_staging_destroy(s);

    ctx->opts.staging_bytes = 8192;
    s = new_staging(0);
    cr_assert_eq(s->limit, 8192, "staging_bytes = 8192 gave %llu bytes",
                 (unsigned long long)s->limit);
    cr_assert_eq(s->chunk, 2048);
    vkfx_buffer *dev = device_buffer(20000);
    round_trip(s, dev, 5, 19995, 11);
    cr_assert_eq(s->ring.size, 8192, "20000 bytes through at most 8192 took %llu",
                 (unsigned long long)s->ring.size);
    vkfx_staging_destroy(s);
    /* An explicit size wins over the context's. */
    s = new_staging(4096);
    cr_assert_eq(s->limit, 4096, "explicit 4096 gave %llu with staging_bytes set",
                 (unsigned long long)s->limit);
    vkfx_staging_destroy(s);
    ctx->opts.staging_bytes = 0;

    vkfx_staging_destroy(NULL);
    vkfx_buffer_destroy(ctx, dev);
    close_context();
}

/* The mapped memory is taken at the first copy, the smallest power of two
 * that holds it, grown when a larger copy comes (even with copies still in
 * flight) and never past the limit. */
Test(staging, taken_as_needed)
{
    open_context();
    vkfx_buffer *dev = device_buffer(300000);
    vkfx_staging *s = new_staging(1 << 18);
    cr_assert(!s->buffer && s->ring.size == 0, "memory taken before any copy: %llu bytes",
              (unsigned long long)s->ring.size);
    round_trip(s, dev, 0, 100, 21);
    cr_assert_eq(s->ring.size, 256, "100 bytes took %llu", (unsigned long long)s->ring.size);
    round_trip(s, dev, 7, 3000, 22);
    cr_assert_eq(s->ring.size, 4096, "3000 bytes took %llu", (unsigned long long)s->ring.size);
    round_trip(s, dev, 0, 1000, 23);
    cr_assert_eq(s->ring.size, 4096, "a smaller copy shrank it to %llu",
                 (unsigned long long)s->ring.size);
    uint8_t *a = random_bytes(2000, 24), *b = random_bytes(50000, 25);
    uint8_t *got = malloc(50000);
    cr_assert(got);
    cr_assert_eq(vkfx_staging_upload(s, dev->buffer, 100000, a, 2000), VKFX_OK, "%s",
                 vkfx_error_message());
    cr_assert_gt(s->nflight, 0);
    cr_assert_eq(vkfx_staging_upload(s, dev->buffer, 200000, b, 50000), VKFX_OK, "%s",
                 vkfx_error_message());
    cr_assert_eq(s->ring.size, 65536, "50000 bytes took %llu", (unsigned long long)s->ring.size);
    cr_assert_eq(vkfx_staging_download(s, dev->buffer, 100000, got, 2000), VKFX_OK, "%s",
                 vkfx_error_message());
    expect_same(got, a, 2000, "2000 bytes uploaded before the ring grew");
    cr_assert_eq(vkfx_staging_download(s, dev->buffer, 200000, got, 50000), VKFX_OK, "%s",
                 vkfx_error_message());
    expect_same(got, b, 50000, "50000 bytes uploaded after the ring grew");
    round_trip(s, dev, 1, 299999, 26);
    cr_assert_eq(s->ring.size, 1 << 18, "300000 bytes through at most 262144 took %llu",
                 (unsigned long long)s->ring.size);
    free(a);
    free(b);
    free(got);
    vkfx_staging_destroy(s);
    vkfx_buffer_destroy(ctx, dev);
    close_context();
}
