/* Turning pixels upright as an EXIF orientation (1..8) says: 1 as stored,
 * 2 mirrored left-right, 3 turned 180 degrees, 4 mirrored top-bottom,
 * 5 transposed (the stored rows become columns), 6 turned 90 degrees
 * clockwise, 7 transversed, 8 turned 90 degrees anticlockwise. Samples are
 * moved, never changed. */
#ifndef VKFX_ORIENT_H
#define VKFX_ORIENT_H

#include <stdint.h>

#include "pixels.h"

/* The upright size of a width x height image stored with orientation o:
 * 5-8 swap the sides; anything else keeps them. */
void vkfx_orient_size(int o, uint32_t width, uint32_t height, uint32_t *out_w, uint32_t *out_h);

/* The stored pixel (x, y) that lands on upright pixel (ox, oy) of an image
 * stored as width x height with orientation o (1..8). */
void vkfx_orient_source(int o, uint32_t width, uint32_t height, uint32_t ox, uint32_t oy,
                        uint32_t *x, uint32_t *y);

/* Replaces px's samples with the upright image (a new buffer where o is 2-8,
 * nothing done for 1 or a value out of range). On failure px is unchanged. */
int vkfx_pixels_orient(vkfx_pixels *px, int o);

#endif
