/* Area-average downscaling on the host: what the preview uses to bring an
 * image and its maps to the width it is shown at. */
#ifndef VKFX_RESAMPLE_H
#define VKFX_RESAMPLE_H

#include <stdint.h>

/* The height an image of sw x sh has at width dw, aspect kept, at least 1. */
uint32_t vkfx_scaled_height(uint32_t sw, uint32_t sh, uint32_t dw);

/* dst (dw x dh, channels interleaved) = the mean of src (sw x sh) over each
 * destination pixel's footprint, source pixels weighted by how much of them
 * it covers. Only shrinks: dw <= sw and dh <= sh. Returns VKFX_E_NOMEM or 0. */
int vkfx_area_downscale(const float *src, uint32_t sw, uint32_t sh, uint32_t channels, float *dst,
                        uint32_t dw, uint32_t dh);

#endif
