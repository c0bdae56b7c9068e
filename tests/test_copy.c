/* Tests of core/base/copy.c: copies split over threads land whole, at sizes
 * around the split (below it, one byte over, odd lengths, odd addresses),
 * with the default number of threads, one, and three. */
#include <criterion/criterion.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "copy.h"

Test(copy, every_byte_at_every_split)
{
    static const size_t sizes[] = {
        0, 1, (1u << 20) - 1, 2u << 20, (2u << 20) + 1, (3u << 20) + 63, (9u << 20) + 5, 17u << 20};
    size_t most = (17u << 20) + 16;
    unsigned char *src = malloc(most), *dst = malloc(most);
    cr_assert(src && dst);
    uint32_t r = 1;
    for (size_t i = 0; i < most; i++) {
        r = r * 1103515245u + 12345u;
        src[i] = (unsigned char)(r >> 16);
    }
    static const int threads[] = {0, 1, 3};
    for (size_t t = 0; t < sizeof(threads) / sizeof(*threads); t++) {
        vkfx_copy_set_threads(threads[t]);
        for (size_t k = 0; k < sizeof(sizes) / sizeof(*sizes); k++)
            for (size_t off = 0; off < 8; off += 7) {
                memset(dst, 0xA5, most);
                vkfx_copy(dst + off, src + 1, sizes[k]);
                cr_assert(!memcmp(dst + off, src + 1, sizes[k]),
                          "%zu bytes at offset %zu, %d threads", sizes[k], off, threads[t]);
                /* Nothing written past the end. */
                for (size_t i = off + sizes[k]; i < off + sizes[k] + 8; i++)
                    cr_assert_eq(dst[i], 0xA5, "byte %zu after a copy of %zu", i - off - sizes[k],
                                 sizes[k]);
            }
    }
    vkfx_copy_set_threads(0);
    free(src);
    free(dst);
}
