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
 * and which component each of its slots holds. */
#define JD_SCAN        32
#define JD_SCAN_WORDS  8
#define JD_S_NCOMP     0
#define JD_S_MCUS_X    1
#define JD_S_MCUS      2
#define JD_S_RESTART   3
#define JD_S_SLOT      4
#define JD_MAX_SCANS   3

/* Per component: the quantisation table it latched at its scan, in natural order. */
#define JD_QUANT 64

/* Per scan and slot, the DC table then the AC table: a 9-bit look-ahead (length << 8 | value,
 * 0 where the code is longer or not assigned), then for lengths 1-16 the largest code
 * (-1: none) and where its values start, then the values. */
#define JD_HUFF        256
#define JD_HUFF_WORDS  804
#define JD_H_LUT       0
#define JD_H_LUT_BITS  9
#define JD_H_MAXCODE   512
#define JD_H_VALOFF    530
#define JD_H_VALS      547
#define JD_INFO_WORDS  (JD_HUFF + JD_MAX_SCANS * 6 * JD_HUFF_WORDS)

/* A restart segment: its bytes in the de-stuffed data, its first MCU and its scan. */
#define JD_SEG_WORDS 4

/* What the device found: bit 0, entropy data it cannot decode as libjpeg-turbo would without
 * a warning; bit 1, a block whose inverse DCT leaves the range where every libjpeg-turbo
 * build (C or SIMD) gives the same samples. Either sends the file back to libjpeg-turbo. */
#define JD_BAD_STREAM 1u
#define JD_BAD_RANGE  2u

/* Specialization constant: loop iterations an entropy-decoding invocation may take
 * (core/jpeg_gpu.c says why there is a limit). */
#define JD_SPEC_BUDGET 4

#define JPEGDEC_PUSH_BYTES 4
VKFX_PUSH_BEGIN(jpegdec_push)
    VKFX_UINT(count); /* invocations that have work: segments, blocks or output words */
VKFX_PUSH_END(jpegdec_push)

#ifdef VULKAN
/* The invocation's index: dispatches of more than 65535 groups go in rows of groups. */
uint jd_index()
{
    return gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x +
           gl_GlobalInvocationID.x;
}
#endif

#endif
