/* PNG's metadata chunks, read from and added to a PNG's bytes: iCCP (the
 * ICC profile), eXIf (or ImageMagick's EXIF text), iTXt (XMP under "XML:com.adobe.xmp",
 * and text), tEXt and zTXt (text), pHYs (resolution). Every chunk length is checked
 * against the file before it is used. */
#include <errno.h>
#include <libdeflate.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "exif.h"
#include "codec.h"
#include "png_meta.h"

static uint32_t get32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void put32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

#define XMP_KEY "XML:com.adobe.xmp"

/* Latin-1 (tEXt, zTXt) as UTF-8 text. */
static int add_latin1(vkfx_meta *m, const char *key, size_t key_len, const unsigned char *t,
                      size_t n)
{
    char *u = malloc(2 * n + 1);
    if (!u)
        return vkfx_fail(VKFX_E_NOMEM, "out of host memory for a text chunk");
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (t[i] < 0x80) {
            u[k++] = (char)t[i];
        } else {
            u[k++] = (char)(0xc0 | t[i] >> 6);
            u[k++] = (char)(0x80 | (t[i] & 0x3f));
        }
    }
    int ret = vkfx_meta_add_text(m, key, key_len, u, k);
    free(u);
    return ret;
}

/* One text chunk's body: keyword, then what follows its NUL. */
static int read_text(vkfx_meta *m, const char *type, const unsigned char *d, size_t len,
                     const char *name)
{
    const unsigned char *nul = memchr(d, 0, len < 80 ? len : 80);
    if (!nul || nul == d)
        return VKFX_OK; /* no keyword: not a text chunk anyone can use */
    size_t key_len = (size_t)(nul - d);
    const unsigned char *rest = nul + 1, *end = d + len;
    vkfx_blob inflated = {0};
    int ret = VKFX_OK;
    if (!strcmp(type, "tEXt"))
        return add_latin1(m, (const char *)d, key_len, rest, (size_t)(end - rest));
    if (!strcmp(type, "zTXt")) {
        if (end - rest < 1)
            return VKFX_OK;
        ret = vkfx_meta_inflate_text(m, key_len, rest + 1, (size_t)(end - rest - 1), &inflated,
                                     name, "zTXt chunk");
        if (ret == VKFX_OK && inflated.data)
            ret = add_latin1(m, (const char *)d, key_len, inflated.data, inflated.size);
        free(inflated.data);
        return ret;
    }
    /* iTXt: compression flag and method, language tag, translated keyword, text */
    if (end - rest < 2)
        return VKFX_OK;
    bool compressed = rest[0] != 0;
    const unsigned char *p = rest + 2;
    for (int field = 0; field < 2; field++) {
        const unsigned char *z = memchr(p, 0, (size_t)(end - p));
        if (!z)
            return VKFX_OK;
        p = z + 1;
    }
    const unsigned char *text = p;
    size_t n = (size_t)(end - p);
    bool xmp = key_len == strlen(XMP_KEY) && !memcmp(d, XMP_KEY, key_len);
    if (compressed) {
        ret = xmp ? vkfx_meta_inflate(p, n, &inflated, name, "iTXt chunk")
                  : vkfx_meta_inflate_text(m, key_len, p, n, &inflated, name, "iTXt chunk");
        if (ret < 0 || !inflated.data)
            return ret;
        text = inflated.data;
        n = inflated.size;
    }
    if (xmp)
        ret = vkfx_blob_set(&m->xmp, text, n, name, "XMP");
    else
        ret = vkfx_meta_add_text(m, (const char *)d, key_len, (const char *)text, n);
    free(inflated.data);
    return ret;
}

