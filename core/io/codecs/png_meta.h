/* PNG's metadata chunks (core/io/codecs/png_meta.c), for the PNG codec. */
#ifndef VKFX_PNG_META_H
#define VKFX_PNG_META_H

#include <stddef.h>
#include <stdio.h>

#include "meta.h"

int vkfx_png_read_meta(const unsigned char *data, size_t size, const char *name, vkfx_meta *m);
int vkfx_png_put_meta(FILE *f, const char *path, const unsigned char *data, size_t size,
                      const vkfx_meta *m);

#endif
