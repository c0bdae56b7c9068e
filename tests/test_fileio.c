/* Tests of core/io/fileio.c: exact PNG round trips at every depth and layout,
 * libpng expansions checked against files written here with libpng itself,
 * clean failures on truncated, corrupt and foreign input, atomic saves that
 * leave nothing behind when they fail, the stb formats, and the
 * bundled photos. */
#include <criterion/criterion.h>

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <png.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "error.h"
#include "fileio.h"
#include "pngwrite.h"
#include "pixels.h"

#ifndef VKFX_TEST_IMAGES
#error "the build must define VKFX_TEST_IMAGES, the folder of the bundled photos (images/)"
#endif

/* ------------------------------------------------------------------------ */
/* Scaffolding: one temporary directory per test */

static void setup(void)
{
    if (tc_tmpdir_make("fileio") != 0)
        cr_assert_fail("mkdtemp: %s", strerror(errno));
}

TestSuite(fileio, .init = setup, .fini = tc_tmpdir_remove);

static const char *tpath(char buf[static 512], const char *name)
{
    snprintf(buf, 512, "%s/%s", tc_tmpdir, name);
    return buf;
}

/* Names in dir, space-separated, for assertions and their messages. */
static int list_dir(const char *dir, char *names, size_t cap)
{
    int n = 0;
    names[0] = 0;
    DIR *d = opendir(dir);
    cr_assert(d, "opendir %s: %s", dir, strerror(errno));
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        n++;
        size_t len = strlen(names);
        snprintf(names + len, cap - len, "%s ", e->d_name);
    }
    closedir(d);
    return n;
}

static uint64_t rng = 0x9E3779B97F4A7C15ull;

static uint32_t rnd(void)
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return (uint32_t)((rng * 0x2545F4914F6CDD1Dull) >> 32);
}

static void fill_random(vkfx_pixels *px)
{
    size_t n = vkfx_pixels_bytes(px);
    unsigned char *p = px->data;
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)rnd();
}

static vkfx_pixels make_px(uint32_t w, uint32_t h, uint32_t c, vkfx_sample s)
{
    vkfx_pixels px = {0};
    cr_assert_eq(vkfx_pixels_alloc(&px, w, h, c, s), 0);
    px.straight = true;
    return px;
}

static vkfx_pixels random_for(vkfx_file_format fmt, uint32_t w, uint32_t h, uint32_t c)
{
    uint32_t ch;
    vkfx_sample s;
    vkfx_file_output_layout(fmt, c, VKFX_SAMPLE_U8, &ch, &s);
    vkfx_pixels px = make_px(w, h, ch, s);
    if (s == VKFX_SAMPLE_F32) {
        float *v = px.data;
        for (size_t i = 0; i < (size_t)w * h * ch; i++)
            v[i] = (float)(rnd() % 100000) / 1000.0f;
    } else {
        fill_random(&px);
    }
    return px;
}

static unsigned char *slurp(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    cr_assert(f, "open %s: %s", path, strerror(errno));
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *buf = malloc(n > 0 ? (size_t)n : 1);
    cr_assert(buf);
    cr_assert_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *size = (size_t)n;
    return buf;
}

static void spit(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    cr_assert(f, "create %s: %s", path, strerror(errno));
    cr_assert_eq(fwrite(data, 1, size, f), size);
    cr_assert_eq(fclose(f), 0);
}

static void save_ok(const char *path, vkfx_file_format fmt, const vkfx_pixels *px)
{
    int r = vkfx_file_save(path, fmt, px, NULL);
    cr_assert_eq(r, 0, "save %s: %d %s", path, r, vkfx_error_message());
}

static void load_ok(const char *path, vkfx_pixels *px)
{
    int r = vkfx_file_load(path, px);
    cr_assert_eq(r, 0, "load %s: %d %s", path, r, vkfx_error_message());
}

static void assert_same(const vkfx_pixels *a, const vkfx_pixels *b, const char *what)
{
    cr_assert(a->width == b->width && a->height == b->height, "%s: %ux%u vs %ux%u", what, a->width,
              a->height, b->width, b->height);
    cr_assert(a->channels == b->channels && a->sample == b->sample,
              "%s: %u channels sample %d vs %u channels sample %d", what, a->channels, a->sample,
              b->channels, b->sample);
    size_t n = vkfx_pixels_bytes(a);
    const unsigned char *p = a->data, *q = b->data;
    for (size_t i = 0; i < n; i++)
        cr_assert(p[i] == q[i], "%s (%ux%ux%u): byte %zu differs: %u vs %u", what, a->width,
                  a->height, a->channels, i, p[i], q[i]);
}

/* Expects a clean format failure: the code, a message naming the input,
 * and no pixels. */
static void expect_format_error_memory(const void *data, size_t size, const char *what)
{
    vkfx_pixels px = {.data = (void *)1};
    vkfx_error_clear();
    int r = vkfx_file_load_memory(data, size, "input.bin", &px);
    cr_assert_eq(r, VKFX_E_FORMAT, "%s (%zu bytes): got %d (%s)", what, size, r,
                 vkfx_error_message());
    cr_assert_null(px.data, "%s: data left set on failure", what);
    cr_assert(strstr(vkfx_error_message(), "input.bin"), "%s: message '%s' lacks the name", what,
              vkfx_error_message());
}

static void expect_format_error_file(const char *path, const char *what)
{
    vkfx_pixels px = {.data = (void *)1};
    vkfx_error_clear();
    int r = vkfx_file_load(path, &px);
    cr_assert_eq(r, VKFX_E_FORMAT, "%s: got %d (%s)", what, r, vkfx_error_message());
    cr_assert_null(px.data);
    cr_assert(strstr(vkfx_error_message(), path), "%s: message '%s' lacks the path", what,
              vkfx_error_message());
}

/* ------------------------------------------------------------------------ */
/* PNG files written here with libpng directly, independent of fileio.c */

struct raw_png {
    uint32_t w, h;
    int depth, ctype, interlace;
    const png_color *pal;
    int npal;
    const png_byte *trans; /* palette alpha */
    int ntrans;
    const png_color_16 *trans_color; /* gray or RGB key */
    const unsigned char *rows;       /* packed rows, 16-bit samples big-endian */
    size_t stride;
};

static void write_raw_png(const char *path, const struct raw_png *p)
{
    FILE *f = fopen(path, "wb");
    cr_assert(f);
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(png);
    cr_assert(png && info);
    if (setjmp(png_jmpbuf(png)))
        cr_assert_fail("libpng failed writing %s", path);
    png_init_io(png, f);
    png_set_IHDR(png, info, p->w, p->h, p->depth, p->ctype, p->interlace,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    if (p->pal)
        png_set_PLTE(png, info, p->pal, p->npal);
    if (p->trans || p->trans_color)
        png_set_tRNS(png, info, p->trans, p->ntrans, p->trans_color);
    png_write_info(png, info);
    int passes = png_set_interlace_handling(png);
    for (int pass = 0; pass < passes; pass++)
        for (uint32_t y = 0; y < p->h; y++)
            png_write_row(png, p->rows + p->stride * y);
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    cr_assert_eq(fclose(f), 0);
}

static uint32_t crc32_of(const unsigned char *p, size_t n)
{
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++)
            c = (c >> 1) ^ (0xEDB88320u & -(c & 1));
    }
    return ~c;
}

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void put_be32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

/* Offset of the length field of the first chunk of this type. */
static size_t find_chunk(const unsigned char *png, size_t size, const char *type)
{
    size_t off = 8;
    while (off + 12 <= size) {
        uint32_t len = be32(png + off);
        if (!memcmp(png + off + 4, type, 4))
            return off;
        off += 12 + len;
    }
    cr_assert_fail("no %s chunk", type);
    return 0;
}

static void fix_crc(unsigned char *png, size_t chunk)
{
    uint32_t len = be32(png + chunk);
    put_be32(png + chunk + 8 + len, crc32_of(png + chunk + 4, 4 + len));
}

/* A valid PNG of random (incompressible) pixels, in memory. */
static unsigned char *valid_png(uint32_t w, uint32_t h, uint32_t c, size_t *size)
{
    char p[512];
    vkfx_pixels px = make_px(w, h, c, VKFX_SAMPLE_U8);
    fill_random(&px);
    save_ok(tpath(p, "valid.png"), VKFX_FILE_PNG, &px);
    vkfx_pixels_free(&px);
    unsigned char *data = slurp(p, size);
    unlink(p);
    return data;
}

/* ------------------------------------------------------------------------ */
/* PNG round trips */

static const uint32_t shapes[][2] = {{1, 1}, {1, 9}, {9, 1}, {2, 2}, {3, 5}, {17, 13}, {64, 33}};

static void png_roundtrip(vkfx_sample s)
{
    char p[512];
    for (uint32_t c = 1; c <= 4; c++) {
        for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
            vkfx_pixels a = make_px(shapes[i][0], shapes[i][1], c, s), b;
            fill_random(&a);
            save_ok(tpath(p, "rt.png"), VKFX_FILE_PNG, &a);
            load_ok(p, &b);
            assert_same(&a, &b, "PNG round trip");
            cr_assert(!b.linear && b.straight);
            vkfx_pixels_free(&a);
            vkfx_pixels_free(&b);
        }
    }
}

