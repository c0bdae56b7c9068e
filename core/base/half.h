/* IEEE half-precision conversions done with integers, exactly as a compiler's
 * _Float16 casts do (round to nearest, ties to even), for compilers without
 * _Float16 on the host (clang 14 on x86-64). */
#ifndef VKFX_HALF_H
#define VKFX_HALF_H

#include <stdint.h>
#include <string.h>

static inline float vkfx_half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ff, bits;
    if (e == 0x1f) { /* infinity, or NaN made quiet */
        bits = sign | 0x7f800000 | (m ? 0x400000 : 0) | m << 13;
    } else if (e != 0) {
        bits = sign | (e + 112) << 23 | m << 13;
    } else if (m == 0) {
        bits = sign;
    } else { /* subnormal: m * 2^-24, normalised */
        e = 113;
        while (!(m & 0x400)) {
            m <<= 1;
            e--;
        }
        bits = sign | e << 23 | (m & 0x3ff) << 13;
    }
    float f;
    memcpy(&f, &bits, sizeof(f));
    return f;
}

static inline uint16_t vkfx_half_from_float(float f)
{
    uint32_t x;
    memcpy(&x, &f, sizeof(x));
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000);
    x &= 0x7fffffff;
    if (x > 0x7f800000) /* NaN: quiet, the payload's top bits kept */
        return (uint16_t)(sign | 0x7e00 | ((x >> 13) & 0x3ff));
    if (x >= 0x477ff000) /* 65520 and above, the tie above 65504 included */
        return (uint16_t)(sign | 0x7c00);
    uint32_t e = x >> 23, r, rem, halfway;
    if (e >= 113) { /* a normal half */
        r = (e - 112) << 10 | (x & 0x7fffff) >> 13;
        rem = x & 0x1fff;
        halfway = 0x1000;
    } else { /* a subnormal half or zero: units of 2^-24 */
        uint32_t shift = 126 - e;
        if (shift > 24)
            return sign;
        uint32_t m = (x & 0x7fffff) | 0x800000;
        r = m >> shift;
        rem = m & ((1u << shift) - 1);
        halfway = 1u << (shift - 1);
    }
    if (rem > halfway || (rem == halfway && (r & 1)))
        r++; /* a carry into the exponent is the right result */
    return (uint16_t)(sign | r);
}

/* The float nearest to f among halves. */
static inline float vkfx_half_round(float f)
{
    return vkfx_half_to_float(vkfx_half_from_float(f));
}

#endif
