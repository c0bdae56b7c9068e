/* Reading and writing image files: the layer over the codec table
 * (core/io/codecs/), which picks a codec by the file's signature to read and
 * by the output's extension to write. Writes go through core/include/safefile.h. */
#ifndef VKFX_FILEIO_H
#define VKFX_FILEIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "codec.h"
#include "meta.h"
#include "jpeg_parse.h"
#include "pixels.h"

/* A format is its codec (core/include/codec.h); these name the ones
 * callers pick directly. */
typedef const vkfx_codec *vkfx_file_format;
extern const vkfx_codec vkfx_codec_png, vkfx_codec_jpeg, vkfx_codec_tiff, vkfx_codec_webp,
    vkfx_codec_exr, vkfx_codec_gif, vkfx_codec_bmp, vkfx_codec_psd, vkfx_codec_hdr, vkfx_codec_tga;
#define VKFX_FILE_PNG  (&vkfx_codec_png)
#define VKFX_FILE_JPEG (&vkfx_codec_jpeg)
#define VKFX_FILE_TIFF (&vkfx_codec_tiff)
#define VKFX_FILE_WEBP (&vkfx_codec_webp)
#define VKFX_FILE_EXR  (&vkfx_codec_exr)
#define VKFX_FILE_GIF  (&vkfx_codec_gif)
#define VKFX_FILE_BMP  (&vkfx_codec_bmp)
#define VKFX_FILE_PSD  (&vkfx_codec_psd)
#define VKFX_FILE_HDR  (&vkfx_codec_hdr)
#define VKFX_FILE_TGA  (&vkfx_codec_tga)

/* The most bytes a file or stream is read to: 17 per pixel of the limit
 * (four float samples a pixel and room for what files carry besides) and
 * 1 MiB. Past it reading stops with VKFX_E_LIMIT. */
uint64_t vkfx_file_max_bytes(void);

/* Output format from the path's extension (case-insensitive). Unknown or
 * read-only extensions (.gif, .psd) fail with VKFX_E_USAGE naming the
 * extensions that can be written. */
int vkfx_file_format_for_output(const char *path, vkfx_file_format *fmt);
const char *vkfx_file_format_name(vkfx_file_format fmt);

/* Decodes a file, recognised by its content, not its name. 8/16-bit files
 * come back with linear=false, float files (Radiance HDR, OpenEXR, float
 * TIFF) with linear=true and F32 samples; straight=false only where the
 * file stores premultiplied colour (OpenEXR, float TIFF with associated
 * alpha). Palette PNGs expand to RGB or RGBA (tRNS), 1/2/4-bit gray to 8
 * bit. Missing/unreadable files give VKFX_E_IO; corrupt, truncated content
 * VKFX_E_FORMAT; content in no format vkfx reads VKFX_E_FORMAT saying "not
 * a format vkfx reads" and listing them; the message names the path. */
int vkfx_file_load(const char *path, vkfx_pixels *out);
struct vkfx_meta;
/* How many times smaller (1, 2, 4 or 8) than its upright size w x h an image may be decoded,
 * as the caller's plan for the image (plan) decides. */
typedef unsigned (*vkfx_shrink_fn)(const void *plan, uint32_t w, uint32_t h);
/* vkfx_file_load with shrink-on-load: a JPEG for which shrink says 2, 4 or 8 is decoded at
 * that fraction of its size in libjpeg-turbo's DCT domain; other files (or shrink NULL) at
 * full size. *source_w x *source_h is the file's own size, upright, where it was decoded
 * smaller (vkfx_run_opts.source_width), else 0 x 0. The file's metadata goes into meta (may be
 * NULL) and its orientation is applied, as by vkfx_file_load_meta. */
int vkfx_file_load_shrunk(const char *path, vkfx_shrink_fn shrink, const void *plan,
                          vkfx_pixels *out, struct vkfx_meta *meta, uint32_t *source_w,
                          uint32_t *source_h);
/* A JPEG file left to the device to decode (core/gpu/jpeg_gpu.h): its bytes, kept for
 * libjpeg-turbo where the device refuses the stream, and their parsed layout. */
typedef struct vkfx_jpeg_input {
    unsigned char *bytes;
    size_t size;
    vkfx_jpeg_layout layout;
} vkfx_jpeg_input;
/* Reads path's header and metadata as vkfx_file_load_meta would, without decoding: 0 with
 * shape (no data), meta and *out (free it with vkfx_jpeg_input_free) filled, or 1 when the
 * file is one for the libjpeg-turbo path (not a JPEG, not a baseline 8-bit gray or YCbCr one,
 * an orientation to turn, beyond --max-pixels, fewer pixels than min_pixels: then nothing is
 * said and nothing kept, and the file's data is not parsed), or an error reading it. */
int vkfx_file_load_jpeg_input(const char *path, uint64_t min_pixels, vkfx_pixels *shape,
                              struct vkfx_meta *meta, vkfx_jpeg_input *out);
void vkfx_jpeg_input_free(vkfx_jpeg_input *j);
/* An auxiliary map (depth, radius): "FILE.exr#CHANNEL" picks an OpenEXR
 * channel by name, an OpenEXR file without it its depth channel (see
 * vkfx_exr_load_channel_memory); other files load as vkfx_file_load does. */
int vkfx_file_load_map(const char *spec, vkfx_pixels *out);
/* The file a map spec reads in *path (malloc'd) and the channel it names
 * (a pointer into spec) or NULL. */
