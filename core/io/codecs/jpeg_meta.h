/* JPEG's metadata segments (core/io/codecs/jpeg_meta.c), for the JPEG codec. */
#ifndef VKFX_JPEG_META_H
#define VKFX_JPEG_META_H

#include <stddef.h>
#include <stdio.h>

#include "meta.h"

int vkfx_jpeg_read_meta(const unsigned char *data, size_t size, const char *name, vkfx_meta *m);
int vkfx_jpeg_put_meta(FILE *f, const char *path, const unsigned char *data, size_t size,
                       const vkfx_meta *m);
/* The kinds of m that fit in JPEG segments (EXIF and XMP of one segment each). */
unsigned vkfx_jpeg_meta_fits(const vkfx_meta *m);

#endif
