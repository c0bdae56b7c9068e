#include "jpeg_gpu_enc.h"

#include <stdlib.h>
#include <string.h>

#include "codecs/jpeg_settings.h"
#include "error.h"

#include "jpegenc_coef.spv.h"
#include "jpegenc_count.spv.h"
#include "jpegenc_ffcount.spv.h"
#include "jpegenc_interval.spv.h"
#include "jpegenc_pack.spv.h"
#include "jpegenc_scan.spv.h"
#include "jpegenc_stuff.spv.h"
#include "../../glsl/jpegenc.h"

_Static_assert(sizeof(jpegenc_push) == JPEGENC_PUSH_BYTES, "jpegenc.h's push block");

#define BUFFERS(n)                                                                                 \
    .nbind = n, .bind = {VKFX_BIND_BUFFER, VKFX_BIND_BUFFER, VKFX_BIND_BUFFER, VKFX_BIND_BUFFER,   \
                         VKFX_BIND_BUFFER}
#define JPEGENC_KERNEL(kname, n)                                                                   \
    {                                                                                              \
        .name = #kname, VKFX_SPV(kname), BUFFERS(n), .push_size = sizeof(jpegenc_push)             \
    }

static const vkfx_kernel_desc coef_kernel = JPEGENC_KERNEL(jpegenc_coef, 3);
static const vkfx_kernel_desc count_kernel = JPEGENC_KERNEL(jpegenc_count, 4);
static const vkfx_kernel_desc scan_kernel = JPEGENC_KERNEL(jpegenc_scan, 3);
static const vkfx_kernel_desc interval_kernel = JPEGENC_KERNEL(jpegenc_interval, 3);
static const vkfx_kernel_desc pack_kernel = JPEGENC_KERNEL(jpegenc_pack, 5);
static const vkfx_kernel_desc ffcount_kernel = JPEGENC_KERNEL(jpegenc_ffcount, 3);
static const vkfx_kernel_desc stuff_kernel = JPEGENC_KERNEL(jpegenc_stuff, 5);

/* The most bits one block can take: a 16-bit DC code with 11 value bits, 63 AC codes of 16 bits
 * with 10 value bits each. */
#define BLOCK_BITS_MAX (16 + 11 + 63 * (16 + 10))

struct vkfx_jpegenc {
    vkfx_context *ctx;
    vkfx_jpeg_settings set;
    jpegenc_push push;
    bool optimize;
    uint32_t tables_host[JPEGENC_TABLE_WORDS];
    /* Device buffers, the recording graph's temporaries (spares of a like image's run). */
    vkfx_buffer *tables, *coefs, *lengths, *totals, *offsets, *packed, *ffcounts, *out;
    vkfx_buffer *tiles; /* the prefix sums' tile sums */
};

bool vkfx_jpegenc_covers(uint32_t width, uint32_t height, uint32_t channels,
                         const vkfx_save_opts *opts, const vkfx_caps *caps)
{
    if ((opts && opts->jpeg_progressive) || (channels != 1 && channels != 3) || !width || !height ||
        width > 65500 || height > 65500)
        return false;
    /* 4:2:0 has the most blocks per pixel (1.5 per 64), 4:4:4 (3) the most per MCU: bound the
     * output, twice the worst packed size, by 3 blocks per 64 pixels. */
    uint64_t blocks = 3 * (((uint64_t)width + 15) / 8) * (((uint64_t)height + 15) / 8);
    uint64_t out = 2 * blocks * (BLOCK_BITS_MAX / 8 + 2);
    return out < UINT32_MAX && out <= caps->storage_buffer_range;
}

bool vkfx_jpegenc_wanted(vkfx_jpeg_codec codec, const vkfx_caps *caps)
{
    switch (codec) {
    case VKFX_JPEG_CODEC_AUTO:
        return !caps->cpu;
    case VKFX_JPEG_CODEC_GPU:
        return true;
    case VKFX_JPEG_CODEC_CPU:
        return false;
    }
    return false;
}

