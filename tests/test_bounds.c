/* Decoders bounded by their files: each file here is small and declares an
 * image (or a header, a text, a stream) that would cost gigabytes or
 * minutes to take in; each is made at test time with the format's own
 * library or byte by byte, and must be refused from its first bytes or its
 * header, before anything of that size is allocated:
 * - an arithmetic-coded JPEG of 9000x9000 in a few hundred bytes (as one
 *   of 16384x16384 would be, quicker to make);
 * - an animated WebP with a 16383x16383 canvas and one 1x1 frame, and a
 *   lossless WebP of 16383x16383 whose prefix codes have one symbol each;
 * - a TIFF with 1021 extra samples a pixel, and a 16x16 TIFF stored as one
 *   32768x32768 tile;
 * - an OpenEXR header listing 65536 channels (OpenEXRCore's reading of
 *   them is quadratic);
 * - vkfx compare of images whose sizes differ, one of them an OpenEXR of a
 *   large display window and a 1x1 data window: the headers are compared,
 *   nothing decoded;
 * - zTXt chunks past the text budget, which are not inflated;
 * - a stream of zeros as an image and as a job file, and a job line far
 *   longer than a command line: refused after their first bytes. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <jpeglib.h>
#include <openexr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <tiffio.h>
#include <unistd.h>
#include <webp/encode.h>
#include <webp/mux.h>
#include <zlib.h>

#include "common.h"
#include "error.h"
#include "fileio.h"
#include "meta.h"
#include "pixels.h"
#include "run_binary.h"

static void setup(void)
{
    cr_assert_eq(tc_tmpdir_make("bounds"), 0);
}

static void teardown(void)
{
    vkfx_file_set_max_pixels(0);
    tc_tmpdir_remove();
}

TestSuite(bounds, .init = setup, .fini = teardown, .timeout = 120);

/* The most memory this process has held, in MiB. */
static long peak_mib(int who)
{
    struct rusage u;
    cr_assert_eq(getrusage(who, &u), 0);
    return u.ru_maxrss / 1024;
}

static double thread_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

/* Loads data as a file named name and expects code with want in the message. */
static void expect_refused(const void *data, size_t size, const char *name, int code,
                           const char *want)
{
    vkfx_pixels px = {0};
    int ret = vkfx_file_load_memory(data, size, name, &px);
    cr_assert_eq(ret, code, "%s: %d, expected %d: %s", name, ret, code,
                 ret < 0 ? vkfx_error_message() : "accepted");
    cr_assert(strstr(vkfx_error_message(), want), "%s: %s (wanted '%s')", name,
              vkfx_error_message(), want);
    cr_assert(strstr(vkfx_error_message(), name), "%s", vkfx_error_message());
    cr_assert_null(px.data);
}

