/* JPEG's metadata segments, read from and added to a JPEG's bytes: APP0
 * JFIF (resolution), APP1 EXIF and XMP, APP2 ICC profile split over as many
 * markers as ICC.1 Annex B says (sequence number and count in each). XMP
 * longer than one segment holds is Adobe's extended XMP (XMP Specification
 * Part 3, 1.1.3.1): a standard packet whose xmpNote:HasExtendedXMP names
 * the MD5 of the rest, which follows in APP1 segments giving that GUID, the
 * full length and their offset. vkfx writes the whole packet as the
 * extension under a standard packet holding only the note, and reads the
 * extension's descriptions into the standard packet. Every segment length
 * is checked against the file before it is used. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "icc.h"
#include "codec.h"
#include "jpeg_meta.h"

static const char exif_id[6] = "Exif\0";
static const char xmp_id[] = "http://ns.adobe.com/xap/1.0/"; /* with its NUL: 29 bytes */
static const char icc_id[] = "ICC_PROFILE";                  /* with its NUL: 12 bytes */
static const char ext_id[] = "http://ns.adobe.com/xmp/extension/"; /* with its NUL: 35 bytes */
/* The most a segment holds after its length field. */
#define SEGMENT_MAX 65533u
/* The most a standard XMP packet may take (XMP Part 3: 65535 less the
 * length, the namespace and its NUL, as the specification counts them). */
#define XMP_STANDARD_MAX 65502u
/* An extension segment's head: namespace, GUID, full length, offset. */
#define EXT_HEAD (sizeof(ext_id) + 32 + 4 + 4)
#define EXT_PIECE (SEGMENT_MAX - EXT_HEAD)

/* MD5 (RFC 1321), which names an extended XMP part. */
static void md5(const unsigned char *data, size_t size, unsigned char out[16])
{
    static const uint32_t k[64] = {
        0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613,
        0xfd469501, 0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193,
        0xa679438e, 0x49b40821, 0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d,
        0x02441453, 0xd8a1e681, 0xe7d3fbc8, 0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed,
        0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a, 0xfffa3942, 0x8771f681, 0x6d9d6122,
        0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70, 0x289b7ec6, 0xeaa127fa,
        0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665, 0xf4292244,
        0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
        0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb,
        0xeb86d391};
    static const uint8_t r[16] = {7, 12, 17, 22, 5, 9, 14, 20, 4, 11, 16, 23, 6, 10, 15, 21};
    uint32_t h[4] = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476};
    size_t blocks = (size + 8) / 64 + 1;
    for (size_t b = 0; b < blocks; b++) {
        uint32_t w[16] = {0};
        for (size_t i = 0; i < 64; i++) {
            size_t at = b * 64 + i;
            uint32_t byte = at < size ? data[at] : at == size ? 0x80u : 0;
            if (b == blocks - 1 && i >= 56)
                byte = (uint32_t)(((uint64_t)size * 8) >> (8 * (i - 56))) & 0xff;
            w[i / 4] |= byte << (8 * (i % 4));
        }
        uint32_t a = h[0], bb = h[1], c = h[2], d = h[3];
        for (uint32_t i = 0; i < 64; i++) {
            uint32_t f, g;
            if (i < 16) {
                f = (bb & c) | (~bb & d);
                g = i;
            } else if (i < 32) {
                f = (d & bb) | (~d & c);
                g = (5 * i + 1) % 16;
            } else if (i < 48) {
                f = bb ^ c ^ d;
                g = (3 * i + 5) % 16;
            } else {
                f = c ^ (bb | ~d);
                g = (7 * i) % 16;
            }
            uint32_t t = a + f + k[i] + w[g], s = r[i / 16 * 4 + i % 4];
            a = d;
            d = c;
            c = bb;
            bb += t << s | t >> (32 - s);
        }
        h[0] += a;
        h[1] += bb;
        h[2] += c;
        h[3] += d;
    }
    for (int i = 0; i < 16; i++)
        out[i] = (unsigned char)(h[i / 4] >> (8 * (i % 4)));
}

/* The next segment at *at: its marker and body (after the length field);
 * false at the scan, the end, or a length that runs out of the file. */
