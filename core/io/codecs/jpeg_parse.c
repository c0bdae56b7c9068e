/* The host half of the GPU JPEG decoder: one pass over the markers. Stuffed bytes and restart
 * markers come out here rather than on the device: the pass runs at memory speed, finds the
 * restart segments the device decodes in parallel, and leaves a bit stream in which any
 * thread may start at any bit, which decoding from arbitrary positions needs. Every check
 * that libjpeg-turbo would answer with an error or a warning sends the file back to it (1),
 * so that its messages stay the only ones. */
#include "jpeg_parse.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "../../glsl/jpegdec.h"
#include "codec.h"

/* Zigzag position -> natural (row-major) position of the 8x8 block. */
static const uint8_t natural_order[64] = {
    0,  1,  8,  16, 9,  2,  3,  10, 17, 24, 32, 25, 18, 11, 4,  5,  12, 19, 26, 33, 40, 48,
    41, 34, 27, 20, 13, 6,  7,  14, 21, 28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23,
    30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
};

typedef struct huff_table {
    bool defined;
    uint8_t counts[17]; /* codes of each length 1-16 */
    uint8_t vals[256];
} huff_table;

typedef struct parse_state {
    const unsigned char *p, *end;
    uint16_t quant[4][64];
    bool quant_defined[4];
    huff_table huff[2][4]; /* [DC, AC][slot] */
    uint32_t restart;
    uint32_t ncomp, max_h, max_v;
    uint32_t comp_id[3], comp_h[3], comp_v[3], comp_tq[3];
    bool comp_scanned[3];
    uint32_t nscans;
    bool frame;
    unsigned char *bytes; /* de-stuffed entropy-coded data */
    size_t nbytes;
    uint32_t *segs;
    size_t nsegs, segs_cap;
} parse_state;

static uint32_t div_up(uint32_t a, uint32_t b)
{
    return (a + b - 1) / b;
}

/* The derived form the device reads (JD_H_*), or false for a table libjpeg-turbo refuses:
 * more codes of a length than the codes before leave room for, or a DC value above 15. */
static bool derive_table(const huff_table *t, bool dc, uint32_t *out)
{
    if (!t->defined)
        return false;
    memset(out, 0, JD_HUFF_WORDS * sizeof(*out));
    uint32_t code = 0, k = 0;
    for (uint32_t len = 1; len <= 16; len++) {
        out[JD_H_VALOFF + len] = (uint32_t)((int32_t)k - (int32_t)code);
        out[JD_H_MAXCODE + len] = (uint32_t)-1;
        for (uint32_t i = 0; i < t->counts[len]; i++, k++, code++) {
            if (dc && t->vals[k] > 15)
                return false;
            if (len <= JD_H_LUT_BITS) {
                uint32_t shift = JD_H_LUT_BITS - len;
                for (uint32_t e = code << shift; e < (code + 1) << shift; e++)
                    out[JD_H_LUT + e] = len << 8 | t->vals[k];
            }
            out[JD_H_MAXCODE + len] = code;
        }
        if (code >= (1u << len))
            return false;
        code <<= 1;
    }
    for (uint32_t i = 0; i < k; i++)
        out[JD_H_VALS + i] = t->vals[i];
    return true;
}

static int read_dqt(parse_state *s, const unsigned char *m, uint32_t len)
{
    while (len > 0) {
        uint32_t pq = m[0] >> 4, tq = m[0] & 15, need = 1 + 64 * (pq ? 2 : 1);
        if (pq > 1 || tq > 3 || len < need)
            return 1;
        for (int i = 0; i < 64; i++)
            s->quant[tq][natural_order[i]] =
                pq ? (uint16_t)(m[1 + 2 * i] << 8 | m[2 + 2 * i]) : m[1 + i];
        s->quant_defined[tq] = true;
        m += need;
        len -= need;
    }
    return 0;
}

static int read_dht(parse_state *s, const unsigned char *m, uint32_t len)
{
    while (len > 0) {
        if (len < 17)
            return 1;
        uint32_t tc = m[0] >> 4, th = m[0] & 15, count = 0;
        if (tc > 1 || th > 3)
            return 1;
        huff_table *t = &s->huff[tc][th];
        t->counts[0] = 0;
        for (int i = 1; i <= 16; i++)
            count += t->counts[i] = m[i];
        if (count > 256 || len < 17 + count)
            return 1;
        memcpy(t->vals, m + 17, count);
        t->defined = true;
        m += 17 + count;
        len -= 17 + count;
    }
    return 0;
}