Test(fileio, png_roundtrip_16bit_exact)
{
    png_roundtrip(VKFX_SAMPLE_U16);
}

Test(fileio, png_roundtrip_8bit_exact)
{
    png_roundtrip(VKFX_SAMPLE_U8);
}

/* Images above the in-memory encoder's buffer limit stream through libpng:
 * the same round trips with the limit at one byte, and both encoders' files
 * decode to the same pixels. */
Test(fileio, png_roundtrip_through_libpng)
{
    vkfx_png_set_buffer_limit(1);
    png_roundtrip(VKFX_SAMPLE_U8);
    png_roundtrip(VKFX_SAMPLE_U16);
    char p[512], q[512];
    vkfx_pixels a = make_px(61, 40, 4, VKFX_SAMPLE_U16), b, c;
    fill_random(&a);
    save_ok(tpath(p, "libpng.png"), VKFX_FILE_PNG, &a);
    vkfx_png_set_buffer_limit(0);
    cr_assert_eq(vkfx_png_buffer_limit(), VKFX_PNG_BUFFER_LIMIT_DEFAULT);
    save_ok(tpath(q, "libdeflate.png"), VKFX_FILE_PNG, &a);
    load_ok(p, &b);
    load_ok(q, &c);
    assert_same(&b, &c, "libpng and libdeflate PNG");
    vkfx_pixels_free(&a);
    vkfx_pixels_free(&b);
    vkfx_pixels_free(&c);
}

/* A round trip alone cannot see a swap done twice: check against the bytes
 * libpng itself writes and reads. */
Test(fileio, png_16bit_samples_are_host_order)
{
    char p[512];
    const unsigned char be[] = {0x12, 0x34, 0xFE, 0x01};
    struct raw_png raw = {
        .w = 2, .h = 1, .depth = 16, .ctype = PNG_COLOR_TYPE_GRAY, .rows = be, .stride = 4};
    write_raw_png(tpath(p, "be.png"), &raw);
    vkfx_pixels px;
    load_ok(p, &px);
    cr_assert_eq(px.sample, VKFX_SAMPLE_U16);
    const uint16_t *v = px.data;
    cr_assert(v[0] == 0x1234 && v[1] == 0xFE01, "got %04x %04x", v[0], v[1]);

    save_ok(tpath(p, "ours.png"), VKFX_FILE_PNG, &px);
    vkfx_pixels_free(&px);
    FILE *f = fopen(p, "rb");
    cr_assert(f);
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(png);
    if (setjmp(png_jmpbuf(png)))
        cr_assert_fail("libpng could not read our PNG");
    png_init_io(png, f);
    png_read_png(png, info, PNG_TRANSFORM_IDENTITY, NULL);
    png_bytepp rows = png_get_rows(png, info);
    cr_assert_eq(png_get_bit_depth(png, info), 16);
    cr_assert(!memcmp(rows[0], be, 4), "written %02x %02x %02x %02x", rows[0][0], rows[0][1],
              rows[0][2], rows[0][3]);
    png_destroy_read_struct(&png, &info, NULL);
    fclose(f);
}

Test(fileio, png_gray_alpha)
{
    char p[512];
    const unsigned char ga8[] = {0, 255, 10, 128, 200, 0, 255, 7};
    struct raw_png raw = {
        .w = 2, .h = 2, .depth = 8, .ctype = PNG_COLOR_TYPE_GRAY_ALPHA, .rows = ga8, .stride = 4};
    write_raw_png(tpath(p, "ga8.png"), &raw);
    vkfx_pixels px;
    load_ok(p, &px);
    cr_assert(px.channels == 2 && px.sample == VKFX_SAMPLE_U8 && px.width == 2 && px.height == 2);
    cr_assert(!memcmp(px.data, ga8, sizeof(ga8)));
    vkfx_pixels_free(&px);

    const unsigned char ga16[] = {0x01, 0x02, 0xFF, 0xFF, 0xAB, 0xCD, 0x00, 0x10};
    raw = (struct raw_png){
        .w = 2, .h = 1, .depth = 16, .ctype = PNG_COLOR_TYPE_GRAY_ALPHA, .rows = ga16, .stride = 8};
    write_raw_png(tpath(p, "ga16.png"), &raw);
    load_ok(p, &px);
    cr_assert(px.channels == 2 && px.sample == VKFX_SAMPLE_U16);
    const uint16_t *v = px.data;
    cr_assert(v[0] == 0x0102 && v[1] == 0xFFFF && v[2] == 0xABCD && v[3] == 0x0010);
    vkfx_pixels_free(&px);
}

static const png_color palette[4] = {{255, 0, 0}, {0, 255, 0}, {0, 0, 255}, {12, 34, 56}};

Test(fileio, png_palette_expands_to_rgb)
{
    char p[512];
    const unsigned char idx[] = {0, 1, 2, 3, 3, 2};
    struct raw_png raw = {.w = 3,
                          .h = 2,
                          .depth = 8,
                          .ctype = PNG_COLOR_TYPE_PALETTE,
                          .pal = palette,
                          .npal = 4,
                          .rows = idx,
                          .stride = 3};
    write_raw_png(tpath(p, "pal.png"), &raw);
    vkfx_pixels px;
    load_ok(p, &px);
    cr_assert(px.channels == 3 && px.sample == VKFX_SAMPLE_U8);
    const unsigned char *d = px.data;
    for (int i = 0; i < 6; i++) {
        const png_color *c = &palette[idx[i]];
        cr_assert(d[3 * i] == c->red && d[3 * i + 1] == c->green && d[3 * i + 2] == c->blue,
                  "pixel %d", i);
    }
    vkfx_pixels_free(&px);

    /* 2-bit indices: four to a byte, rows padded to a byte. */
    const unsigned char packed[] = {0x1B, 0xE0}; /* 0 1 2 3 | 3 2 */
    raw = (struct raw_png){.w = 4,
                           .h = 1,
                           .depth = 2,
                           .ctype = PNG_COLOR_TYPE_PALETTE,
                           .pal = palette,
                           .npal = 4,
                           .rows = packed,
                           .stride = 1};
    write_raw_png(tpath(p, "pal2.png"), &raw);
    load_ok(p, &px);
    cr_assert(px.channels == 3 && px.width == 4);
    d = px.data;
    for (int i = 0; i < 4; i++)
        cr_assert(d[3 * i] == palette[i].red && d[3 * i + 2] == palette[i].blue, "pixel %d", i);
    vkfx_pixels_free(&px);
}

Test(fileio, png_palette_with_trns_expands_to_rgba)
{
    char p[512];
    const unsigned char idx[] = {0, 1, 2, 3};
    const png_byte alpha[] = {0, 128, 255}; /* entry 3 has none: opaque */
    struct raw_png raw = {.w = 2,
                          .h = 2,
                          .depth = 8,
                          .ctype = PNG_COLOR_TYPE_PALETTE,
                          .pal = palette,
                          .npal = 4,
                          .trans = alpha,
                          .ntrans = 3,
                          .rows = idx,
                          .stride = 2};
    write_raw_png(tpath(p, "palt.png"), &raw);
    vkfx_pixels px;
    load_ok(p, &px);
    cr_assert(px.channels == 4 && px.sample == VKFX_SAMPLE_U8);
    const unsigned char *d = px.data;
    const unsigned char want_a[] = {0, 128, 255, 255};
    for (int i = 0; i < 4; i++) {
        cr_assert(d[4 * i] == palette[i].red && d[4 * i + 1] == palette[i].green &&
                      d[4 * i + 2] == palette[i].blue,
                  "colour of pixel %d", i);
        cr_assert_eq(d[4 * i + 3], want_a[i], "alpha of pixel %d", i);
    }
    vkfx_pixels_free(&px);
}

Test(fileio, png_low_bit_gray_expands_to_8bit)
{
    char p[512];
    vkfx_pixels px;
    const unsigned char bits1[] = {0xA5, 0x80}; /* 1010 0101 1 */
    struct raw_png raw = {
        .w = 9, .h = 1, .depth = 1, .ctype = PNG_COLOR_TYPE_GRAY, .rows = bits1, .stride = 2};
    write_raw_png(tpath(p, "g1.png"), &raw);
    load_ok(p, &px);
    cr_assert(px.channels == 1 && px.sample == VKFX_SAMPLE_U8 && px.width == 9);
    const unsigned char want1[] = {255, 0, 255, 0, 0, 255, 0, 255, 255};
    cr_assert(!memcmp(px.data, want1, 9));
    vkfx_pixels_free(&px);

    const unsigned char bits2[] = {0x1B}; /* 0 1 2 3 */
    raw = (struct raw_png){
        .w = 4, .h = 1, .depth = 2, .ctype = PNG_COLOR_TYPE_GRAY, .rows = bits2, .stride = 1};
    write_raw_png(tpath(p, "g2.png"), &raw);
    load_ok(p, &px);
    const unsigned char want2[] = {0, 85, 170, 255};
    cr_assert(!memcmp(px.data, want2, 4));
    vkfx_pixels_free(&px);

    const unsigned char bits4[] = {0x0F, 0x70}; /* 0 15 7 */
    raw = (struct raw_png){
        .w = 3, .h = 1, .depth = 4, .ctype = PNG_COLOR_TYPE_GRAY, .rows = bits4, .stride = 2};
    write_raw_png(tpath(p, "g4.png"), &raw);
    load_ok(p, &px);
    const unsigned char want4[] = {0, 255, 119};
    cr_assert(!memcmp(px.data, want4, 3));
    vkfx_pixels_free(&px);
}