/* libjpeg's zigzag order: the natural position of each zigzag index, walking the
 * anti-diagonals alternately up and down. */
static void zigzag(uint32_t *natural)
{
    uint32_t k = 0;
    for (int s = 0; s < 15; s++) {
        int lo = s < 8 ? 0 : s - 7, hi = s < 8 ? s : 7;
        for (int i = 0; i <= hi - lo; i++) {
            int row = s & 1 ? lo + i : hi - i;
            natural[k++] = (uint32_t)(row * 8 + (s - row));
        }
    }
}

/* libjpeg-turbo's quantiser for a divisor (the table's value times 8, the DCT's scale), with
 * 16-bit DCT elements: a reciprocal of 16 significant bits, a correction that carries the
 * rounding, and a shift, such that (|x| + correction) * reciprocal >> shift is |x| / divisor
 * rounded as libjpeg-turbo rounds it. */
static void reciprocal(uint32_t divisor, uint32_t *out)
{
    int b = 31 - __builtin_clz(divisor);
    int r = 16 + b;
    uint32_t fq = (1u << r) / divisor, fr = (1u << r) % divisor, c = divisor / 2;
    if (fr == 0) {
        fq >>= 1;
        r--;
    } else if (fr <= divisor / 2) {
        c++;
    } else {
        fq++;
    }
    out[0] = fq;
    out[1] = c;
    out[2] = (uint32_t)r;
}

/* The codes of a table given as counts per length and symbols (JPEG's Annex C): each length's
 * codes count up from the previous length's next code shifted left. */
static int huff_codes(const vkfx_jpeg_huff *h, uint32_t *codes)
{
    memset(codes, 0, 256 * sizeof(*codes));
    uint32_t code = 0, p = 0;
    for (uint32_t len = 1; len <= 16; len++) {
        for (uint32_t i = 0; i < h->bits[len]; i++, p++) {
            if (p >= 256)
                return vkfx_fail(VKFX_E_FORMAT, "a Huffman table of more than 256 codes");
            codes[h->vals[p]] = len << 16 | code++;
        }
        if (code > 1u << len)
            return vkfx_fail(VKFX_E_FORMAT, "a Huffman table with too many codes of %u bits", len);
        code <<= 1;
    }
    return VKFX_OK;
}

/* The optimal table for the symbol counts freq (symbols 0..255), as libjpeg builds it (JPEG's
 * Annex K.2): a reserved symbol 256 of count 1 keeps any code from being all ones; Huffman's
 * merging of the two least counts, ties going to the higher symbol; lengths over 16 folded
 * back; the symbols listed by length, then by value. */
static void optimal_table(const uint32_t *counts, vkfx_jpeg_huff *h)
{
    long freq[257];
    int codesize[257] = {0}, others[257];
    int bits[33] = {0};
    for (int i = 0; i < 256; i++)
        freq[i] = counts[i];
    freq[256] = 1;
    for (int i = 0; i < 257; i++)
        others[i] = -1;
    for (;;) {
        int c1 = -1, c2 = -1;
        long v = 1000000000L;
        for (int i = 0; i <= 256; i++)
            if (freq[i] && freq[i] <= v) {
                v = freq[i];
                c1 = i;
            }
        v = 1000000000L;
        for (int i = 0; i <= 256; i++)
            if (freq[i] && freq[i] <= v && i != c1) {
                v = freq[i];
                c2 = i;
            }
        if (c2 < 0)
            break;
        freq[c1] += freq[c2];
        freq[c2] = 0;
        codesize[c1]++;
        while (others[c1] >= 0) {
            c1 = others[c1];
            codesize[c1]++;
        }
        others[c1] = c2;
        codesize[c2]++;
        while (others[c2] >= 0) {
            c2 = others[c2];
            codesize[c2]++;
        }
    }
    for (int i = 0; i <= 256; i++)
        if (codesize[i])
            bits[codesize[i] < 32 ? codesize[i] : 32]++;
    int i;
    for (i = 32; i > 16; i--) {
        while (bits[i] > 0) {
            int j = i - 2;
            while (bits[j] == 0)
                j--;
            bits[i] -= 2;
            bits[i - 1]++;
            bits[j + 1] += 2;
            bits[j]--;
        }
    }
    while (bits[i] == 0)
        i--;
    bits[i]--;
    memset(h, 0, sizeof(*h));
    for (int k = 0; k <= 16; k++)
        h->bits[k] = (uint8_t)bits[k];
    int p = 0;
    for (int len = 1; len <= 32; len++)
        for (int s = 0; s < 256; s++)
            if (codesize[s] == len)
                h->vals[p++] = (uint8_t)s;
}