static unsigned char *slurp(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    cr_assert(f, "%s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    unsigned char *p = malloc((size_t)n + 1);
    cr_assert(p && fread(p, 1, (size_t)n, f) == (size_t)n);
    fclose(f);
    *size = (size_t)n;
    return p;
}

/* A flat gray JPEG of w x h, arithmetic-coded: libjpeg spends a fraction of
 * a bit on each block. */
static unsigned char *arith_jpeg(uint32_t w, uint32_t h, unsigned long *size)
{
    struct jpeg_compress_struct c;
    struct jpeg_error_mgr e;
    unsigned char *out = NULL;
    c.err = jpeg_std_error(&e);
    jpeg_create_compress(&c);
    jpeg_mem_dest(&c, &out, size);
    c.image_width = w;
    c.image_height = h;
    c.input_components = 1;
    c.in_color_space = JCS_GRAYSCALE;
    jpeg_set_defaults(&c);
    c.arith_code = TRUE;
    c.dct_method = JDCT_IFAST;
    unsigned char *row = malloc(w);
    cr_assert(row);
    memset(row, 128, w);
    jpeg_start_compress(&c, TRUE);
    while (c.next_scanline < h)
        jpeg_write_scanlines(&c, &row, 1);
    jpeg_finish_compress(&c);
    jpeg_destroy_compress(&c);
    free(row);
    return out;
}

Test(bounds, arithmetic_jpeg_of_9000_squared_in_a_few_hundred_bytes)
{
    unsigned long size = 0;
    unsigned char *jpg = arith_jpeg(9000, 9000, &size);
    cr_assert_lt(size, 4096, "%lu bytes", size);
    expect_refused(jpg, size, "arith.jpg", VKFX_E_LIMIT, "decompression bomb");
    free(jpg);
    /* the same coding at a size within the bound still decodes */
    jpg = arith_jpeg(640, 480, &size);
    vkfx_pixels px = {0};
    cr_assert_eq(vkfx_file_load_memory(jpg, size, "small.jpg", &px), VKFX_OK, "%s",
                 vkfx_error_message());
    cr_assert(px.width == 640 && px.height == 480 && ((unsigned char *)px.data)[0] == 128);
    vkfx_pixels_free(&px);
    free(jpg);
}

Test(bounds, animated_webp_canvas_without_frames_to_fill_it)
{
    uint8_t rgba[4] = {10, 20, 30, 255};
    uint8_t *frame = NULL;
    size_t frame_size = WebPEncodeLosslessRGBA(rgba, 1, 1, 4, &frame);
    cr_assert(frame_size > 0);
    WebPMux *mux = WebPMuxNew();
    WebPMuxFrameInfo info = {.bitstream = {frame, frame_size},
                             .duration = 100,
                             .id = WEBP_CHUNK_ANMF,
                             .dispose_method = WEBP_MUX_DISPOSE_NONE,
                             .blend_method = WEBP_MUX_NO_BLEND};
    cr_assert_eq(WebPMuxPushFrame(mux, &info, 1), WEBP_MUX_OK);
    cr_assert_eq(WebPMuxSetCanvasSize(mux, 16383, 16383), WEBP_MUX_OK);
    WebPMuxAnimParams params = {.bgcolor = 0, .loop_count = 0};
    cr_assert_eq(WebPMuxSetAnimationParams(mux, &params), WEBP_MUX_OK);
    WebPData out = {0};
    cr_assert_eq(WebPMuxAssemble(mux, &out), WEBP_MUX_OK);
    cr_assert_lt(out.size, 200);
    expect_refused(out.bytes, out.size, "canvas.webp", VKFX_E_LIMIT, "decompression bomb");
    WebPDataClear(&out);
    WebPMuxDelete(mux);
    WebPFree(frame);
}

/* Little-endian bits, as VP8L reads them. */
typedef struct bits {
    unsigned char buf[64];
    size_t at; /* in bits */
} bits;

static void put_bits(bits *b, uint32_t v, int n)
{
    for (int i = 0; i < n; i++, b->at++)
        if (v >> i & 1)
            b->buf[b->at / 8] |= (unsigned char)(1u << (b->at % 8));
}

/* A lossless WebP of w x h whose five prefix codes have one symbol each,
 * so that every pixel takes no bit: the header is the whole file. */
static size_t vp8l_flat(uint32_t w, uint32_t h, unsigned char *file)
{
    bits b = {{0}, 0};
    put_bits(&b, 0x2f, 8);
    put_bits(&b, w - 1, 14);
    put_bits(&b, h - 1, 14);
    put_bits(&b, 0, 1); /* no alpha */
    put_bits(&b, 0, 3); /* version */
    put_bits(&b, 0, 1); /* no transform */
    put_bits(&b, 0, 1); /* no colour cache */
    put_bits(&b, 0, 1); /* one group of prefix codes */
    for (int code = 0; code < 5; code++) {
        put_bits(&b, 1, 1); /* simple code */
        put_bits(&b, 0, 1); /* one symbol */
        put_bits(&b, 0, 1); /* of one bit */
        put_bits(&b, code == 0 ? 1 : 0, 1);
    }
    size_t n = (b.at + 7) / 8, padded = n + (n & 1);
    memcpy(file, "RIFF", 4);
    uint32_t riff = (uint32_t)(4 + 8 + padded), len = (uint32_t)n;
    for (int i = 0; i < 4; i++) {
        file[4 + i] = (unsigned char)(riff >> (8 * i));
        file[16 + i] = (unsigned char)(len >> (8 * i));
    }
    memcpy(file + 8, "WEBPVP8L", 8);
    memset(file + 20, 0, padded);
    memcpy(file + 20, b.buf, n);
    return 20 + padded;
}

Test(bounds, lossless_webp_of_one_symbol_codes)
{
    unsigned char file[128];
    size_t size = vp8l_flat(16383, 16383, file);
    expect_refused(file, size, "flat.webp", VKFX_E_LIMIT, "decompression bomb");
    /* the same stream, small: every pixel is green 1 */
    size = vp8l_flat(300, 200, file);
    vkfx_pixels px = {0};
    cr_assert_eq(vkfx_file_load_memory(file, size, "small.webp", &px), VKFX_OK, "%s",
                 vkfx_error_message());
    const unsigned char *p = px.data;
    cr_assert(px.width == 300 && px.height == 200 && px.channels == 3);
    cr_assert(p[0] == 0 && p[1] == 1 && p[2] == 0, "%u %u %u", p[0], p[1], p[2]);
    vkfx_pixels_free(&px);
}

/* A TIFF at path: w x h, 8-bit RGB with extra samples, deflate, in strips
 * or in one tile of tile x tile (0: strips) holding raw_size bytes of a
 * deflate stream. */
static void write_tiff(const char *path, uint32_t w, uint32_t h, uint16_t extra, uint32_t tile)
{
    TIFF *t = TIFFOpen(path, "w");
    cr_assert(t, "%s", path);
    TIFFSetField(t, TIFFTAG_IMAGEWIDTH, w);
    TIFFSetField(t, TIFFTAG_IMAGELENGTH, h);
    TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, 8);
    TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, (uint16_t)(3 + extra));
    TIFFSetField(t, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_RGB);
    TIFFSetField(t, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
    TIFFSetField(t, TIFFTAG_COMPRESSION, COMPRESSION_ADOBE_DEFLATE);
    if (extra) {
        uint16_t *kinds = calloc(extra, sizeof(*kinds));
        cr_assert(kinds);
        TIFFSetField(t, TIFFTAG_EXTRASAMPLES, extra, kinds);
        free(kinds);
    }
    if (tile) {
        TIFFSetField(t, TIFFTAG_TILEWIDTH, tile);
        TIFFSetField(t, TIFFTAG_TILELENGTH, tile);
        /* the tile's first rows only: what is stored does not matter, its size does */
        unsigned char zeros[4096] = {0}, packed[256];
        uLongf n = sizeof(packed);
        cr_assert_eq(compress2(packed, &n, zeros, sizeof(zeros), 9), Z_OK);
        cr_assert(TIFFWriteRawTile(t, 0, packed, (tmsize_t)n) > 0);
    } else {
        size_t row = (size_t)w * (3 + extra);
        unsigned char *zeros = calloc(row, 1);
        cr_assert(zeros);
        TIFFSetField(t, TIFFTAG_ROWSPERSTRIP, 16);
        for (uint32_t y = 0; y < h; y++)
            cr_assert(TIFFWriteScanline(t, zeros, y, 0) == 1);
        free(zeros);
    }
    TIFFClose(t);
}