Test(fileio, png_trns_key_adds_alpha)
{
    char p[512];
    vkfx_pixels px;
    const unsigned char gray[] = {5, 9, 5};
    png_color_16 key = {.gray = 5};
    struct raw_png raw = {.w = 3,
                          .h = 1,
                          .depth = 8,
                          .ctype = PNG_COLOR_TYPE_GRAY,
                          .trans_color = &key,
                          .rows = gray,
                          .stride = 3};
    write_raw_png(tpath(p, "gt.png"), &raw);
    load_ok(p, &px);
    cr_assert_eq(px.channels, 2);
    const unsigned char want[] = {5, 0, 9, 255, 5, 0};
    cr_assert(!memcmp(px.data, want, 6));
    vkfx_pixels_free(&px);

    const unsigned char rgb16[] = {0, 1, 0, 2, 0, 3, 0xFF, 0xFF, 0, 0, 0, 0};
    png_color_16 key16 = {.red = 1, .green = 2, .blue = 3};
    raw = (struct raw_png){.w = 2,
                           .h = 1,
                           .depth = 16,
                           .ctype = PNG_COLOR_TYPE_RGB,
                           .trans_color = &key16,
                           .rows = rgb16,
                           .stride = 12};
    write_raw_png(tpath(p, "rgbt.png"), &raw);
    load_ok(p, &px);
    cr_assert(px.channels == 4 && px.sample == VKFX_SAMPLE_U16);
    const uint16_t *v = px.data;
    const uint16_t want16[] = {1, 2, 3, 0, 0xFFFF, 0, 0, 0xFFFF};
    for (int i = 0; i < 8; i++)
        cr_assert_eq(v[i], want16[i], "sample %d", i);
    vkfx_pixels_free(&px);
}

Test(fileio, png_interlaced)
{
    char p[512];
    vkfx_pixels a = make_px(13, 11, 3, VKFX_SAMPLE_U16), b;
    fill_random(&a);
    /* The raw writer wants big-endian samples. */
    size_t n = vkfx_pixels_bytes(&a);
    unsigned char *be = malloc(n);
    const uint16_t *v = a.data;
    for (size_t i = 0; i < n / 2; i++) {
        be[2 * i] = (unsigned char)(v[i] >> 8);
        be[2 * i + 1] = (unsigned char)v[i];
    }
    struct raw_png raw = {.w = 13,
                          .h = 11,
                          .depth = 16,
                          .ctype = PNG_COLOR_TYPE_RGB,
                          .interlace = PNG_INTERLACE_ADAM7,
                          .rows = be,
                          .stride = 13 * 6};
    write_raw_png(tpath(p, "adam7.png"), &raw);
    free(be);
    load_ok(p, &b);
    assert_same(&a, &b, "interlaced PNG");
    vkfx_pixels_free(&a);
    vkfx_pixels_free(&b);
}

/* ------------------------------------------------------------------------ */
/* Broken input */

Test(fileio, png_truncated_fails_cleanly)
{
    char p[512];
    size_t size;
    unsigned char *png = valid_png(37, 23, 3, &size);
    cr_assert_gt(size, 200);
    const size_t cuts[] = {1,         4,         7,         8,        16,
                           33,        40,        60,        size / 3, size / 2,
                           size - 30, size - 13, size - 12, size - 5, size - 1};
    for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
        char what[64];
        snprintf(what, sizeof(what), "PNG cut to %zu of %zu bytes", cuts[i], size);
        expect_format_error_memory(png, cuts[i], what);
    }
    /* And through the file path. */
    spit(tpath(p, "cut.png"), png, size / 2);
    expect_format_error_file(p, "truncated PNG file");
    /* The intact file still loads: the cuts, not the data, caused the errors. */
    vkfx_pixels px;
    cr_assert_eq(vkfx_file_load_memory(png, size, "intact", &px), 0, "%s", vkfx_error_message());
    vkfx_pixels_free(&px);
    free(png);
}

Test(fileio, png_corrupt_fails_cleanly)
{
    size_t size;
    unsigned char *png = valid_png(31, 17, 4, &size);
    unsigned char *bad = malloc(size);
    size_t ihdr = find_chunk(png, size, "IHDR"), idat = find_chunk(png, size, "IDAT");

    memcpy(bad, png, size);
    bad[idat + 8 + be32(png + idat) / 2] ^= 0x55;
    expect_format_error_memory(bad, size, "flipped IDAT byte (CRC now wrong)");

    memcpy(bad, png, size);
    bad[ihdr + 8 + 13] ^= 1;
    expect_format_error_memory(bad, size, "bad IHDR CRC");

    memcpy(bad, png, size);
    bad[idat + 8] = 0x00; /* zlib header: not deflate */
    bad[idat + 9] = 0x00;
    fix_crc(bad, idat);
    expect_format_error_memory(bad, size, "bad zlib header, valid CRC");

    memcpy(bad, png, size);
    bad[ihdr + 8 + 8] = 7; /* bit depth 7 */
    fix_crc(bad, ihdr);
    expect_format_error_memory(bad, size, "invalid bit depth, valid CRC");

    memcpy(bad, png, size);
    put_be32(bad + ihdr + 8, 0x7FFFFFFF); /* width far beyond the data */
    fix_crc(bad, ihdr);
    expect_format_error_memory(bad, size, "absurd width, valid CRC");

    /* Under the pixel limit (see pixel_limit_checked_from_the_header for
     * sizes beyond it), but 400 MB of pixels from a file that cannot hold
     * them: a format error, found before anything is allocated for it (not
     * an out-of-memory error). */
    memcpy(bad, png, size);
    put_be32(bad + ihdr + 8, 10000);
    put_be32(bad + ihdr + 12, 10000);
    fix_crc(bad, ihdr);
    expect_format_error_memory(bad, size, "huge claimed size, valid CRC");

    memcpy(bad, png, size);
    memcpy(bad + idat + 4, "IDAX", 4); /* no IDAT left: an unknown critical chunk */
    fix_crc(bad, idat);
    expect_format_error_memory(bad, size, "IDAT renamed to an unknown critical chunk");

    free(bad);
    free(png);
}

Test(fileio, empty_and_garbage_fail_cleanly, .timeout = 30)
{
    char p[512];
    spit(tpath(p, "empty.png"), "", 0);
    expect_format_error_file(p, "zero-byte file");
    cr_assert(strstr(vkfx_error_message(), "empty file"), "%s", vkfx_error_message());
    expect_format_error_memory("", 0, "zero-byte buffer");

    unsigned char buf[4096];
    for (int seed = 0; seed < 64; seed++) {
        size_t n = 1 + rnd() % sizeof(buf);
        for (size_t i = 0; i < n; i++)
            buf[i] = (unsigned char)rnd();
        expect_format_error_memory(buf, n, "random bytes");
        /* Garbage behind a real PNG signature goes to libpng and fails there. */
        if (n >= 8) {
            memcpy(buf, "\x89PNG\r\n\x1a\n", 8);
            expect_format_error_memory(buf, n, "PNG signature then random bytes");
        }
    }
    const char text[] = "just some text, not an image\n";
    spit(tpath(p, "notes.jpg"), text, sizeof(text) - 1);
    expect_format_error_file(p, "text file");
    cr_assert(strstr(vkfx_error_message(), "notes.jpg: not a format vkfx reads (PNG, JPEG, "),
              "%s", vkfx_error_message());
}

static vkfx_pixels smooth_rgb(uint32_t w, uint32_t h, uint32_t c)
{
    vkfx_pixels px = make_px(w, h, c, VKFX_SAMPLE_U8);
    unsigned char *d = px.data;
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++)
            for (uint32_t k = 0; k < c; k++)
                d[(y * w + x) * c + k] =
                    (unsigned char)(40 + 170.0 * (0.5 + 0.5 * sin(0.07 * x + 0.05 * y + 2.0 * k)));
    return px;
}

static unsigned char *saved_bytes(vkfx_file_format fmt, const vkfx_pixels *px, size_t *size)
{
    char p[512];
    save_ok(tpath(p, "enc.bin"), fmt, px);
    unsigned char *data = slurp(p, size);
    unlink(p);
    return data;
}