static int put_huff_tables(vkfx_jpegenc *e)
{
    int ret = VKFX_OK;
    for (int t = 0; t < 4; t++)
        TRY(huff_codes(&e->set.huff[t], e->tables_host + JPEGENC_HUFF + 256 * t));
fail:
    return ret;
}

static void grid(uint32_t n, uint32_t local, uint32_t groups[3])
{
    groups[0] = vkfx_groups(n ? n : 1, local);
    groups[1] = 1;
    while (groups[0] > 32768) { /* stay under maxComputeWorkGroupCount[0] (>= 65535) */
        groups[1] *= 2;
        groups[0] = vkfx_groups(vkfx_groups(n, local), groups[1]);
    }
    groups[2] = 1;
}

/* The scan's work groups: each sums or scans a tile of SCAN_TILE words. */
#define SCAN_LOCAL 256
#define SCAN_TILE  (SCAN_LOCAL * JPEGENC_SCAN_RUN)

static vkfx_spec kernel_spec(const vkfx_kernel_desc *desc)
{
    return (vkfx_spec){.local = {desc == &scan_kernel ? SCAN_LOCAL : 64, 1, 1}};
}

void vkfx_jpegenc_prepare(vkfx_context *ctx, vkfx_jpeg_codec codec)
{
    static const vkfx_kernel_desc *const all[] = {&coef_kernel,     &count_kernel, &scan_kernel,
                                                  &interval_kernel, &pack_kernel,  &ffcount_kernel,
                                                  &stuff_kernel};
    vkfx_caps caps = {.cpu = ctx->props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU};
    if (!vkfx_jpegenc_wanted(codec, &caps))
        return;
    for (size_t i = 0; i < sizeof(all) / sizeof(*all); i++) {
        vkfx_spec spec = kernel_spec(all[i]);
        vkfx_kernel_prepare(ctx, all[i], &spec);
    }
}

/* One pass in work groups of 64 over n items; the scan's in work groups of SCAN_LOCAL, one per
 * tile of its n words (its TILES pass: one). */
static int dispatch(vkfx_graph *g, const vkfx_kernel_desc *desc, const char *label,
                    const jpegenc_push *push, uint32_t n, const vkfx_use *use, uint32_t nuse)
{
    int ret = VKFX_OK;
    vkfx_kernel *k = NULL;
    bool scan = desc == &scan_kernel;
    vkfx_spec spec = kernel_spec(desc);
    TRY(vkfx_graph_kernel(g, desc, &spec, &k));
    vkfx_dispatch d = {.kernel = k, .label = label, .push = push};
    memcpy(d.use, use, nuse * sizeof(*use));
    if (scan && push->phase == JPEGENC_SCAN_TILES)
        d.groups[0] = d.groups[1] = d.groups[2] = 1;
    else if (scan)
        grid(vkfx_groups(n, SCAN_TILE), 1, d.groups);
    else
        grid(n, 64, d.groups);
    TRY(vkfx_graph_dispatch(g, &d));
fail:
    return ret;
}