Test(bounds, tiff_extra_samples_count_against_the_limit)
{
    /* As --max-pixels 4096: 64x64 pixels are within it, 1024 samples a pixel are not. */
    vkfx_file_set_max_pixels(4096);
    write_tiff(tc_tpath("extra.tif"), 64, 64, 1021, 0);
    size_t size;
    unsigned char *data = slurp(tc_tpath("extra.tif"), &size);
    expect_refused(data, size, "extra.tif", VKFX_E_LIMIT, "1024 samples each");
    free(data);
    /* four samples a pixel (RGB and one extra) are */
    write_tiff(tc_tpath("four.tif"), 64, 64, 1, 0);
    vkfx_pixels px = {0};
    cr_assert_eq(vkfx_file_load(tc_tpath("four.tif"), &px), VKFX_OK, "%s", vkfx_error_message());
    cr_assert(px.width == 64 && px.channels == 3);
    vkfx_pixels_free(&px);
}

Test(bounds, tiff_tile_larger_than_any_image)
{
    write_tiff(tc_tpath("tile.tif"), 16, 16, 0, 32768);
    size_t size;
    unsigned char *data = slurp(tc_tpath("tile.tif"), &size);
    expect_refused(data, size, "tile.tif", VKFX_E_LIMIT, "its tile: declares 32768x32768");
    free(data);
    /* a 16x16 image in a 256x256 tile, as tiffcp writes small images, reads */
    vkfx_file_set_max_pixels(0);
    write_tiff(tc_tpath("small.tif"), 16, 16, 0, 256);
    vkfx_pixels px = {0};
    int ret = vkfx_file_load(tc_tpath("small.tif"), &px);
    /* the stored tile is 4096 of its 196608 bytes: libtiff fails it, but not on its size */
    cr_assert(ret == VKFX_OK || !strstr(vkfx_error_message(), "tile:"), "%s", vkfx_error_message());
    vkfx_pixels_free(&px);
}