Test(fileio, jpeg_truncated_header_fails_scan_is_noted, .timeout = 30)
{
    vkfx_pixels px = smooth_rgb(96, 64, 3);
    size_t size;
    unsigned char *jpg = saved_bytes(VKFX_FILE_JPEG, &px, &size);
    vkfx_pixels_free(&px);
    cr_assert_gt(size, 1000);
    /* Cut in its header, a file has no image; cut in its scan, libjpeg fills the rest with
     * gray and warns, which vkfx passes on as a note. */
    vkfx_pixels whole;
    cr_assert_eq(vkfx_file_load_memory(jpg, size, "whole.jpg", &whole), 0, "%s",
                 vkfx_error_message());
    cr_assert_null(vkfx_file_note(), "an intact JPEG got a note: %s", vkfx_file_note());
    const size_t cuts[] = {2, 3, 20, 100, 300, size / 2, size - 100, size - 10, size - 2};
    for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
        char what[64];
        snprintf(what, sizeof(what), "JPEG cut to %zu of %zu bytes", cuts[i], size);
        if (cuts[i] <= 300) {
            expect_format_error_memory(jpg, cuts[i], what);
            continue;
        }
        vkfx_pixels cut;
        cr_assert_eq(vkfx_file_load_memory(jpg, cuts[i], "cut.jpg", &cut), 0, "%s: %s", what,
                     vkfx_error_message());
        const char *note = vkfx_file_note();
        cr_assert(note && strstr(note, "cut.jpg: damaged JPEG") && strstr(note, "Premature end"),
                  "%s: note %s", what, note ? note : "(none)");
        /* the rows before the cut are the whole file's */
        cr_assert_eq(memcmp(cut.data, whole.data, 96 * 3 * 8), 0, "%s: first rows differ", what);
        vkfx_pixels_free(&cut);
    }
    vkfx_pixels_free(&whole);
    /* Padding after EOI is tolerated. */
    unsigned char *padded = calloc(size + 16, 1);
    memcpy(padded, jpg, size);
    vkfx_pixels back;
    cr_assert_eq(vkfx_file_load_memory(padded, size + 16, "padded.jpg", &back), 0, "%s",
                 vkfx_error_message());
    vkfx_pixels_free(&back);
    free(padded);
    free(jpg);
}

/* stb reads zeros past the end of TGA and HDR data (and read BMP's); the loader must
 * notice instead of inventing the missing pixels. */
Test(fileio, stb_formats_truncated_fail_cleanly, .timeout = 30)
{
    const vkfx_file_format fmts[] = {VKFX_FILE_BMP, VKFX_FILE_TGA, VKFX_FILE_HDR};
    for (size_t f = 0; f < 3; f++) {
        vkfx_pixels px;
        if (fmts[f] == VKFX_FILE_HDR) {
            px = make_px(21, 10, 3, VKFX_SAMPLE_F32);
            float *v = px.data;
            for (size_t i = 0; i < 21 * 10 * 3; i++)
                v[i] = (float)(rnd() % 10000) / 100.0f;
        } else {
            px = make_px(21, 10, 3, VKFX_SAMPLE_U8);
            fill_random(&px);
        }
        size_t size;
        unsigned char *data = saved_bytes(fmts[f], &px, &size);
        vkfx_pixels_free(&px);
        /* A BMP's last byte is its last row's padding (21 pixels of 3 bytes in 64): one
         * pixel byte less is the first cut that loses a pixel. */
        const size_t last = fmts[f] == VKFX_FILE_BMP ? size - 2 : size - 1;
        const size_t cuts[] = {5, 30, size / 2, size - 7, last};
        for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
            char what[64];
            snprintf(what, sizeof(what), "%s cut to %zu of %zu bytes",
                     vkfx_file_format_name(fmts[f]), cuts[i], size);
            expect_format_error_memory(data, cuts[i], what);
        }
        vkfx_pixels back;
        cr_assert_eq(vkfx_file_load_memory(data, size, "whole", &back), 0, "%s: %s",
                     vkfx_file_format_name(fmts[f]), vkfx_error_message());
        vkfx_pixels_free(&back);
        free(data);
    }
}

/* stb_image 2.27 spins forever on an RLE run of length 0. */
Test(fileio, hdr_zero_length_run_fails_cleanly, .timeout = 30)
{
    vkfx_pixels px = random_for(VKFX_FILE_HDR, 40, 3, 3);
    size_t size;
    unsigned char *hdr = saved_bytes(VKFX_FILE_HDR, &px, &size);
    vkfx_pixels_free(&px);
    /* The first scanline follows the blank line and the size line. */
    size_t scan = 1;
    while (scan < size && !(hdr[scan - 1] == '\n' && hdr[scan] == '\n'))
        scan++;
    while (++scan < size && hdr[scan] != '\n')
        ;
    scan++;
    cr_assert_lt(scan + 4, size);
    cr_assert(hdr[scan] == 2 && hdr[scan + 1] == 2, "not an RLE scanline");
    hdr[scan + 4] = 0;
    expect_format_error_memory(hdr, size, "HDR with a zero-length run");
    free(hdr);
}

Test(fileio, missing_file_and_directory_are_io_errors)
{
    char p[512];
    vkfx_pixels px = {.data = (void *)1};
    cr_assert_eq(vkfx_file_load(tpath(p, "nope.png"), &px), VKFX_E_IO);
    cr_assert_null(px.data);
    char want[600];
    snprintf(want, sizeof(want), "%s: No such file or directory", p);
    cr_assert_str_eq(vkfx_error_message(), want);

    cr_assert_eq(vkfx_file_load(tc_tmpdir, &px), VKFX_E_IO, "%s", vkfx_error_message());
    cr_assert(strstr(vkfx_error_message(), tc_tmpdir));
    cr_assert_null(px.data);
}

/* ------------------------------------------------------------------------ */
/* Saving */

Test(fileio, save_into_missing_directory)
{
    char p[512];
    vkfx_pixels px = make_px(4, 4, 3, VKFX_SAMPLE_U8);
    fill_random(&px);
    int r = vkfx_file_save(tpath(p, "missing/out.png"), VKFX_FILE_PNG, &px, NULL);
    cr_assert_eq(r, VKFX_E_IO);
    char want[600];
    snprintf(want, sizeof(want), "%s: output directory does not exist", p);
    cr_assert_str_eq(vkfx_error_message(), want);
    char names[1024];
    cr_assert_eq(list_dir(tc_tmpdir, names, sizeof(names)), 0, "left behind: %s", names);
    vkfx_pixels_free(&px);
}

/* A write that fails half way (here: the file size limit) must leave the
 * directory as it was, an existing target included. */
Test(fileio, failed_save_leaves_nothing_behind)
{
    char p[512], names[1024];
    const char old[] = "old content";
    spit(tpath(p, "keep.png"), old, sizeof(old));
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit lim = {4096, 4096};
    cr_assert_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);

    const vkfx_file_format fmts[] = {VKFX_FILE_PNG, VKFX_FILE_JPEG, VKFX_FILE_BMP, VKFX_FILE_TGA,
                                     VKFX_FILE_HDR};
    for (size_t f = 0; f < 5; f++) {
        vkfx_pixels px = random_for(fmts[f], 200, 100, 3);
        const char *names_f[] = {"keep.png", "new.jpg", "new.bmp", "new.tga", "new.hdr"};
        vkfx_error_clear();
        int r = vkfx_file_save(tpath(p, names_f[f]), fmts[f], &px, NULL);
        cr_assert_eq(r, VKFX_E_IO, "%s: got %d (%s)", vkfx_file_format_name(fmts[f]), r,
                     vkfx_error_message());
        cr_assert(strstr(vkfx_error_message(), p), "%s", vkfx_error_message());
        cr_assert_eq(list_dir(tc_tmpdir, names, sizeof(names)), 1, "%s left: %s",
                     vkfx_file_format_name(fmts[f]), names);
        cr_assert_str_eq(names, "keep.png ");
        vkfx_pixels_free(&px);
    }
    lim.rlim_cur = lim.rlim_max = RLIM_INFINITY;
    setrlimit(RLIMIT_FSIZE, &lim);
    size_t size;
    unsigned char *kept = slurp(tpath(p, "keep.png"), &size);
    cr_assert(size == sizeof(old) && !memcmp(kept, old, size), "the old file was touched");
    free(kept);
}

Test(fileio, save_onto_a_directory_fails_cleanly)
{
    char p[512], names[1024];
    cr_assert_eq(mkdir(tpath(p, "sub.png"), 0777), 0);
    vkfx_pixels px = random_for(VKFX_FILE_PNG, 3, 3, 1);
    cr_assert_eq(vkfx_file_save(p, VKFX_FILE_PNG, &px, NULL), VKFX_E_USAGE);
    cr_assert_eq(list_dir(tc_tmpdir, names, sizeof(names)), 1, "left: %s", names);
    cr_assert_eq(list_dir(p, names, sizeof(names)), 0, "left in it: %s", names);
    vkfx_pixels_free(&px);
}

Test(fileio, save_replaces_atomically)
{
    char p[512], link_path[512], names[1024];
    vkfx_pixels a = random_for(VKFX_FILE_PNG, 8, 8, 3), b = random_for(VKFX_FILE_PNG, 5, 7, 4), c;
    save_ok(tpath(p, "out.png"), VKFX_FILE_PNG, &a);
    struct stat st1, st2;
    cr_assert_eq(stat(p, &st1), 0);
    /* A second name for the old file: an in-place rewrite would change what
     * it shows, a rename over the target does not. */
    cr_assert_eq(link(p, tpath(link_path, "old-link.png")), 0);

    save_ok(p, VKFX_FILE_PNG, &b);
    cr_assert_eq(stat(p, &st2), 0);
    cr_assert_neq(st1.st_ino, st2.st_ino, "target rewritten in place");
    load_ok(p, &c);
    assert_same(&b, &c, "replaced file");
    vkfx_pixels_free(&c);
    load_ok(link_path, &c);
    assert_same(&a, &c, "old file behind the second name");
    vkfx_pixels_free(&c);
    cr_assert_eq(list_dir(tc_tmpdir, names, sizeof(names)), 2, "left: %s", names);
    vkfx_pixels_free(&a);
    vkfx_pixels_free(&b);
}

