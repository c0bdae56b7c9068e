#include "meta.h"

#include <libdeflate.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "exif.h"

bool vkfx_meta_icc_damaged(vkfx_meta *m, const char *why)
{
    free(m->icc.data);
    m->icc = (vkfx_blob){0};
    snprintf(m->note, sizeof(m->note), "%s; read as sRGB", why);
    vkfx_error_clear();
    return true;
}

void vkfx_meta_free(vkfx_meta *m)
{
    if (!m)
        return;
    free(m->icc.data);
    free(m->exif.data);
    free(m->xmp.data);
    for (uint32_t i = 0; i < m->ntexts; i++) {
        free(m->texts[i].key);
        free(m->texts[i].text);
    }
    memset(m, 0, sizeof(*m));
}

/* The digit of XMP's next tiff:Orientation from *at on (as attribute ="N" or element >N),
 * or NULL. */
static unsigned char *xmp_orientation(const vkfx_blob *x, size_t *at)
{
    static const char tag[] = "tiff:Orientation";
    const size_t n = sizeof(tag) - 1;
    while (x->data && *at + n < x->size) {
        unsigned char *p = x->data + *at;
        if (memcmp(p, tag, n)) {
            ++*at;
            continue;
        }
        size_t i = *at + n;
        *at = i;
        if (i + 2 < x->size && p[n] == '=' && p[n + 1] == '"')
            i += 2;
        else if (i + 1 < x->size && p[n] == '>')
            i += 1;
        else
            continue;
        if (x->data[i] >= '0' && x->data[i] <= '9')
            return x->data + i;
    }
    return NULL;
}

int vkfx_meta_orientation(const vkfx_meta *m)
{
    int o = vkfx_exif_orientation(m->exif.data, m->exif.size);
    return o ? o : m->stored_orientation;
}

int vkfx_meta_xmp_orientation(const vkfx_meta *m)
{
    size_t at = 0;
    const unsigned char *d = xmp_orientation(&m->xmp, &at);
    return d && *d >= '1' && *d <= '8' ? *d - '0' : 0;
}

void vkfx_meta_xmp_upright(vkfx_meta *m)
{
    size_t at = 0;
    for (unsigned char *d; (d = xmp_orientation(&m->xmp, &at));)
        *d = '1';
}

int vkfx_meta_out_orientation(const vkfx_meta *m)
{
    if (!m || m->applied_orientation > 1)
        return 1;
    if (m->stored_orientation >= 1)
        return m->stored_orientation;
    int o = vkfx_exif_orientation(m->exif.data, m->exif.size);
    return o ? o : 1;
}

unsigned vkfx_meta_kinds(const vkfx_meta *m)
{
    if (!m)
        return 0;
    return (m->icc.data ? VKFX_META_ICC : 0u) | (m->exif.data ? VKFX_META_EXIF : 0u) |
           (m->xmp.data ? VKFX_META_XMP : 0u) | (m->ntexts ? VKFX_META_TEXT : 0u) |
           (m->has_res ? VKFX_META_RES : 0u);
}

void vkfx_meta_kind_names(unsigned mask, char *buf, size_t size)
{
    static const char *const names[] = {"the ICC profile", "EXIF", "XMP", "text chunks",
                                        "the resolution"};
    size_t len = 0;
    buf[0] = 0;
    for (unsigned k = 0; k < 5; k++) {
        if (!(mask & 1u << k))
            continue;
        int n = snprintf(buf + len, size - len, "%s%s", len ? ", " : "", names[k]);
        if (n < 0 || (size_t)n >= size - len)
            return;
        len += (size_t)n;
    }
}

static int too_large(const char *name, const char *what)
{
    return vkfx_fail(VKFX_E_FORMAT, "%s: its %s is larger than %u MiB; refused", name, what,
                     VKFX_META_MAX_BYTES >> 20);
}

int vkfx_blob_set(vkfx_blob *b, const void *data, size_t size, const char *name, const char *what)
{
    free(b->data);
    b->data = NULL;
    b->size = 0;
    return vkfx_blob_append(b, data, size, name, what);
}

int vkfx_blob_append(vkfx_blob *b, const void *data, size_t size, const char *name,
                     const char *what)
{
    if (size > VKFX_META_MAX_BYTES || b->size > VKFX_META_MAX_BYTES - size)
        return too_large(name, what);
    uint8_t *grown = realloc(b->data, b->size + size + 1);
    if (!grown)
        return vkfx_fail(VKFX_E_NOMEM, "%s: out of host memory for its %s", name, what);
    if (size)
        memcpy(grown + b->size, data, size);
    b->data = grown;
    b->size += size;
    b->data[b->size] = 0; /* text stays terminated */
    return VKFX_OK;
}

int vkfx_meta_add_text(vkfx_meta *m, const char *key, size_t key_len, const char *text,
                       size_t text_len)
{
    /* each text is bounded by its chunk or by the inflate limit; the sum is
     * bounded here, so that many compressed chunks cannot add up */
    if (m->ntexts == VKFX_META_MAX_TEXTS ||
        key_len + text_len > VKFX_META_MAX_BYTES - m->text_bytes)
        return VKFX_OK;
    char *k = strndup(key, key_len), *t = malloc(text_len + 1);
    if (!k || !t) {
        free(k);
        free(t);
        return vkfx_fail(VKFX_E_NOMEM, "out of host memory for a text chunk");
    }
    memcpy(t, text, text_len);
    t[text_len] = 0;
    m->texts[m->ntexts++] = (vkfx_text){k, t};
    m->text_bytes += key_len + text_len;
    return VKFX_OK;
}