static void le32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

/* An attribute name, type, size and value into buf at *at. */
static void attr(unsigned char *buf, size_t *at, const char *name, const char *type,
                 const void *value, uint32_t size)
{
    size_t n = strlen(name) + 1, t = strlen(type) + 1;
    memcpy(buf + *at, name, n);
    memcpy(buf + *at + n, type, t);
    le32(buf + *at + n + t, size);
    memcpy(buf + *at + n + t + 4, value, size);
    *at += n + t + 4 + size;
}

Test(bounds, exr_channel_count_refused_before_openexrcore)
{
    const uint32_t channels = 65536;
    size_t list_size = (size_t)channels * (7 + 16) + 1;
    unsigned char *list = calloc(list_size, 1), *file = calloc(list_size + 4096, 1);
    cr_assert(list && file);
    for (uint32_t i = 0; i < channels; i++) {
        unsigned char *e = list + (size_t)i * 23;
        snprintf((char *)e, 7, "c%05u", i);
        le32(e + 7, 1); /* half */
        le32(e + 15, 1);
        le32(e + 19, 1); /* sampling 1 x 1 */
    }
    size_t at = 8;
    memcpy(file, "\x76\x2f\x31\x01\x02\x00\x00\x00", 8);
    attr(file, &at, "channels", "chlist", list, (uint32_t)list_size);
    unsigned char none = 0, box[16] = {0};
    attr(file, &at, "compression", "compression", &none, 1);
    attr(file, &at, "dataWindow", "box2i", box, 16);
    attr(file, &at, "displayWindow", "box2i", box, 16);
    attr(file, &at, "lineOrder", "lineOrder", &none, 1);
    file[at++] = 0;
    double t0 = thread_seconds();
    expect_refused(file, at + 16, "channels.exr", VKFX_E_LIMIT, "more than 4096 channels");
    cr_assert_lt(thread_seconds() - t0, 1.0);
    free(list);
    free(file);
}

/* An OpenEXR of a w x h display window whose data window is its first
 * pixel: 1 x 1 stored, w x h when decoded. */
