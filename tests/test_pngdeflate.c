/* Tests of core/io/pngdeflate.c, PNG rows deflated in segments on several
 * threads: every file read back with libpng itself (which checks the
 * stream's Adler-32) at shapes around the segment boundaries (1x1, a row
 * longer than a segment, many rows, 8 and 16-bit, 1 to 4 channels), and
 * the same bytes whatever the number of threads. */
#include <criterion/criterion.h>

#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "error.h"
#include "pixels.h"
#include "pngdeflate.h"
#include "pngwrite.h"

static void restore(void)
{
    vkfx_png_set_segments(0, 0);
    vkfx_file_set_encode_threads(0);
}

TestSuite(pngdeflate, .fini = restore);

/* Half smooth (long matches, reaching back across segment starts), half
 * noise (literals), so both kinds of block meet the boundaries. */
static vkfx_pixels make_px(uint32_t w, uint32_t h, uint32_t c, vkfx_sample s, uint32_t seed)
{
    vkfx_pixels px = {0};
    cr_assert_eq(vkfx_pixels_alloc(&px, w, h, c, s), VKFX_OK);
    size_t n = (size_t)w * h * c;
    uint32_t r = seed * 2654435761u + 1;
    for (size_t i = 0; i < n; i++) {
        size_t x = i % ((size_t)w * c), y = i / ((size_t)w * c);
        r = r * 1103515245u + 12345u;
        unsigned v = y % 7 < 4 ? (unsigned)(x / 5 + y / 3) : r >> 16;
        if (s == VKFX_SAMPLE_U16)
            ((uint16_t *)px.data)[i] = (uint16_t)(v * 257u + (r & 3));
        else
            ((unsigned char *)px.data)[i] = (unsigned char)v;
    }
    return px;
}

/* Reads file with libpng and compares every sample with px. */
static void expect_pixels(const unsigned char *file, size_t size, const vkfx_pixels *px,
                          const char *what)
{
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    FILE *f = fmemopen((void *)file, size, "rb");
    cr_assert(png && info && f, "%s: no libpng reader", what);
    if (setjmp(png_jmpbuf(png)))
        cr_assert_fail("%s: libpng could not read the file", what);
    png_init_io(png, f);
    png_read_png(png, info, PNG_TRANSFORM_IDENTITY, NULL);
    bool wide = px->sample == VKFX_SAMPLE_U16;
    cr_assert_eq(png_get_image_width(png, info), px->width, "%s", what);
    cr_assert_eq(png_get_image_height(png, info), px->height, "%s", what);
    cr_assert_eq(png_get_channels(png, info), px->channels, "%s", what);
    cr_assert_eq(png_get_bit_depth(png, info), wide ? 16 : 8, "%s", what);
    png_bytepp rows = png_get_rows(png, info);
    size_t row_samples = (size_t)px->width * px->channels;
    for (uint32_t y = 0; y < px->height; y++)
        for (size_t i = 0; i < row_samples; i++) {
            unsigned want = wide ? ((const uint16_t *)px->data)[y * row_samples + i]
                                 : ((const unsigned char *)px->data)[y * row_samples + i];
            unsigned got = wide ? (unsigned)rows[y][2 * i] << 8 | rows[y][2 * i + 1] : rows[y][i];
            if (want != got)
                cr_assert_fail("%s: row %u sample %zu: %u, want %u", what, y, i, got, want);
        }
    png_destroy_read_struct(&png, &info, NULL);
    fclose(f);
}

/* The file's IDAT data holds n_flush sync-flush markers at least. */
static size_t sync_flushes(const unsigned char *file, size_t size)
{
    size_t n = 0;
    for (size_t i = 0; i + 4 <= size; i++)
        n += !memcmp(file + i, "\x00\x00\xff\xff", 4);
    return n;
}

static void encode(const vkfx_pixels *px, int level, unsigned char **out, size_t *size)
{
    cr_assert_eq(vkfx_png_encode(px, level, out, size), VKFX_OK, "%s", vkfx_error_message());
}

