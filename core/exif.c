#include "exif.h"

#include <string.h>

#define TAG_ORIENTATION 0x0112
#define TYPE_SHORT      3

static uint32_t get16(const uint8_t *p, bool big)
{
    return big ? (uint32_t)p[0] << 8 | p[1] : (uint32_t)p[1] << 8 | p[0];
}

static uint32_t get32(const uint8_t *p, bool big)
{
    return big ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]
               : (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

/* The orientation's value field (2 bytes in the block's byte order), or NULL
 * where IFD0 has no well-formed orientation entry. */
static uint8_t *find_orientation(const uint8_t *exif, size_t size, bool *big)
{
    if (size >= 6 && memcmp(exif, "Exif\0\0", 6) == 0) {
        exif += 6;
        size -= 6;
    }
    if (size < 8)
        return NULL;
    if (memcmp(exif, "II*\0", 4) == 0)
        *big = false;
    else if (memcmp(exif, "MM\0*", 4) == 0)
        *big = true;
    else
        return NULL;
    uint32_t ifd = get32(exif + 4, *big);
    if (ifd < 8 || ifd > size - 2)
        return NULL;
    uint32_t count = get16(exif + ifd, *big);
    if (count > (size - ifd - 2) / 12)
        return NULL;
    for (uint32_t i = 0; i < count; i++) {
        const uint8_t *e = exif + ifd + 2 + 12 * i;
        if (get16(e, *big) != TAG_ORIENTATION)
            continue;
        if (get16(e + 2, *big) != TYPE_SHORT || get32(e + 4, *big) != 1)
            return NULL;
        return (uint8_t *)e + 8;
    }
    return NULL;
}

int vkfx_exif_orientation(const uint8_t *exif, size_t size)
{
    bool big;
    const uint8_t *v = exif ? find_orientation(exif, size, &big) : NULL;
    if (!v)
        return 0;
    uint32_t o = get16(v, big);
    return o >= 1 && o <= 8 ? (int)o : 0;
}

bool vkfx_exif_set_orientation(uint8_t *exif, size_t size, int value)
{
    bool big;
    uint8_t *v = exif && value >= 1 && value <= 8 ? find_orientation(exif, size, &big) : NULL;
    if (!v)
        return false;
    v[big ? 0 : 1] = 0;
    v[big ? 1 : 0] = (uint8_t)value;
    return true;
}
