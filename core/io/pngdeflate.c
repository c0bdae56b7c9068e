#include "pngdeflate.h"

#include <libdeflate.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "error.h"

static size_t parallel_bytes = VKFX_PNG_PARALLEL_BYTES, segment_bytes = VKFX_PNG_SEGMENT_BYTES;
static const int default_tune[4] = {8, 32, 64, 48};
static int tune6[4] = {8, 32, 64, 48};

void vkfx_png_set_tune(const int tune[4])
{
    memcpy(tune6, tune ? tune : default_tune, sizeof(tune6));
}

void vkfx_png_set_segments(size_t parallel, size_t segment)
{
    parallel_bytes = parallel ? parallel : VKFX_PNG_PARALLEL_BYTES;
    segment_bytes = segment ? segment : VKFX_PNG_SEGMENT_BYTES;
}

static inline unsigned paeth(unsigned a, unsigned b, unsigned c)
{
    int p = (int)a + (int)b - (int)c;
    int pa = abs(p - (int)a), pb = abs(p - (int)b), pc = abs(p - (int)c);
    return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/* Row y of px as PNG stores it (16-bit samples big-endian) in row. */
static void png_row(const vkfx_pixels *px, size_t stride, uint32_t y, unsigned char *row)
{
    const unsigned char *src = (const unsigned char *)px->data + y * stride;
    if (px->sample != VKFX_SAMPLE_U16) {
        memcpy(row, src, stride);
        return;
    }
    for (size_t i = 0; i < stride; i += 2) {
        uint16_t v;
        memcpy(&v, src + i, 2);
        row[i] = (unsigned char)(v >> 8);
        row[i + 1] = (unsigned char)v;
    }
}

/* Filters rows [y0, y1) into dst (each a filter byte and stride bytes);
 * rows holds two rows of scratch. */
static void filter_rows(const vkfx_pixels *px, uint32_t y0, uint32_t y1, unsigned char *dst,
                        unsigned char *rows)
{
    size_t bpp = px->channels * vkfx_sample_size(px->sample);
    size_t stride = (size_t)px->width * bpp;
    if (y0 > 0)
        png_row(px, stride, y0 - 1, rows + ((y0 + 1) & 1) * stride);
    for (uint32_t y = y0; y < y1; y++, dst += stride + 1) {
        unsigned char *cur = rows + (y & 1) * stride, *up = rows + ((y + 1) & 1) * stride;
        png_row(px, stride, y, cur);
        if (y == 0) {
            dst[0] = 1; /* Sub: Paeth with no row above */
            memcpy(dst + 1, cur, bpp);
            for (size_t x = bpp; x < stride; x++)
                dst[1 + x] = (unsigned char)(cur[x] - cur[x - bpp]);
            continue;
        }
        dst[0] = 4; /* Paeth */
        for (size_t x = 0; x < bpp; x++)
            dst[1 + x] = (unsigned char)(cur[x] - up[x]);
        for (size_t x = bpp; x < stride; x++)
            dst[1 + x] = (unsigned char)(cur[x] - paeth(cur[x - bpp], up[x], up[x - bpp]));
    }
}

/* Rows per item of the parallel filtering. */
#define BAND_ROWS 64

typedef struct segment {
    unsigned char *data;
    size_t size;
    uLong adler;
    bool failed;
} segment;

typedef struct shared {
    const vkfx_pixels *px;
    unsigned char *filtered;
    size_t total, seg;
    int level;
    segment *segs;
    size_t nsegs, nbands;
    pthread_mutex_t mu;
    size_t next; /* the next band, then the next segment */
    bool deflating, nomem;
} shared;

static bool take(shared *s, size_t n, size_t *item)
{
    pthread_mutex_lock(&s->mu);
    *item = s->next;
    if (s->next < n)
        s->next++;
    pthread_mutex_unlock(&s->mu);
    return *item < n;
}

static void filter_bands(shared *s)
{
    const vkfx_pixels *px = s->px;
    size_t stride = (size_t)px->width * px->channels * vkfx_sample_size(px->sample);
    unsigned char *rows = malloc(2 * stride);
    size_t band;
    while (take(s, s->nbands, &band)) {
        uint32_t y0 = (uint32_t)(band * BAND_ROWS);
        uint32_t y1 = px->height - y0 < BAND_ROWS ? px->height : y0 + BAND_ROWS;
        if (rows)
            filter_rows(px, y0, y1, s->filtered + y0 * (stride + 1), rows);
    }
    if (!rows) {
        pthread_mutex_lock(&s->mu);
        s->nomem = true;
        pthread_mutex_unlock(&s->mu);
    }
    free(rows);
}

/* Segment i as raw deflate, the 32 KiB before it as dictionary; every
 * segment but the last ends on a byte boundary with a sync flush. Z_FILTERED,
 * libpng's choice for filtered rows: on photos it gave files 1-3% smaller
 * than the default strategy at the same speed, and than libdeflate's
 * (tests/bench/RESULTS.md). */
static void deflate_segment(shared *s, size_t i)
{
    segment *g = &s->segs[i];
    size_t start = i * s->seg, n = s->total - start < s->seg ? s->total - start : s->seg;
    bool last = i + 1 == s->nsegs;
    z_stream z = {0};
    g->failed = true;
    if (deflateInit2(&z, s->level, Z_DEFLATED, -15, 8, Z_FILTERED) != Z_OK)
        return;
    /* Level 6, the default, with less of zlib's search (hash chains of 48,
     * not 128; nice length 64, not 128; lazy matching up to 32): trades a
     * little size, still within 1% of libdeflate's level 6 on photos, for
     * speed (tests/bench/RESULTS.md, codec_times). */
    if (s->level == 6)
        deflateTune(&z, tune6[0], tune6[1], tune6[2], tune6[3]);
    size_t dict = start < 32768 ? start : 32768;
    size_t cap = deflateBound(&z, n) + 16;
    g->data = malloc(cap);
    if (g->data &&
        (dict == 0 || deflateSetDictionary(&z, s->filtered + start - dict, (uInt)dict) == Z_OK)) {
        z.next_in = s->filtered + start;
        z.avail_in = (uInt)n;
        z.next_out = g->data;
        z.avail_out = (uInt)cap;
        int r = deflate(&z, last ? Z_FINISH : Z_SYNC_FLUSH);
        if ((last && r == Z_STREAM_END) || (!last && r == Z_OK && z.avail_in == 0)) {
            g->size = cap - z.avail_out;
            g->adler = adler32(1, s->filtered + start, (uInt)n);
            g->failed = false;
        }
    }
    deflateEnd(&z);
}

static void *work(void *arg)
{
    shared *s = arg;
    size_t i;
    if (!s->deflating)
        filter_bands(s);
    else
        while (take(s, s->nsegs, &i))
            deflate_segment(s, i);
    return NULL;
}

/* Runs work on n threads, this one among them. */
static void run_threads(shared *s, int n)
{
    pthread_t *t = calloc((size_t)n, sizeof(*t));
    int started = 0;
    for (; t && started < n - 1; started++)
        if (pthread_create(&t[started], NULL, work, s) != 0)
            break;
    work(s);
    for (int i = 0; i < started; i++)
        pthread_join(t[i], NULL);
    free(t);
}

static int thread_count(size_t items)
{
    size_t n = (size_t)vkfx_file_encode_threads();
    return (int)(n < items ? n : items);
}

static void put32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

static int idat_parallel(const vkfx_pixels *px, int level, unsigned char *filtered, size_t total,
                         size_t head, size_t tail, unsigned char **out, size_t *packed)
{
    int ret = VKFX_OK;
    shared s = {
        .px = px, .filtered = filtered, .total = total, .seg = segment_bytes, .level = level};
    s.nsegs = (total + s.seg - 1) / s.seg;
    s.nbands = (px->height + BAND_ROWS - 1) / BAND_ROWS;
    s.segs = calloc(s.nsegs, sizeof(*s.segs));
    if (!s.segs)
        return vkfx_fail(VKFX_E_NOMEM, "out of host memory encoding the PNG");
    pthread_mutex_init(&s.mu, NULL);
    run_threads(&s, thread_count(s.nbands));
    bool failed = s.nomem;
    s.next = 0;
    s.deflating = true;
    if (!failed)
        run_threads(&s, thread_count(s.nsegs));
    pthread_mutex_destroy(&s.mu);
    size_t size = 2 + 4;
    for (size_t i = 0; i < s.nsegs; i++) {
        failed |= s.segs[i].failed;
        size += s.segs[i].size;
    }
    *out = failed ? NULL : malloc(head + size + tail);
    if (!*out) {
        ret = vkfx_fail(VKFX_E_NOMEM, "out of host memory encoding the PNG");
        goto fail;
    }
    /* The zlib header: deflate with a 32 KiB window, the level's class, and
     * a check making the two bytes a multiple of 31. */
    unsigned char *p = *out + head;
    unsigned flevel = level < 2 ? 0 : level < 6 ? 1 : level == 6 ? 2 : 3;
    p[0] = 0x78;
    p[1] = (unsigned char)(flevel << 6);
    p[1] = (unsigned char)(p[1] + 31 - (0x78 * 256 + p[1]) % 31);
    size_t at = 2;
    uLong adler = 1;
    for (size_t i = 0; i < s.nsegs; i++) {
        size_t start = i * s.seg, n = total - start < s.seg ? total - start : s.seg;
        memcpy(p + at, s.segs[i].data, s.segs[i].size);
        at += s.segs[i].size;
        adler = adler32_combine(adler, s.segs[i].adler, (z_off_t)n);
    }
    put32(p + at, (uint32_t)adler);
    *packed = at + 4;
fail:
    for (size_t i = 0; i < s.nsegs; i++)
        free(s.segs[i].data);
    free(s.segs);
    return ret;
}

int vkfx_png_idat(const vkfx_pixels *px, int level, size_t head, size_t tail, unsigned char **out,
                  size_t *packed)
{
    int ret = VKFX_OK;
    size_t stride = (size_t)px->width * px->channels * vkfx_sample_size(px->sample);
    size_t total = (stride + 1) * px->height;
    unsigned char *filtered = malloc(total), *rows = NULL;
    struct libdeflate_compressor *z = NULL;
    *out = NULL;
    if (!filtered)
        return vkfx_fail(VKFX_E_NOMEM, "out of host memory encoding the PNG");
    if (total > parallel_bytes) {
        ret = idat_parallel(px, level, filtered, total, head, tail, out, packed);
        free(filtered);
        return ret;
    }
    rows = malloc(2 * stride);
    z = libdeflate_alloc_compressor(level);
    if (!rows || !z) {
        ret = vkfx_fail(VKFX_E_NOMEM, "out of host memory encoding the PNG");
        goto fail;
    }
    filter_rows(px, 0, px->height, filtered, rows);
    size_t bound = libdeflate_zlib_compress_bound(z, total);
    *out = malloc(head + bound + tail);
    if (!*out) {
        ret = vkfx_fail(VKFX_E_NOMEM, "out of host memory encoding the PNG");
        goto fail;
    }
    *packed = libdeflate_zlib_compress(z, filtered, total, *out + head, bound);
    if (*packed == 0) {
        ret = vkfx_fail(VKFX_E_FORMAT, "PNG encoding failed (libdeflate: no room)");
        free(*out);
        *out = NULL;
    }
fail:
    libdeflate_free_compressor(z);
    free(filtered);
    free(rows);
    return ret;
}
