/* The one EXIF field vkfx acts on: the orientation (tag 0x0112 of the first
 * image file directory). An EXIF block is taken as the formats carry it: the
 * TIFF structure ("II*\0" or "MM\0*", then directories), with or without
 * JPEG's "Exif\0\0" in front (PNG eXIf and WebP EXIF chunks have none). */
#ifndef VKFX_EXIF_H
#define VKFX_EXIF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* 1..8 as EXIF defines it; 0 when the block has no orientation, or it is
 * malformed or out of range (such a block is left as it is). */
int vkfx_exif_orientation(const uint8_t *exif, size_t size);

/* Rewrites the orientation in place (value 1..8) and returns true, or
 * returns false and leaves the block alone where it has none. */
bool vkfx_exif_set_orientation(uint8_t *exif, size_t size, int value);

#endif