static void write_window_exr(const char *path, int32_t w, int32_t h)
{
    exr_context_t ctxt = NULL;
    exr_context_initializer_t init = EXR_DEFAULT_CONTEXT_INITIALIZER;
    cr_assert_eq(exr_start_write(&ctxt, path, EXR_WRITE_FILE_DIRECTLY, &init), EXR_ERR_SUCCESS);
    int part = 0;
    cr_assert_eq(exr_add_part(ctxt, "", EXR_STORAGE_SCANLINE, &part), EXR_ERR_SUCCESS);
    exr_attr_box2i_t display, data;
    memset(&display, 0, sizeof(display));
    memset(&data, 0, sizeof(data));
    display.max.x = w - 1;
    display.max.y = h - 1;
    exr_attr_v2f_t centre;
    memset(&centre, 0, sizeof(centre));
    cr_assert_eq(exr_initialize_required_attr(ctxt, part, &display, &data, 1.0f, &centre, 1.0f,
                                              EXR_LINEORDER_INCREASING_Y, EXR_COMPRESSION_NONE),
                 EXR_ERR_SUCCESS);
    cr_assert_eq(exr_add_channel(ctxt, part, "R", EXR_PIXEL_FLOAT, EXR_PERCEPTUALLY_LINEAR, 1, 1),
                 EXR_ERR_SUCCESS);
    cr_assert_eq(exr_write_header(ctxt), EXR_ERR_SUCCESS);
    exr_chunk_info_t ci;
    cr_assert_eq(exr_write_scanline_chunk_info(ctxt, part, 0, &ci), EXR_ERR_SUCCESS);
    exr_encode_pipeline_t enc = EXR_ENCODE_PIPELINE_INITIALIZER;
    cr_assert_eq(exr_encoding_initialize(ctxt, part, &ci, &enc), EXR_ERR_SUCCESS);
    float one = 1.0f;
    enc.channels[0].encode_from_ptr = (const uint8_t *)&one;
    enc.channels[0].user_pixel_stride = 4;
    enc.channels[0].user_line_stride = 4;
    enc.channels[0].user_bytes_per_element = 4;
    enc.channels[0].user_data_type = EXR_PIXEL_FLOAT;
    cr_assert_eq(exr_encoding_choose_default_routines(ctxt, part, &enc), EXR_ERR_SUCCESS);
    cr_assert_eq(exr_encoding_run(ctxt, part, &enc), EXR_ERR_SUCCESS);
    exr_encoding_destroy(ctxt, &enc);
    cr_assert_eq(exr_finish(&ctxt), EXR_ERR_SUCCESS);
}

Test(bounds, compare_reads_sizes_from_headers_first)
{
    /* 8192x8192 decodes to 768 MiB of float RGB: compare must not need it */
    write_window_exr(tc_tpath("window.exr"), 8192, 8192);
    write_window_exr(tc_tpath("one.exr"), 1, 1);
    cli_run r;
    VKFX(&r, "compare", tc_tpath("window.exr"), tc_tpath("one.exr"));
    cr_assert(r.status == 1 && strstr(r.err, "the sizes differ") &&
                  strstr(r.err, "window.exr is 8192x8192") && strstr(r.out, "reason=size"),
              "%s: exit %d: %s%s", r.cmd, r.status, r.out, r.err);
    run_free(&r);
    cr_assert_lt(peak_mib(RUSAGE_CHILDREN), 400, "compare held %ld MiB", peak_mib(RUSAGE_CHILDREN));
}

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static size_t put_chunk(unsigned char *at, const char *type, const unsigned char *body, size_t n)
{
    for (int i = 0; i < 4; i++)
        at[i] = (unsigned char)(n >> (24 - 8 * i));
    memcpy(at + 4, type, 4);
    memcpy(at + 8, body, n);
    uLong crc = crc32(0, at + 4, (uInt)(n + 4));
    for (int i = 0; i < 4; i++)
        at[8 + n + i] = (unsigned char)(crc >> (24 - 8 * i));
    return n + 12;
}