static bool next_segment(const unsigned char *data, size_t size, size_t *at, unsigned *marker,
                         const unsigned char **body, size_t *n)
{
    while (*at + 4 <= size && data[*at] == 0xff) {
        unsigned mk = data[*at + 1];
        if (mk == 0xff) { /* fill byte */
            (*at)++;
            continue;
        }
        if (mk == 0xd8 || (mk >= 0xd0 && mk <= 0xd7) || mk == 0x01) {
            *at += 2;
            continue;
        }
        if (mk == 0xda || mk == 0xd9)
            return false; /* the scan: no metadata past here that vkfx reads */
        size_t len = (size_t)data[*at + 2] << 8 | data[*at + 3];
        if (len < 2 || len > size - *at - 2)
            return false; /* the decoder reports a cut file */
        *marker = mk;
        *body = data + *at + 4;
        *n = len - 2;
        *at += 2 + len;
        return true;
    }
    return false;
}

static const char note_name[] = "xmpNote:HasExtendedXMP";

/* The first place needle (n bytes) occurs in hay (size bytes), or NULL. */
static const char *find_bytes(const char *hay, size_t size, const char *needle, size_t n)
{
    for (size_t i = 0; size >= n && i <= size - n; i++)
        if (hay[i] == needle[0] && !memcmp(hay + i, needle, n))
            return hay + i;
    return NULL;
}

static bool xml_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* The GUID (32 upper-case hex digits) a standard packet's
 * xmpNote:HasExtendedXMP names, as an attribute or an element; false where
 * it names none. *from, *to: the attribute's bytes, to cut it out (both 0
 * for the element form). */
static bool extended_guid(const vkfx_blob *xmp, char guid[33], size_t *from, size_t *to)
{
    const char *text = (const char *)xmp->data;
    const char *p = xmp->data ? find_bytes(text, xmp->size, note_name, sizeof(note_name) - 1) : NULL;
    if (!p)
        return false;
    size_t at = (size_t)(p - text) + sizeof(note_name) - 1;
    *from = *to = 0;
    while (at < xmp->size && xml_space(text[at]))
        at++;
    bool attribute = at < xmp->size && text[at] == '=';
    if (attribute) {
        *from = (size_t)(p - text);
        at++;
        while (at < xmp->size && xml_space(text[at]))
            at++;
    }
    if (at >= xmp->size || (attribute ? text[at] != '"' && text[at] != '\'' : text[at] != '>'))
        return false;
    at++;
    if (xmp->size - at < 33)
        return false;
    for (int i = 0; i < 32; i++) {
        char c = text[at + (size_t)i];
        if (!((c >= '0' && c <= '9') || (c >= 'A' && c <= 'F')))
            return false;
        guid[i] = c;
    }
    guid[32] = 0;
    if (attribute)
        *to = at + 33;
    return true;
}

/* The bytes between a packet's <rdf:RDF ...> and </rdf:RDF>; false where it
 * has no such element. */
static bool rdf_body(const char *text, size_t size, size_t *begin, size_t *end)
{
    static const char open[] = "<rdf:RDF", close[] = "</rdf:RDF>";
    const char *o = find_bytes(text, size, open, sizeof(open) - 1);
    const char *gt = o ? memchr(o, '>', size - (size_t)(o - text)) : NULL;
    const char *c = gt ? find_bytes(gt, size - (size_t)(gt - text), close, sizeof(close) - 1) : NULL;
    if (!c || gt[-1] == '/')
        return false;
    *begin = (size_t)(gt + 1 - text);
    *end = (size_t)(c - text);
    return true;
}

/* The extended part named guid, from the APP1 extension segments, into ext;
 * nothing where a piece is missing or they disagree. */
