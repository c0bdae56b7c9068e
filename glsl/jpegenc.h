/* The JPEG encoder's kernels (glsl/jpegenc_*.comp) and core/gpu/jpeg_gpu_enc.c: one push block for
 * all of them, and the layout of the buffers they share. */
#ifndef VKFX_GLSL_JPEGENC_H
#define VKFX_GLSL_JPEGENC_H

#include "shared.h"

/* The tables buffer, in 32-bit words: for quantisation table t (0 luma, 1 chroma) and
 * coefficient k in natural order, the reciprocal, the correction and the shift of
 * libjpeg-turbo's quantiser at (t * 64 + k) * 3; the Huffman codes ((length << 16) | code) of
 * table h (0 luma DC, 1 luma AC, 2 chroma DC, 3 chroma AC) and symbol s at JPEGENC_HUFF + h * 256
 * + s; the natural position of zigzag index k at JPEGENC_ZIGZAG + k. */
#define JPEGENC_HUFF        384
#define JPEGENC_ZIGZAG      (JPEGENC_HUFF + 4 * 256)
#define JPEGENC_TABLE_WORDS (JPEGENC_ZIGZAG + 64)

/* The totals buffer: the bits of every block, the entropy-coded bytes before stuffing, the
 * 0xFF bytes among them; from JPEGENC_HIST the symbol counts of the four Huffman tables. */
#define JPEGENC_TOTAL_BITS  0
#define JPEGENC_TOTAL_BYTES 1
#define JPEGENC_TOTAL_FF    2
#define JPEGENC_HIST        8
#define JPEGENC_TOTAL_WORDS (JPEGENC_HIST + 4 * 256)

/* Bytes of the entropy-coded data one thread of the stuffing kernels reads. */
#define JPEGENC_CHUNK 64

/* jpegenc_scan's passes, and the words one invocation sums in a tile's. */
#define JPEGENC_SCAN_SUM   0
#define JPEGENC_SCAN_TILES 1
#define JPEGENC_SCAN_ADD   2
#define JPEGENC_SCAN_RUN   8

#define JPEGENC_PUSH_BYTES 60
VKFX_PUSH_BEGIN(jpegenc_push)
    VKFX_IVEC2(size);         /* the image */
    VKFX_UINT(channels);      /* 1 gray, 3 YCbCr from the RGB codes */
    VKFX_UINT(hmax);          /* the luma sampling factors (1 for gray) */
    VKFX_UINT(vmax);
    VKFX_UINT(mcus_x);        /* MCUs of the scan per row, and rows */
    VKFX_UINT(mcus_y);
    VKFX_UINT(nblocks);       /* blocks of the scan, dummy blocks included */
    VKFX_UINT(interval);      /* blocks per restart interval (all of them without restarts) */
    VKFX_UINT(nintervals);
    VKFX_UINT(gather);        /* jpegenc_count: 1 counts symbols instead of measuring blocks */
    VKFX_UINT(n);             /* jpegenc_scan: the words to scan; stuffing: the chunks */
    VKFX_UINT(slot);          /* jpegenc_scan: where in the totals its sum goes */
    VKFX_UINT(cap_bytes);     /* bytes the entropy-coded data may take before stuffing */
    VKFX_UINT(phase);         /* jpegenc_scan: JPEGENC_SCAN_* */
VKFX_PUSH_END(jpegenc_push)

#endif