/* A new file's mode follows the umask (a replaced one keeps its own:
 * tests/test_safefile.c). */
Test(fileio, saved_file_mode_follows_umask)
{
    char p[512];
    vkfx_pixels px = random_for(VKFX_FILE_TGA, 2, 2, 3);
    const mode_t masks[] = {022, 027, 0};
    for (int i = 0; i < 3; i++) {
        umask(masks[i]);
        unlink(tpath(p, "m.tga"));
        save_ok(p, VKFX_FILE_TGA, &px);
        struct stat st;
        cr_assert_eq(stat(p, &st), 0);
        cr_assert_eq(st.st_mode & 0777, 0666 & ~masks[i], "umask %03o gave mode %03o",
                     (unsigned)masks[i], (unsigned)(st.st_mode & 0777));
    }
    vkfx_pixels_free(&px);
}

Test(fileio, save_rejects_a_layout_the_format_does_not_store)
{
    char p[512], names[1024];
    struct {
        vkfx_file_format fmt;
        uint32_t channels;
        vkfx_sample sample;
    } bad[] = {
        {VKFX_FILE_PNG, 3, VKFX_SAMPLE_F32}, {VKFX_FILE_JPEG, 4, VKFX_SAMPLE_U8},
        {VKFX_FILE_JPEG, 2, VKFX_SAMPLE_U8}, {VKFX_FILE_JPEG, 3, VKFX_SAMPLE_U16},
        {VKFX_FILE_BMP, 3, VKFX_SAMPLE_U16}, {VKFX_FILE_TGA, 1, VKFX_SAMPLE_F32},
        {VKFX_FILE_HDR, 3, VKFX_SAMPLE_U8},  {VKFX_FILE_HDR, 4, VKFX_SAMPLE_F32},
        {VKFX_FILE_HDR, 2, VKFX_SAMPLE_F32}, {VKFX_FILE_GIF, 3, VKFX_SAMPLE_U8},
        {VKFX_FILE_PSD, 3, VKFX_SAMPLE_U8},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        vkfx_pixels px = make_px(4, 3, bad[i].channels, bad[i].sample);
        fill_random(&px);
        vkfx_error_clear();
        int r = vkfx_file_save(tpath(p, "x.out"), bad[i].fmt, &px, NULL);
        cr_assert_eq(r, VKFX_E_USAGE, "%s with %u channels sample %d: got %d",
                     vkfx_file_format_name(bad[i].fmt), bad[i].channels, bad[i].sample, r);
        cr_assert(strstr(vkfx_error_message(), p), "%s", vkfx_error_message());
        vkfx_pixels_free(&px);
    }
    vkfx_pixels px = random_for(VKFX_FILE_JPEG, 4, 4, 3);
    vkfx_save_opts opts = {.jpeg_quality = 101};
    cr_assert_eq(vkfx_file_save(tpath(p, "q.jpg"), VKFX_FILE_JPEG, &px, &opts), VKFX_E_USAGE);
    vkfx_pixels_free(&px);
    cr_assert_eq(list_dir(tc_tmpdir, names, sizeof(names)), 0, "left: %s", names);
}

/* ------------------------------------------------------------------------ */
/* The stb formats */

static void check_loaded_layout(const vkfx_pixels *back, uint32_t w, uint32_t h, uint32_t c,
                                vkfx_sample s, const char *what)
{
    cr_assert(back->width == w && back->height == h, "%s: %ux%u, want %ux%u", what, back->width,
              back->height, w, h);
    cr_assert(back->channels == c && back->sample == s, "%s: %u channels sample %d, want %u %d",
              what, back->channels, back->sample, c, s);
    cr_assert(back->straight, "%s: not straight", what);
    cr_assert_eq(back->linear, s == VKFX_SAMPLE_F32, "%s: linear flag", what);
}

Test(fileio, bmp_and_tga_roundtrip_exact)
{
    char p[512];
    for (int f = 0; f < 2; f++) {
        vkfx_file_format fmt = f ? VKFX_FILE_TGA : VKFX_FILE_BMP;
        for (uint32_t c = 1; c <= 4; c++) {
            for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
                uint32_t w = shapes[i][0], h = shapes[i][1];
                /* The layout is what the file reads back as: gray BMP is RGB, gray+alpha
                 * RGBA (stb's writer has no gray); TGA keeps every layout. */
                vkfx_pixels a = random_for(fmt, w, h, c), b;
                uint32_t n = a.channels;
                char what[64];
                snprintf(what, sizeof(what), "%s %ux%u from %u channels",
                         vkfx_file_format_name(fmt), w, h, c);
                cr_assert_eq(n, fmt == VKFX_FILE_TGA ? c : c == 2 || c == 4 ? 4 : 3, "%s", what);
                save_ok(tpath(p, f ? "rt.tga" : "rt.bmp"), fmt, &a);
                load_ok(p, &b);
                check_loaded_layout(&b, w, h, n, VKFX_SAMPLE_U8, what);
                cr_assert_eq(memcmp(a.data, b.data, vkfx_pixels_bytes(&a)), 0, "%s: pixels differ",
                             what);
                vkfx_pixels_free(&a);
                vkfx_pixels_free(&b);
            }
        }
    }
}

Test(fileio, hdr_roundtrip_within_rgbe_precision)
{
    char p[512];
    for (uint32_t c = 1; c <= 4; c++) {
        for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
            uint32_t w = shapes[i][0], h = shapes[i][1];
            vkfx_pixels a = random_for(VKFX_FILE_HDR, w, h, c), b;
            char what[64];
            snprintf(what, sizeof(what), "HDR %ux%u from %u channels", w, h, c);
            /* Spread over many exponents: RGBE precision is relative. */
            float *v = a.data;
            for (size_t k = 0; k < (size_t)w * h * a.channels; k++)
                v[k] = ldexpf((float)(rnd() % 1000 + 1) / 1000.0f, (int)(rnd() % 40) - 20);
            save_ok(tpath(p, "rt.hdr"), VKFX_FILE_HDR, &a);
            load_ok(p, &b);
            /* Radiance files are RGB: a gray image comes back as 3 equal
             * channels. */
            check_loaded_layout(&b, w, h, 3, VKFX_SAMPLE_F32, what);
            const float *d = b.data;
            for (size_t k = 0; k < (size_t)w * h; k++) {
                float maxc = 0;
                for (uint32_t j = 0; j < a.channels; j++)
                    maxc = fmaxf(maxc, v[k * a.channels + j]);
                for (uint32_t j = 0; j < 3; j++) {
                    float want = v[k * a.channels + (a.channels == 1 ? 0 : j)];
                    cr_assert(fabsf(d[k * 3 + j] - want) <= maxc / 128.0f,
                              "%s: pixel %zu channel %u: %g, want %g", what, k, j, d[k * 3 + j],
                              want);
                }
            }
            vkfx_pixels_free(&a);
            vkfx_pixels_free(&b);
        }
    }
}

Test(fileio, hdr_clamps_what_rgbe_cannot_store)
{
    char p[512];
    vkfx_pixels a = make_px(4, 1, 3, VKFX_SAMPLE_F32), b;
    const float in[12] = {-1.0f,    0.5f, 2.0f, NAN,  1.0f, 1.0f,
                          INFINITY, 0.0f, 0.0f, 3.0f, 3.0f, 3.0f};
    memcpy(a.data, in, sizeof(in));
    save_ok(tpath(p, "c.hdr"), VKFX_FILE_HDR, &a);
    cr_assert(!memcmp(a.data, in, sizeof(in)), "save modified its input");
    load_ok(p, &b);
    const float *d = b.data;
    cr_assert(d[0] == 0.0f && fabsf(d[1] - 0.5f) < 0.02f && fabsf(d[2] - 2.0f) < 0.02f);
    cr_assert(d[3] == 0.0f && fabsf(d[4] - 1.0f) < 0.01f);
    cr_assert(d[6] > 1e37f && isfinite(d[6]));
    cr_assert(fabsf(d[9] - 3.0f) < 0.03f);
    vkfx_pixels_free(&a);
    vkfx_pixels_free(&b);
}

