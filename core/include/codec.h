/* One codec per image format, each a static descriptor in its own file
 * (core/io/codecs/NAME.c) listed once in core/io/codecs/codecs.c: the file layer
 * (core/io/fileio.c) picks a codec by the file's signature to read and by the
 * output's extension to write. Codecs see only the pixel buffers and what
 * sits beside them (core/include/pixels.h, core/include/error.h), never the file layer. */
#ifndef VKFX_CODEC_H
#define VKFX_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "meta.h"
#include "pixels.h"

typedef enum vkfx_jpeg_subsampling {
    VKFX_JPEG_SUBSAMPLING_AUTO, /* 4:4:4 at quality 90 and above, 4:2:0 below */
    VKFX_JPEG_SUBSAMPLING_444,
    VKFX_JPEG_SUBSAMPLING_422,
    VKFX_JPEG_SUBSAMPLING_420,
} vkfx_jpeg_subsampling;

typedef enum vkfx_tiff_compression {
    VKFX_TIFF_DEFLATE, /* the default: lossless, smallest, read by every TIFF reader */
    VKFX_TIFF_LZW,
    VKFX_TIFF_NONE,
} vkfx_tiff_compression;

/* Where JPEG files are encoded (--jpeg-codec): on the device where its path covers the file
 * and the device is not a software one, always there where covered, or always with
 * libjpeg-turbo. */
typedef enum vkfx_jpeg_codec {
    VKFX_JPEG_CODEC_AUTO,
    VKFX_JPEG_CODEC_GPU,
    VKFX_JPEG_CODEC_CPU,
} vkfx_jpeg_codec;

/* What an encoder may be asked for; zero is each option's default. */
typedef struct vkfx_save_opts {
    int jpeg_quality; /* 1..100, JPEG and lossy WebP; 0 means the default, 90 */
    vkfx_jpeg_subsampling jpeg_subsampling;
    bool jpeg_progressive;
    bool jpeg_optimize; /* Huffman tables optimised for the image (progressive: always) */
    uint16_t jpeg_restart; /* MCUs between restart markers; 0: none */
    bool png_level_set; /* png_level was given; otherwise the default, 6 */
    int png_level;      /* 0..9, the zlib level */
    vkfx_tiff_compression tiff_compression;
    bool webp_lossless;
    bool exr_float; /* OpenEXR: float channels instead of half */
    int depth;      /* --depth: 8 or 16-bit samples where the format holds them; 0: the input's */
    /* What the input carried, written where the format holds it; NULL: none. */
    const vkfx_meta *meta;
} vkfx_save_opts;

#define VKFX_JPEG_QUALITY_DEFAULT 90
#define VKFX_PNG_LEVEL_DEFAULT    6
/* The options as the encoders take them, defaults filled in (opts may be NULL). */
int vkfx_png_level(const vkfx_save_opts *opts);
int vkfx_jpeg_quality(const vkfx_save_opts *opts);
/* A note a decoder leaves about what it did not read (the first of several
 * pages or frames) or read despite damage, for the caller to show; "" when there is none. */
typedef struct vkfx_decode_note {
    char text[160];
} vkfx_decode_note;

/* A JPEG decoded at 1/denom of its size (denom 2, 4 or 8; 1 is the full size) in
 * libjpeg-turbo's DCT domain, each side rounded up (shrink-on-load); note as the
 * codecs' decode leaves it. */
int vkfx_jpeg_decode_scaled(const unsigned char *data, size_t size, const char *name,
                            unsigned denom, vkfx_pixels *out, vkfx_decode_note *note);

/* True when libjpeg-turbo reads the JPEG's header without a warning and finds a sequential
 * Huffman-coded gray or YCbCr image of 8-bit samples: what the GPU decoder may take. */
bool vkfx_jpeg_header_plain(const unsigned char *data, size_t size);

/* What a header says, before any pixel is decoded. */
typedef struct vkfx_image_info {
    uint32_t width, height;
    uint32_t channels; /* as decoded: 1 gray, 2 gray+alpha, 3 RGB, 4 RGBA */
    vkfx_sample sample;
} vkfx_image_info;

typedef struct vkfx_codec {
    const char *name;              /* "PNG", as messages name the format */
    const char *const *extensions; /* lower case, NULL-terminated; the first is the usual one */
    /* True when data starts with the format's signature (size may be short). */
    bool (*sniff)(const unsigned char *data, size_t size);
    /* The header's size, channels and sample type. VKFX_E_FORMAT naming
     * the file when it is corrupt. */
    int (*probe)(const unsigned char *data, size_t size, const char *name, vkfx_image_info *info);
    /* The probe decodes the image (its header alone does not say enough): no cheaper than the
     * decode, so a load's gate does not call it. */
    bool probe_decodes;
    /* The image, straight colour unless the format stores premultiplied
     * colour (then straight = false): checks the declared size against
     * vkfx_file_max_pixels() before allocating for it. */
    int (*decode)(const unsigned char *data, size_t size, const char *name, vkfx_pixels *out,
                  vkfx_decode_note *note);
    /* NULL for a format vkfx only reads. Otherwise what the file stores for
     * an image of in_channels of in_sample, as it reads back. */
    void (*layout)(uint32_t in_channels, vkfx_sample in_sample, uint32_t *channels,
                   vkfx_sample *sample);
    /* Whether the format can hold an image of this size. */
    bool (*fits)(uint32_t width, uint32_t height);
    /* Writes px (laid out as layout says) to f; path is for messages. A
     * failure leaves f to the caller, who removes the file. */
    int (*encode)(FILE *f, const char *path, const vkfx_pixels *px, const vkfx_save_opts *opts);
    /* The command-line options the encoder takes, for messages and help. */
    const char *options;
    /* NULL where the format carries no metadata vkfx reads. Otherwise the
     * metadata of a file's bytes into meta (zeroed by the caller). */
    int (*read_meta)(const unsigned char *data, size_t size, const char *name, vkfx_meta *meta);
    /* The VKFX_META_* kinds the encoder writes from opts->meta. */
    unsigned meta_kinds;
    /* NULL where meta_kinds says all. Otherwise the kinds of m that the
     * format holds whole (JPEG's EXIF of one segment, the text keys TIFF has
     * tags for). */
    unsigned (*meta_fits)(const vkfx_meta *m);
    /* Where the encoder does not write metadata itself: copies an encoded
     * file (data, size) to f with meta added. */
    int (*put_meta)(FILE *f, const char *path, const unsigned char *data, size_t size,
                    const vkfx_meta *meta);
} vkfx_codec;

/* NULL-terminated, in the order signatures are tried and formats listed. */
extern const vkfx_codec *const vkfx_codecs[];

/* The codec whose signature data starts with, or NULL. */
const vkfx_codec *vkfx_codec_sniff(const unsigned char *data, size_t size);
/* The codec an extension (no dot, any case) names, or NULL. */
const vkfx_codec *vkfx_codec_for_extension(const char *ext);
/* "PNG, JPEG, ..." of the codecs that read (writers_only: write), in
 * buf. */
void vkfx_codec_names(bool writers_only, char *buf, size_t size);
/* "png, jpg, ..." the usual extension of each writable format. */
void vkfx_codec_extensions(bool writers_only, char *buf, size_t size);

#endif