/* Whether text holds "YYYY?MM?DD?HH:MM:SS" with date separator sep and one
 * of the separators in mid between date and time. */
static bool date_shape(const char *text, size_t len, char sep, const char *mid)
{
    static const char shape[] = "dddd-dd-dd_dd:dd:dd";
    if (len < 19)
        return false;
    for (int i = 0; i < 19; i++) {
        char c = text[i], s = shape[i];
        bool ok = s == 'd' ? c >= '0' && c <= '9' : s == '-' ? c == sep : s == '_' ? strchr(mid, c) && c : c == s;
        if (!ok)
            return false;
    }
    return true;
}

static void date_write(const char *in, char out[20], char sep, char mid)
{
    memcpy(out, in, 19);
    out[4] = out[7] = sep;
    out[10] = mid;
    out[19] = 0;
}

bool vkfx_meta_date_to_exif(const char *text, size_t len, char out[20])
{
    if (!date_shape(text, len, ':', " ") && !date_shape(text, len, '-', "T "))
        return false;
    date_write(text, out, ':', ' ');
    return true;
}

bool vkfx_meta_date_from_exif(const char *exif, size_t len, char out[20])
{
    if (!date_shape(exif, len, ':', " "))
        return false;
    date_write(exif, out, '-', 'T');
    return true;
}

int vkfx_meta_field_of(const vkfx_text *t, const char *const *keys, size_t nkeys,
                       const char **value, char date[20])
{
    for (size_t i = 0; i < nkeys; i++) {
        if (strcmp(t->key, keys[i]))
            continue;
        *value = t->text;
        if (strcmp(keys[i], VKFX_META_DATE_KEY))
            return (int)i;
        *value = date;
        return vkfx_meta_date_to_exif(t->text, strlen(t->text), date) ? (int)i : -1;
    }
    return -1;
}

bool vkfx_meta_fields_hold(const vkfx_meta *m, const char *const *keys, size_t nkeys)
{
    for (uint32_t i = 0; m && i < m->ntexts; i++) {
        const char *v;
        char date[20];
        if (vkfx_meta_field_of(&m->texts[i], keys, nkeys, &v, date) < 0)
            return false;
    }
    return true;
}

int vkfx_meta_add_field(vkfx_meta *m, const char *key, const char *v, size_t n)
{
    char date[20];
    if (!strcmp(key, VKFX_META_DATE_KEY)) {
        if (!vkfx_meta_date_from_exif(v, n, date))
            return VKFX_OK;
        v = date;
        n = 19;
    }
    return vkfx_meta_add_text(m, key, strlen(key), v, n);
}

/* data inflated into b when it comes to at most most bytes; *longer when
 * it comes to more (b untouched, no error). */
static int inflate_at_most(const uint8_t *data, size_t size, size_t most, vkfx_blob *b,
                           const char *name, const char *what, bool *longer)
{
    *longer = false;
    struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
    if (!d)
        return vkfx_fail(VKFX_E_NOMEM, "%s: out of host memory for its %s", name, what);
    int ret = VKFX_OK;
    /* The inflated size is declared nowhere: try growing room, up to the limit. */
    size_t cap = size < 16384 ? 65536 : size * 4;
    uint8_t *out = NULL;
    for (;;) {
        if (cap > most)
            cap = most;
        uint8_t *grown = realloc(out, cap + 1);
        if (!grown) {
            ret = vkfx_fail(VKFX_E_NOMEM, "%s: out of host memory for its %s", name, what);
            break;
        }
        out = grown;
        size_t got = 0;
        enum libdeflate_result r = libdeflate_zlib_decompress(d, data, size, out, cap, &got);
        if (r == LIBDEFLATE_SUCCESS) {
            free(b->data);
            out[got] = 0;
            b->data = out;
            b->size = got;
            out = NULL;
            break;
        }
        if (r != LIBDEFLATE_INSUFFICIENT_SPACE) {
            ret = vkfx_fail(VKFX_E_FORMAT, "%s: its %s is corrupt (bad deflate data)", name, what);
            break;
        }
        if (cap == most) {
            *longer = true;
            break;
        }
        cap *= 2;
    }
    free(out);
    libdeflate_free_decompressor(d);
    return ret;
}

int vkfx_meta_inflate(const uint8_t *data, size_t size, vkfx_blob *b, const char *name,
                      const char *what)
{
    bool longer;
    int ret = inflate_at_most(data, size, VKFX_META_MAX_BYTES, b, name, what, &longer);
    return ret == VKFX_OK && longer ? too_large(name, what) : ret;
}

int vkfx_meta_inflate_text(const vkfx_meta *m, size_t key_len, const uint8_t *data, size_t size,
                           vkfx_blob *b, const char *name, const char *what)
{
    /* what vkfx_meta_add_text would still keep of this text: a text past
     * the budget is dropped there, so it is not inflated at all here */
    if (m->ntexts == VKFX_META_MAX_TEXTS || key_len >= VKFX_META_MAX_BYTES - m->text_bytes)
        return VKFX_OK;
    size_t left = VKFX_META_MAX_BYTES - m->text_bytes - key_len;
    bool longer;
    int ret = inflate_at_most(data, size, left, b, name, what, &longer);
    if (ret == VKFX_OK && longer && left == VKFX_META_MAX_BYTES - key_len)
        return too_large(name, what);
    return ret;
}
