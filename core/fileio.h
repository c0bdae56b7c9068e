/* Reading and writing image files: PNG through libpng (8/16 bit, gray, gray+
 * alpha, RGB, RGBA, palette), other formats through stb_image and
 * stb_image_write. Writes go through core/safefile.h. */
#ifndef VKFX_FILEIO_H
#define VKFX_FILEIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pixels.h"

typedef enum vkfx_file_format {
    VKFX_FILE_PNG,
    VKFX_FILE_JPEG,
    VKFX_FILE_BMP,
    VKFX_FILE_TGA,
    VKFX_FILE_GIF,
    VKFX_FILE_PSD,
    VKFX_FILE_HDR,
    VKFX_FILE_EXR,
} vkfx_file_format;

/* The most pixels a file may declare (2^28, about 268 million, unless set):
 * every decoder checks its header against it before allocating. Set it
 * before loading starts; 0 restores the default. */
#define VKFX_DEFAULT_MAX_PIXELS 268435456ull
void vkfx_file_set_max_pixels(uint64_t n);
uint64_t vkfx_file_max_pixels(void);
/* The most bytes a file or stream is read to: 17 per pixel of the limit
 * (four float samples a pixel and room for what files carry besides) and
 * 1 MiB. Past it reading stops with VKFX_E_LIMIT. */
uint64_t vkfx_file_max_bytes(void);
/* VKFX_E_LIMIT naming the file, its declared size and the limit. */
int vkfx_fail_pixels(const char *name, uint64_t w, uint64_t h);

typedef struct vkfx_save_opts {
    int jpeg_quality; /* 1..100; 0 means the default, 90 */
    bool exr_float;   /* OpenEXR: float channels instead of half */
} vkfx_save_opts;

/* Output format from the path's extension (case-insensitive). Unknown or
 * read-only extensions (.gif, .psd) fail with VKFX_E_USAGE naming the
 * extensions that can be written. */
int vkfx_file_format_for_output(const char *path, vkfx_file_format *fmt);
const char *vkfx_file_format_name(vkfx_file_format fmt);

/* Decodes a file, recognised by its content, not its name. 8/16-bit files
 * come back with linear=false, Radiance HDR with linear=true and F32 samples;
 * straight=true always. Palette PNGs expand to RGB or RGBA (tRNS), 1/2/4-bit
 * gray to 8 bit. Missing/unreadable files give VKFX_E_IO; corrupt, truncated
 * or unknown content VKFX_E_FORMAT; the message names the path. */
int vkfx_file_load(const char *path, vkfx_pixels *out);
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
/* Decodes all that can be read from fd (standard input: a pipe); name is
 * for messages. */
int vkfx_file_load_fd(int fd, const char *name, vkfx_pixels *out);

/* The channels and sample type a format stores for an image whose input had
 * in_channels channels of in_sample, as the file reads back: PNG keeps both
 * (F32 becomes U16), TGA keeps the channels in U8, JPEG is U8 RGB (gray
 * expanded, alpha dropped), BMP is U8 RGB or RGBA, HDR is F32 RGB. */
void vkfx_file_output_layout(vkfx_file_format fmt, uint32_t in_channels, vkfx_sample in_sample,
                             uint32_t *channels, vkfx_sample *sample);

/* Encodes px (whose channels/sample must match vkfx_file_output_layout for
 * fmt) and writes it to path through core/safefile.h: atomically for a
 * regular file, straight through for a device or FIFO. A missing folder or
 * a directory target is VKFX_E_USAGE; nothing is left behind on failure. */
int vkfx_file_save(const char *path, vkfx_file_format fmt, const vkfx_pixels *px,
                   const vkfx_save_opts *opts);
/* The same to an open descriptor (standard output), without a file on
 * disk; name is for messages. On VKFX_E_IO errno holds the cause. */
int vkfx_file_save_fd(int fd, const char *name, vkfx_file_format fmt, const vkfx_pixels *px,
                      const vkfx_save_opts *opts);

#endif
