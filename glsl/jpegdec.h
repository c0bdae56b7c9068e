/* The GPU JPEG decoder's passes (glsl/jpegdec_*.comp) and their host side (core/jpeg_gpu.c,
 * core/codecs/jpeg_parse.c): where each table sits in the info buffer, in 32-bit words, and
 * the push constants. */
#ifndef VKFX_GLSL_JPEGDEC_H
#define VKFX_GLSL_JPEGDEC_H

#include "shared.h"

/* The image: its size, components (1 or 3), largest sampling factors, the blocks all
 * components store, the restart segments and the words of entropy-coded data. */
#define JD_WIDTH    0
#define JD_HEIGHT   1
#define JD_NCOMP    2
#define JD_MAX_H    3
#define JD_MAX_V    4
#define JD_BLOCKS   5
#define JD_SEGMENTS 6
#define JD_WORDS    7

/* Per component: sampling factors, its first block among all components' blocks, the blocks
 * of a row and of a column it stores (whole MCUs), its sample plane's first word, and the
 * samples it has (libjpeg's downsampled_width and height). */
#define JD_COMP       8
#define JD_COMP_WORDS 8
#define JD_C_H        0
#define JD_C_V        1
#define JD_C_BASE     2
#define JD_C_STRIDE   3
#define JD_C_ROWS     4
#define JD_C_PLANE    5
#define JD_C_DW       6
#define JD_C_DH       7

/* Per scan: its components, MCUs in a row and in all, MCUs of a restart interval (0: none),
 * which component each of its slots holds, the blocks of an MCU, and for each block of an
 * MCU its slot and its place among that slot's blocks. */
#define JD_SCAN        32
#define JD_SCAN_WORDS  32
#define JD_S_NCOMP     0
#define JD_S_MCUS_X    1
#define JD_S_MCUS      2
#define JD_S_RESTART   3
#define JD_S_SLOT      4
#define JD_S_BPM       7
#define JD_S_BSLOT     8
#define JD_S_BINDEX    18
#define JD_MAX_SCANS   3

/* Per component: the quantisation table it latched at its scan, in natural order. */
#define JD_QUANT 128

/* Per scan and slot, the DC table then the AC table: a 9-bit look-ahead (length << 8 | value,
 * 0 where the code is longer or not assigned), then for lengths 1-16 the largest code
 * (-1: none) and where its values start, then the values. */
#define JD_HUFF        320
#define JD_HUFF_WORDS  804
#define JD_H_LUT       0
#define JD_H_LUT_BITS  9
#define JD_H_MAXCODE   512
#define JD_H_VALOFF    530
#define JD_H_VALS      547
#define JD_INFO_WORDS  (JD_HUFF + JD_MAX_SCANS * 6 * JD_HUFF_WORDS)

/* A restart segment: its bytes in the de-stuffed data, its first MCU, its scan, and (set by
 * core/jpeg_gpu.c) its first subsequence and their count. */
#define JD_SEG_WORDS 6

/* A subsequence of a segment, the unit of self-synchronising decoding: its segment, first and
 * end bit, and its segment's first subsequence. */
#define JD_SUB_WORDS 4
/* What decoding a subsequence leaves (8 words each): the state it started from and the state
 * where it stopped (bit; coefficient index in the block | block in the MCU << 8), the blocks it
 * began and the sums of their DC differences per slot. */
#define JD_ST_WORDS    8
#define JD_ST_START    0
#define JD_ST_START_ZB 1
#define JD_ST_POS      2
#define JD_ST_ZB       3
#define JD_ST_BLOCKS   4
#define JD_ST_DC       5

/* A sequence, the subsequences one work group synchronises (16 words each): the state its
 * last subsequence stopped at, written by even rounds and by odd ones; the blocks and DC sums
 * of the part of it in the segment it ends in, and whether a segment starts in it; after
 * the prefix pass, those sums from the start of that segment to its end. */
#define JD_SQ_WORDS  16
#define JD_SQ_BND    0
#define JD_SQ_AGG    4
#define JD_SQ_HEAD   8
#define JD_SQ_CARRY  9

/* After the sequences: what the decode took (the most settling iterations of a work group,
 * the last round that moved a sequence's end, subsequences decoded), then per round whether
 * it moved a sequence's end. */
#define JD_R_ITERS   0
#define JD_R_LAST    1
#define JD_R_DECODES 2
#define JD_R_FLAGS   4

/* What the device found: bit 0, entropy data it cannot decode as libjpeg-turbo would without
 * a warning; bit 1, a block whose inverse DCT leaves the range where every libjpeg-turbo
 * build (C or SIMD) gives the same samples. Either sends the file back to libjpeg-turbo. */
#define JD_BAD_STREAM 1u
#define JD_BAD_RANGE  2u
/* The subsequences' states did not settle in the rounds recorded. */
#define JD_BAD_SYNC   4u
/* An invocation ran out of the loop iterations a software device allows (core/jpeg_gpu.c). */
#define JD_BAD_BUDGET 8u

/* Specialization constant: loop iterations an entropy-decoding invocation may take
 * (core/jpeg_gpu.c says why there is a limit). */
#define JD_SPEC_BUDGET 4

#define JPEGDEC_PUSH_BYTES 4
#if !defined(VULKAN) || defined(JPEGDEC)
VKFX_PUSH_BEGIN(jpegdec_push)
    VKFX_UINT(count); /* invocations that have work: segments, blocks or output words */
VKFX_PUSH_END(jpegdec_push)
#endif

/* The self-synchronising decoder's passes (glsl/jpegdec_sync.comp). */
#define JD_MODE_SETTLE 0 /* per sequence: from guesses, settled within the work group */
#define JD_MODE_LINK   1 /* per sequence: settled again from the previous one's end */
#define JD_MODE_PREFIX 2 /* one work group: the sequences' blocks and DC sums, scanned */
#define JD_MODE_WRITE  3 /* per sequence: the blocks each subsequence begins, decoded and stored */
#define JPEGDEC_SYNC_PUSH_BYTES 16
#if !defined(VULKAN) || defined(JPEGDEC_SYNC)
VKFX_PUSH_BEGIN(jpegdec_sync_push)
    VKFX_UINT(count); /* subsequences */
    VKFX_UINT(mode);
    VKFX_UINT(round); /* LINK: which, from 1; WRITE: the last recorded */
    VKFX_UINT(nseq);  /* sequences */
VKFX_PUSH_END(jpegdec_sync_push)
#endif

#ifdef VULKAN
/* The invocation's index: dispatches of more than 65535 groups go in rows of groups. */
uint jd_index()
{
    return gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x +
           gl_GlobalInvocationID.x;
}
#endif

#endif