static int read_extension(const unsigned char *data, size_t size, const char *guid,
                          const char *name, vkfx_blob *ext)
{
    uint32_t full = 0;
    unsigned char *have = NULL; /* a bit for each byte of the part that a segment gave */
    size_t covered = 0, at = 2, n;
    unsigned marker;
    const unsigned char *d;
    int ret = VKFX_OK;
    bool agree = true;
    while (ret == VKFX_OK && agree && next_segment(data, size, &at, &marker, &d, &n)) {
        if (marker != 0xe1 || n < EXT_HEAD || memcmp(d, ext_id, sizeof(ext_id)) ||
            memcmp(d + sizeof(ext_id), guid, 32))
            continue;
        const unsigned char *f = d + sizeof(ext_id) + 32;
        uint32_t len = (uint32_t)f[0] << 24 | (uint32_t)f[1] << 16 | (uint32_t)f[2] << 8 | f[3];
        uint32_t off = (uint32_t)f[4] << 24 | (uint32_t)f[5] << 16 | (uint32_t)f[6] << 8 | f[7];
        size_t piece = n - EXT_HEAD;
        if (!ext->data) {
            /* the part lies in the file's segments: no longer than the file */
            if (!len || len > size) {
                agree = false;
                break;
            }
            full = len;
            if (full > VKFX_META_MAX_BYTES) {
                ret = vkfx_fail(VKFX_E_FORMAT, "%s: its XMP is larger than %u MiB; refused", name,
                                VKFX_META_MAX_BYTES >> 20);
                break;
            }
            ext->data = malloc((size_t)full + 1);
            have = calloc((full + 7) / 8, 1);
            if (!ext->data || !have) {
                ret = vkfx_fail(VKFX_E_NOMEM, "%s: out of host memory for its XMP", name);
                break;
            }
        }
        if (len != full || off > full || piece > full - off) {
            agree = false;
            break;
        }
        memcpy(ext->data + off, d + EXT_HEAD, piece);
        for (size_t i = off; i < off + piece; i++) {
            covered += !(have[i / 8] >> (i % 8) & 1);
            have[i / 8] |= (unsigned char)(1u << (i % 8));
        }
    }
    free(have);
    if (ret == VKFX_OK && agree && ext->data && covered == full) {
        ext->size = full;
        ext->data[full] = 0;
        return VKFX_OK;
    }
    free(ext->data);
    *ext = (vkfx_blob){0};
    return ret;
}

/* The standard packet with the extension's descriptions put into its
 * rdf:RDF and its xmpNote:HasExtendedXMP attribute gone: one packet, as the
 * other formats hold XMP. The standard packet stays as it is where the
 * extension is missing or has no rdf:RDF. */
static int merge_extension(const unsigned char *data, size_t size, const char *name,
                           vkfx_blob *xmp)
{
    char guid[33];
    size_t cut_from, cut_to, sb, se, eb, ee;
    vkfx_blob ext = {0}, merged = {0};
    if (!extended_guid(xmp, guid, &cut_from, &cut_to))
        return VKFX_OK;
    int ret = read_extension(data, size, guid, name, &ext);
    if (ret < 0 || !ext.data || !rdf_body((const char *)xmp->data, xmp->size, &sb, &se) ||
        !rdf_body((const char *)ext.data, ext.size, &eb, &ee) || (cut_to && cut_to > se)) {
        free(ext.data);
        return ret;
    }
    const unsigned char *x = xmp->data;
    ret = vkfx_blob_append(&merged, x, cut_from ? cut_from : se, name, "XMP");
    if (ret == VKFX_OK && cut_to)
        ret = vkfx_blob_append(&merged, x + cut_to, se - cut_to, name, "XMP");
    if (ret == VKFX_OK)
        ret = vkfx_blob_append(&merged, ext.data + eb, ee - eb, name, "XMP");
    if (ret == VKFX_OK)
        ret = vkfx_blob_append(&merged, x + se, xmp->size - se, name, "XMP");
    free(ext.data);
    if (ret < 0) {
        free(merged.data);
        return ret;
    }
    free(xmp->data);
    *xmp = merged;
    return VKFX_OK;
}