static int read_sof(parse_state *s, const unsigned char *m, uint32_t len, vkfx_jpeg_layout *out)
{
    if (s->frame || len < 6)
        return 1;
    s->frame = true;
    out->height = (uint32_t)m[1] << 8 | m[2];
    out->width = (uint32_t)m[3] << 8 | m[4];
    s->ncomp = m[5];
    if (m[0] != 8 || out->width == 0 || out->height == 0 || (s->ncomp != 1 && s->ncomp != 3) ||
        len != 6 + 3 * s->ncomp)
        return 1;
    for (uint32_t c = 0; c < s->ncomp; c++) {
        const unsigned char *e = m + 6 + 3 * c;
        s->comp_id[c] = e[0];
        s->comp_h[c] = e[1] >> 4;
        s->comp_v[c] = e[1] & 15;
        s->comp_tq[c] = e[2];
        if (s->comp_h[c] < 1 || s->comp_h[c] > 4 || s->comp_v[c] < 1 || s->comp_v[c] > 4 ||
            s->comp_tq[c] > 3)
            return 1;
        for (uint32_t d = 0; d < c; d++)
            if (s->comp_id[d] == s->comp_id[c])
                return 1;
        s->max_h = s->max_h > s->comp_h[c] ? s->max_h : s->comp_h[c];
        s->max_v = s->max_v > s->comp_v[c] ? s->max_v : s->comp_v[c];
    }
    /* libjpeg-turbo upsamples by whole factors only. */
    for (uint32_t c = 0; c < s->ncomp; c++)
        if (s->max_h % s->comp_h[c] || s->max_v % s->comp_v[c])
            return 1;
    return 0;
}

/* Samples of component c across and down, as libjpeg-turbo counts them. */
static uint32_t comp_samples(uint32_t size, uint32_t f, uint32_t max)
{
    return (uint32_t)(((uint64_t)size * f + max - 1) / max);
}

static int add_segment(parse_state *s, size_t start, uint32_t first_mcu, uint32_t scan)
{
    if (s->nsegs == s->segs_cap) {
        size_t cap = s->segs_cap ? 2 * s->segs_cap : 64;
        uint32_t *grown = realloc(s->segs, cap * JD_SEG_WORDS * sizeof(*grown));
        if (!grown)
            return vkfx_fail(VKFX_E_NOMEM, "out of host memory for the JPEG's segments");
        s->segs = grown;
        s->segs_cap = cap;
    }
    uint32_t *g = s->segs + s->nsegs++ * JD_SEG_WORDS;
    g[0] = (uint32_t)start;
    g[1] = (uint32_t)start; /* its end, set when the segment ends */
    g[2] = first_mcu;
    g[3] = scan;
    g[4] = g[5] = 0;
    return 0;
}