Test(fileio, jpeg_roundtrip_close)
{
    char p[512];
    for (uint32_t c = 1; c <= 4; c++) {
        uint32_t ch;
        vkfx_sample s;
        vkfx_file_output_layout(VKFX_FILE_JPEG, c, VKFX_SAMPLE_U8, &ch, &s);
        vkfx_pixels a = smooth_rgb(67, 45, ch), b;
        save_ok(tpath(p, "rt.jpg"), VKFX_FILE_JPEG, &a);
        load_ok(p, &b);
        /* Gray is stored as one component and comes back gray. */
        check_loaded_layout(&b, 67, 45, ch, VKFX_SAMPLE_U8, "JPEG");
        const unsigned char *x = a.data, *y = b.data;
        double err = 0;
        for (size_t k = 0; k < 67 * 45 * ch; k++)
            err += fabs((double)y[k] - x[k]);
        err /= 67 * 45 * ch;
        cr_assert_lt(err, 2.5, "%u channels: mean abs error %.2f", c, err);
        vkfx_pixels_free(&a);
        vkfx_pixels_free(&b);
    }
    /* Quality matters: a low setting is smaller and less exact. */
    vkfx_pixels a = smooth_rgb(67, 45, 3);
    size_t hi_size, lo_size;
    vkfx_save_opts lo = {.jpeg_quality = 5};
    cr_assert_eq(vkfx_file_save(tpath(p, "lo.jpg"), VKFX_FILE_JPEG, &a, &lo), 0);
    free(slurp(p, &lo_size));
    free(saved_bytes(VKFX_FILE_JPEG, &a, &hi_size));
    cr_assert_lt(lo_size, hi_size);
    vkfx_pixels_free(&a);
}

/* Frames of a GIF with a 4-colour palette, LZW-coded the simple way: a clear
 * code before every index keeps every code 3 bits wide. */
static size_t gif_frame(unsigned char *out, uint32_t w, uint32_t h, const unsigned char *idx)
{
    size_t n = 0;
    const unsigned char desc[] = {0x2C, 0, 0, 0, 0, (unsigned char)w, 0, (unsigned char)h, 0, 0, 2};
    memcpy(out, desc, sizeof(desc));
    n += sizeof(desc);
    unsigned char data[255] = {0};
    uint32_t bit = 0;
    for (uint32_t i = 0; i <= w * h; i++) {
        unsigned codes[2] = {4, i < w * h ? idx[i] : 5}; /* clear, index | end */
        for (int k = 0; k < 2; k++, bit += 3)
            for (int b = 0; b < 3; b++)
                if (codes[k] >> b & 1)
                    data[(bit + (uint32_t)b) / 8] |=
                        (unsigned char)(1u << ((bit + (uint32_t)b) % 8));
    }
    uint32_t len = (bit + 7) / 8;
    out[n++] = (unsigned char)len;
    memcpy(out + n, data, len);
    n += len;
    out[n++] = 0;
    return n;
}

/* A GIF of a w x h frame whose LZW data is: clear, index 0, then codes each
 * naming the entry it creates (each string one pixel longer than the last)
 * up to the largest 12-bit code, that code again until stb's table is full,
 * and again from a clear, cycles times. One byte and a half of it stands for
 * up to 4096 pixels, all past the frame's end; codes == 1 stops after the
 * first index instead. */
static size_t gif_lzw(unsigned char *out, uint32_t w, uint32_t h, int cycles, int codes)
{
    const unsigned char head[] = {'G', 'I', 'F', '8', '9', 'a', (unsigned char)w, 0,
                                  (unsigned char)h, 0, 0x80, 0, 0, 0, 0, 0, 255, 255, 255,
                                  0x2C, 0, 0, 0, 0, (unsigned char)w, 0, (unsigned char)h, 0, 0, 2};
    size_t n = sizeof(head), block = n; /* where the next sub-block starts */
    memcpy(out, head, n);
    uint32_t bits = 0, valid = 0, size = 3;
#define EMIT(code)                                                                                 \
    do {                                                                                           \
        bits |= (uint32_t)(code) << valid;                                                         \
        for (valid += size; valid >= 8; valid -= 8, bits >>= 8) {                                  \
            if (n == block) {                                                                      \
                out[n++] = 255;                                                                    \
                block = n + 255;                                                                   \
            }                                                                                      \
            out[n++] = (unsigned char)bits;                                                        \
        }                                                                                          \
    } while (0)
    for (int c = 0; c < cycles; c++) {
        EMIT(4); /* clear */
        size = 3;
        EMIT(0);
        for (uint32_t avail = 6; avail < 8192 && (int)avail < 6 + codes - 1; avail++) {
            EMIT(avail < 4095 ? avail : 4095);
            if ((avail + 1) % (1u << size) == 0 && avail + 1 <= 0xfff)
                size++;
        }
    }
    EMIT(5); /* end of information */
    EMIT(0); /* flushes the last bits */
#undef EMIT
    if (n > block - 255) /* the last sub-block's length, then the terminator and trailer */
        out[block - 256] = (unsigned char)(n - (block - 255));
    out[n++] = 0;
    out[n++] = 0x3B;
    return n;
}

/* issue 22: a 1x1 GIF of 12 KB of LZW codes was 30 million steps of work in stb_image,
 * which decoded every code past the frame's last pixel. giflib stops at the frame's last
 * pixel: such files decode at once to their frame, and a frame the data does not fill is
 * refused. */
Test(fileio, gif_data_must_match_its_frame, .timeout = 20)
{
    static unsigned char gif[1 << 21];
    vkfx_pixels px;
    size_t n = gif_lzw(gif, 1, 1, 1, 8192);
    cr_assert_eq(vkfx_file_load_memory(gif, n, "long.gif", &px), 0, "%s", vkfx_error_message());
    check_loaded_layout(&px, 1, 1, 3, VKFX_SAMPLE_U8, "GIF");
    vkfx_pixels_free(&px);
    n = gif_lzw(gif, 200, 200, 100, 8192);
    cr_assert_gt(n, 1000000);
    cr_assert_eq(vkfx_file_load_memory(gif, n, "longer.gif", &px), 0, "%s", vkfx_error_message());
    vkfx_pixels_free(&px);
    n = gif_lzw(gif, 2, 2, 1, 1);
    expect_format_error_memory(gif, n, "a 2x2 GIF with one pixel of data");
    cr_assert(strstr(vkfx_error_message(), "GIF"), "%s", vkfx_error_message());
    /* The same codes decode when the frame is as large as they are. */
    n = gif_lzw(gif, 1, 1, 1, 1);
    cr_assert_eq(vkfx_file_load_memory(gif, n, "one.gif", &px), 0, "%s", vkfx_error_message());
    vkfx_pixels_free(&px);
    n = gif_lzw(gif, 5, 3, 1, 5); /* 1 + 2 + 3 + 4 + 5 pixels */
    cr_assert_eq(vkfx_file_load_memory(gif, n, "fifteen.gif", &px), 0, "%s", vkfx_error_message());
    check_loaded_layout(&px, 5, 3, 3, VKFX_SAMPLE_U8, "GIF");
    vkfx_pixels_free(&px);
}

Test(fileio, gif_loads_first_frame)
{
    unsigned char gif[512];
    size_t n = 0;
    const unsigned char head[] = {'G', 'I', 'F', '8', '9', 'a', 3, 0, 2, 0, 0x81, 0, 0};
    memcpy(gif, head, sizeof(head));
    n += sizeof(head);
    for (int i = 0; i < 4; i++) {
        gif[n++] = palette[i].red;
        gif[n++] = palette[i].green;
        gif[n++] = palette[i].blue;
    }
    const unsigned char first[] = {0, 1, 2, 3, 3, 0}, second[] = {3, 3, 3, 3, 3, 3};
    n += gif_frame(gif + n, 3, 2, first);
    size_t one = n;
    n += gif_frame(gif + n, 3, 2, second);
    gif[n++] = 0x3B;

    /* The first frame alone, ended there: a still GIF, no note. */
    unsigned char still[sizeof(gif)];
    memcpy(still, gif, one);
    still[one] = 0x3B;
    vkfx_pixels px1;
    cr_assert_eq(vkfx_file_load_memory(still, one + 1, "one.gif", &px1), 0, "%s",
                 vkfx_error_message());
    cr_assert_null(vkfx_file_note(), "a still GIF got a note: %s", vkfx_file_note());
    vkfx_pixels_free(&px1);

    vkfx_pixels px;
    cr_assert_eq(vkfx_file_load_memory(gif, n, "two.gif", &px), 0, "%s", vkfx_error_message());
    check_loaded_layout(&px, 3, 2, 3, VKFX_SAMPLE_U8, "GIF");
    /* The second frame is left unread, and the caller is told so. */
    cr_assert(vkfx_file_note() && strstr(vkfx_file_note(), "two.gif: an animated GIF") &&
                  strstr(vkfx_file_note(), "first frame"),
              "note: %s", vkfx_file_note() ? vkfx_file_note() : "(none)");
    const unsigned char *d = px.data;
    for (int i = 0; i < 6; i++) {
        const png_color *c = &palette[first[i]];
        cr_assert(d[3 * i] == c->red && d[3 * i + 1] == c->green && d[3 * i + 2] == c->blue,
                  "pixel %d: %u %u %u", i, d[3 * i], d[3 * i + 1], d[3 * i + 2]);
    }
    vkfx_pixels_free(&px);
}

/* An uncompressed RGB PSD of channels 3 or 4: header, three empty sections,
 * planar big-endian channel data (samples holds channels per pixel). */