static int hex_digit(char c)
{
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

/* ImageMagick keeps EXIF in a text chunk, "Raw profile type exif": a line "exif", a line
 * of its length, then hex lines. Where the file has no eXIf, that block becomes its EXIF
 * (as Pillow reads it) and the text is dropped, so that an output holds one EXIF whose
 * orientation is kept true. A text that is not such a block stays a text. */
static int exif_from_text(vkfx_meta *m, const char *name)
{
    for (uint32_t i = 0; i < m->ntexts && !m->exif.data; i++) {
        const char *t = m->texts[i].text;
        if (strcmp(m->texts[i].key, "Raw profile type exif"))
            continue;
        for (int lines = 0; lines < 3 && t; lines++)
            t = (t = strchr(t, '\n')) ? t + 1 : NULL;
        size_t n = 0, len = t ? strlen(t) : 0;
        uint8_t *bin = t ? malloc(len / 2 + 1) : NULL;
        if (!bin)
            continue;
        bool ok = true;
        for (int hi = -1; ok && *t; t++) {
            int v = hex_digit(*t);
            if (v < 0)
                ok = *t == '\n' || *t == ' ' || *t == '\r';
            else if (hi < 0)
                hi = v;
            else {
                bin[n++] = (uint8_t)(hi << 4 | v);
                hi = -1;
            }
        }
        size_t skip = n >= 6 && !memcmp(bin, "Exif\0\0", 6) ? 6 : 0;
        int ret =
            ok && n > skip ? vkfx_blob_set(&m->exif, bin + skip, n - skip, name, "EXIF") : VKFX_OK;
        free(bin);
        if (ret < 0)
            return ret;
        if (!m->exif.data)
            continue;
        m->text_bytes -= strlen(m->texts[i].key) + strlen(m->texts[i].text);
        free(m->texts[i].key);
        free(m->texts[i].text);
        memmove(m->texts + i, m->texts + i + 1, (m->ntexts - i - 1) * sizeof(m->texts[0]));
        m->ntexts--;
    }
    return VKFX_OK;
}

int vkfx_png_read_meta(const unsigned char *data, size_t size, const char *name, vkfx_meta *m)
{
    int ret = VKFX_OK;
    for (size_t at = 8; ret == VKFX_OK && at + 12 <= size;) {
        uint32_t len = get32(data + at);
        if (len > size - at - 12)
            break; /* the decoder reports a cut file */
        char type[5] = {0};
        memcpy(type, data + at + 4, 4);
        const unsigned char *d = data + at + 8;
        if (!strcmp(type, "IEND"))
            break;
        if (!strcmp(type, "iCCP")) {
            const unsigned char *nul = memchr(d, 0, len < 80 ? len : 80);
            if (nul && (size_t)(nul - d) + 2 <= len)
                ret = vkfx_meta_inflate(nul + 2, len - (size_t)(nul - d) - 2, &m->icc, name,
                                        "ICC profile");
            if (ret == VKFX_E_FORMAT && vkfx_meta_icc_damaged(m, vkfx_error_message()))
                ret = VKFX_OK;
        } else if (!strcmp(type, "eXIf")) {
            size_t skip = len >= 6 && !memcmp(d, "Exif\0\0", 6) ? 6 : 0;
            ret = vkfx_blob_set(&m->exif, d + skip, len - skip, name, "EXIF");
        } else if (!strcmp(type, "pHYs") && len == 9) {
            uint32_t x = get32(d), y = get32(d + 4);
            /* per metre as per inch, the unit the other formats mostly use: 11811/m is 300 dpi */
            m->has_res = x && y;
            m->res_unit = d[8] == 1 ? VKFX_RES_PER_INCH : VKFX_RES_NONE;
            m->res_x = d[8] == 1 ? x * 0.0254 : x;
            m->res_y = d[8] == 1 ? y * 0.0254 : y;
        } else if (!strcmp(type, "tEXt") || !strcmp(type, "zTXt") || !strcmp(type, "iTXt")) {
            ret = read_text(m, type, d, len, name);
        }
        at += 12 + (size_t)len;
    }
    if (ret == VKFX_OK)
        ret = exif_from_text(m, name);
    /* An orientation in XMP only counts where EXIF has none, as Pillow reads PNG. */
    if (ret == VKFX_OK && !vkfx_exif_orientation(m->exif.data, m->exif.size))
        m->stored_orientation = vkfx_meta_xmp_orientation(m);
    return ret;
}

/* A chunk of type with body (n bytes) to f, with its CRC. */
static bool write_chunk(FILE *f, const char *type, const unsigned char *body, size_t n)
{
    unsigned char head[8], crc[4];
    put32(head, (uint32_t)n);
    memcpy(head + 4, type, 4);
    uint32_t c = libdeflate_crc32(0, head + 4, 4);
    c = libdeflate_crc32(c, body, n);
    put32(crc, c);
    return fwrite(head, 1, 8, f) == 8 && fwrite(body, 1, n, f) == n && fwrite(crc, 1, 4, f) == 4;
}

/* An iTXt chunk, uncompressed, no language. */
static bool write_itxt(FILE *f, const char *key, const unsigned char *text, size_t n)
{
    size_t k = strlen(key);
    if (k < 1 || k > 79)
        return true; /* a keyword PNG does not allow is left out */
    unsigned char *body = malloc(k + 5 + n);
    if (!body)
        return false;
    memcpy(body, key, k);
    memset(body + k, 0, 5); /* NUL, flag 0, method 0, empty language, empty translation */
    memcpy(body + k + 5, text, n);
    bool ok = write_chunk(f, "iTXt", body, k + 5 + n);
    free(body);
    return ok;
}

static bool write_iccp(FILE *f, const vkfx_blob *icc)
{
    static const char key[] = "ICC profile";
    struct libdeflate_compressor *c = libdeflate_alloc_compressor(9);
    size_t bound = c ? libdeflate_zlib_compress_bound(c, icc->size) : 0;
    unsigned char *body = c ? malloc(sizeof(key) + 1 + bound) : NULL;
    bool ok = false;
    if (body) {
        memcpy(body, key, sizeof(key)); /* with its NUL */
        body[sizeof(key)] = 0;          /* deflate */
        size_t n = libdeflate_zlib_compress(c, icc->data, icc->size, body + sizeof(key) + 1, bound);
        ok = n && write_chunk(f, "iCCP", body, sizeof(key) + 1 + n);
    }
    free(body);
    libdeflate_free_compressor(c);
    return ok;
}

static bool write_meta_chunks(FILE *f, const vkfx_meta *m)
{
    bool ok = true;
    if (m->icc.data)
        ok = ok && write_iccp(f, &m->icc);
    if (m->exif.data)
        ok = ok && write_chunk(f, "eXIf", m->exif.data, m->exif.size);
    if (m->has_res) {
        unsigned char phys[9];
        bool cm = m->res_unit == VKFX_RES_PER_CM, in = m->res_unit == VKFX_RES_PER_INCH;
        double scale = cm ? 100.0 : in ? 100.0 / 2.54 : 1.0;
        put32(phys, (uint32_t)(m->res_x * scale + 0.5));
        put32(phys + 4, (uint32_t)(m->res_y * scale + 0.5));
        phys[8] = cm || in;
        ok = ok && write_chunk(f, "pHYs", phys, sizeof(phys));
    }
    if (m->xmp.data)
        ok = ok && write_itxt(f, XMP_KEY, m->xmp.data, m->xmp.size);
    for (uint32_t i = 0; i < m->ntexts; i++)
        ok = ok && write_itxt(f, m->texts[i].key, (const unsigned char *)m->texts[i].text,
                              strlen(m->texts[i].text));
    return ok;
}

int vkfx_png_put_meta(FILE *f, const char *path, const unsigned char *data, size_t size,
                      const vkfx_meta *m)
{
    /* signature and IHDR, then the metadata, then the rest */
    const size_t head = 8 + 12 + 13;
    if (size < head || memcmp(data + 12, "IHDR", 4) != 0)
        return vkfx_fail(VKFX_E_FORMAT, "%s: the PNG encoder's output has no IHDR", path);
    if (fwrite(data, 1, head, f) != head || !write_meta_chunks(f, m) ||
        fwrite(data + head, 1, size - head, f) != size - head)
        return vkfx_fail(VKFX_E_IO, "%s: writing the PNG failed: %s", path,
                         strerror(errno ? errno : EIO));
    return VKFX_OK;
}
