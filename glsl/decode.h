/* The kernels between a file's samples and the internal image (glsl/decode.comp,
 * glsl/encode.comp) and core/run/run.c: their push constants. */
#ifndef VKFX_GLSL_DECODE_H
#define VKFX_GLSL_DECODE_H

#include "shared.h"

/* sample_type: 0 u8, 1 u16, 2 f32. */
#define DECODE_PUSH_BYTES 28
#if !defined(VULKAN) || defined(DECODE)
VKFX_PUSH_BEGIN(decode_push)
    VKFX_IVEC2(size);
    VKFX_UINT(channels);
    VKFX_UINT(sample_type);
    VKFX_UINT(srgb);        /* 1: the table's colour curve is sRGB's (for the record: the
                               kernel reads whatever curve the host put there) */
    VKFX_UINT(premultiply); /* 1: the file's colour is straight (all but OpenEXR) */
    VKFX_UINT(curves);      /* 1: colour codes through the table's curves (an ICC profile's) */
VKFX_PUSH_END(decode_push)
#endif

#define ENCODE_PUSH_BYTES 48
#if !defined(VULKAN) || defined(ENCODE)
VKFX_PUSH_BEGIN(encode_push)
    VKFX_IVEC2(size);
    VKFX_UINT(channels);
    VKFX_UINT(sample_type);
    /* 1: encode with the sRGB transfer function (binding 2: each code's least float) */
    VKFX_UINT(srgb);
    VKFX_UINT(nwords);
    VKFX_UINT(row_words);     /* words per row of the dispatch grid */
    VKFX_UINT(unpremultiply); /* 0: the file keeps premultiplied colour (OpenEXR) */
    /* Linear RGB a file without alpha (channels 1 or 3) is composited over, and 1 in [3] to
     * do so; 0 there: the colour is written as it is under its alpha. */
    VKFX_FLOATS(background, 4);
VKFX_PUSH_END(encode_push)
#endif

#endif