int vkfx_jpeg_read_meta(const unsigned char *data, size_t size, const char *name, vkfx_meta *m)
{
    const unsigned char *icc_part[256] = {0};
    size_t icc_len[256] = {0};
    unsigned icc_count = 0;
    int ret = VKFX_OK;
    size_t at = 2, n;
    unsigned marker;
    const unsigned char *d;
    unsigned components = 0;
    while (ret == VKFX_OK && next_segment(data, size, &at, &marker, &d, &n)) {
        /* a frame header (SOF0..15, not DHT, JPG or DAC): its component count */
        if (marker >= 0xc0 && marker <= 0xcf && marker != 0xc4 && marker != 0xc8 &&
            marker != 0xcc && n >= 6)
            components = d[5];
        if (marker == 0xe0 && n >= 12 && !memcmp(d, "JFIF\0", 5)) {
            unsigned units = d[7], x = (unsigned)d[8] << 8 | d[9], y = (unsigned)d[10] << 8 | d[11];
            /* units 0 with 1:1 is what encoders write when they know nothing */
            m->has_res = x && y && (units == 1 || units == 2 || x != y);
            m->res_unit = units == 1 ? VKFX_RES_PER_INCH : units == 2 ? VKFX_RES_PER_CM
                                                                      : VKFX_RES_NONE;
            m->res_x = x;
            m->res_y = y;
        } else if (marker == 0xe1 && n >= 6 && !memcmp(d, exif_id, 6) && !m->exif.data) {
            ret = vkfx_blob_set(&m->exif, d + 6, n - 6, name, "EXIF");
        } else if (marker == 0xe1 && n >= sizeof(xmp_id) && !memcmp(d, xmp_id, sizeof(xmp_id)) &&
                   !m->xmp.data) {
            ret = vkfx_blob_set(&m->xmp, d + sizeof(xmp_id), n - sizeof(xmp_id), name, "XMP");
        } else if (marker == 0xe2 && n >= sizeof(icc_id) + 2 && !memcmp(d, icc_id, sizeof(icc_id))) {
            unsigned seq = d[sizeof(icc_id)], count = d[sizeof(icc_id) + 1];
            if (seq >= 1 && count >= 1 && seq <= count && (!icc_count || icc_count == count) &&
                !icc_part[seq]) {
                icc_count = count;
                icc_part[seq] = d + sizeof(icc_id) + 2;
                icc_len[seq] = n - sizeof(icc_id) - 2;
            }
        }
    }
    if (ret == VKFX_OK)
        ret = merge_extension(data, size, name, &m->xmp);
    bool whole = icc_count > 0;
    for (unsigned s = 1; s <= icc_count; s++)
        whole = whole && icc_part[s];
    /* A profile with a piece missing is no profile: the file is read as sRGB. */
    for (unsigned s = 1; whole && ret == VKFX_OK && s <= icc_count; s++)
        ret = vkfx_blob_append(&m->icc, icc_part[s], icc_len[s], name, "ICC profile");
    /* the decoder converts such a file through its profile (core/io/codecs/jpeg.c) */
    vkfx_cmyk *cmyk = components == 4 && m->icc.data ? vkfx_cmyk_open(m->icc.data, m->icc.size, false)
                                                     : NULL;
    m->cmyk = cmyk != NULL;
    vkfx_cmyk_close(cmyk);
    return ret;
}

static bool segment(FILE *f, unsigned marker, const void *id, size_t id_len, const void *body,
                    size_t n)
{
    unsigned char head[4] = {0xff, (unsigned char)marker, (unsigned char)((n + id_len + 2) >> 8),
                             (unsigned char)(n + id_len + 2)};
    return fwrite(head, 1, 4, f) == 4 && fwrite(id, 1, id_len, f) == id_len &&
           fwrite(body, 1, n, f) == n;
}

unsigned vkfx_jpeg_meta_fits(const vkfx_meta *m)
{
    /* EXIF has one segment (the EXIF standard); XMP any length, extended */
    unsigned kinds = VKFX_META_ICC | VKFX_META_RES | VKFX_META_XMP;
    if (m && m->exif.size + 6 <= SEGMENT_MAX)
        kinds |= VKFX_META_EXIF;
    return kinds;
}

/* XMP in APP1: one segment, or a standard packet holding only the note and
 * the whole packet as the extension, in pieces. */
