/* JPEG encoding on the device, byte for byte the file libjpeg-turbo writes with the same
 * settings (core/codecs/jpeg.c): baseline, 8-bit gray or YCbCr at 4:4:4, 4:2:2 or 4:2:0, the
 * standard Huffman tables or (--jpeg-optimize) the image's own, built on the host from symbol
 * counts gathered on the device as libjpeg builds them. The device turns the 8-bit codes into
 * quantised coefficients, codes every block and packs, stuffs and marks the entropy-coded
 * data; only those bytes come back, and the host writes the markers around them. */
#ifndef VKFX_JPEG_GPU_ENC_H
#define VKFX_JPEG_GPU_ENC_H

#include <stddef.h>
#include <stdint.h>

#include "codec.h"
#include "graph.h"
#include "staging.h"

typedef struct vkfx_jpegenc vkfx_jpegenc;

/* Whether the device path writes this image with these options: not progressive, 1 or 3
 * channels of 8-bit codes, within JPEG's sizes and the device's buffer range (caps). Anything
 * else stays with libjpeg-turbo. */
bool vkfx_jpegenc_covers(uint32_t width, uint32_t height, uint32_t channels,
                         const vkfx_save_opts *opts, const vkfx_caps *caps);

/* Whether codec (--jpeg-codec) sends JPEG encoding to this device: gpu always, auto where the
 * device is not a software one (libjpeg-turbo is faster there), cpu never. */
bool vkfx_jpegenc_wanted(vkfx_jpeg_codec codec, const vkfx_caps *caps);

/* Starts building the encoder's kernels on threads of their own where codec may send JPEG
 * encoding to ctx's device (vkfx_kernel_prepare: from the thread that records, or before
 * another starts), so that a first encoding does not wait for all of them. */
void vkfx_jpegenc_prepare(vkfx_context *ctx, vkfx_jpeg_codec codec);

/* Records the encoding of codes (width x height x channels 8-bit codes, packed in 32-bit words as
 * glsl/encode.comp writes them) into g, after whatever wrote them. The encoder (returned in out,
 * owned by the caller, freed by vkfx_jpegenc_destroy) works in g's temporaries: g must live
 * until vkfx_jpegenc_finish has returned. */
int vkfx_jpegenc_record(vkfx_graph *g, vkfx_buffer *codes, uint32_t width, uint32_t height,
                        uint32_t channels, const vkfx_save_opts *opts, vkfx_jpegenc **out);
/* Once g has run: the whole file in *data (malloc'd, the caller's), *size bytes. With
 * --jpeg-optimize the coding runs here, in a second submission, after the host has built the
 * tables. */
int vkfx_jpegenc_finish(vkfx_jpegenc *e, vkfx_staging *staging, unsigned char **data, size_t *size);
void vkfx_jpegenc_destroy(vkfx_jpegenc *e);

/* Host pixels (8-bit, 1 or 3 channels) to a JPEG file through the device, in one call. */
int vkfx_jpegenc_encode(vkfx_context *ctx, vkfx_staging *staging, const vkfx_pixels *px,
                        const vkfx_save_opts *opts, unsigned char **data, size_t *size);

#endif
