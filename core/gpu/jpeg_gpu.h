/* JPEG decoding on the device, byte for byte libjpeg-turbo's with vkfx's settings (the
 * accurate integer IDCT, fancy upsampling, its YCbCr tables): the host reads the markers
 * (core/include/jpeg_parse.h), the device decodes the entropy-coded segments, dequantises,
 * transforms, upsamples and converts colour (glsl/jpegdec_*.comp). Files it does not cover,
 * and streams it finds damaged, are libjpeg-turbo's. */
#ifndef VKFX_JPEG_GPU_H
#define VKFX_JPEG_GPU_H

#include "jpeg_parse.h"
#include "graph.h"
#include "pixels.h"
#include "staging.h"

/* How the entropy-coded data is shared out: subsequences of sub_bits bits, one invocation
 * each, synchronised in rounds SYNC rounds (glsl/jpegdec_sync.comp); or, with sub_bits
 * VKFX_JPEG_GPU_SEGMENTS, one invocation per restart segment (glsl/jpegdec_huff.comp). Zero
 * fields take the defaults; rounds past a segment's subsequences are not needed and not run. */
typedef struct vkfx_jpeg_gpu_opts {
    uint32_t sub_bits;
    uint32_t rounds; /* odd */
    /* Leave a file whose subsequences do not settle to libjpeg-turbo rather than decoding it
     * again by restart segments: for tests of the subsequences alone. */
    bool no_retry;
} vkfx_jpeg_gpu_opts;
#define VKFX_JPEG_GPU_SEGMENTS UINT32_MAX

/* Records the decode of the parsed file l into dst, its 8-bit samples packed as
 * vkfx_pixels keeps them (1 or 3 channels), at least vkfx_jpeg_gpu_bytes(l) long; status (one
 * word, which this fills first) ends non-zero when the device found the stream damaged or out
 * of the range it decodes exactly. Returns 1 when the device cannot hold the file's
 * coefficients (libjpeg-turbo's then). */
int vkfx_jpeg_gpu_record(vkfx_graph *g, const vkfx_jpeg_layout *l, const vkfx_jpeg_gpu_opts *o,
                         vkfx_buffer *dst, vkfx_buffer *status);
uint64_t vkfx_jpeg_gpu_bytes(const vkfx_jpeg_layout *l);

/* Decodes a JPEG file on the device (o may be NULL), on its own submission, into out (straight
 * sRGB codes as libjpeg-turbo gives); subsequences that do not settle are decoded again by
 * restart segments. Returns 0, 1 when the file is one for libjpeg-turbo (nothing said,
 * out untouched), or an error of the device. */
int vkfx_jpeg_gpu_decode(vkfx_context *ctx, vkfx_staging *staging, const unsigned char *data,
                         size_t size, const vkfx_jpeg_gpu_opts *o, vkfx_pixels *out);

#endif