static int scan(vkfx_graph *g, const vkfx_jpegenc *e, vkfx_buffer *data, uint32_t n, uint32_t slot)
{
    int ret = VKFX_OK;
    jpegenc_push push = e->push;
    push.n = n;
    push.slot = slot;
    vkfx_use use[] = {{.buffer = data, .write = true},
                      {.buffer = e->totals, .write = true},
                      {.buffer = e->tiles, .write = true}};
    static const uint32_t phases[] = {JPEGENC_SCAN_SUM, JPEGENC_SCAN_TILES, JPEGENC_SCAN_ADD};
    for (int i = 0; i < 3; i++) {
        push.phase = phases[i];
        TRY(dispatch(g, &scan_kernel, "jpegenc.scan", &push, n, use, 3));
    }
fail:
    return ret;
}

/* Huffman coding with the tables in e->tables_host, from the coefficients to the stuffed bytes
 * with their restart markers. */
static int record_coding(vkfx_graph *g, vkfx_jpegenc *e)
{
    int ret = VKFX_OK;
    const jpegenc_push *p = &e->push;
    uint32_t chunks = vkfx_groups(p->cap_bytes, JPEGENC_CHUNK);
    TRY(vkfx_graph_update(g, e->tables, e->tables_host, sizeof(e->tables_host)));
    TRY(vkfx_graph_fill(g, e->packed, 0));
    TRY(vkfx_graph_fill(g, e->out, 0));
    vkfx_use count[] = {{.buffer = e->coefs},
                        {.buffer = e->tables},
                        {.buffer = e->lengths, .write = true},
                        {.buffer = e->totals, .write = true}};
    TRY(dispatch(g, &count_kernel, "jpegenc.count", p, p->nblocks, count, 4));
    TRY(scan(g, e, e->lengths, p->nblocks, JPEGENC_TOTAL_BITS));
    vkfx_use interval[] = {
        {.buffer = e->lengths}, {.buffer = e->totals}, {.buffer = e->offsets, .write = true}};
    TRY(dispatch(g, &interval_kernel, "jpegenc.interval", p, p->nintervals, interval, 3));
    TRY(scan(g, e, e->offsets, p->nintervals, JPEGENC_TOTAL_BYTES));
    vkfx_use pack[] = {{.buffer = e->coefs},
                       {.buffer = e->tables},
                       {.buffer = e->lengths},
                       {.buffer = e->offsets},
                       {.buffer = e->packed, .write = true}};
    TRY(dispatch(g, &pack_kernel, "jpegenc.pack", p, p->nblocks, pack, 5));
    jpegenc_push bytes = *p;
    bytes.n = chunks;
    vkfx_use ff[] = {
        {.buffer = e->packed}, {.buffer = e->totals}, {.buffer = e->ffcounts, .write = true}};
    TRY(dispatch(g, &ffcount_kernel, "jpegenc.ffcount", &bytes, chunks, ff, 3));
    TRY(scan(g, e, e->ffcounts, chunks, JPEGENC_TOTAL_FF));
    vkfx_use stuff[] = {{.buffer = e->packed},
                        {.buffer = e->totals},
                        {.buffer = e->ffcounts},
                        {.buffer = e->offsets},
                        {.buffer = e->out, .write = true}};
    TRY(dispatch(g, &stuff_kernel, "jpegenc.stuff", &bytes, chunks, stuff, 5));
fail:
    return ret;
}

static int buffer(vkfx_graph *g, uint64_t bytes, vkfx_buffer **out)
{
    return vkfx_graph_buffer(g, (bytes + 3) / 4 * 4, 0, out);
}

