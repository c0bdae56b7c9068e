/* The bodies of the fuzz targets, shared by the libFuzzer harnesses
 * (tests/fuzz/fuzz_*.c, built with -Dfuzz=true and clang) and by
 * tests/test_fuzz_corpus.c, which replays the seed corpora and every input
 * that ever crashed in the normal suite, so the two cannot drift apart.
 * Each returns 0 when the input was handled cleanly: accepted with a
 * consistent result, or refused with an error code and a message. Anything
 * else aborts, which both libFuzzer and the test report. */
#ifndef VKFX_FUZZ_TARGETS_H
#define VKFX_FUZZ_TARGETS_H

#include <stddef.h>
#include <stdint.h>

/* The chain parser and every option value parser it reaches: the bytes are
 * the text of -f (up to the first NUL). */
int vkfx_fuzz_chain(const uint8_t *data, size_t size);

/* Image decoding as vkfx reads an input file: PNG, JPEG, TIFF, WebP, BMP,
 * TGA, GIF, PSD, Radiance HDR and OpenEXR, recognised by content. --max-pixels is held at
 * 4 Mi pixels, so the header checks are fuzzed too and no legitimate huge
 * image costs the fuzzer its memory. */
int vkfx_fuzz_decode(const uint8_t *data, size_t size);

/* One decoder alone, the input handed to it whatever its signature, so the
 * fuzzer explores that format's decoder and vkfx's checks around it: the
 * JPEG (libjpeg-turbo), TIFF (libtiff) and WebP (libwebp) codecs. Same
 * limit and contract as vkfx_fuzz_decode. */
int vkfx_fuzz_jpeg(const uint8_t *data, size_t size);
int vkfx_fuzz_tiff(const uint8_t *data, size_t size);
int vkfx_fuzz_webp(const uint8_t *data, size_t size);

/* An EXIF block as the codecs hand it over (core/io/exif.c): the orientation
 * read, then rewritten to each value and read back. */
int vkfx_fuzz_exif(const uint8_t *data, size_t size);

/* An embedded ICC profile (core/io/icc.c, lcms2 reading from memory): the tone
 * curves taken, then evaluated and inverted as 8 and 16-bit outputs use
 * them. */
int vkfx_fuzz_icc(const uint8_t *data, size_t size);

#endif