static size_t make_psd(unsigned char *out, uint32_t w, uint32_t h, int depth, uint32_t channels,
                       const uint16_t *samples)
{
    size_t n = 0;
    memcpy(out, "8BPS\0\1\0\0\0\0\0\0\0", 13);
    n += 13;
    out[n++] = (unsigned char)channels;
    put_be32(out + n, h);
    put_be32(out + n + 4, w);
    n += 8;
    out[n++] = 0;
    out[n++] = (unsigned char)depth;
    out[n++] = 0;
    out[n++] = 3; /* RGB */
    memset(out + n, 0, 4 * 3 + 2);
    n += 4 * 3 + 2; /* mode data, resources, layers: empty; compression 0 */
    for (uint32_t c = 0; c < channels; c++) {
        for (uint32_t i = 0; i < w * h; i++) {
            uint16_t v = samples[i * channels + c];
            if (depth == 16)
                out[n++] = (unsigned char)(v >> 8);
            out[n++] = (unsigned char)v;
        }
    }
    return n;
}

Test(fileio, psd_8_and_16_bit)
{
    unsigned char psd[256];
    uint16_t rgb[2 * 3 * 3];
    for (int i = 0; i < 18; i++)
        rgb[i] = (uint16_t)(rnd() | 0x0101); /* nonzero in both bytes */
    size_t n = make_psd(psd, 2, 3, 16, 3, rgb);
    vkfx_pixels px;
    cr_assert_eq(vkfx_file_load_memory(psd, n, "x.psd", &px), 0, "%s", vkfx_error_message());
    check_loaded_layout(&px, 2, 3, 3, VKFX_SAMPLE_U16, "16-bit PSD");
    const uint16_t *v = px.data;
    for (int i = 0; i < 18; i++)
        cr_assert_eq(v[i], rgb[i], "sample %d", i);
    vkfx_pixels_free(&px);

    for (int i = 0; i < 18; i++)
        rgb[i] &= 0xFF;
    n = make_psd(psd, 2, 3, 8, 3, rgb);
    cr_assert_eq(vkfx_file_load_memory(psd, n, "x.psd", &px), 0, "%s", vkfx_error_message());
    check_loaded_layout(&px, 2, 3, 3, VKFX_SAMPLE_U8, "8-bit PSD");
    const unsigned char *d = px.data;
    for (int i = 0; i < 18; i++)
        cr_assert_eq(d[i], rgb[i], "sample %d", i);
    vkfx_pixels_free(&px);
    expect_format_error_memory(psd, n - 3, "truncated PSD");
}

/* Photoshop mattes a transparent composite against white: the colour comes back out of
 * it. A composite with colour darker than the matte allows was stored unmatted (as
 * ImageMagick and GIMP write it) and is read as it is. */
Test(fileio, psd_with_alpha_unmatted)
{
    unsigned char psd[256];
    uint16_t rgba[2 * 3 * 4];
    for (int depth = 8; depth <= 16; depth += 8) {
        const double max = depth == 16 ? 65535.0 : 255.0;
        const double want[6][4] = {{0.2, 0.4, 0.6, 0.5}, {1, 0, 0.5, 1},      {0.3, 0.3, 0.3, 0},
                                   {0, 1, 1, 0.25},      {0.9, 0.1, 0, 0.75}, {0, 0, 0, 0.5}};
        for (int matted = 1; matted >= 0; matted--) {
            for (int i = 0; i < 6; i++) {
                double a = want[i][3], m = matted && a > 0 ? a : 1;
                for (int c = 0; c < 3; c++)
                    rgba[i * 4 + c] = (uint16_t)((want[i][c] * m + 1 - m) * max + 0.5);
                rgba[i * 4 + 3] = (uint16_t)(a * max + 0.5);
            }
            size_t n = make_psd(psd, 2, 3, depth, 4, rgba);
            vkfx_pixels px;
            cr_assert_eq(vkfx_file_load_memory(psd, n, "a.psd", &px), 0, "%s",
                         vkfx_error_message());
            check_loaded_layout(&px, 2, 3, 4, depth == 16 ? VKFX_SAMPLE_U16 : VKFX_SAMPLE_U8,
                                "PSD");
            for (int i = 0; i < 6; i++)
                for (int c = 0; c < 4; c++) {
                    double got = depth == 16 ? ((uint16_t *)px.data)[i * 4 + c]
                                             : ((unsigned char *)px.data)[i * 4 + c];
                    cr_assert_leq(fabs(got - want[i][c] * max), matted ? 2.5 : 0.5,
                                  "%d-bit %s pixel %d channel %d: %g, want %g", depth,
                                  matted ? "matted" : "unmatted", i, c, got, want[i][c] * max);
                }
            vkfx_pixels_free(&px);
        }
    }
}

/* ------------------------------------------------------------------------ */
/* Tables */

Test(fileio, output_layout_table)
{
    const vkfx_sample samples[] = {VKFX_SAMPLE_U8, VKFX_SAMPLE_U16, VKFX_SAMPLE_F32};
    const vkfx_file_format fmts[] = {VKFX_FILE_PNG, VKFX_FILE_JPEG, VKFX_FILE_BMP, VKFX_FILE_TGA,
                                     VKFX_FILE_GIF, VKFX_FILE_PSD,  VKFX_FILE_HDR, VKFX_FILE_EXR};
    for (size_t f = 0; f < sizeof(fmts) / sizeof(fmts[0]); f++) {
        for (uint32_t c = 1; c <= 4; c++) {
            for (int s = 0; s < 3; s++) {
                uint32_t want_c = c, got_c = 99;
                vkfx_sample want_s = VKFX_SAMPLE_U8, got_s = (vkfx_sample)99;
                if (fmts[f] == VKFX_FILE_PNG || fmts[f] == VKFX_FILE_GIF ||
                    fmts[f] == VKFX_FILE_PSD) {
                    want_s = samples[s] == VKFX_SAMPLE_U8 ? VKFX_SAMPLE_U8 : VKFX_SAMPLE_U16;
                } else if (fmts[f] == VKFX_FILE_JPEG) {
                    want_c = c <= 2 ? 1 : 3;
                } else if (fmts[f] == VKFX_FILE_BMP) {
                    want_c = c == 2 || c == 4 ? 4 : 3;
                } else if (fmts[f] == VKFX_FILE_HDR) {
                    want_c = 3;
                    want_s = VKFX_SAMPLE_F32;
                } else if (fmts[f] == VKFX_FILE_EXR) {
                    want_s = VKFX_SAMPLE_F32;
                }
                vkfx_file_output_layout(fmts[f], c, samples[s], &got_c, &got_s);
                cr_assert(got_c == want_c && got_s == want_s,
                          "%s from %u channels sample %d: got %u/%d, want %u/%d",
                          vkfx_file_format_name(fmts[f]), c, s, got_c, got_s, want_c, want_s);
            }
        }
    }
}

/* The formats written, in the codec table's order. */
#define WRITABLE "png, jpg, tif, webp, exr, bmp, hdr, tga"

Test(fileio, format_for_output)
{
    struct {
        const char *path;
        vkfx_file_format fmt;
    } ok[] = {
        {"a.png", VKFX_FILE_PNG},      {"dir.x/B.PNG", VKFX_FILE_PNG},
        {"c.jpg", VKFX_FILE_JPEG},     {"c.JPEG", VKFX_FILE_JPEG},
        {"d.Bmp", VKFX_FILE_BMP},      {"/abs/e.tga", VKFX_FILE_TGA},
        {"f.hdr", VKFX_FILE_HDR},      {"name.with.dots.jpeg", VKFX_FILE_JPEG},
        {"render.EXR", VKFX_FILE_EXR},
    };
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
        vkfx_file_format fmt = VKFX_FILE_GIF;
        cr_assert_eq(vkfx_file_format_for_output(ok[i].path, &fmt), 0, "%s: %s", ok[i].path,
                     vkfx_error_message());
        cr_assert_eq(fmt, ok[i].fmt, "%s", ok[i].path);
    }
    vkfx_file_format fmt;
    cr_assert_eq(vkfx_file_format_for_output("out/anim.gif", &fmt), VKFX_E_USAGE);
    cr_assert_str_eq(
        vkfx_error_message(),
        "out/anim.gif: cannot write GIF; writable formats: " WRITABLE);
    cr_assert_eq(vkfx_file_format_for_output("x.PSD", &fmt), VKFX_E_USAGE);
    cr_assert(strstr(vkfx_error_message(), "cannot write PSD"));
    const char *bad[] = {"noext", "dir.png/noext", "x.jp2", "x.", ".png", "x.png.bak"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        cr_assert_eq(vkfx_file_format_for_output(bad[i], &fmt), VKFX_E_USAGE, "%s", bad[i]);
        cr_assert(strstr(vkfx_error_message(), bad[i]), "%s", vkfx_error_message());
        cr_assert(strstr(vkfx_error_message(), WRITABLE), "%s",
                  vkfx_error_message());
    }
    cr_assert_str_eq(vkfx_file_format_name(VKFX_FILE_PNG), "PNG");
    cr_assert_str_eq(vkfx_file_format_name(VKFX_FILE_JPEG), "JPEG");
    cr_assert_str_eq(vkfx_file_format_name(VKFX_FILE_BMP), "BMP");
    cr_assert_str_eq(vkfx_file_format_name(VKFX_FILE_TGA), "TGA");
    cr_assert_str_eq(vkfx_file_format_name(VKFX_FILE_GIF), "GIF");
    cr_assert_str_eq(vkfx_file_format_name(VKFX_FILE_PSD), "PSD");
    cr_assert_str_eq(vkfx_file_format_name(VKFX_FILE_HDR), "HDR");
}

