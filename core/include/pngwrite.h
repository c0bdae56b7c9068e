/* PNG encoding in memory: each row filtered with Paeth (Sub on the first),
 * one zlib stream in one IDAT (core/io/pngdeflate.h: libdeflate, which
 * deflates several times faster than zlib at the same level for the same or
 * a smaller file, or zlib on every core for large images). It needs the
 * whole filtered image and its compressed form in memory, so
 * core/io/codecs/png.c streams larger images through libpng instead. */
#ifndef VKFX_PNGWRITE_H
#define VKFX_PNGWRITE_H

#include <stddef.h>

#include "pixels.h"

/* Images whose filtered bytes exceed this go through libpng (settable for
 * tests; 0 restores the default, 256 MiB). */
#define VKFX_PNG_BUFFER_LIMIT_DEFAULT ((size_t)256 << 20)
void vkfx_png_set_buffer_limit(size_t bytes);
size_t vkfx_png_buffer_limit(void);

/* The PNG file of px (8 or 16-bit, 1 to 4 channels) in *out (malloc'd),
 * deflated at level 0..9 of libdeflate (its sizes and times against zlib's:
 * tests/bench/HISTORY.md, the batch of issue 7).
 * VKFX_E_LIMIT when the image is above the buffer limit. */
int vkfx_png_encode(const vkfx_pixels *px, int level, unsigned char **out, size_t *size);

#endif