int vkfx_jpegenc_record(vkfx_graph *g, vkfx_buffer *codes, uint32_t width, uint32_t height,
                        uint32_t channels, const vkfx_save_opts *opts, vkfx_jpegenc **out)
{
    int ret = VKFX_OK;
    vkfx_jpegenc *e = calloc(1, sizeof(*e));
    *out = NULL;
    if (!e)
        return vkfx_fail(VKFX_E_NOMEM, "out of host memory");
    e->ctx = vkfx_graph_context(g);
    if (!vkfx_jpegenc_covers(width, height, channels, opts, vkfx_graph_caps(g))) {
        ret = vkfx_fail(VKFX_E_USAGE,
                        "JPEG encoding on the device does not cover %ux%u with "
                        "%u channels and these options",
                        width, height, channels);
        goto fail;
    }
    TRY(vkfx_jpeg_settings_for(width, height, channels, opts, &e->set));
    e->optimize = opts && opts->jpeg_optimize;
    jpegenc_push *p = &e->push;
    p->size[0] = (int32_t)width;
    p->size[1] = (int32_t)height;
    p->channels = channels;
    p->hmax = e->set.comp[0].h;
    p->vmax = e->set.comp[0].v;
    p->mcus_x = vkfx_groups(width, 8 * p->hmax);
    p->mcus_y = vkfx_groups(height, 8 * p->vmax);
    uint32_t bpm = channels == 1 ? 1 : p->hmax * p->vmax + 2;
    p->nblocks = p->mcus_x * p->mcus_y * bpm;
    uint32_t mcus = p->mcus_x * p->mcus_y;
    uint32_t per = e->set.restart && e->set.restart < mcus ? e->set.restart : mcus;
    p->interval = per * bpm;
    p->nintervals = vkfx_groups(mcus, per);
    p->cap_bytes = p->nblocks * (BLOCK_BITS_MAX / 8 + 1) + p->nintervals;
    for (int t = 0; t < 2; t++)
        for (int k = 0; k < 64; k++)
            reciprocal((uint32_t)e->set.quant[t][k] << 3, e->tables_host + (t * 64 + k) * 3);
    zigzag(e->tables_host + JPEGENC_ZIGZAG);
    TRY(put_huff_tables(e));

    uint64_t chunks = vkfx_groups(p->cap_bytes, JPEGENC_CHUNK);
    TRY(buffer(g, sizeof(e->tables_host), &e->tables));
    TRY(buffer(g, (uint64_t)p->nblocks * 128, &e->coefs));
    TRY(buffer(g, (uint64_t)p->nblocks * 4, &e->lengths));
    TRY(buffer(g, JPEGENC_TOTAL_WORDS * 4, &e->totals));
    TRY(buffer(g, (uint64_t)p->nintervals * 4, &e->offsets));
    TRY(buffer(g, p->cap_bytes, &e->packed));
    TRY(buffer(g, chunks * 4, &e->ffcounts));
    TRY(buffer(g, 2 * (uint64_t)p->cap_bytes + 2 * p->nintervals, &e->out));
    uint32_t most = p->nblocks > chunks ? p->nblocks : (uint32_t)chunks;
    most = most > p->nintervals ? most : p->nintervals;
    TRY(buffer(g, (uint64_t)vkfx_groups(most, SCAN_TILE) * 4, &e->tiles));

    TRY(vkfx_graph_update(g, e->tables, e->tables_host, sizeof(e->tables_host)));
    TRY(vkfx_graph_fill(g, e->totals, 0));
    vkfx_use coef[] = {
        {.buffer = codes}, {.buffer = e->tables}, {.buffer = e->coefs, .write = true}};
    TRY(dispatch(g, &coef_kernel, "jpegenc.coef", p, p->nblocks, coef, 3));
    if (e->optimize) {
        jpegenc_push gather = *p;
        gather.gather = 1;
        vkfx_use use[] = {{.buffer = e->coefs},
                          {.buffer = e->tables},
                          {.buffer = e->lengths, .write = true},
                          {.buffer = e->totals, .write = true}};
        TRY(dispatch(g, &count_kernel, "jpegenc.gather", &gather, p->nblocks, use, 4));
    } else {
        TRY(record_coding(g, e));
    }
    *out = e;
    return VKFX_OK;
fail:
    vkfx_jpegenc_destroy(e);
    return ret;
}

/* A growing file in memory. */
typedef struct file_bytes {
    unsigned char *data;
    size_t size, cap;
    bool failed;
} file_bytes;