/* The scan's header, then its entropy-coded bytes up to the marker that ends them. */
static int read_sos(parse_state *s, const unsigned char *m, uint32_t len, vkfx_jpeg_layout *out)
{
    if (!s->frame || s->nscans == JD_MAX_SCANS || len < 1)
        return 1;
    uint32_t ns = m[0], scan = s->nscans++;
    if (ns < 1 || ns > s->ncomp || len != 4 + 2 * ns)
        return 1;
    /* Sequential: the whole band of coefficients, no successive approximation. */
    if (m[1 + 2 * ns] != 0 || m[2 + 2 * ns] != 63 || m[3 + 2 * ns] != 0)
        return 1;
    uint32_t *sc = out->info + JD_SCAN + scan * JD_SCAN_WORDS;
    uint32_t blocks_in_mcu = 0;
    for (uint32_t k = 0; k < ns; k++) {
        uint32_t id = m[1 + 2 * k], td = m[2 + 2 * k] >> 4, ta = m[2 + 2 * k] & 15, c = 0;
        while (c < s->ncomp && s->comp_id[c] != id)
            c++;
        if (c == s->ncomp || s->comp_scanned[c] || td > 3 || ta > 3 ||
            !s->quant_defined[s->comp_tq[c]])
            return 1;
        s->comp_scanned[c] = true;
        sc[JD_S_SLOT + k] = c;
        uint32_t *h = out->info + JD_HUFF + (scan * 6 + 2 * k) * JD_HUFF_WORDS;
        if (!derive_table(&s->huff[0][td], true, h) ||
            !derive_table(&s->huff[1][ta], false, h + JD_HUFF_WORDS))
            return 1;
        /* The table as it is when the component's scan starts, as libjpeg-turbo latches it. */
        for (int i = 0; i < 64; i++)
            out->info[JD_QUANT + 64 * c + i] = s->quant[s->comp_tq[c]][i];
        blocks_in_mcu += s->comp_h[c] * s->comp_v[c];
    }
    uint32_t mcus_x, mcus;
    if (ns == 1) {
        uint32_t c = sc[JD_S_SLOT];
        mcus_x = div_up(comp_samples(out->width, s->comp_h[c], s->max_h), 8);
        mcus = mcus_x * div_up(comp_samples(out->height, s->comp_v[c], s->max_v), 8);
    } else {
        if (blocks_in_mcu > 10)
            return 1;
        mcus_x = div_up(out->width, 8 * s->max_h);
        mcus = mcus_x * div_up(out->height, 8 * s->max_v);
    }
    uint32_t b = 0;
    for (uint32_t k = 0; k < ns; k++) {
        uint32_t c = sc[JD_S_SLOT + k], n = ns == 1 ? 1 : s->comp_h[c] * s->comp_v[c];
        for (uint32_t i = 0; i < n; i++, b++) {
            sc[JD_S_BSLOT + b] = k;
            sc[JD_S_BINDEX + b] = i;
        }
    }
    sc[JD_S_BPM] = b;
    sc[JD_S_NCOMP] = ns;
    sc[JD_S_MCUS_X] = mcus_x;
    sc[JD_S_MCUS] = mcus;
    sc[JD_S_RESTART] = s->restart;
    uint32_t expect = s->restart ? div_up(mcus, s->restart) : 1, seen = 1;
    int ret = add_segment(s, s->nbytes, 0, scan);
    if (ret)
        return ret;
    const unsigned char *p = m + len;
    while (p < s->end) {
        if (*p != 0xFF) {
            s->bytes[s->nbytes++] = *p++;
            continue;
        }
        const unsigned char *q = p + 1;
        while (q < s->end && *q == 0xFF)
            q++;
        if (q == s->end)
            return 1;
        /* Fill bytes before a stuffed 0xFF are no stream the standard allows: libjpeg-turbo's
         * slow path reads them as one data byte, but its fast path first decodes the MCU on
         * from zeros, as from a marker, and the slow path leaves the coefficients it wrote
         * where its own are zero. Which path runs depends on the bytes left in libjpeg-turbo's
         * buffer, so such a stream is libjpeg-turbo's. */
        if (*q == 0 && q != p + 1)
            return 1;
        if (*q == 0) {
            s->bytes[s->nbytes++] = 0xFF;
            p = q + 1;
            continue;
        }
        if (*q < 0xD0 || *q > 0xD7)
            break;
        /* Restart markers count 0-7 over and over, one after each interval but the last. */
        if (!s->restart || seen == expect || *q != 0xD0 + (seen - 1) % 8)
            return 1;
        s->segs[(s->nsegs - 1) * JD_SEG_WORDS + 1] = (uint32_t)s->nbytes;
        if ((ret = add_segment(s, s->nbytes, seen * s->restart, scan)))
            return ret;
        seen++;
        p = q + 1;
    }
    if (seen != expect || p >= s->end)
        return 1;
    s->segs[(s->nsegs - 1) * JD_SEG_WORDS + 1] = (uint32_t)s->nbytes;
    s->p = p;
    return 0;
}

/* The storage of every component: blocks and planes of whole MCUs. */
static int place_components(parse_state *s, vkfx_jpeg_layout *out)
{
    uint32_t *in = out->info;
    uint32_t mcus_x = div_up(out->width, 8 * s->max_h), mcus_y = div_up(out->height, 8 * s->max_v);
    uint64_t blocks = 0, words = 0;
    for (uint32_t c = 0; c < s->ncomp; c++) {
        if (!s->comp_scanned[c])
            return 1;
        uint32_t *e = in + JD_COMP + c * JD_COMP_WORDS;
        e[JD_C_H] = s->comp_h[c];
        e[JD_C_V] = s->comp_v[c];
        e[JD_C_BASE] = (uint32_t)blocks;
        e[JD_C_STRIDE] = mcus_x * s->comp_h[c];
        e[JD_C_ROWS] = mcus_y * s->comp_v[c];
        e[JD_C_PLANE] = (uint32_t)words;
        e[JD_C_DW] = comp_samples(out->width, s->comp_h[c], s->max_h);
        e[JD_C_DH] = comp_samples(out->height, s->comp_v[c], s->max_v);
        blocks += (uint64_t)e[JD_C_STRIDE] * e[JD_C_ROWS];
        words += (uint64_t)e[JD_C_STRIDE] * 2 * e[JD_C_ROWS] * 8;
        if (blocks > UINT32_MAX / 64 || words > UINT32_MAX)
            return 1;
    }
    /* As libjpeg's reader here refuses: a Huffman block takes at least two bits. */
    if (blocks > (uint64_t)s->nbytes * 4 + 4 * s->nsegs)
        return 1;
    in[JD_WIDTH] = out->width;
    in[JD_HEIGHT] = out->height;
    in[JD_NCOMP] = s->ncomp;
    in[JD_MAX_H] = s->max_h;
    in[JD_MAX_V] = s->max_v;
    in[JD_BLOCKS] = (uint32_t)blocks;
    out->blocks = blocks;
    out->plane_words = words;
    out->channels = s->ncomp;
    return 0;
}