int vkfx_file_map_split(const char *spec, char **path, const char **channel);
/* The depth channel of an OpenEXR file (depth=self); other files are
 * VKFX_E_USAGE. */
int vkfx_file_load_depth_of(const char *path, vkfx_pixels *out);
int vkfx_file_load_memory(const void *data, size_t size, const char *name, vkfx_pixels *out);
/* What the calling thread's last successful load left unread (the first
 * page of several, the first frame of an animation), as a sentence naming
 * the file, or NULL. */
const char *vkfx_file_note(void);
/* Called by the loads of the calling thread with the file's size (upright, as the load turns
 * it) from its header, before any pixels are decoded (a format whose header does not say
 * enough is decoded first); a failure is the load's. A batch refuses an output its format
 * cannot store before a decode it would waste. */
typedef int (*vkfx_load_gate)(void *arg, const char *name, uint32_t width, uint32_t height);
/* Sets the calling thread's gate (NULL: none) for the loads that follow. */
void vkfx_file_set_gate(vkfx_load_gate gate, void *arg);
/* The header of a file: size (upright, as a load turns it), channels and
 * sample type, without decoding. */
int vkfx_file_probe(const char *path, vkfx_image_info *info);
/* The sample type of an auxiliary map (vkfx_file_load_map's spec), from
 * its header. */
int vkfx_file_map_sample(const char *spec, vkfx_sample *sample);
/* Whether the file's content is in a format vkfx reads (from its first
 * bytes; the file may still be corrupt further on). */
bool vkfx_file_is_image(const void *data, size_t size);

/* The same, with the file's metadata in *meta (zeroed first; the caller
 * frees it with vkfx_meta_free, also on failure). Every load, with or
 * without meta, turns the pixels upright as the file's EXIF orientation
 * (or a TIFF's orientation tag) says, unless vkfx_file_set_autorotate(false);
 * the kept EXIF then says 1. */
int vkfx_file_load_meta(const char *path, vkfx_pixels *out, vkfx_meta *meta);
int vkfx_file_load_fd_meta(int fd, const char *name, vkfx_pixels *out, vkfx_meta *meta);
int vkfx_file_load_memory_meta(const void *data, size_t size, const char *name, vkfx_pixels *out,
                               vkfx_meta *meta);
/* --no-autorotate: keep stored pixels and the stored orientation. Set
 * before loading starts. */
void vkfx_file_set_autorotate(bool on);
/* The kinds of meta (VKFX_META_*) that fmt cannot hold: what writing meta
 * to a file of fmt drops. */
unsigned vkfx_file_meta_dropped(vkfx_file_format fmt, const vkfx_meta *meta);

/* Decodes all that can be read from fd (standard input: a pipe); name is
 * for messages. */
int vkfx_file_load_fd(int fd, const char *name, vkfx_pixels *out);

/* The channels and sample type a format stores for an image whose input had
 * in_channels channels of in_sample, as the file reads back (each codec's
 * layout): PNG keeps both (F32 becomes U16), TIFF keeps both, TGA keeps the
 * channels in U8, JPEG is U8 gray or RGB (alpha dropped), WebP U8 RGB or
 * RGBA, BMP is U8 RGB or RGBA, HDR is F32 RGB. */
void vkfx_file_output_layout(vkfx_file_format fmt, uint32_t in_channels, vkfx_sample in_sample,
                             uint32_t *channels, vkfx_sample *sample);

/* The layout as above with the samples at depth bits (8 or 16; 0: as the input's), for a
 * format that holds that depth (vkfx_file_check_depth). */
void vkfx_file_output_layout_depth(vkfx_file_format fmt, uint32_t in_channels,
                                   vkfx_sample in_sample, int depth, uint32_t *channels,
                                   vkfx_sample *sample);
/* VKFX_E_USAGE naming path and the formats that do when fmt cannot hold samples of depth
 * bits (0 always passes). */
int vkfx_file_check_depth(const char *path, vkfx_file_format fmt, int depth);

/* VKFX_E_LIMIT naming path when fmt cannot store a width x height image, else VKFX_OK: what
 * vkfx_file_save says, for a caller that knows the size before the pixels. */
int vkfx_file_check_size(const char *path, vkfx_file_format fmt, uint32_t width, uint32_t height);

/* Encodes px (whose channels/sample must match vkfx_file_output_layout for
 * fmt) and writes it to path through core/include/safefile.h: atomically for a
 * regular file, straight through for a device or FIFO. A missing folder or
 * a directory target is VKFX_E_USAGE; nothing is left behind on failure. */
int vkfx_file_save(const char *path, vkfx_file_format fmt, const vkfx_pixels *px,
                   const vkfx_save_opts *opts);
/* The same to an open descriptor (standard output), without a file on
 * disk; name is for messages. On VKFX_E_IO errno holds the cause. */
int vkfx_file_save_fd(int fd, const char *name, vkfx_file_format fmt, const vkfx_pixels *px,
                      const vkfx_save_opts *opts);
/* Writes the size bytes of a width x height image that an encoder other than fmt's made (a JPEG
 * encoded on the device, vkfx_run_opts.jpeg) as vkfx_file_save writes what fmt's encoder
 * makes, opts->meta included; to fd when it is not negative (path names it in messages). */
int vkfx_file_save_encoded(const char *path, int fd, vkfx_file_format fmt,
                           const unsigned char *data, size_t size, uint32_t width, uint32_t height,
                           const vkfx_save_opts *opts);

#endif
