#include "exif.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"

#define TAG_ORIENTATION 0x0112
#define TAG_WIDTH       0x0100
#define TAG_LENGTH      0x0101
#define TAG_PIXEL_X     0xa002
#define TAG_PIXEL_Y     0xa003
#define TAG_INTEROP     0xa005
#define TYPE_ASCII      2
#define TYPE_SHORT      3
#define TYPE_LONG       4
#define TYPE_IFD        13

static uint32_t get16(const uint8_t *p, bool big)
{
    return big ? (uint32_t)p[0] << 8 | p[1] : (uint32_t)p[1] << 8 | p[0];
}

static uint32_t get32(const uint8_t *p, bool big)
{
    return big ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]
               : (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

/* The low bytes (2 or 4) of v at p in the block's byte order. */
static void put(uint8_t *p, uint32_t v, int bytes, bool big)
{
    for (int i = 0; i < bytes; i++)
        p[big ? bytes - 1 - i : i] = (uint8_t)(v >> (8 * i));
}

/* The block past "Exif\0\0" and its byte order; false when it is no TIFF
 * structure. */
static bool exif_start(const uint8_t **exif, size_t *size, bool *big)
{
    if (*size >= 6 && memcmp(*exif, "Exif\0\0", 6) == 0) {
        *exif += 6;
        *size -= 6;
    }
    if (*size < 8)
        return false;
    if (memcmp(*exif, "II*\0", 4) == 0)
        *big = false;
    else if (memcmp(*exif, "MM\0*", 4) == 0)
        *big = true;
    else
        return false;
    return true;
}

/* The number of entries of the directory at ifd, or 0 where its table runs
 * out of the block. */
static uint32_t ifd_entries(const uint8_t *t, size_t size, uint32_t ifd, bool big)
{
    if (ifd < 8 || size < 2 || ifd > size - 2)
        return 0;
    uint32_t count = get16(t + ifd, big);
    return count > (size - ifd - 2) / 12 ? 0 : count;
}

/* IFD0's first entry for tag (its 12 bytes), or NULL; *big and *t, *n: the
 * block's byte order and its TIFF structure. */
static const uint8_t *find_entry(const uint8_t *exif, size_t size, uint32_t tag, bool *big,
                                 const uint8_t **t, size_t *n)
{
    if (!exif || !exif_start(&exif, &size, big))
        return NULL;
    *t = exif;
    *n = size;
    uint32_t ifd = get32(exif + 4, *big), count = ifd_entries(exif, size, ifd, *big);
    for (uint32_t i = 0; i < count; i++) {
        const uint8_t *e = exif + ifd + 2 + 12 * i;
        if (get16(e, *big) == tag)
            return e;
    }
    return NULL;
}

/* The orientation's value field (2 bytes in the block's byte order), or NULL
 * where IFD0 has no well-formed orientation entry. */
static uint8_t *find_orientation(const uint8_t *exif, size_t size, bool *big)
{
    const uint8_t *t;
    size_t n;
    const uint8_t *e = find_entry(exif, size, TAG_ORIENTATION, big, &t, &n);
    if (!e || get16(e + 2, *big) != TYPE_SHORT || get32(e + 4, *big) != 1)
        return NULL;
    return (uint8_t *)e + 8;
}

int vkfx_exif_orientation(const uint8_t *exif, size_t size)
{
    bool big = false;
    const uint8_t *v = exif ? find_orientation(exif, size, &big) : NULL;
    if (!v)
        return 0;
    uint32_t o = get16(v, big);
    return o >= 1 && o <= 8 ? (int)o : 0;
}

bool vkfx_exif_set_orientation(uint8_t *exif, size_t size, int value)
{
    bool big = false;
    uint8_t *v = exif && value >= 1 && value <= 8 ? find_orientation(exif, size, &big) : NULL;
    if (!v)
        return false;
    v[big ? 0 : 1] = 0;
    v[big ? 1 : 0] = (uint8_t)value;
    return true;
}

/* Sets the size entry tag of the directory at ifd (SHORT or LONG, one value) to v, as a LONG
 * where a SHORT cannot hold it; false where the entry is missing or malformed. */
static bool set_size_entry(uint8_t *t, size_t size, uint32_t ifd, uint32_t tag, uint32_t v,
                           bool big)
{
    uint32_t count = ifd_entries(t, size, ifd, big);
    for (uint32_t i = 0; i < count; i++) {
        uint8_t *e = t + ifd + 2 + 12 * i;
        uint32_t type = get16(e + 2, big);
        if (get16(e, big) != tag || get32(e + 4, big) != 1 ||
            (type != TYPE_SHORT && type != TYPE_LONG))
            continue;
        if (type == TYPE_SHORT && v > 0xffff) {
            put(e + 2, TYPE_LONG, 2, big);
            type = TYPE_LONG;
        }
        memset(e + 8, 0, 4);
        put(e + 8, v, type == TYPE_SHORT ? 2 : 4, big);
        return true;
    }
    return false;
}

void vkfx_exif_set_size(uint8_t *exif, size_t size, uint32_t width, uint32_t height)
{
    bool big = false;
    const uint8_t *start = exif;
    if (!exif || !exif_start(&start, &size, &big))
        return;
    uint8_t *t = exif + (start - exif);
    uint32_t ifd0 = get32(t + 4, big);
    set_size_entry(t, size, ifd0, TAG_WIDTH, width, big);
    set_size_entry(t, size, ifd0, TAG_LENGTH, height, big);
    uint32_t sub = vkfx_exif_pointer(t, size, VKFX_EXIF_IFD_TAG);
    if (sub) {
        set_size_entry(t, size, sub, TAG_PIXEL_X, width, big);
        set_size_entry(t, size, sub, TAG_PIXEL_Y, height, big);
    }
}

bool vkfx_exif_drop_thumbnail(uint8_t *exif, size_t size)
{
    bool big = false;
    const uint8_t *start = exif;
    if (!exif || !exif_start(&start, &size, &big))
        return false;
    uint8_t *t = exif + (start - exif);
    uint32_t ifd0 = get32(t + 4, big), count = ifd_entries(t, size, ifd0, big);
    size_t link = (size_t)ifd0 + 2 + 12 * (size_t)count;
    if (!count || link + 4 > size || get32(t + link, big) == 0)
        return false;
    memset(t + link, 0, 4);
    return true;
}

bool vkfx_exif_big_endian(const uint8_t *exif, size_t size)
{
    bool big = false;
    return exif && exif_start(&exif, &size, &big) && big;
}

/* Bytes of one value of each TIFF field type (1..13); 0: unknown. */
static uint32_t type_size(uint32_t type)
{
    static const uint8_t sizes[14] = {0, 1, 1, 2, 4, 8, 1, 1, 2, 4, 8, 4, 8, 4};
    return type < 14 ? sizes[type] : 0;
}

/* Where an entry's values lie in the block (its own value field when they
 * fit in 4 bytes), or NULL where they run out of it. */
static const uint8_t *entry_values(const uint8_t *t, size_t size, const uint8_t *e, bool big,
                                   size_t *bytes)
{
    uint64_t n = (uint64_t)type_size(get16(e + 2, big)) * get32(e + 4, big);
    if (!n)
        return NULL;
    *bytes = (size_t)n;
    if (n <= 4)
        return e + 8;
    uint32_t off = get32(e + 8, big);
    return off <= size && n <= size - off ? t + off : NULL;
}

const char *vkfx_exif_ascii(const uint8_t *exif, size_t size, uint32_t tag, size_t *len)
{
    bool big = false;
    const uint8_t *t;
    size_t n, bytes;
    const uint8_t *e = find_entry(exif, size, tag, &big, &t, &n);
    const uint8_t *v = e && get16(e + 2, big) == TYPE_ASCII ? entry_values(t, n, e, big, &bytes)
                                                            : NULL;
    if (!v)
        return NULL;
    const uint8_t *nul = memchr(v, 0, bytes);
    *len = nul ? (size_t)(nul - v) : bytes;
    return (const char *)v;
}

/* IFD0's RATIONAL entry tag as a number; 0 where there is none or it is not positive. */
static double exif_rational(const uint8_t *exif, size_t size, uint32_t tag)
{
    bool big = false;
    const uint8_t *t;
    size_t n, bytes;
    const uint8_t *e = find_entry(exif, size, tag, &big, &t, &n);
    const uint8_t *v = e && get16(e + 2, big) == 5 /* RATIONAL */ && get32(e + 4, big) == 1
                           ? entry_values(t, n, e, big, &bytes)
                           : NULL;
    uint32_t num = v ? get32(v, big) : 0, den = v ? get32(v + 4, big) : 0;
    return num && den ? (double)num / den : 0.0;
}

bool vkfx_exif_resolution(const uint8_t *exif, size_t size, double *x, double *y,
                          vkfx_res_unit *unit)
{
    *x = exif_rational(exif, size, 0x011A);
    *y = exif_rational(exif, size, 0x011B);
    bool big = false;
    const uint8_t *t;
    size_t n;
    const uint8_t *e = find_entry(exif, size, 0x0128, &big, &t, &n);
    /* ResolutionUnit: 2 inch (the default where absent), 3 centimetre, 1 none */
    uint32_t u =
        e && get16(e + 2, big) == TYPE_SHORT && get32(e + 4, big) == 1 ? get16(e + 8, big) : 2;
    *unit = u == 3 ? VKFX_RES_PER_CM : u == 1 ? VKFX_RES_NONE : VKFX_RES_PER_INCH;
    return *x > 0 && *y > 0;
}

/* IFD0's pointer entry tag (a LONG or IFD of count 1), or NULL. */
static const uint8_t *find_pointer(const uint8_t *exif, size_t size, uint32_t tag, bool *big,
                                   const uint8_t **t, size_t *n)
{
    const uint8_t *e = find_entry(exif, size, tag, big, t, n);
    if (!e || get32(e + 4, *big) != 1 ||
        (get16(e + 2, *big) != TYPE_LONG && get16(e + 2, *big) != TYPE_IFD))
        return NULL;
    return e;
}

bool vkfx_exif_set_pointer(uint8_t *tiff, size_t size, uint32_t tag, uint32_t value)
{
    bool big = false;
    const uint8_t *t;
    size_t n;
    const uint8_t *e = find_pointer(tiff, size, tag, &big, &t, &n);
    if (e)
        put((uint8_t *)e + 8, value, 4, big);
    return e;
}

uint32_t vkfx_exif_pointer(const uint8_t *exif, size_t size, uint32_t tag)
{
    bool big = false;
    const uint8_t *t;
    size_t n;
    const uint8_t *e = find_pointer(exif, size, tag, &big, &t, &n);
    uint32_t ifd = e ? get32(e + 8, big) : 0;
    return ifd && ifd_entries(t, n, ifd, big) ? ifd : 0;
}

/* The pointer tags followed from a directory of each depth. */
static bool follows(uint32_t tag, uint32_t level)
{
    return level == 0 ? tag == VKFX_EXIF_IFD_TAG || tag == VKFX_EXIF_GPS_TAG
                      : level == 1 && tag == TAG_INTEROP;
}

static bool kept_tag(uint32_t tag, const uint16_t *keep, size_t nkeep)
{
    for (size_t i = 0; keep && i < nkeep; i++)
        if (keep[i] == tag)
            return true;
    return !keep;
}

struct ifd_copy {
    const uint8_t *t;
    size_t size;
    bool big;
    uint32_t base;
    vkfx_blob *out;
    const char *name;
};

/* Pads out to an even length: TIFF values start on a word boundary. */
static int pad_even(struct ifd_copy *c)
{
    return c->out->size & 1 ? vkfx_blob_append(c->out, "", 1, c->name, "EXIF") : VKFX_OK;
}

/* Whether entry e goes into the copy: a kept tag of a known type whose values
 * lie in the block, a pointer vkfx follows, and no other offset. */
static bool copies(const struct ifd_copy *c, const uint8_t *e, uint32_t level, const uint16_t *keep,
                   size_t nkeep)
{
    uint32_t tag = get16(e, c->big), type = get16(e + 2, c->big);
    size_t bytes;
    if (!kept_tag(tag, keep, nkeep) || !entry_values(c->t, c->size, e, c->big, &bytes))
        return false;
    if (follows(tag, level))
        return (type == TYPE_LONG || type == TYPE_IFD) && get32(e + 4, c->big) == 1 &&
               ifd_entries(c->t, c->size, get32(e + 8, c->big), c->big);
    return type != TYPE_IFD && tag != VKFX_EXIF_IFD_TAG && tag != VKFX_EXIF_GPS_TAG &&
           tag != TAG_INTEROP;
}

static int copy_ifd(struct ifd_copy *c, uint32_t ifd, uint32_t level, const uint16_t *keep,
                    size_t nkeep, uint32_t *at, uint32_t *kept)
{
    uint32_t count = ifd_entries(c->t, c->size, ifd, c->big), n = 0;
    for (uint32_t i = 0; i < count; i++)
        n += copies(c, c->t + ifd + 2 + 12 * i, level, keep, nkeep);
    int ret = pad_even(c);
    size_t table = c->out->size;
    uint8_t zeros[12] = {0};
    for (uint32_t i = 0; ret == VKFX_OK && i < n + 1; i++) /* the count, entries, the link */
        ret = vkfx_blob_append(c->out, zeros, i ? 12 : 6, c->name, "EXIF");
    if (ret < 0)
        return ret;
    if (table > UINT32_MAX - c->base)
        return vkfx_fail(VKFX_E_FORMAT, "%s: its EXIF does not fit in 4 GiB", c->name);
    *at = c->base + (uint32_t)table;
    put(c->out->data + table, n, 2, c->big);
    uint32_t j = 0;
    for (uint32_t i = 0; ret == VKFX_OK && i < count; i++) {
        const uint8_t *e = c->t + ifd + 2 + 12 * i;
        if (!copies(c, e, level, keep, nkeep))
            continue;
        size_t bytes, to = table + 2 + 12 * (size_t)j++;
        const uint8_t *v = entry_values(c->t, c->size, e, c->big, &bytes);
        uint32_t value = 0, sub_kept;
        if (follows(get16(e, c->big), level))
            ret = copy_ifd(c, get32(e + 8, c->big), level + 1, NULL, 0, &value, &sub_kept);
        else if (bytes > 4 && (ret = pad_even(c)) == VKFX_OK) {
            value = c->base + (uint32_t)c->out->size;
            ret = vkfx_blob_append(c->out, v, bytes, c->name, "EXIF");
        }
        memcpy(c->out->data + to, e, 8);
        if (follows(get16(e, c->big), level)) {
            /* EXIF's pointers are LONGs; a TIFF may say IFD */
            put(c->out->data + to + 2, TYPE_LONG, 2, c->big);
            put(c->out->data + to + 8, value, 4, c->big);
        } else if (bytes > 4) {
            put(c->out->data + to + 8, value, 4, c->big);
        } else {
            memcpy(c->out->data + to + 8, e + 8, 4);
        }
    }
    *kept = n;
    return ret;
}

int vkfx_exif_copy_ifd(const uint8_t *tiff, size_t size, uint32_t ifd, uint32_t level,
                       const uint16_t *keep, size_t nkeep, uint32_t base, vkfx_blob *out,
                       uint32_t *kept, const char *name)
{
    struct ifd_copy c = {.t = tiff, .size = size, .base = base, .out = out, .name = name};
    *kept = 0;
    if (!exif_start(&c.t, &c.size, &c.big))
        return VKFX_OK;
    uint32_t at;
    return copy_ifd(&c, ifd, level, keep, nkeep, &at, kept);
}

int vkfx_exif_from_tiff(const uint8_t *tiff, size_t size, const char *name, vkfx_blob *exif)
{
    static const uint16_t described[] = {
        0x010e, 0x010f, 0x0110, 0x0112, 0x011a, 0x011b, 0x0128,
        0x0131, 0x0132, 0x013b, 0x8298, VKFX_EXIF_IFD_TAG, VKFX_EXIF_GPS_TAG,
    };
    bool big = false;
    if (!vkfx_exif_pointer(tiff, size, VKFX_EXIF_IFD_TAG) &&
        !vkfx_exif_pointer(tiff, size, VKFX_EXIF_GPS_TAG))
        return VKFX_OK;
    exif_start(&tiff, &size, &big);
    vkfx_blob b = {0};
    uint32_t kept;
    uint8_t head[8];
    memcpy(head, tiff, 4);
    put(head + 4, 8, 4, big);
    int ret = vkfx_blob_set(&b, head, 8, name, "EXIF");
    if (ret == VKFX_OK)
        ret = vkfx_exif_copy_ifd(tiff, size, get32(tiff + 4, big), 0, described,
                                 sizeof(described) / sizeof(described[0]), 0, &b, &kept, name);
    if (ret < 0) {
        free(b.data);
        return ret;
    }
    free(exif->data);
    *exif = b;
    return VKFX_OK;
}