Test(bounds, ztxt_past_the_text_budget_is_not_inflated)
{
    /* A 1x1 PNG, then 300 zTXt chunks that each inflate to all but a little of
     * the budget: the first is kept, the others cannot be and cost nothing. */
    vkfx_pixels one = {0};
    cr_assert_eq(vkfx_pixels_alloc(&one, 1, 1, 1, VKFX_SAMPLE_U8), VKFX_OK);
    ((unsigned char *)one.data)[0] = 7;
    cr_assert_eq(vkfx_file_save(tc_tpath("one.png"), VKFX_FILE_PNG, &one, NULL), VKFX_OK);
    vkfx_pixels_free(&one);
    size_t png_size;
    unsigned char *png = slurp(tc_tpath("one.png"), &png_size);
    size_t text_size = VKFX_META_MAX_BYTES - 64;
    unsigned char *text = malloc(text_size);
    cr_assert(text);
    memset(text, 'a', text_size);
    uLongf packed_size = compressBound(text_size);
    unsigned char *body = malloc(packed_size + 3);
    cr_assert(body);
    memcpy(body, "k\0\0", 3);
    cr_assert_eq(compress2(body + 3, &packed_size, text, text_size, 9), Z_OK);
    free(text);
    const int chunks = 300;
    size_t chunk_size = packed_size + 3 + 12;
    unsigned char *file = malloc(png_size + chunks * chunk_size);
    cr_assert(file);
    /* IHDR and everything up to IEND, the zTXt chunks, then IEND */
    size_t iend = png_size - 12;
    cr_assert(!memcmp(png + iend + 4, "IEND", 4) && be32(png + iend) == 0);
    memcpy(file, png, iend);
    size_t at = iend;
    for (int i = 0; i < chunks; i++)
        at += put_chunk(file + at, "zTXt", body, packed_size + 3);
    memcpy(file + at, png + iend, 12);
    at += 12;
    vkfx_pixels px = {0};
    vkfx_meta meta = {0};
    double t0 = thread_seconds();
    cr_assert_eq(vkfx_file_load_memory_meta(file, at, "texts.png", &px, &meta), VKFX_OK, "%s",
                 vkfx_error_message());
    double spent = thread_seconds() - t0;
    cr_assert_eq(meta.ntexts, 1);
    cr_assert_eq(strlen(meta.texts[0].text), text_size);
    /* 300 inflations of 16 MiB take seconds; one takes a few milliseconds */
    cr_assert_lt(spent, 1.0, "%.2f s for %zu bytes", spent, at);
    vkfx_meta_free(&meta);
    vkfx_pixels_free(&px);
    free(file);
    free(body);
    free(png);
}

/* A sparse file of zeros: a gigabyte that costs no disk. */
static const char *zeros_file(const char *name)
{
    const char *path = tc_tpath(name);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    cr_assert(fd >= 0 && ftruncate(fd, 1l << 30) == 0);
    close(fd);
    return path;
}

Test(bounds, zeros_are_no_image_after_their_first_bytes)
{
    vkfx_pixels px = {0};
    int ret = vkfx_file_load(zeros_file("zeros.png"), &px);
    cr_assert(ret == VKFX_E_FORMAT && strstr(vkfx_error_message(), "not a format vkfx reads"),
              "%d: %s", ret, vkfx_error_message());
    cr_assert_lt(peak_mib(RUSAGE_SELF), 512, "%ld MiB", peak_mib(RUSAGE_SELF));
    ret = vkfx_file_load("/dev/zero", &px);
    cr_assert(ret == VKFX_E_FORMAT && strstr(vkfx_error_message(), "/dev/zero: not a format"),
              "%d: %s", ret, vkfx_error_message());
}

Test(bounds, zeros_are_no_job_file)
{
    cli_run r;
    VKFX(&r, "run", zeros_file("zeros.txt"));
    cr_assert(r.status == 2 && strstr(r.err, "zeros.txt:1: a NUL byte"), "%s: exit %d: %s", r.cmd,
              r.status, r.err);
    run_free(&r);
    cr_assert_lt(peak_mib(RUSAGE_CHILDREN), 512, "%ld MiB", peak_mib(RUSAGE_CHILDREN));
}

Test(bounds, job_line_is_bounded)
{
    /* 200,000 one-letter inputs on line 2 */
    FILE *f = fopen(tc_tpath("jobs.txt"), "w");
    cr_assert(f);
    fputs("# one job\n-f grayscale --outdir out", f);
    for (int i = 0; i < 200000; i++)
        fputs(" a", f);
    fputs("\n", f);
    fclose(f);
    cli_run r;
    VKFX(&r, "run", tc_tpath("jobs.txt"));
    cr_assert(r.status == 2 && strstr(r.err, "jobs.txt:2: a job longer than 128 KiB"),
              "%s: exit %d: %s", r.cmd, r.status, r.err);
    run_free(&r);
    /* joined lines are one job */
    f = fopen(tc_tpath("joined.txt"), "w");
    cr_assert(f);
    fputs("-f grayscale --outdir out", f);
    for (int i = 0; i < 2000; i++)
        fputs(" aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa \\\n",
              f);
    fputs("b\n", f);
    fclose(f);
    VKFX(&r, "run", tc_tpath("joined.txt"));
    cr_assert(r.status == 2 && strstr(r.err, "a job longer than 128 KiB"), "%s: exit %d: %s", r.cmd,
              r.status, r.err);
    run_free(&r);
}