Test(pngdeflate, shapes_around_segment_boundaries_read_back_with_libpng)
{
    static const struct {
        uint32_t w, h, c;
        vkfx_sample s;
        size_t segment;
    } cases[] = {
        {1, 1, 3, VKFX_SAMPLE_U8, 1000},      /* one segment of 4 bytes */
        {1, 1, 4, VKFX_SAMPLE_U16, 1},        /* one byte a segment */
        {700, 5, 3, VKFX_SAMPLE_U8, 1000},    /* a row longer than a segment */
        {333, 3, 4, VKFX_SAMPLE_U16, 1000},   /* a row of 2665 bytes, 16-bit */
        {13, 2000, 1, VKFX_SAMPLE_U8, 1000},  /* many rows, many segments */
        {61, 257, 2, VKFX_SAMPLE_U16, 4096},  /* more rows than a band, 16-bit */
        {100, 100, 3, VKFX_SAMPLE_U8, 30001}, /* segments not a multiple of rows */
        {97, 80, 3, VKFX_SAMPLE_U8, 65536},   /* dictionary: segments of 64 KiB */
    };
    for (size_t k = 0; k < sizeof(cases) / sizeof(*cases); k++) {
        vkfx_pixels px = make_px(cases[k].w, cases[k].h, cases[k].c, cases[k].s, (uint32_t)k);
        size_t filtered =
            ((size_t)cases[k].w * cases[k].c * vkfx_sample_size(cases[k].s) + 1) * cases[k].h;
        size_t segments = (filtered + cases[k].segment - 1) / cases[k].segment;
        char what[128];
        for (int level = 0; level <= 9; level += 3) {
            snprintf(what, sizeof(what), "%ux%u, %u channels, %s, segments of %zu, level %d",
                     cases[k].w, cases[k].h, cases[k].c,
                     cases[k].s == VKFX_SAMPLE_U16 ? "16-bit" : "8-bit", cases[k].segment, level);
            vkfx_png_set_segments(1, cases[k].segment);
            unsigned char *file;
            size_t size;
            encode(&px, level, &file, &size);
            expect_pixels(file, size, &px, what);
            /* Each segment but the last ends with a sync flush: the stream was cut. */
            cr_assert_geq(sync_flushes(file, size), segments - 1, "%s: %zu segments, %zu flushes",
                          what, segments, sync_flushes(file, size));
            free(file);
        }
        vkfx_pixels_free(&px);
    }
}

Test(pngdeflate, same_bytes_with_any_number_of_threads)
{
    vkfx_pixels px = make_px(517, 389, 3, VKFX_SAMPLE_U8, 7);
    vkfx_png_set_segments(1, 20000);
    unsigned char *one, *many;
    size_t n_one, n_many;
    vkfx_file_set_encode_threads(1);
    encode(&px, 6, &one, &n_one);
    for (int threads = 2; threads <= 9; threads += 7) {
        vkfx_file_set_encode_threads(threads);
        encode(&px, 6, &many, &n_many);
        cr_assert(n_one == n_many && !memcmp(one, many, n_one),
                  "%d threads wrote other bytes than one (%zu and %zu bytes)", threads, n_many,
                  n_one);
        free(many);
    }
    expect_pixels(one, n_one, &px, "517x389 RGB in segments of 20000");
    free(one);
    vkfx_pixels_free(&px);
}

/* Below the threshold an image is deflated in one piece (libdeflate), as
 * before segments existed: no sync flush in a compressible image. */
Test(pngdeflate, small_images_in_one_piece)
{
    vkfx_pixels px = make_px(300, 200, 3, VKFX_SAMPLE_U8, 3);
    unsigned char *file;
    size_t size;
    encode(&px, 6, &file, &size);
    expect_pixels(file, size, &px, "300x200 RGB in one piece");
    cr_assert_eq(sync_flushes(file, size), 0);
    free(file);
    vkfx_pixels_free(&px);
}