static int walk_markers(parse_state *s, vkfx_jpeg_layout *out)
{
    if (s->end - s->p < 2 || s->p[0] != 0xFF || s->p[1] != 0xD8)
        return 1;
    s->p += 2;
    for (;;) {
        if (s->end - s->p < 2 || s->p[0] != 0xFF)
            return 1;
        while (s->p < s->end && *s->p == 0xFF)
            s->p++;
        if (s->p == s->end)
            return 1;
        unsigned code = *s->p++;
        if (code == 0xD9)
            return s->nscans ? place_components(s, out) : 1;
        if (s->end - s->p < 2)
            return 1;
        uint32_t len = (uint32_t)s->p[0] << 8 | s->p[1];
        if (len < 2 || (size_t)(s->end - s->p) < len)
            return 1;
        const unsigned char *m = s->p + 2;
        s->p += len;
        len -= 2;
        int ret = 0;
        switch (code) {
        case 0xC0: /* baseline */
        case 0xC1: /* extended sequential, Huffman */
            ret = read_sof(s, m, len, out);
            break;
        case 0xC4:
            ret = read_dht(s, m, len);
            break;
        case 0xDB:
            ret = read_dqt(s, m, len);
            break;
        case 0xDD:
            if (len != 2)
                return 1;
            s->restart = (uint32_t)m[0] << 8 | m[1];
            break;
        case 0xDA:
            ret = read_sos(s, m, len, out);
            break;
        default:
            /* Application data and comments pass; every other frame, DNL, arithmetic
             * conditioning and stray markers are libjpeg-turbo's to judge. */
            if (!((code >= 0xE0 && code <= 0xEF) || code == 0xFE))
                return 1;
        }
        if (ret)
            return ret;
    }
}

int vkfx_jpeg_parse(const unsigned char *data, size_t size, vkfx_jpeg_layout *out)
{
    memset(out, 0, sizeof(*out));
    /* Gray or YCbCr, as libjpeg-turbo reads the header without a word; the device counts the
     * data's bits in 32 bits. */
    if (size >= (1u << 29) || !vkfx_jpeg_header_plain(data, size))
        return 1;
    int ret;
    parse_state s = {.p = data, .end = data + size};
    out->info = calloc(JD_INFO_WORDS, sizeof(*out->info));
    s.bytes = malloc(size ? size : 1);
    if (!out->info || !s.bytes) {
        ret = vkfx_fail(VKFX_E_NOMEM, "out of host memory for the JPEG's tables");
        goto fail;
    }
    if ((ret = walk_markers(&s, out)))
        goto fail;
    out->nwords = (uint32_t)((s.nbytes + 3) / 4 + 1);
    out->data = calloc(out->nwords, sizeof(*out->data));
    if (!out->data) {
        ret = vkfx_fail(VKFX_E_NOMEM, "out of host memory for the JPEG's data");
        goto fail;
    }
    for (size_t i = 0; i < s.nbytes; i++)
        out->data[i / 4] |= (uint32_t)s.bytes[i] << (24 - 8 * (i % 4));
    out->segments = s.segs;
    out->nsegments = (uint32_t)s.nsegs;
    out->info[JD_SEGMENTS] = out->nsegments;
    out->info[JD_WORDS] = out->nwords;
    s.segs = NULL;
fail:
    free(s.bytes);
    free(s.segs);
    if (ret)
        vkfx_jpeg_layout_free(out);
    return ret;
}

void vkfx_jpeg_layout_free(vkfx_jpeg_layout *l)
{
    free(l->info);
    free(l->segments);
    free(l->data);
    memset(l, 0, sizeof(*l));
}
