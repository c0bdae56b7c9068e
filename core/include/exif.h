/* EXIF blocks: the one field vkfx acts on, the orientation (tag 0x0112 of
 * the first image file directory), and the copying of directories between
 * an EXIF block and a TIFF file, which share the structure. An EXIF block is
 * taken as the formats carry it: the TIFF structure ("II*\0" or "MM\0*",
 * then directories), with or without JPEG's "Exif\0\0" in front (PNG eXIf
 * and WebP EXIF chunks have none). */
#ifndef VKFX_EXIF_H
#define VKFX_EXIF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "meta.h"

/* 1..8 as EXIF defines it; 0 when the block has no orientation, or it is
 * malformed or out of range (such a block is left as it is). */
int vkfx_exif_orientation(const uint8_t *exif, size_t size);

/* Rewrites the orientation in place (value 1..8) and returns true, or
 * returns false and leaves the block alone where it has none. */
bool vkfx_exif_set_orientation(uint8_t *exif, size_t size, int value);

/* Makes the block tell the truth about pixels written at width x height: IFD0's ImageWidth
 * and ImageLength and the Exif directory's PixelXDimension and PixelYDimension, where
 * present, are set to them (in place; a SHORT too small becomes a LONG). */
void vkfx_exif_set_size(uint8_t *exif, size_t size, uint32_t width, uint32_t height);
/* Unlinks the thumbnail's directory (IFD1) from IFD0, so that no reader finds a thumbnail
 * that no longer matches the image; true where there was one. */
bool vkfx_exif_drop_thumbnail(uint8_t *exif, size_t size);

/* IFD0's XResolution, YResolution and ResolutionUnit (inch where absent): true where both
 * resolutions are there and positive. */
bool vkfx_exif_resolution(const uint8_t *exif, size_t size, double *x, double *y,
                          vkfx_res_unit *unit);

/* IFD0 tags that point to the directories EXIF adds to a TIFF file. */
#define VKFX_EXIF_IFD_TAG 0x8769
#define VKFX_EXIF_GPS_TAG 0x8825

/* Whether the block (no "Exif\0\0" in front) is big-endian ("MM"). */
bool vkfx_exif_big_endian(const uint8_t *exif, size_t size);

/* The text of IFD0's ASCII entry tag (up to its first NUL, *len bytes, not
 * terminated), or NULL where there is none or it runs out of the block. */
const char *vkfx_exif_ascii(const uint8_t *exif, size_t size, uint32_t tag, size_t *len);

/* The offset of the directory IFD0's pointer entry tag leads to (Exif or
 * GPS), or 0 where there is none. */
uint32_t vkfx_exif_pointer(const uint8_t *exif, size_t size, uint32_t tag);

/* Sets IFD0's pointer entry tag to value; false where there is none. */
bool vkfx_exif_set_pointer(uint8_t *tiff, size_t size, uint32_t tag, uint32_t value);

/* Copies the directory at offset ifd of a TIFF structure (tiff, size bytes,
 * with its header) into out: the directory first, then the values of its
 * entries and the directories its pointer entries lead to (Exif and GPS
 * from IFD0, Interoperability from Exif), each offset written as base plus
 * its place in out, in tiff's byte order; level is the directory's depth (0
 * for IFD0, 1 for Exif or GPS). keep (nkeep tags) selects the entries; NULL
 * keeps them all. An entry of an unknown type, with values outside tiff, or
 * an offset vkfx does not follow is left out, and the next-directory link
 * is 0: a thumbnail stays behind. *kept: the entries written. VKFX_E_FORMAT
 * (naming name) when out would pass VKFX_META_MAX_BYTES. */
int vkfx_exif_copy_ifd(const uint8_t *tiff, size_t size, uint32_t ifd, uint32_t level,
                       const uint16_t *keep, size_t nkeep, uint32_t base, vkfx_blob *out,
                       uint32_t *kept, const char *name);

/* An EXIF block made from a classic TIFF file's first directory: its
 * descriptive tags (description, make, model, orientation, resolution,
 * software, date, artist, copyright) and its Exif and GPS directories, into
 * exif. Nothing (exif left NULL) where the file has neither directory. */
int vkfx_exif_from_tiff(const uint8_t *tiff, size_t size, const char *name, vkfx_blob *exif);

#endif
