/* OpenEXR files (OpenEXRCore's C API): the colour of a scanline or tiled
 * file as linear, premultiplied float RGB(A) or Y(A); one named or depth
 * channel for auxiliary maps; half or float output. */
#ifndef VKFX_EXR_H
#define VKFX_EXR_H

#include <stdbool.h>
#include <stddef.h>

#include "meta.h"
#include "pixels.h"

/* The four magic bytes of an OpenEXR file. */
bool vkfx_exr_is(const void *data, size_t size);

/* Colour: R, G, B (A) or Y (A), with or without a layer prefix ("beauty.R");
 * missing colour channels read as 0, a missing alpha as 1. F32 samples,
 * linear, premultiplied (straight = false). The image is the display
 * window; pixels the data window does not cover are 0. Corrupt data is
 * VKFX_E_FORMAT naming the file. */
int vkfx_exr_load_memory(const void *data, size_t size, const char *name, vkfx_pixels *out);
/* What vkfx_exr_load_memory would give (the display window's size, the
 * colour channels), from the header alone. */
int vkfx_exr_probe_memory(const void *data, size_t size, const char *name, uint32_t *width,
                          uint32_t *height, uint32_t *channels);

/* One channel as F32 gray: channel by exact name, or with channel NULL the
 * depth: Z, else a name whose last component is Z, else one containing
 * "depth" (any case). A missing channel is VKFX_E_USAGE listing the file's
 * channels. */
int vkfx_exr_load_channel_memory(const void *data, size_t size, const char *name,
                                 const char *channel, vkfx_pixels *out);

typedef struct vkfx_exr_opts {
    bool float_samples;    /* float channels instead of half */
    const vkfx_meta *meta; /* written as the standard attributes below; NULL: none */
} vkfx_exr_opts;

/* Metadata that has a standard OpenEXR attribute: the text keys
 * Description (comments), Copyright (owner) and Creation Time (capDate,
 * EXIF's date form), the resolution (xDensity in dots per inch and the
 * pixel aspect ratio), and an RGB profile's primaries and white
 * (chromaticities). Reading makes a profile of the chromaticities (with
 * sRGB's curve, as vkfx encodes integer outputs) where they are not
 * Rec. 709's. */
int vkfx_exr_read_meta(const void *data, size_t size, const char *name, vkfx_meta *meta);
/* The kinds of meta an OpenEXR file holds whole: text under the keys above,
 * the profile where it is an RGB matrix profile. */
unsigned vkfx_exr_meta_fits(const vkfx_meta *meta);

/* Writes px (F32, 1-4 channels: Y, YA, RGB, RGBA; linear, premultiplied as
 * EXR expects) as a ZIP-compressed scanline file to fd; name is for
 * messages. */
int vkfx_exr_write(int fd, const char *name, const vkfx_pixels *px, const vkfx_exr_opts *opts);

#endif