static bool put_xmp(FILE *f, const vkfx_blob *xmp)
{
    if (xmp->size <= XMP_STANDARD_MAX)
        return segment(f, 0xe1, xmp_id, sizeof(xmp_id), xmp->data, xmp->size);
    unsigned char sum[16];
    char guid[33], standard[512];
    md5(xmp->data, xmp->size, sum);
    for (int i = 0; i < 16; i++)
        snprintf(guid + 2 * i, 3, "%02X", sum[i]);
    int n = snprintf(standard, sizeof(standard),
                     "<?xpacket begin=\"\xef\xbb\xbf\" id=\"W5M0MpCehiHzreSzNTczkc9d\"?>"
                     "<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF xmlns:rdf=\"http://www.w3.org/"
                     "1999/02/22-rdf-syntax-ns#\"><rdf:Description rdf:about=\"\" "
                     "xmlns:xmpNote=\"http://ns.adobe.com/xmp/note/\" %s=\"%s\"/></rdf:RDF>"
                     "</x:xmpmeta><?xpacket end=\"w\"?>",
                     note_name, guid);
    bool ok = segment(f, 0xe1, xmp_id, sizeof(xmp_id), standard, (size_t)n);
    for (size_t off = 0; ok && off < xmp->size; off += EXT_PIECE) {
        unsigned char head[EXT_HEAD];
        memcpy(head, ext_id, sizeof(ext_id));
        memcpy(head + sizeof(ext_id), guid, 32);
        for (int i = 0; i < 4; i++) {
            head[sizeof(ext_id) + 32 + i] = (unsigned char)(xmp->size >> (24 - 8 * i));
            head[sizeof(ext_id) + 36 + i] = (unsigned char)(off >> (24 - 8 * i));
        }
        size_t piece = xmp->size - off < EXT_PIECE ? xmp->size - off : EXT_PIECE;
        ok = segment(f, 0xe1, head, sizeof(head), xmp->data + off, piece);
    }
    return ok;
}

int vkfx_jpeg_put_meta(FILE *f, const char *path, const unsigned char *data, size_t size,
                       const vkfx_meta *m)
{
    if (size < 4 || data[0] != 0xff || data[1] != 0xd8)
        return vkfx_fail(VKFX_E_FORMAT, "%s: the JPEG encoder's output has no SOI", path);
    size_t at = 2;
    unsigned fits = vkfx_jpeg_meta_fits(m);
    bool ok = fwrite(data, 1, 2, f) == 2;
    /* libjpeg's JFIF segment first, with the resolution in it */
    if (size >= 20 && data[2] == 0xff && data[3] == 0xe0 && !memcmp(data + 6, "JFIF\0", 5)) {
        size_t len = (size_t)data[4] << 8 | data[5];
        if (len >= 16 && len <= size - 4) {
            unsigned char *app0 = malloc(len + 2);
            ok = ok && app0;
            if (app0) {
                memcpy(app0, data + 2, len + 2);
                if (m->has_res && m->res_x < 65535.5 && m->res_y < 65535.5) {
                    unsigned x = (unsigned)(m->res_x + 0.5), y = (unsigned)(m->res_y + 0.5);
                    app0[11] = m->res_unit == VKFX_RES_PER_INCH ? 1
                               : m->res_unit == VKFX_RES_PER_CM ? 2
                                                                : 0;
                    app0[12] = (unsigned char)(x >> 8);
                    app0[13] = (unsigned char)x;
                    app0[14] = (unsigned char)(y >> 8);
                    app0[15] = (unsigned char)y;
                }
                ok = ok && fwrite(app0, 1, len + 2, f) == len + 2;
                free(app0);
            }
            at += len + 2;
        }
    }
    if (m->exif.data && (fits & VKFX_META_EXIF))
        ok = ok && segment(f, 0xe1, exif_id, 6, m->exif.data, m->exif.size);
    if (m->xmp.data)
        ok = ok && put_xmp(f, &m->xmp);
    if (m->icc.data) {
        const size_t piece = SEGMENT_MAX - sizeof(icc_id) - 2;
        size_t count = (m->icc.size + piece - 1) / piece;
        if (count > 255)
            return vkfx_fail(VKFX_E_FORMAT, "%s: an ICC profile of %zu bytes does not fit in JPEG",
                             path, m->icc.size);
        for (size_t s = 0; s < count && ok; s++) {
            unsigned char id[sizeof(icc_id) + 2];
            memcpy(id, icc_id, sizeof(icc_id));
            id[sizeof(icc_id)] = (unsigned char)(s + 1);
            id[sizeof(icc_id) + 1] = (unsigned char)count;
            size_t n = m->icc.size - s * piece < piece ? m->icc.size - s * piece : piece;
            ok = segment(f, 0xe2, id, sizeof(id), m->icc.data + s * piece, n);
        }
    }
    ok = ok && fwrite(data + at, 1, size - at, f) == size - at;
    return ok ? VKFX_OK
              : vkfx_fail(VKFX_E_IO, "%s: writing the JPEG failed: %s", path,
                          strerror(errno ? errno : EIO));
}