static unsigned char *reserve(file_bytes *f, size_t n)
{
    if (f->failed)
        return NULL;
    if (f->size + n > f->cap) {
        size_t cap = (f->size + n) * 2;
        unsigned char *grown = realloc(f->data, cap);
        if (!grown) {
            f->failed = true;
            return NULL;
        }
        f->data = grown;
        f->cap = cap;
    }
    unsigned char *at = f->data + f->size;
    f->size += n;
    return at;
}

static void put_bytes(file_bytes *f, const void *data, size_t n)
{
    unsigned char *at = reserve(f, n);
    if (at)
        memcpy(at, data, n);
}

static void put_byte(file_bytes *f, unsigned v)
{
    unsigned char b = (unsigned char)v;
    put_bytes(f, &b, 1);
}

static void put_16(file_bytes *f, unsigned v)
{
    put_byte(f, v >> 8);
    put_byte(f, v & 0xFF);
}

static void put_marker(file_bytes *f, unsigned marker, unsigned length)
{
    put_byte(f, 0xFF);
    put_byte(f, marker);
    put_16(f, length);
}

/* The markers before the entropy-coded data, in libjpeg's order: SOI, the JFIF APP0, each
 * quantisation table, the baseline frame header, each Huffman table the scan uses, the restart
 * interval, the scan header. */
static void put_headers(file_bytes *f, const vkfx_jpegenc *e)
{
    const vkfx_jpeg_settings *s = &e->set;
    const uint32_t *natural = e->tables_host + JPEGENC_ZIGZAG;
    uint32_t n = s->components;
    put_byte(f, 0xFF);
    put_byte(f, 0xD8);
    put_marker(f, 0xE0, 16);
    put_bytes(f, "JFIF", 5);
    put_byte(f, s->jfif_version[0]);
    put_byte(f, s->jfif_version[1]);
    put_byte(f, s->density_unit);
    put_16(f, s->density[0]);
    put_16(f, s->density[1]);
    put_16(f, 0); /* no thumbnail */
    for (uint32_t t = 0; t < (n == 1 ? 1u : 2u); t++) {
        put_marker(f, 0xDB, 2 + 1 + 64);
        put_byte(f, t);
        for (int k = 0; k < 64; k++)
            put_byte(f, s->quant[t][natural[k]]);
    }
    put_marker(f, 0xC0, 8 + 3 * n);
    put_byte(f, 8);
    put_16(f, (unsigned)e->push.size[1]);
    put_16(f, (unsigned)e->push.size[0]);
    put_byte(f, n);
    for (uint32_t c = 0; c < n; c++) {
        put_byte(f, s->comp[c].id);
        put_byte(f, (unsigned)s->comp[c].h << 4 | s->comp[c].v);
        put_byte(f, s->comp[c].table);
    }
    for (uint32_t t = 0; t < (n == 1 ? 2u : 4u); t++) {
        const vkfx_jpeg_huff *h = &s->huff[t];
        unsigned count = 0;
        for (int k = 1; k <= 16; k++)
            count += h->bits[k];
        put_marker(f, 0xC4, 2 + 1 + 16 + count);
        put_byte(f, (t & 1) << 4 | t >> 1);
        put_bytes(f, h->bits + 1, 16);
        put_bytes(f, h->vals, count);
    }
    if (s->restart) {
        put_marker(f, 0xDD, 4);
        put_16(f, s->restart);
    }
    put_marker(f, 0xDA, 6 + 2 * n);
    put_byte(f, n);
    for (uint32_t c = 0; c < n; c++) {
        put_byte(f, s->comp[c].id);
        put_byte(f, c == 0 ? 0x00 : 0x11);
    }
    put_byte(f, 0);
    put_byte(f, 63);
    put_byte(f, 0);
}

