/* The IDAT stream of a PNG: rows filtered (Sub on the first, Paeth on the
 * others) and deflated into one zlib stream. Up to a size, in one piece
 * through libdeflate; above it, as pigz does, on every core: the filtered
 * rows cut into fixed segments, each deflated by zlib with the 32 KiB before
 * it as preset dictionary and ended by a sync flush, the segments joined
 * into one stream and their Adler-32 sums combined. The cut depends only on
 * the image, never on the number of threads, so the file's bytes do not
 * either. */
#ifndef VKFX_PNGDEFLATE_H
#define VKFX_PNGDEFLATE_H

#include <stddef.h>

#include "pixels.h"

/* Filtered images larger than this are deflated in segments (libdeflate's
 * whole-buffer parse is the faster of the two on one core, so images a
 * batch encodes one per core keep it). */
#define VKFX_PNG_PARALLEL_BYTES ((size_t)16 << 20)
/* Bytes of filtered rows per segment: large enough that the sync flush and
 * the restarted block are lost in the noise (pigz cuts at 128 KiB), small
 * enough that a 24-megapixel image (72 MiB) gives 16 cores 18 segments each,
 * so none waits long for the last. */
#define VKFX_PNG_SEGMENT_BYTES ((size_t)256 << 10)

/* Spread over vkfx_file_encode_threads() threads. Settable for tests: the
 * threshold and the segment size (0 restores each default). */
void vkfx_png_set_segments(size_t parallel_bytes, size_t segment_bytes);

/* Level 6's search in segments, as zlib's deflateTune takes it (good
 * length, lazy match, nice length, chain); settable for the benchmark
 * (tests/bench/codec_times.c), NULL restores the default. */
void vkfx_png_set_tune(const int tune[4]);

/* The zlib stream of px's filtered rows at level 0..9, written at
 * *out + head (malloc'd, with room for tail more bytes after it);
 * *packed is its length. */
int vkfx_png_idat(const vkfx_pixels *px, int level, size_t head, size_t tail, unsigned char **out,
                  size_t *packed);

#endif
