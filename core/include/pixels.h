/* Host-side pixel buffers as files hold them: interleaved, tightly packed
 * rows of 1-4 channels (gray, gray+alpha, RGB, RGBA) of one sample type;
 * and what every codec shares below the file layer: sizes and the limit on
 * the pixels a file may declare. */
#ifndef VKFX_PIXELS_H
#define VKFX_PIXELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum vkfx_sample {
    VKFX_SAMPLE_U8,
    VKFX_SAMPLE_U16,
    VKFX_SAMPLE_F32,
} vkfx_sample;

typedef struct vkfx_pixels {
    uint32_t width, height;
    uint32_t channels; /* 1 gray, 2 gray+alpha, 3 RGB, 4 RGBA */
    vkfx_sample sample;
    bool linear;   /* samples are linear light (HDR, EXR): no sRGB transfer */
    bool straight; /* colour is not premultiplied (every file format here) */
    void *data;    /* height rows of width*channels samples, host endian */
} vkfx_pixels;

/* Ownership, for vkfx_pixels and every struct here that owns memory: one owner at a time, the
 * one that allocated it or took it over. Others get it by pointer, const where they only read
 * (a function's `in` is borrowed, never freed there). A copy by value is either a layout
 * (vkfx_pixels_layout: data NULL, owning nothing) or a move (the source's pointer cleared at
 * once). An error path frees only what its own function allocated. */

size_t vkfx_sample_size(vkfx_sample s);
size_t vkfx_pixels_bytes(const vkfx_pixels *px);
/* Allocates data for the given shape; other fields are left as set. */
int vkfx_pixels_alloc(vkfx_pixels *px, uint32_t width, uint32_t height, uint32_t channels,
                      vkfx_sample sample);
void vkfx_pixels_free(vkfx_pixels *px);
/* px's shape and flags without its data: what a copy by value may hold. */
vkfx_pixels vkfx_pixels_layout(const vkfx_pixels *px);

/* The overflow-checked size of a width x height x channels image of
 * sample s; false when it does not fit in size_t. */
bool vkfx_image_bytes(uint32_t w, uint32_t h, uint32_t channels, vkfx_sample s, size_t *bytes);
bool vkfx_host_is_little_endian(void);

/* The most pixels a file may declare (2^28, about 268 million, unless set):
 * every decoder checks its header against it before allocating. Set it
 * before loading starts; 0 restores the default. */
#define VKFX_DEFAULT_MAX_PIXELS 268435456ull
void vkfx_file_set_max_pixels(uint64_t n);
uint64_t vkfx_file_max_pixels(void);
/* VKFX_E_LIMIT naming the file, its declared size and the limit. */
int vkfx_fail_pixels(const char *name, uint64_t w, uint64_t h);
/* VKFX_OK, or vkfx_fail_pixels when w x h is above the limit. */
int vkfx_check_pixels(const char *name, uint64_t w, uint64_t h);
/* VKFX_OK, or VKFX_E_LIMIT when w x h pixels of samples_per_pixel samples
 * are more samples than four a pixel of the limit: a decoder holds every
 * sample a file stores (TIFF's extra samples, OpenEXR's channels), so the
 * limit on pixels alone does not bound its memory. */
int vkfx_check_samples(const char *name, uint64_t w, uint64_t h, uint64_t samples_per_pixel);

/* The check every decoder makes before allocating: whether size bytes can
 * store a w x h image at all. units is what the format's densest coding
 * spends its smallest code on (pixels, 8x8 blocks, decoded bytes) and
 * per_byte how many of them one byte of the file can hold at most; a
 * header declaring more is corrupt or cut short (VKFX_E_FORMAT naming the
 * format, the size and the file's bytes). */
int vkfx_check_stored(const char *name, const char *format, uint64_t w, uint64_t h, uint64_t units,
                      uint64_t per_byte, size_t size);

/* Where a coding has no useful smallest size (arithmetic coding, WebP's
 * one-symbol codes and animation canvases) any header could be honest, so
 * the bound is a ratio no photograph or drawing comes near: an image of
 * more than VKFX_BOMB_FLOOR decoded bytes may take at most VKFX_BOMB_RATIO
 * of them for each byte of its file. Above that it is refused
 * (VKFX_E_LIMIT) as a decompression bomb before anything is allocated. */
#define VKFX_BOMB_RATIO 4096u
#define VKFX_BOMB_FLOOR (64ull << 20)
int vkfx_check_bomb(const char *name, const char *format, uint64_t w, uint64_t h,
                    uint64_t decoded_bytes, size_t size);

/* Threads an encoder may use for one image (0, the default: one per core).
 * A batch that encodes one image on each core sets 1; the bytes written
 * never depend on it. */
void vkfx_file_set_encode_threads(int n);
int vkfx_file_encode_threads(void);

#endif
