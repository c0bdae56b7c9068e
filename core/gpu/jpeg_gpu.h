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
 * each, in sequences of lanes subsequences, one work group each (1 to 256), whose ends are
 * linked in rounds LINK rounds at most (glsl/jpegdec_sync.comp); or, with sub_bits
 * VKFX_JPEG_GPU_SEGMENTS, one invocation per restart segment (glsl/jpegdec_huff.comp). Zero
 * fields take the defaults; rounds VKFX_JPEG_GPU_ALL_ROUNDS records one per sequence less one,
 * which always settles. */
typedef struct vkfx_jpeg_gpu_opts {
    uint32_t sub_bits;
    uint32_t lanes;
    uint32_t rounds;
    /* Leave a file whose sequences do not settle in the rounds recorded to libjpeg-turbo rather
     * than decoding it again with every round: for tests of the default rounds alone. */
    bool no_retry;
} vkfx_jpeg_gpu_opts;
#define VKFX_JPEG_GPU_ALL_ROUNDS UINT32_MAX
#define VKFX_JPEG_GPU_SEGMENTS   UINT32_MAX

/* Records the decode of the parsed file l into dst, its 8-bit samples packed as
 * vkfx_pixels keeps them (1 or 3 channels), at least vkfx_jpeg_gpu_bytes(l) long; status (one
 * word, which this fills first) ends non-zero when the device found the stream damaged or out
 * of the range it decodes exactly. Returns 1 when the device cannot hold the file's
 * coefficients (libjpeg-turbo's then). */
int vkfx_jpeg_gpu_record(vkfx_graph *g, const vkfx_jpeg_layout *l, const vkfx_jpeg_gpu_opts *o,
                         vkfx_buffer *dst, vkfx_buffer *status);

/* What the synchronisation of subsequences took: the host's shares, then what the device
 * noted (glsl/jpegdec.h JD_R_*) once the graph has run. */
typedef struct vkfx_jpeg_sync_stats {
    /* subsequences, sequences and LINK rounds recorded */
    uint32_t subsequences, sequences, rounds;
    /* the most settling turns of a work group, the last round that moved a sequence's end (0:
     * none did), and the subsequences decoded while settling in all */
    uint32_t turns, last_round, decodes;
} vkfx_jpeg_sync_stats;

/* vkfx_jpeg_gpu_record, also giving the buffer of the device's notes on the synchronisation
 * (*notes, NULL when the file is decoded by restart segments) and filling the host's part of
 * stats; vkfx_jpeg_gpu_read_stats adds the device's from notes after the graph ran, to the
 * stats the same record filled. */
int vkfx_jpeg_gpu_record_noted(vkfx_graph *g, const vkfx_jpeg_layout *l,
                               const vkfx_jpeg_gpu_opts *o, vkfx_buffer *dst, vkfx_buffer *status,
                               vkfx_buffer **notes, vkfx_jpeg_sync_stats *stats);
int vkfx_jpeg_gpu_read_stats(vkfx_staging *staging, vkfx_buffer *notes,
                             vkfx_jpeg_sync_stats *stats);
uint64_t vkfx_jpeg_gpu_bytes(const vkfx_jpeg_layout *l);

/* Decodes a JPEG file on the device (o may be NULL), on its own submission, into out (straight
 * sRGB codes as libjpeg-turbo gives); sequences that do not settle in the rounds recorded are
 * decoded again with every round. Returns 0, 1 when the file is one for libjpeg-turbo (nothing
 * said, out untouched), or an error of the device. */
int vkfx_jpeg_gpu_decode(vkfx_context *ctx, vkfx_staging *staging, const unsigned char *data,
                         size_t size, const vkfx_jpeg_gpu_opts *o, vkfx_pixels *out);

#endif