Test(fileio, load_memory_matches_load)
{
    char p[512];
    vkfx_pixels a = random_for(VKFX_FILE_PNG, 9, 7, 4), b, c;
    save_ok(tpath(p, "m.png"), VKFX_FILE_PNG, &a);
    load_ok(p, &b);
    size_t size;
    unsigned char *data = slurp(p, &size);
    cr_assert_eq(vkfx_file_load_memory(data, size, "mem", &c), 0);
    assert_same(&b, &c, "memory vs file");
    free(data);
    vkfx_pixels_free(&a);
    vkfx_pixels_free(&b);
    vkfx_pixels_free(&c);
}

/* ------------------------------------------------------------------------ */
/* The bundled photos (sizes from images/SOURCES.md) */

Test(fileio, bundled_photos)
{
    const struct {
        const char *name;
        uint32_t w, h, c;
        vkfx_sample s;
    } photos[] = {
        {"astronaut.png", 512, 512, 3, VKFX_SAMPLE_U8},
        {"coffee.png", 600, 400, 3, VKFX_SAMPLE_U8},
        {"chelsea.png", 451, 300, 3, VKFX_SAMPLE_U8},
        {"rocket.jpg", 640, 427, 3, VKFX_SAMPLE_U8},
        {"hubble_deep_field.jpg", 1000, 872, 3, VKFX_SAMPLE_U8},
        {"camera.png", 512, 512, 1, VKFX_SAMPLE_U8},
        {"motorcycle_left.png", 741, 500, 3, VKFX_SAMPLE_U8},
        {"motorcycle_disparity16.png", 741, 500, 1, VKFX_SAMPLE_U16},
    };
    char p[512];
    for (size_t i = 0; i < sizeof(photos) / sizeof(photos[0]); i++) {
        vkfx_pixels px;
        snprintf(p, sizeof(p), "%s/%s", VKFX_TEST_IMAGES, photos[i].name);
        load_ok(p, &px);
        check_loaded_layout(&px, photos[i].w, photos[i].h, photos[i].c, photos[i].s,
                            photos[i].name);
        if (photos[i].s == VKFX_SAMPLE_U16) {
            /* Scaled so the largest disparity is 65535, with about 7% unknown
             * (0): a byte-order mistake breaks both. */
            const uint16_t *v = px.data;
            size_t n = (size_t)px.width * px.height, zeros = 0;
            uint16_t max = 0;
            for (size_t k = 0; k < n; k++) {
                zeros += v[k] == 0;
                max = v[k] > max ? v[k] : max;
            }
            cr_assert_eq(max, 65535, "%s: max %u", photos[i].name, max);
            cr_assert(zeros > n * 5 / 100 && zeros < n * 9 / 100, "%s: %zu of %zu zero",
                      photos[i].name, zeros, n);
        }
        vkfx_pixels_free(&px);
    }

    /* Every image in the folder loads, not only the ones listed above. */
    DIR *d = opendir(VKFX_TEST_IMAGES);
    cr_assert(d, "%s: %s", VKFX_TEST_IMAGES, strerror(errno));
    struct dirent *e;
    int loaded = 0;
    while ((e = readdir(d))) {
        const char *dot = strrchr(e->d_name, '.');
        if (e->d_name[0] == '.' || !dot || !strcmp(dot, ".md"))
            continue;
        vkfx_pixels px;
        snprintf(p, sizeof(p), "%s/%s", VKFX_TEST_IMAGES, e->d_name);
        load_ok(p, &px);
        cr_assert(px.width > 0 && px.height > 0);
        vkfx_pixels_free(&px);
        loaded++;
    }
    closedir(d);
    cr_assert_geq(loaded, 8);
}

/* ------------------------------------------------------------------------ */
/* Size limits */

/* A 1x1 PNG whose header is rewritten to claim 100000x100000 (a
 * decompression bomb's shape) is refused from its header, in milliseconds;
 * a lowered limit refuses PNG, JPEG and OpenEXR files of ordinary size. */
Test(fileio, pixel_limit_checked_from_the_header)
{
    cr_assert_eq(tc_tmpdir_make("limit"), 0);
    vkfx_pixels one;
    tc_random_pixels(&one, 1, 1, 1, VKFX_SAMPLE_U8, 1);
    cr_assert_eq(vkfx_file_save(tc_tpath("one.png"), VKFX_FILE_PNG, &one, NULL), VKFX_OK);
    vkfx_pixels_free(&one);
    FILE *f = fopen(tc_tpath("one.png"), "rb");
    cr_assert(f);
    unsigned char buf[4096];
    size_t n = fread(buf, 1, sizeof(buf), f);
    fclose(f);
    cr_assert(n > 33 && memcmp(buf + 12, "IHDR", 4) == 0);
    put_be32(buf + 16, 100000);
    put_be32(buf + 20, 100000);
    fix_crc(buf, 8);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    vkfx_pixels px;
    int ret = vkfx_file_load_memory(buf, n, "bomb.png", &px);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double ms = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
    cr_assert_eq(ret, VKFX_E_LIMIT, "got %d: %s", ret, vkfx_error_message());
    cr_assert(strstr(vkfx_error_message(), "100000x100000 = 10000000000 pixels") &&
                  strstr(vkfx_error_message(), "--max-pixels"),
              "%s", vkfx_error_message());
    cr_assert(ms < 100, "refusing the bomb took %.1f ms", ms);

    vkfx_pixels exr = {.linear = true};
    cr_assert_eq(vkfx_pixels_alloc(&exr, 20, 20, 3, VKFX_SAMPLE_F32), VKFX_OK);
    memset(exr.data, 0, vkfx_pixels_bytes(&exr));
    cr_assert_eq(vkfx_file_save(tc_tpath("e.exr"), VKFX_FILE_EXR, &exr, NULL), VKFX_OK);
    vkfx_pixels_free(&exr);
    vkfx_file_set_max_pixels(100);
    char jpeg[512];
    snprintf(jpeg, sizeof(jpeg), "%s/rocket.jpg", VKFX_TEST_IMAGES);
    char pngpath[512];
    snprintf(pngpath, sizeof(pngpath), "%s/chelsea.png", VKFX_TEST_IMAGES);
    const char *more[] = {tc_tpath("e.exr"), jpeg, pngpath};
    for (int i = 0; i < 3; i++) {
        ret = vkfx_file_load(more[i], &px);
        cr_expect_eq(ret, VKFX_E_LIMIT, "%s: got %d: %s", more[i], ret, vkfx_error_message());
        cr_expect(strstr(vkfx_error_message(), "more than the limit of 100"), "%s",
                  vkfx_error_message());
        if (ret == VKFX_OK)
            vkfx_pixels_free(&px);
    }
    vkfx_file_set_max_pixels(0);
    cr_assert_eq(vkfx_file_max_pixels(), VKFX_DEFAULT_MAX_PIXELS);
    cr_assert_eq(vkfx_file_load(pngpath, &px), VKFX_OK);
    vkfx_pixels_free(&px);
    tc_tmpdir_remove();
}

/* A BMP whose last row lacks only its padding holds every pixel (Pillow reads such files);
 * one byte fewer is a truncated BMP. */
Test(fileio, bmp_without_the_last_rows_padding)
{
    char p[512];
    vkfx_pixels px = random_for(VKFX_FILE_BMP, 3, 2, 3), got;
    save_ok(tpath(p, "pad.bmp"), VKFX_FILE_BMP, &px);
    size_t size;
    unsigned char *bmp = slurp(tpath(p, "pad.bmp"), &size);
    cr_assert_eq(size, 54 + 2 * 12u); /* rows of 9 bytes and 3 of padding */
    cr_assert_eq(vkfx_file_load_memory(bmp, size - 3, "short.bmp", &got), 0, "%s",
                 vkfx_error_message());
    cr_assert(got.width == 3 && got.height == 2 && !memcmp(got.data, px.data, 18));
    vkfx_pixels_free(&got);
    expect_format_error_memory(bmp, size - 4, "a BMP one pixel byte short");
    cr_assert(strstr(vkfx_error_message(), "truncated BMP"), "%s", vkfx_error_message());
    free(bmp);
    vkfx_pixels_free(&px);
}

/* giflib refuses an LZW minimum code size above 8 (Pillow's issue_2811.gif has 11) as a
 * failed read: the message names the code size, not a truncation. */
Test(fileio, gif_code_size_above_8_is_named)
{
    const unsigned char gif[] = {'G', 'I', 'F', '8', '9', 'a', 1,   0,    1, 0, 0x80, 0,
                                 0,   0,   0,   0,   255, 255, 255, 0x2C, 0, 0, 0,    0,
                                 1,   0,   1,   0,   0,   11,  2,   0,    0, 0, 0x3B};
    expect_format_error_memory(gif, sizeof(gif), "a GIF of LZW code size 11");
    cr_assert(strstr(vkfx_error_message(), "LZW minimum code size is 11"), "%s",
              vkfx_error_message());
}
