/* JPEG's metadata segments, read from and added to a JPEG's bytes: APP0
 * JFIF (resolution), APP1 EXIF and XMP, APP2 ICC profile split over as many
 * markers as ICC.1 Annex B says (sequence number and count in each). Every
 * segment length is checked against the file before it is used. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../error.h"
#include "codec.h"
#include "jpeg_meta.h"

static const char exif_id[6] = "Exif\0";
static const char xmp_id[] = "http://ns.adobe.com/xap/1.0/"; /* with its NUL: 29 bytes */
static const char icc_id[] = "ICC_PROFILE";                  /* with its NUL: 12 bytes */
/* The most a segment holds after its length field. */
#define SEGMENT_MAX 65533u

int vkfx_jpeg_read_meta(const unsigned char *data, size_t size, const char *name, vkfx_meta *m)
{
    const unsigned char *icc_part[256] = {0};
    size_t icc_len[256] = {0};
    unsigned icc_count = 0;
    int ret = VKFX_OK;
    size_t at = 2;
    while (ret == VKFX_OK && at + 4 <= size) {
        if (data[at] != 0xff)
            break;
        unsigned marker = data[at + 1];
        if (marker == 0xff) { /* fill byte */
            at++;
            continue;
        }
        if (marker == 0xd8 || (marker >= 0xd0 && marker <= 0xd7) || marker == 0x01) {
            at += 2;
            continue;
        }
        if (marker == 0xda || marker == 0xd9)
            break; /* the scan: no metadata past here that vkfx reads */
        size_t len = (size_t)data[at + 2] << 8 | data[at + 3];
        if (len < 2 || len > size - at - 2)
            break; /* the decoder reports a cut file */
        const unsigned char *d = data + at + 4;
        size_t n = len - 2;
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
        at += 2 + len;
    }
    bool whole = icc_count > 0;
    for (unsigned s = 1; s <= icc_count; s++)
        whole = whole && icc_part[s];
    /* A profile with a piece missing is no profile: the file is read as sRGB. */
    for (unsigned s = 1; whole && ret == VKFX_OK && s <= icc_count; s++)
        ret = vkfx_blob_append(&m->icc, icc_part[s], icc_len[s], name, "ICC profile");
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
    unsigned kinds = VKFX_META_ICC | VKFX_META_RES;
    if (m && m->exif.size + 6 <= SEGMENT_MAX)
        kinds |= VKFX_META_EXIF;
    if (m && m->xmp.size + sizeof(xmp_id) <= SEGMENT_MAX)
        kinds |= VKFX_META_XMP;
    return kinds;
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
    if (m->xmp.data && (fits & VKFX_META_XMP))
        ok = ok && segment(f, 0xe1, xmp_id, sizeof(xmp_id), m->xmp.data, m->xmp.size);
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
    return ok ? VKFX_OK : vkfx_fail(VKFX_E_IO, "%s: writing the JPEG failed", path);
}