/* With --jpeg-optimize: the tables from the gathered counts, then the coding with them. */
static int code_optimised(vkfx_jpegenc *e, vkfx_staging *staging)
{
    int ret = VKFX_OK;
    vkfx_graph *g = NULL;
    uint32_t counts[4 * 256];
    TRY(vkfx_staging_download(staging, e->totals->buffer, JPEGENC_HIST * 4, counts,
                              sizeof(counts)));
    for (uint32_t t = 0; t < (e->set.components == 1 ? 2u : 4u); t++)
        optimal_table(counts + 256 * t, &e->set.huff[t]);
    TRY(put_huff_tables(e));
    TRY(vkfx_graph_begin(e->ctx, (uint32_t)e->push.size[0], (uint32_t)e->push.size[1],
                         VK_FORMAT_R16G16B16A16_SFLOAT, false, &g));
    TRY(record_coding(g, e));
    TRY(vkfx_graph_run(g));
fail:
    vkfx_graph_destroy(g);
    return ret;
}

int vkfx_jpegenc_finish(vkfx_jpegenc *e, vkfx_staging *staging, unsigned char **data, size_t *size)
{
    int ret = VKFX_OK;
    file_bytes f = {0};
    *data = NULL;
    *size = 0;
    if (e->optimize)
        TRY(code_optimised(e, staging));
    uint32_t totals[3];
    TRY(vkfx_staging_download(staging, e->totals->buffer, 0, totals, sizeof(totals)));
    uint64_t coded = (uint64_t)totals[JPEGENC_TOTAL_BYTES] + totals[JPEGENC_TOTAL_FF] +
                     2 * ((uint64_t)e->push.nintervals - 1);
    if (totals[JPEGENC_TOTAL_BYTES] > e->push.cap_bytes || coded > e->out->size) {
        ret = vkfx_fail(VKFX_E_LIMIT, "the device's JPEG data (%llu bytes) overran its buffer",
                        (unsigned long long)coded);
        goto fail;
    }
    put_headers(&f, e);
    unsigned char *at = reserve(&f, (size_t)coded + 2);
    if (f.failed) {
        ret = vkfx_fail(VKFX_E_NOMEM, "out of host memory");
        goto fail;
    }
    size_t head = f.size - (size_t)coded - 2;
    /* whole words come back; the last may reach past the data */
    TRY(vkfx_staging_download(staging, e->out->buffer, 0, at, coded / 4 * 4));
    if (coded % 4) {
        uint32_t last;
        TRY(vkfx_staging_download(staging, e->out->buffer, coded / 4 * 4, &last, 4));
        memcpy(at + coded / 4 * 4, &last, coded % 4);
    }
    f.data[head + coded] = 0xFF;
    f.data[head + coded + 1] = 0xD9;
    *data = f.data;
    *size = f.size;
    return VKFX_OK;
fail:
    free(f.data);
    return ret;
}

void vkfx_jpegenc_destroy(vkfx_jpegenc *e)
{
    free(e);
}

int vkfx_jpegenc_encode(vkfx_context *ctx, vkfx_staging *staging, const vkfx_pixels *px,
                        const vkfx_save_opts *opts, unsigned char **data, size_t *size)
{
    int ret = VKFX_OK;
    vkfx_graph *g = NULL;
    vkfx_buffer *codes = NULL;
    vkfx_jpegenc *e = NULL;
    *data = NULL;
    *size = 0;
    if (px->sample != VKFX_SAMPLE_U8)
        return vkfx_fail(VKFX_E_USAGE, "JPEG encoding on the device takes 8-bit samples");
    size_t bytes = vkfx_pixels_bytes(px);
    TRY(vkfx_graph_begin(ctx, px->width, px->height, VK_FORMAT_R16G16B16A16_SFLOAT, false, &g));
    vkfx_graph_set_staging(g, staging);
    TRY(vkfx_graph_buffer(g, (bytes + 3) / 4 * 4, 0, &codes));
    TRY(vkfx_staging_upload(staging, codes->buffer, 0, px->data, bytes));
    TRY(vkfx_jpegenc_record(g, codes, px->width, px->height, px->channels, opts, &e));
    TRY(vkfx_graph_run(g));
    TRY(vkfx_jpegenc_finish(e, staging, data, size));
fail:
    vkfx_jpegenc_destroy(e);
    vkfx_graph_destroy(g);
    return ret;
}
