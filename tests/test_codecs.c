/* Tests of the codecs under core/io/codecs/ against the libraries' own
 * reading and writing, called directly here: JPEG decoding identical to
 * libjpeg-turbo's on the bundled photos and on JPEGs made here in every
 * colour space and layout, damaged JPEGs refused; TIFF files written here
 * with libtiff in every sample type, layout and compression read exactly,
 * and vkfx's TIFFs read back by libtiff; WebP both ways through libwebp;
 * each encoder option checked in the file it writes. */
#include <criterion/criterion.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jpeglib.h>
#include <tiffio.h>
#include <webp/decode.h>
#include <webp/encode.h>
#include <webp/mux.h>

#include "common.h"
#include "error.h"
#include "fileio.h"
#include "pixels.h"

static void setup(void)
{
    if (tc_tmpdir_make("codecs") != 0)
        cr_assert_fail("mkdtemp: %s", strerror(errno));
}

TestSuite(codecs, .init = setup, .fini = tc_tmpdir_remove);

static unsigned char *slurp(const char *path, size_t *size)
{
    char *data = tc_slurp(path, size);
    cr_assert(data, "read %s: %s", path, strerror(errno));
    return (unsigned char *)data;
}

/* A smooth image (compresses like a photo) with a little noise. */
static void photo_like(vkfx_pixels *px, uint32_t w, uint32_t h, uint32_t c, uint64_t seed)
{
    tc_random_pixels(px, w, h, c, VKFX_SAMPLE_U8, seed);
    unsigned char *d = px->data;
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++)
            for (uint32_t k = 0; k < c; k++) {
                size_t i = ((size_t)y * w + x) * c + k;
                int v = (int)((x * (3 + k) + y * (5 - k)) % 200) + d[i] % 16;
                d[i] = (unsigned char)v;
            }
}

static void expect_same(const vkfx_pixels *got, const vkfx_pixels *want, const char *what)
{
    tc_diff d = tc_compare(got, want, 0);
    if (!tc_diff_ok(&d))
        tc_report(&d, what);
    cr_assert(tc_diff_ok(&d), "%s: not identical (worst %.0f at %u,%u channel %u)", what, d.max_abs,
              d.x, d.y, d.c);
}

static void load_memory_ok(const unsigned char *data, size_t size, const char *name,
                           vkfx_pixels *px)
{
    int ret = vkfx_file_load_memory(data, size, name, px);
    cr_assert_eq(ret, VKFX_OK, "%s: %d %s", name, ret, vkfx_error_message());
}

static void expect_format_error(const unsigned char *data, size_t size, const char *what)
{
    vkfx_pixels px = {0};
    vkfx_error_clear();
    int ret = vkfx_file_load_memory(data, size, what, &px);
    cr_assert_eq(ret, VKFX_E_FORMAT, "%s: got %d (%s), want a format error", what, ret,
                 vkfx_error_message());
    cr_assert_null(px.data, "%s: pixels left behind", what);
    cr_assert(strstr(vkfx_error_message(), what), "%s: message does not name it: %s", what,
              vkfx_error_message());
}

/* ------------------------------------------------------------------------ */
/* JPEG: libjpeg called directly */

struct jerr {
    struct jpeg_error_mgr mgr;
};

static void jerr_exit(j_common_ptr c)
{
    char msg[JMSG_LENGTH_MAX];
    c->err->format_message(c, msg);
    cr_assert_fail("libjpeg in the test: %s", msg);
}

/* A decompressor for data with its header read; any libjpeg error fails
 * the test. */
static void libjpeg_open(struct jpeg_decompress_struct *d, struct jerr *e,
                         const unsigned char *data, size_t size)
{
    d->err = jpeg_std_error(&e->mgr);
    e->mgr.error_exit = jerr_exit;
    jpeg_create_decompress(d);
    jpeg_mem_src(d, data, (unsigned long)size);
    cr_assert_eq(jpeg_read_header(d, TRUE), JPEG_HEADER_OK);
}

/* libjpeg-turbo's default decode (accurate integer IDCT, fancy upsampling):
 * gray to gray, CMYK and YCCK to CMYK, the rest to RGB. *adobe: the file
 * has an Adobe marker. */
static void libjpeg_decode(const unsigned char *data, size_t size, vkfx_pixels *px, bool *adobe,
                           bool *progressive)
{
    struct jpeg_decompress_struct d;
    struct jerr e;
    libjpeg_open(&d, &e, data, size);
    bool cmyk = d.jpeg_color_space == JCS_CMYK || d.jpeg_color_space == JCS_YCCK;
    d.out_color_space = d.jpeg_color_space == JCS_GRAYSCALE ? JCS_GRAYSCALE
                        : cmyk                              ? JCS_CMYK
                                                            : JCS_RGB;
    jpeg_start_decompress(&d);
    cr_assert_eq(vkfx_pixels_alloc(px, d.output_width, d.output_height,
                                   (uint32_t)d.output_components, VKFX_SAMPLE_U8),
                 VKFX_OK);
    px->straight = true;
    while (d.output_scanline < d.output_height) {
        JSAMPROW row = (unsigned char *)px->data +
                       (size_t)d.output_scanline * d.output_width * (size_t)d.output_components;
        jpeg_read_scanlines(&d, &row, 1);
    }
    if (adobe)
        *adobe = d.saw_Adobe_marker;
    if (progressive)
        *progressive = d.progressive_mode;
    jpeg_finish_decompress(&d);
    jpeg_destroy_decompress(&d);
}

/* The sampling factors of the first component, and the coding. */
static void libjpeg_header(const unsigned char *data, size_t size, int *h, int *v,
                           bool *progressive)
{
    struct jpeg_decompress_struct d;
    struct jerr e;
    libjpeg_open(&d, &e, data, size);
    *h = d.comp_info[0].h_samp_factor;
    *v = d.comp_info[0].v_samp_factor;
    *progressive = d.progressive_mode;
    jpeg_destroy_decompress(&d);
}

typedef struct jpeg_make {
    J_COLOR_SPACE in, store; /* input and stored colour spaces */
    int h, v;                /* sampling of the first component */
    int quality;
    bool progressive, optimize, arith, adobe;
    unsigned restart; /* restart interval in MCU rows, 0 none */
} jpeg_make;

/* A JPEG of px made by libjpeg here (malloc'd, *size bytes). */
static unsigned char *libjpeg_encode(const vkfx_pixels *px, const jpeg_make *m, size_t *size)
{
    struct jpeg_compress_struct c;
    struct jerr e;
    unsigned char *out = NULL;
    unsigned long n = 0;
    c.err = jpeg_std_error(&e.mgr);
    e.mgr.error_exit = jerr_exit;
    jpeg_create_compress(&c);
    jpeg_mem_dest(&c, &out, &n);
    c.image_width = px->width;
    c.image_height = px->height;
    c.input_components = (int)px->channels;
    c.in_color_space = m->in;
    jpeg_set_defaults(&c);
    jpeg_set_colorspace(&c, m->store);
    jpeg_set_quality(&c, m->quality, TRUE);
    c.optimize_coding = m->optimize;
    c.arith_code = m->arith;
    c.restart_in_rows = (int)m->restart;
    c.write_Adobe_marker = m->adobe;
    if (m->h) {
        c.comp_info[0].h_samp_factor = m->h;
        c.comp_info[0].v_samp_factor = m->v;
    }
    if (m->progressive)
        jpeg_simple_progression(&c);
    jpeg_start_compress(&c, TRUE);
    size_t stride = (size_t)px->width * px->channels;
    while (c.next_scanline < c.image_height) {
        JSAMPROW row = (unsigned char *)px->data + stride * c.next_scanline;
        jpeg_write_scanlines(&c, &row, 1);
    }
    jpeg_finish_compress(&c);
    jpeg_destroy_compress(&c);
    *size = n;
    return out;
}

/* libjpeg's pixels as vkfx documents them: CMYK to RGB as
 * R = (1 - C)(1 - K), with inverted inks where there is an Adobe marker. */
static void expected_from_libjpeg(const unsigned char *data, size_t size, vkfx_pixels *want)
{
    vkfx_pixels raw = {0};
    bool adobe = false;
    libjpeg_decode(data, size, &raw, &adobe, NULL);
    if (raw.channels != 4) {
        *want = raw;
        return;
    }
    cr_assert_eq(vkfx_pixels_alloc(want, raw.width, raw.height, 3, VKFX_SAMPLE_U8), VKFX_OK);
    want->straight = true;
    const unsigned char *s = raw.data;
    unsigned char *d = want->data;
    for (size_t i = 0; i < (size_t)raw.width * raw.height; i++) {
        unsigned k = adobe ? s[4 * i + 3] : 255u - s[4 * i + 3];
        for (int c = 0; c < 3; c++) {
            unsigned v = adobe ? s[4 * i + c] : 255u - s[4 * i + c];
            d[3 * i + c] = (unsigned char)((v * k + 127) / 255);
        }
    }
    vkfx_pixels_free(&raw);
}

Test(codecs, jpeg_photos_identical_to_libjpeg)
{
    DIR *dir = opendir(VKFX_TEST_IMAGES);
    cr_assert(dir);
    struct dirent *e;
    int n = 0;
    while ((e = readdir(dir))) {
        const char *dot = strrchr(e->d_name, '.');
        if (!dot || (strcasecmp(dot, ".jpg") && strcasecmp(dot, ".jpeg")))
            continue;
        char path[1024];
        snprintf(path, sizeof(path), "%s/%s", VKFX_TEST_IMAGES, e->d_name);
        size_t size;
        unsigned char *data = slurp(path, &size);
        vkfx_pixels got = {0}, want = {0};
        cr_assert_eq(vkfx_file_load(path, &got), VKFX_OK, "%s", vkfx_error_message());
        expected_from_libjpeg(data, size, &want);
        expect_same(&got, &want, path);
        vkfx_pixels_free(&got);
        vkfx_pixels_free(&want);
        free(data);
        n++;
    }
    closedir(dir);
    cr_assert_geq(n, 2, "only %d JPEG photos in %s", n, VKFX_TEST_IMAGES);
}

Test(codecs, jpeg_made_here_identical_to_libjpeg)
{
    const struct {
        const char *name;
        uint32_t channels;
        jpeg_make m;
    } cases[] = {
        {"gray", 1, {JCS_GRAYSCALE, JCS_GRAYSCALE, 0, 0, 90, false, true, false, false, 0}},
        {"ycc-444", 3, {JCS_RGB, JCS_YCbCr, 1, 1, 92, false, true, false, false, 0}},
        {"ycc-422", 3, {JCS_RGB, JCS_YCbCr, 2, 1, 85, false, false, false, false, 0}},
        {"ycc-420", 3, {JCS_RGB, JCS_YCbCr, 2, 2, 75, false, true, false, false, 0}},
        {"ycc-440", 3, {JCS_RGB, JCS_YCbCr, 1, 2, 80, false, true, false, false, 0}},
        {"ycc-411", 3, {JCS_RGB, JCS_YCbCr, 4, 1, 80, false, true, false, false, 0}},
        {"progressive-420", 3, {JCS_RGB, JCS_YCbCr, 2, 2, 88, true, true, false, false, 0}},
        {"progressive-gray",
         1,
         {JCS_GRAYSCALE, JCS_GRAYSCALE, 0, 0, 70, true, true, false, false, 0}},
        {"restarts", 3, {JCS_RGB, JCS_YCbCr, 2, 2, 90, false, false, false, false, 1}},
        {"arithmetic", 3, {JCS_RGB, JCS_YCbCr, 2, 1, 90, false, false, true, false, 0}},
        {"rgb-stored", 3, {JCS_RGB, JCS_RGB, 1, 1, 90, false, true, false, false, 0}},
        {"cmyk-adobe", 4, {JCS_CMYK, JCS_CMYK, 1, 1, 90, false, true, false, true, 0}},
        {"cmyk-plain", 4, {JCS_CMYK, JCS_CMYK, 1, 1, 90, false, true, false, false, 0}},
        {"ycck-adobe", 4, {JCS_CMYK, JCS_YCCK, 2, 2, 90, false, true, false, true, 0}},
        {"ycck-progressive", 4, {JCS_CMYK, JCS_YCCK, 2, 2, 90, true, true, false, true, 0}},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        vkfx_pixels src = {0}, got = {0}, want = {0};
        photo_like(&src, 77, 45, cases[i].channels, i + 1);
        size_t size;
        unsigned char *jpg = libjpeg_encode(&src, &cases[i].m, &size);
        load_memory_ok(jpg, size, cases[i].name, &got);
        expected_from_libjpeg(jpg, size, &want);
        cr_assert_eq(got.channels, cases[i].channels == 1 ? 1u : 3u, "%s", cases[i].name);
        expect_same(&got, &want, cases[i].name);
        vkfx_pixels_free(&src);
        vkfx_pixels_free(&got);
        vkfx_pixels_free(&want);
        free(jpg);
    }
}

/* Photoshop's CMYK stores inks inverted (255 = no ink) and says so with its
 * Adobe marker: flat inks decode to the colour they print. */
Test(codecs, jpeg_cmyk_colours)
{
    const unsigned char inks[][4] = {
        {255, 255, 255, 255}, /* no ink: white */
        {0, 255, 255, 255},   /* full cyan: (0, 255, 255) */
        {255, 255, 255, 0},   /* full black */
    };
    const unsigned char rgb[][3] = {{255, 255, 255}, {0, 255, 255}, {0, 0, 0}};
    for (int i = 0; i < 3; i++) {
        vkfx_pixels px = {0}, got = {0};
        cr_assert_eq(vkfx_pixels_alloc(&px, 16, 16, 4, VKFX_SAMPLE_U8), VKFX_OK);
        for (int p = 0; p < 256; p++)
            memcpy((unsigned char *)px.data + 4 * p, inks[i], 4);
        jpeg_make m = {JCS_CMYK, JCS_CMYK, 1, 1, 100, false, true, false, true, 0};
        size_t size;
        unsigned char *jpg = libjpeg_encode(&px, &m, &size);
        load_memory_ok(jpg, size, "cmyk.jpg", &got);
        const unsigned char *d = got.data;
        for (int c = 0; c < 3; c++)
            cr_assert(abs((int)d[c] - rgb[i][c]) <= 1, "ink %d channel %d: %u, want %u", i, c, d[c],
                      rgb[i][c]);
        vkfx_pixels_free(&px);
        vkfx_pixels_free(&got);
        free(jpg);
    }
}

/* A cut anywhere in the scans or bytes that break the entropy data decode as libjpeg-turbo
 * decodes them (gray where data is missing) with a note quoting its warning; a file with
 * tables and no scan, or a frame with no scan, is an error. */
static void expect_noted(const unsigned char *data, size_t size, const char *what,
                         const char *warning)
{
    vkfx_pixels px = {0};
    vkfx_error_clear();
    int ret = vkfx_file_load_memory(data, size, what, &px);
    cr_assert_eq(ret, VKFX_OK, "%s: got %d (%s), want pixels", what, ret, vkfx_error_message());
    const char *note = vkfx_file_note();
    cr_assert(note && !strncmp(note, what, strlen(what)) && strstr(note, "damaged JPEG") &&
                  strstr(note, warning),
              "%s: note %s, want one naming it and saying '%s'", what, note ? note : "(none)",
              warning);
    cr_assert_eq(px.width, 96);
    cr_assert_eq(px.height, 64);
    vkfx_pixels_free(&px);
}

Test(codecs, jpeg_damaged_scans_are_noted, .timeout = 60)
{
    vkfx_pixels src = {0};
    photo_like(&src, 96, 64, 3, 7);
    for (int prog = 0; prog < 2; prog++) {
        jpeg_make m = {JCS_RGB, JCS_YCbCr, 2, 2, 90, prog, true, false, false, 0};
        size_t size;
        unsigned char *jpg = libjpeg_encode(&src, &m, &size);
        /* Where the first scan's data starts. */
        size_t sos = 2;
        while (sos + 1 < size && !(jpg[sos] == 0xFF && jpg[sos + 1] == 0xDA))
            sos++;
        cr_assert_lt(sos + 100, size);
        int noted = 0;
        for (size_t cut = sos + 20; cut < size; cut += (size - sos) / 9 + 1) {
            char what[64];
            snprintf(what, sizeof(what), "%s cut at %zu of %zu", prog ? "progressive" : "baseline",
                     cut, size);
            /* A progressive file cut in the tables between its scans is an error of libjpeg's
             * (the end it makes up is no table). */
            bool in_tables = false;
            for (size_t k = cut; prog && k > sos && !in_tables; k--)
                if (jpg[k - 1] == 0xFF && (jpg[k] == 0xC4 || jpg[k] == 0xDA))
                    in_tables = cut < k + 1 + ((size_t)jpg[k + 1] << 8 | jpg[k + 2]);
            if (in_tables) {
                expect_format_error(jpg, cut, what);
                continue;
            }
            expect_noted(jpg, cut, what, "Premature end");
            noted++;
        }
        cr_assert_gt(noted, 4, "%s: too few cuts in the scans' data",
                     prog ? "progressive" : "baseline");
        expect_noted(jpg, size - 2, prog ? "progressive without EOI" : "baseline without EOI",
                     "Premature end");
        /* A marker in the middle of the entropy-coded data. */
        unsigned char *bad = malloc(size);
        memcpy(bad, jpg, size);
        size_t mid = sos + (size - sos) / 2;
        bad[mid] = 0xFF;
        bad[mid + 1] = 0xD3;
        expect_noted(bad, size,
                     prog ? "progressive with a stray marker" : "baseline with a stray marker",
                     "Corrupt JPEG data");
        /* The frame kept, every scan removed: SOF then EOI. */
        memcpy(bad, jpg, sos);
        bad[sos] = 0xFF;
        bad[sos + 1] = 0xD9;
        expect_format_error(bad, sos + 2, "no scan");
        free(bad);
        free(jpg);
    }
    vkfx_pixels_free(&src);
}

/* A baseline JPEG whose frame claims far more pixels than its scan could
 * hold is refused before the image is allocated, and one beyond
 * --max-pixels from its header. */
Test(codecs, jpeg_size_checked_before_decoding)
{
    vkfx_pixels src = {0};
    photo_like(&src, 16, 16, 3, 3);
    jpeg_make m = {JCS_RGB, JCS_YCbCr, 2, 2, 90, false, true, false, false, 0};
    size_t size;
    unsigned char *jpg = libjpeg_encode(&src, &m, &size);
    size_t sof = 2;
    while (sof + 9 < size && !(jpg[sof] == 0xFF && jpg[sof + 1] == 0xC0))
        sof++;
    cr_assert_lt(sof + 9, size);
    /* 16000 x 16000: under the default limit, but not in a few hundred bytes. */
    jpg[sof + 5] = 16000 >> 8;
    jpg[sof + 6] = 16000 & 255;
    jpg[sof + 7] = 16000 >> 8;
    jpg[sof + 8] = 16000 & 255;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    expect_format_error(jpg, size, "huge.jpg");
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
    cr_assert_lt(ms, 50, "refusing took %.1f ms", ms);
    vkfx_file_set_max_pixels(1000);
    vkfx_pixels px = {0};
    cr_assert_eq(vkfx_file_load_memory(jpg, size, "huge.jpg", &px), VKFX_E_LIMIT, "%s",
                 vkfx_error_message());
    vkfx_file_set_max_pixels(0);
    free(jpg);
    vkfx_pixels_free(&src);
}

/* vkfx's JPEG is byte for byte what libjpeg writes with the settings the
 * options name: the standard Huffman tables unless --jpeg-optimize (or
 * progressive scans, which libjpeg optimises) asks for the image's own, which
 * make the file smaller; each option changes the file. */
Test(codecs, jpeg_encoder_options)
{
    vkfx_pixels src = {0};
    photo_like(&src, 70, 50, 3, 11);
    const struct {
        vkfx_save_opts opts;
        int h, v, quality;
        bool progressive;
    } cases[] = {
        {{0}, 1, 1, 90, false},                  /* default: q90, 4:4:4 */
        {{.jpeg_quality = 89}, 2, 2, 89, false}, /* below 90: 4:2:0 */
        {{.jpeg_quality = 95, .jpeg_subsampling = VKFX_JPEG_SUBSAMPLING_420}, 2, 2, 95, false},
        {{.jpeg_quality = 60, .jpeg_subsampling = VKFX_JPEG_SUBSAMPLING_444}, 1, 1, 60, false},
        {{.jpeg_subsampling = VKFX_JPEG_SUBSAMPLING_422}, 2, 1, 90, false},
        {{.jpeg_progressive = true}, 1, 1, 90, true},
        {{.jpeg_quality = 50, .jpeg_progressive = true}, 2, 2, 50, true},
        {{.jpeg_optimize = true}, 1, 1, 90, false},
        {{.jpeg_quality = 70, .jpeg_optimize = true}, 2, 2, 70, false},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cr_assert_eq(vkfx_file_save(tc_tpath("o.jpg"), VKFX_FILE_JPEG, &src, &cases[i].opts),
                     VKFX_OK, "%s", vkfx_error_message());
        size_t size, want_size, plain_size;
        unsigned char *got = slurp(tc_tpath("o.jpg"), &size);
        int h, v;
        bool prog;
        libjpeg_header(got, size, &h, &v, &prog);
        cr_assert(h == cases[i].h && v == cases[i].v && prog == cases[i].progressive,
                  "case %zu: sampling %dx%d progressive %d, want %dx%d %d", i, h, v, prog,
                  cases[i].h, cases[i].v, cases[i].progressive);
        bool optimize = cases[i].opts.jpeg_optimize;
        jpeg_make m = {
            JCS_RGB,  JCS_YCbCr, cases[i].h, cases[i].v, cases[i].quality, cases[i].progressive,
            optimize, false,     false,      0};
        unsigned char *want = libjpeg_encode(&src, &m, &want_size);
        cr_assert(size == want_size && !memcmp(got, want, size),
                  "case %zu: %zu bytes, libjpeg with the same settings %zu", i, size, want_size);
        /* The other tables give another file: larger with the standard ones. */
        m.optimize = !optimize;
        unsigned char *plain = libjpeg_encode(&src, &m, &plain_size);
        if (optimize)
            cr_assert_lt(size, plain_size, "case %zu: Huffman tables not optimised", i);
        else if (!cases[i].progressive)
            cr_assert_gt(size, plain_size, "case %zu: Huffman tables optimised", i);
        free(got);
        free(want);
        free(plain);
    }
    vkfx_pixels_free(&src);
}

/* ------------------------------------------------------------------------ */
/* TIFF: libtiff called directly */

/* libtiff's messages in this test process would go to stderr; they are
 * not expected (vkfx's own handlers get vkfx's), so any fails the test. */
static void tiff_test_handler(const char *module, const char *fmt, va_list ap)
{
    char msg[256];
    vsnprintf(msg, sizeof(msg), fmt, ap);
    cr_assert_fail("libtiff in the test: %s: %s", module ? module : "", msg);
}

typedef struct tiff_make {
    uint16_t bits, format, channels;
    uint16_t planar, compression;
    uint32_t tile;     /* tile side, 0 for strips */
    uint16_t extra;    /* EXTRASAMPLE_* of the sample after the colour, if any */
    bool min_is_white; /* gray stored inverted (PHOTOMETRIC_MINISWHITE is 0) */
    int pages;
} tiff_make;

/* Writes px as described, with libtiff, to path. */
static void libtiff_write(const char *path, const vkfx_pixels *px, const tiff_make *m)
{
    TIFFSetErrorHandler(tiff_test_handler);
    TIFFSetWarningHandler(NULL);
    TIFF *t = TIFFOpen(path, "w");
    cr_assert(t);
    size_t ss = vkfx_sample_size(px->sample);
    uint32_t colour = m->channels >= 3 ? 3 : 1;
    for (int page = 0; page < (m->pages ? m->pages : 1); page++) {
        TIFFSetField(t, TIFFTAG_IMAGEWIDTH, px->width);
        TIFFSetField(t, TIFFTAG_IMAGELENGTH, px->height);
        TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, m->channels);
        TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, m->bits);
        TIFFSetField(t, TIFFTAG_SAMPLEFORMAT, m->format);
        TIFFSetField(t, TIFFTAG_PHOTOMETRIC,
                     m->min_is_white ? PHOTOMETRIC_MINISWHITE
                     : colour == 3   ? PHOTOMETRIC_RGB
                                     : PHOTOMETRIC_MINISBLACK);
        TIFFSetField(t, TIFFTAG_PLANARCONFIG, m->planar);
        TIFFSetField(t, TIFFTAG_COMPRESSION, m->compression);
        if (m->compression == COMPRESSION_JPEG)
            TIFFSetField(t, TIFFTAG_JPEGQUALITY, 90);
        if (m->channels > colour) {
            uint16_t extra = m->extra;
            TIFFSetField(t, TIFFTAG_EXTRASAMPLES, 1, &extra);
        }
        uint32_t bw = px->width, bh = 7;
        if (m->tile) {
            bw = bh = m->tile;
            TIFFSetField(t, TIFFTAG_TILEWIDTH, bw);
            TIFFSetField(t, TIFFTAG_TILELENGTH, bh);
        } else {
            TIFFSetField(t, TIFFTAG_ROWSPERSTRIP, bh);
        }
        int planes = m->planar == PLANARCONFIG_SEPARATE ? m->channels : 1;
        size_t per = ss * (planes > 1 ? 1 : m->channels);
        unsigned char *blk = calloc((size_t)bw * bh, per);
        cr_assert(blk);
        for (int p = 0; p < planes; p++)
            for (uint32_t y = 0; y < px->height; y += bh)
                for (uint32_t x = 0; x < px->width; x += bw) {
                    uint32_t rows = m->tile ? bh : (px->height - y < bh ? px->height - y : bh);
                    memset(blk, 0, (size_t)bw * bh * per);
                    for (uint32_t yy = 0; yy < rows && y + yy < px->height; yy++)
                        for (uint32_t xx = 0; xx < bw && x + xx < px->width; xx++) {
                            const unsigned char *s =
                                (const unsigned char *)px->data +
                                (((size_t)(y + yy) * px->width + x + xx) * px->channels) * ss;
                            unsigned char *d = blk + ((size_t)yy * bw + xx) * per;
                            if (planes > 1)
                                memcpy(d, s + (size_t)p * ss, ss);
                            else
                                memcpy(d, s, per);
                        }
                    tmsize_t n = (tmsize_t)((size_t)bw * rows * per);
                    tmsize_t w =
                        m->tile
                            ? TIFFWriteEncodedTile(t, TIFFComputeTile(t, x, y, 0, (uint16_t)p), blk,
                                                   n)
                            : TIFFWriteEncodedStrip(t, TIFFComputeStrip(t, y, (uint16_t)p), blk, n);
                    cr_assert_geq(w, 0);
                }
        free(blk);
        cr_assert(TIFFWriteDirectory(t));
    }
    TIFFClose(t);
}

static void random_samples(vkfx_pixels *px, uint32_t w, uint32_t h, uint32_t c, vkfx_sample s,
                           uint64_t seed)
{
    tc_random_pixels(px, w, h, c, s, seed);
    if (s == VKFX_SAMPLE_F32) { /* beyond [0, 1] too: float TIFFs are not clamped */
        float *f = px->data;
        for (size_t i = 0; i < (size_t)w * h * c; i++)
            f[i] = f[i] * 4.0f - 1.0f;
    }
}

/* Every sample type, channel count, planar configuration, strips and tiles,
 * and the lossless compressions: vkfx reads what libtiff wrote, exactly. */
Test(codecs, tiff_read_every_layout, .timeout = 120)
{
    const struct {
        vkfx_sample s;
        uint16_t bits, format;
    } types[] = {{VKFX_SAMPLE_U8, 8, SAMPLEFORMAT_UINT},
                 {VKFX_SAMPLE_U16, 16, SAMPLEFORMAT_UINT},
                 {VKFX_SAMPLE_F32, 32, SAMPLEFORMAT_IEEEFP}};
    const uint16_t comps[] = {COMPRESSION_NONE, COMPRESSION_LZW, COMPRESSION_ADOBE_DEFLATE,
                              COMPRESSION_PACKBITS};
    int n = 0;
    for (int t = 0; t < 3; t++)
        for (uint16_t c = 1; c <= 4; c++)
            for (int planar = 0; planar < 2; planar++)
                for (int tiled = 0; tiled < 2; tiled++)
                    for (int k = 0; k < 4; k++) {
                        vkfx_pixels src = {0}, got = {0};
                        random_samples(&src, 37, 23, c, types[t].s, (uint64_t)n + 1);
                        tiff_make m = {types[t].bits,
                                       types[t].format,
                                       c,
                                       planar ? PLANARCONFIG_SEPARATE : PLANARCONFIG_CONTIG,
                                       comps[k],
                                       tiled ? 16 : 0,
                                       EXTRASAMPLE_UNASSALPHA,
                                       0,
                                       1};
                        libtiff_write(tc_tpath("t.tif"), &src, &m);
                        char what[128];
                        snprintf(what, sizeof(what),
                                 "%u-bit %u channels planar %d tiled %d compression %u",
                                 types[t].bits, c, planar, tiled, comps[k]);
                        cr_assert_eq(vkfx_file_load(tc_tpath("t.tif"), &got), VKFX_OK, "%s: %s",
                                     what, vkfx_error_message());
                        cr_assert(got.straight && got.linear == (types[t].s == VKFX_SAMPLE_F32),
                                  "%s", what);
                        expect_same(&got, &src, what);
                        cr_assert_null(vkfx_file_note(), "%s", what);
                        vkfx_pixels_free(&src);
                        vkfx_pixels_free(&got);
                        n++;
                    }
}

/* JPEG inside TIFF: what vkfx reads is what libtiff decodes itself. */
Test(codecs, tiff_jpeg_compressed_matches_libtiff)
{
    for (uint16_t c = 1; c <= 3; c += 2) {
        vkfx_pixels src = {0}, got = {0}, want = {0};
        photo_like(&src, 48, 32, c, c);
        tiff_make m = {8, SAMPLEFORMAT_UINT, c, PLANARCONFIG_CONTIG, COMPRESSION_JPEG, 16, 0, 0, 1};
        libtiff_write(tc_tpath("j.tif"), &src, &m);
        cr_assert_eq(vkfx_file_load(tc_tpath("j.tif"), &got), VKFX_OK, "%s", vkfx_error_message());
        TIFF *t = TIFFOpen(tc_tpath("j.tif"), "r");
        cr_assert(t);
        cr_assert_eq(vkfx_pixels_alloc(&want, 48, 32, c, VKFX_SAMPLE_U8), VKFX_OK);
        want.straight = true;
        tmsize_t ts = TIFFTileSize(t);
        unsigned char *tile = malloc((size_t)ts);
        for (uint32_t y = 0; y < 32; y += 16)
            for (uint32_t x = 0; x < 48; x += 16) {
                cr_assert_geq(TIFFReadTile(t, tile, x, y, 0, 0), 0);
                for (uint32_t yy = 0; yy < 16; yy++)
                    memcpy((unsigned char *)want.data + (((size_t)(y + yy) * 48 + x) * c),
                           tile + (size_t)yy * 16 * c, 16 * (size_t)c);
            }
        free(tile);
        TIFFClose(t);
        expect_same(&got, &want, c == 1 ? "JPEG-compressed gray TIFF" : "JPEG-compressed RGB TIFF");
        vkfx_pixels_free(&src);
        vkfx_pixels_free(&got);
        vkfx_pixels_free(&want);
    }
}

/* Associated alpha is premultiplied colour (TIFF 6.0, ExtraSamples = 1):
 * integer samples come back straight, c * max / a rounded; float ones stay
 * premultiplied (straight = false). Unassociated alpha is straight already;
 * an unspecified extra sample is not alpha and is dropped. */
Test(codecs, tiff_alpha_as_tiff_defines_it)
{
    for (int t = 0; t < 3; t++) {
        vkfx_sample s = t == 0 ? VKFX_SAMPLE_U8 : t == 1 ? VKFX_SAMPLE_U16 : VKFX_SAMPLE_F32;
        uint16_t bits = t == 0 ? 8 : t == 1 ? 16 : 32;
        uint16_t format = t == 2 ? SAMPLEFORMAT_IEEEFP : SAMPLEFORMAT_UINT;
        vkfx_pixels src = {0}, got = {0};
        random_samples(&src, 19, 11, 4, s, 40 + (uint64_t)t);
        /* Premultiply the integer colour so it is valid associated data. */
        uint32_t max = t == 0 ? 255 : 65535;
        for (size_t i = 0; t < 2 && i < 19 * 11; i++) {
            uint32_t a =
                t == 0 ? ((uint8_t *)src.data)[4 * i + 3] : ((uint16_t *)src.data)[4 * i + 3];
            for (int c = 0; c < 3; c++) {
                if (t == 0) {
                    uint8_t *p = (uint8_t *)src.data + 4 * i + c;
                    *p = (uint8_t)((*p * a + max / 2) / max);
                } else {
                    uint16_t *p = (uint16_t *)src.data + 4 * i + c;
                    *p = (uint16_t)(((uint64_t)*p * a + max / 2) / max);
                }
            }
        }
        tiff_make m = {
            bits, format, 4, PLANARCONFIG_CONTIG, COMPRESSION_NONE, 0, EXTRASAMPLE_ASSOCALPHA,
            0,    1};
        libtiff_write(tc_tpath("a.tif"), &src, &m);
        cr_assert_eq(vkfx_file_load(tc_tpath("a.tif"), &got), VKFX_OK, "%s", vkfx_error_message());
        cr_assert_eq(got.straight, t < 2, "%u-bit: straight %d", bits, got.straight);
        for (size_t i = 0; i < 19 * 11; i++)
            for (int c = 0; c < 4; c++) {
                if (t == 2) {
                    cr_assert_eq(((float *)got.data)[4 * i + c], ((float *)src.data)[4 * i + c]);
                    continue;
                }
                uint32_t a =
                    t == 0 ? ((uint8_t *)src.data)[4 * i + 3] : ((uint16_t *)src.data)[4 * i + 3];
                uint32_t v =
                    t == 0 ? ((uint8_t *)src.data)[4 * i + c] : ((uint16_t *)src.data)[4 * i + c];
                uint32_t want = c == 3 ? a : a ? (uint32_t)(((uint64_t)v * max + a / 2) / a) : 0;
                want = want > max ? max : want;
                uint32_t g =
                    t == 0 ? ((uint8_t *)got.data)[4 * i + c] : ((uint16_t *)got.data)[4 * i + c];
                cr_assert_eq(g, want, "%u-bit pixel %zu channel %d: %u, want %u (a %u)", bits, i, c,
                             g, want, a);
            }
        vkfx_pixels_free(&got);

        /* The same samples marked unspecified: RGB only. */
        m.extra = EXTRASAMPLE_UNSPECIFIED;
        libtiff_write(tc_tpath("u.tif"), &src, &m);
        cr_assert_eq(vkfx_file_load(tc_tpath("u.tif"), &got), VKFX_OK, "%s", vkfx_error_message());
        cr_assert_eq(got.channels, 3, "%u-bit with an unspecified extra sample", bits);
        cr_assert(vkfx_file_note() && strstr(vkfx_file_note(), "1 extra sample that is no alpha"),
                  "%u-bit: note %s", bits, vkfx_file_note() ? vkfx_file_note() : "(none)");
        size_t ss = vkfx_sample_size(s);
        for (size_t i = 0; i < 19 * 11; i++)
            cr_assert(!memcmp((unsigned char *)got.data + 3 * i * ss,
                              (unsigned char *)src.data + 4 * i * ss, 3 * ss));
        vkfx_pixels_free(&got);
        vkfx_pixels_free(&src);
    }
}

/* A TIFF of samples of the given bits (1 to 16), packed most significant bit first in rows
 * that start on a byte, as libtiff hands them over: width x height of spp samples (values),
 * in tiles of tile pixels a side or strips of 5 rows, with a colour map where photometric is
 * a palette's. */
static void write_packed_tiff(const char *path, const uint32_t *values, uint32_t width,
                              uint32_t height, uint16_t spp, uint16_t bits, uint16_t format,
                              uint16_t photometric, uint32_t tile, uint16_t compression,
                              bool extra_tag)
{
    TIFFSetErrorHandler(tiff_test_handler);
    TIFFSetWarningHandler(NULL);
    TIFF *t = TIFFOpen(path, "w");
    cr_assert(t);
    TIFFSetField(t, TIFFTAG_IMAGEWIDTH, width);
    TIFFSetField(t, TIFFTAG_IMAGELENGTH, height);
    TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, spp);
    TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, bits);
    TIFFSetField(t, TIFFTAG_SAMPLEFORMAT, format);
    TIFFSetField(t, TIFFTAG_PHOTOMETRIC, photometric);
    TIFFSetField(t, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
    TIFFSetField(t, TIFFTAG_COMPRESSION, compression);
    if (spp == 2 && extra_tag) {
        uint16_t extra = EXTRASAMPLE_UNASSALPHA;
        TIFFSetField(t, TIFFTAG_EXTRASAMPLES, 1, &extra);
    }
    if (photometric == PHOTOMETRIC_PALETTE) {
        uint32_t n = 1u << bits;
        uint16_t *map = malloc(3 * n * sizeof(uint16_t));
        cr_assert(map);
        for (uint32_t i = 0; i < 3 * n; i++)
            map[i] = (uint16_t)((i * 7919u) % 256 * 257);
        TIFFSetField(t, TIFFTAG_COLORMAP, map, map + n, map + 2 * n);
        free(map);
    }
    uint32_t bw = tile ? tile : width, bh = tile ? tile : 5;
    if (tile) {
        TIFFSetField(t, TIFFTAG_TILEWIDTH, bw);
        TIFFSetField(t, TIFFTAG_TILELENGTH, bh);
    } else {
        TIFFSetField(t, TIFFTAG_ROWSPERSTRIP, bh);
    }
    size_t row = ((size_t)bw * spp * bits + 7) / 8;
    unsigned char *blk = malloc(row * bh);
    cr_assert(blk);
    for (uint32_t y = 0; y < height; y += bh)
        for (uint32_t x = 0; x < width; x += bw) {
            memset(blk, 0, row * bh);
            for (uint32_t yy = 0; yy < bh && y + yy < height; yy++)
                for (uint32_t k = 0; k < bw * spp && x + k / spp < width; k++) {
                    uint32_t v = values[((size_t)(y + yy) * width + x) * spp + k];
                    if (bits == 16) { /* whole samples travel in the host's order */
                        uint16_t h16 = (uint16_t)v;
                        memcpy(blk + yy * row + 2 * (size_t)k, &h16, 2);
                        continue;
                    }
                    for (uint32_t b = 0; b < bits; b++)
                        if (v >> (bits - 1 - b) & 1) {
                            size_t at = (size_t)k * bits + b;
                            blk[yy * row + at / 8] |= (unsigned char)(0x80 >> (at % 8));
                        }
                }
            size_t n = tile ? row * bh : row * (height - y < bh ? height - y : bh);
            cr_assert(
                tile
                    ? TIFFWriteEncodedTile(t, TIFFComputeTile(t, x, y, 0, 0), blk, (tmsize_t)n) >= 0
                    : TIFFWriteEncodedStrip(t, TIFFComputeStrip(t, y, 0), blk, (tmsize_t)n) >= 0);
        }
    free(blk);
    TIFFClose(t);
}

/* Gray and gray+alpha of 1 to 16 bits, unsigned, in strips and in tiles whose columns start
 * inside a byte: each sample scaled from its range to 8 bits (up to 8) or 16, white-is-zero
 * inverted; fax compression of 1-bit ones; an extra sample without an ExtraSamples tag is
 * alpha, as Pillow reads it. */
Test(codecs, tiff_any_unsigned_depth)
{
    const uint16_t depths[] = {1, 2, 4, 5, 12, 16};
    for (size_t d = 0; d < sizeof(depths) / sizeof(depths[0]); d++)
        for (int layout = 0; layout < 5; layout++) {
            uint16_t bits = depths[d], spp = layout >= 3 ? 2 : 1;
            uint16_t comp = layout == 2 && bits == 1 ? COMPRESSION_CCITTFAX4 : COMPRESSION_LZW;
            uint16_t photometric = layout == 2 ? PHOTOMETRIC_MINISWHITE : PHOTOMETRIC_MINISBLACK;
            uint32_t w = 37, h = 21, top = (1u << bits) - 1;
            uint32_t *v = malloc(sizeof(uint32_t) * w * h * spp);
            cr_assert(v);
            for (uint32_t i = 0; i < w * h * spp; i++)
                v[i] = (i * 2654435761u >> 7) & top;
            write_packed_tiff(tc_tpath("bits.tif"), v, w, h, spp, bits, SAMPLEFORMAT_UINT,
                              photometric, layout == 1 ? 16 : 0, comp, layout == 3);
            vkfx_pixels got = {0};
            cr_assert_eq(vkfx_file_load(tc_tpath("bits.tif"), &got), VKFX_OK,
                         "%u-bit, layout %d: %s", bits, layout, vkfx_error_message());
            cr_assert_eq(got.channels, spp);
            uint32_t max = bits <= 8 ? 255 : 65535;
            cr_assert_eq(got.sample, bits <= 8 ? VKFX_SAMPLE_U8 : VKFX_SAMPLE_U16);
            for (uint32_t i = 0; i < w * h * spp; i++) {
                uint32_t want = (uint32_t)(((uint64_t)v[i] * max + top / 2) / top);
                if (photometric == PHOTOMETRIC_MINISWHITE)
                    want = max - want;
                uint32_t g = bits <= 8 ? ((uint8_t *)got.data)[i] : ((uint16_t *)got.data)[i];
                if (spp == 2 && i % 2 == 1 && photometric == PHOTOMETRIC_MINISWHITE)
                    want = max - want; /* alpha is not inverted */
                cr_assert_eq(g, want, "%u-bit, layout %d, sample %u: %u, want %u (stored %u)", bits,
                             layout, i, g, want, v[i]);
            }
            vkfx_pixels_free(&got);
            free(v);
        }
}

/* A palette's indices through its colour map (16-bit entries, their high bytes), and signed
 * samples clamped at 0, as Pillow and libvips show them. */
Test(codecs, tiff_palette_and_signed)
{
    uint32_t w = 13, h = 9;
    uint32_t v[13 * 9];
    for (uint16_t bits = 4; bits <= 8; bits += 4) {
        for (uint32_t i = 0; i < w * h; i++)
            v[i] = (i * 37u) & ((1u << bits) - 1);
        write_packed_tiff(tc_tpath("pal.tif"), v, w, h, 1, bits, SAMPLEFORMAT_UINT,
                          PHOTOMETRIC_PALETTE, 0, COMPRESSION_NONE, false);
        vkfx_pixels got = {0};
        cr_assert_eq(vkfx_file_load(tc_tpath("pal.tif"), &got), VKFX_OK, "%s",
                     vkfx_error_message());
        cr_assert_eq(got.channels, 3);
        uint32_t n = 1u << bits;
        for (uint32_t i = 0; i < w * h; i++)
            for (uint32_t c = 0; c < 3; c++)
                cr_assert_eq(((uint8_t *)got.data)[3 * i + c], (c * n + v[i]) * 7919u % 256,
                             "%u-bit palette, pixel %u channel %u", bits, i, c);
        vkfx_pixels_free(&got);
    }
    for (uint32_t i = 0; i < w * h; i++)
        v[i] = (uint32_t)(int32_t)((int)(i * 997 % 65536) - 32768) & 0xFFFF;
    write_packed_tiff(tc_tpath("s16.tif"), v, w, h, 1, 16, SAMPLEFORMAT_INT, PHOTOMETRIC_MINISBLACK,
                      0, COMPRESSION_NONE, false);
    vkfx_pixels got = {0};
    cr_assert_eq(vkfx_file_load(tc_tpath("s16.tif"), &got), VKFX_OK, "%s", vkfx_error_message());
    for (uint32_t i = 0; i < w * h; i++) {
        int32_t s = (int16_t)v[i];
        cr_assert_eq(((uint16_t *)got.data)[i], s < 0 ? 0 : s, "signed sample %u (%d): %u", i, s,
                     ((uint16_t *)got.data)[i]);
    }
    vkfx_pixels_free(&got);
}

Test(codecs, tiff_min_is_white)
{
    vkfx_pixels src = {0}, got = {0};
    random_samples(&src, 9, 5, 1, VKFX_SAMPLE_U16, 5);
    tiff_make m = {16, SAMPLEFORMAT_UINT, 1, PLANARCONFIG_CONTIG, COMPRESSION_NONE, 0, 0, true, 1};
    libtiff_write(tc_tpath("w.tif"), &src, &m);
    cr_assert_eq(vkfx_file_load(tc_tpath("w.tif"), &got), VKFX_OK, "%s", vkfx_error_message());
    for (size_t i = 0; i < 45; i++)
        cr_assert_eq(((uint16_t *)got.data)[i], 65535 - ((uint16_t *)src.data)[i]);
    vkfx_pixels_free(&src);
    vkfx_pixels_free(&got);
}

Test(codecs, tiff_first_page_and_a_note)
{
    vkfx_pixels src = {0}, got = {0};
    random_samples(&src, 8, 6, 3, VKFX_SAMPLE_U8, 9);
    tiff_make m = {8, SAMPLEFORMAT_UINT, 3, PLANARCONFIG_CONTIG, COMPRESSION_LZW, 0, 0, 0, 3};
    libtiff_write(tc_tpath("pages.tif"), &src, &m);
    cr_assert_eq(vkfx_file_load(tc_tpath("pages.tif"), &got), VKFX_OK, "%s", vkfx_error_message());
    expect_same(&got, &src, "first page");
    const char *note = vkfx_file_note();
    cr_assert(note && strstr(note, "pages.tif: a TIFF of 3 pages; only the first is read"), "%s",
              note ? note : "(no note)");
    vkfx_pixels_free(&got);
    vkfx_pixels_free(&src);
}

/* What vkfx writes, libtiff reads back sample for sample, with the
 * compression asked for (deflate by default). */
Test(codecs, tiff_write_read_back_by_libtiff)
{
    const vkfx_sample types[] = {VKFX_SAMPLE_U8, VKFX_SAMPLE_U16, VKFX_SAMPLE_F32};
    const struct {
        vkfx_save_opts opts;
        uint16_t want;
    } comps[] = {{{0}, COMPRESSION_ADOBE_DEFLATE},
                 {{.tiff_compression = VKFX_TIFF_LZW}, COMPRESSION_LZW},
                 {{.tiff_compression = VKFX_TIFF_NONE}, COMPRESSION_NONE}};
    for (int t = 0; t < 3; t++)
        for (uint32_t c = 1; c <= 4; c++)
            for (int k = 0; k < 3; k++) {
                vkfx_pixels src = {0};
                random_samples(&src, 29, 17, c, types[t], 100 + (uint64_t)(t * 16 + c * 4 + k));
                cr_assert_eq(
                    vkfx_file_save(tc_tpath("w.tif"), VKFX_FILE_TIFF, &src, &comps[k].opts),
                    VKFX_OK, "%s", vkfx_error_message());
                TIFF *tif = TIFFOpen(tc_tpath("w.tif"), "r");
                cr_assert(tif);
                uint16_t spp, bits, comp, format, nextra = 0, *extra = NULL;
                TIFFGetField(tif, TIFFTAG_SAMPLESPERPIXEL, &spp);
                TIFFGetField(tif, TIFFTAG_BITSPERSAMPLE, &bits);
                TIFFGetField(tif, TIFFTAG_COMPRESSION, &comp);
                TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLEFORMAT, &format);
                TIFFGetFieldDefaulted(tif, TIFFTAG_EXTRASAMPLES, &nextra, &extra);
                cr_assert(spp == c && bits == 8 * vkfx_sample_size(types[t]) &&
                              comp == comps[k].want &&
                              format == (types[t] == VKFX_SAMPLE_F32 ? SAMPLEFORMAT_IEEEFP
                                                                     : SAMPLEFORMAT_UINT),
                          "%u channels type %d: spp %u bits %u compression %u format %u", c, t, spp,
                          bits, comp, format);
                cr_assert(c % 2 == 1 || (nextra == 1 && extra[0] == EXTRASAMPLE_UNASSALPHA),
                          "alpha is not marked unassociated");
                size_t stride = (size_t)29 * c * vkfx_sample_size(types[t]);
                unsigned char *row = malloc((size_t)TIFFScanlineSize(tif));
                for (uint32_t y = 0; y < 17; y++) {
                    cr_assert_eq(TIFFReadScanline(tif, row, y, 0), 1);
                    cr_assert(!memcmp(row, (unsigned char *)src.data + stride * y, stride),
                              "%u channels type %d compression %u: row %u differs", c, t, comp, y);
                }
                free(row);
                TIFFClose(tif);
                vkfx_pixels_free(&src);
            }
    /* The option changes the file: uncompressed is larger than deflate. */
    vkfx_pixels src = {0};
    photo_like(&src, 64, 64, 3, 1);
    size_t none, deflate;
    cr_assert_eq(vkfx_file_save(tc_tpath("n.tif"), VKFX_FILE_TIFF, &src,
                                &(vkfx_save_opts){.tiff_compression = VKFX_TIFF_NONE}),
                 VKFX_OK);
    cr_assert_eq(vkfx_file_save(tc_tpath("d.tif"), VKFX_FILE_TIFF, &src, NULL), VKFX_OK);
    free(slurp(tc_tpath("n.tif"), &none));
    free(slurp(tc_tpath("d.tif"), &deflate));
    cr_assert_gt(none, deflate + 1000, "none %zu bytes, deflate %zu", none, deflate);
    vkfx_pixels_free(&src);
}

/* libtiff's complaints about a broken file are the error message, and
 * nothing reaches stderr. */
Test(codecs, tiff_errors_in_the_message_not_on_stderr)
{
    vkfx_pixels src = {0};
    random_samples(&src, 40, 30, 3, VKFX_SAMPLE_U8, 2);
    tiff_make m = {8, SAMPLEFORMAT_UINT, 3, PLANARCONFIG_CONTIG, COMPRESSION_ADOBE_DEFLATE, 0, 0, 0,
                   1};
    libtiff_write(tc_tpath("b.tif"), &src, &m);
    size_t size;
    unsigned char *data = slurp(tc_tpath("b.tif"), &size);
    fflush(stderr);
    int saved = dup(2);
    int fd = open(tc_tpath("stderr.txt"), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    cr_assert(saved >= 0 && fd >= 0);
    dup2(fd, 2);
    close(fd);
    /* Cut inside the strips, cut inside the header, deflate data spoiled. */
    expect_format_error(data, size / 2, "cut strips.tif");
    expect_format_error(data, 12, "cut header.tif");
    for (size_t i = 8; i < 40; i++)
        data[i] ^= 0x5A;
    vkfx_pixels px = {0};
    int ret = vkfx_file_load_memory(data, size, "spoiled.tif", &px);
    vkfx_pixels_free(&px);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    cr_assert_neq(ret, VKFX_OK);
    size_t err_len;
    free(slurp(tc_tpath("stderr.txt"), &err_len));
    cr_assert_eq(err_len, 0, "libtiff wrote %zu bytes on stderr", err_len);
    free(data);
    vkfx_pixels_free(&src);
}

/* ------------------------------------------------------------------------ */
/* WebP: libwebp called directly */

static unsigned char *libwebp_decode(const unsigned char *data, size_t size, bool alpha, int *w,
                                     int *h)
{
    unsigned char *p = alpha ? WebPDecodeRGBA(data, size, w, h) : WebPDecodeRGB(data, size, w, h);
    cr_assert(p, "libwebp cannot decode the file");
    return p;
}

static bool riff_has_chunk(const unsigned char *data, size_t size, const char *fourcc)
{
    for (size_t at = 12; at + 8 <= size;) {
        if (!memcmp(data + at, fourcc, 4))
            return true;
        uint32_t len = (uint32_t)data[at + 4] | (uint32_t)data[at + 5] << 8 |
                       (uint32_t)data[at + 6] << 16 | (uint32_t)data[at + 7] << 24;
        at += 8 + len + (len & 1);
    }
    return false;
}

Test(codecs, webp_both_ways)
{
    for (uint32_t c = 3; c <= 4; c++)
        for (int lossless = 0; lossless < 2; lossless++) {
            vkfx_pixels src = {0}, got = {0};
            photo_like(&src, 50, 30, c, c);
            vkfx_save_opts o = {.webp_lossless = lossless};
            cr_assert_eq(vkfx_file_save(tc_tpath("x.webp"), VKFX_FILE_WEBP, &src, &o), VKFX_OK,
                         "%s", vkfx_error_message());
            size_t size;
            unsigned char *data = slurp(tc_tpath("x.webp"), &size);
            cr_assert_eq(riff_has_chunk(data, size, "VP8L"), (bool)lossless,
                         "%u channels lossless %d: the file's coding is the other one", c,
                         lossless);
            int w, h;
            unsigned char *want = libwebp_decode(data, size, c == 4, &w, &h);
            cr_assert(w == 50 && h == 30);
            if (lossless)
                cr_assert(!memcmp(want, src.data, vkfx_pixels_bytes(&src)),
                          "%u channels: lossless is not exact", c);
            load_memory_ok(data, size, "x.webp", &got);
            cr_assert_eq(got.channels, c);
            cr_assert(!memcmp(got.data, want, vkfx_pixels_bytes(&got)),
                      "%u channels lossless %d: vkfx's pixels differ from libwebp's", c, lossless);
            WebPFree(want);
            free(data);
            vkfx_pixels_free(&src);
            vkfx_pixels_free(&got);
        }
}

/* -q reaches the lossy encoder. */
Test(codecs, webp_quality)
{
    vkfx_pixels src = {0};
    photo_like(&src, 96, 64, 3, 4);
    size_t lo, hi;
    cr_assert_eq(vkfx_file_save(tc_tpath("lo.webp"), VKFX_FILE_WEBP, &src,
                                &(vkfx_save_opts){.jpeg_quality = 20}),
                 VKFX_OK);
    cr_assert_eq(vkfx_file_save(tc_tpath("hi.webp"), VKFX_FILE_WEBP, &src,
                                &(vkfx_save_opts){.jpeg_quality = 98}),
                 VKFX_OK);
    free(slurp(tc_tpath("lo.webp"), &lo));
    free(slurp(tc_tpath("hi.webp"), &hi));
    cr_assert_lt(lo * 2, hi, "quality 20: %zu bytes, 98: %zu", lo, hi);
    vkfx_pixels_free(&src);
}

Test(codecs, webp_animation_first_frame_and_a_note)
{
    WebPAnimEncoderOptions ao;
    cr_assert(WebPAnimEncoderOptionsInit(&ao));
    WebPAnimEncoder *enc = WebPAnimEncoderNew(24, 16, &ao);
    cr_assert(enc);
    WebPConfig cfg;
    cr_assert(WebPConfigInit(&cfg));
    cfg.lossless = 1;
    vkfx_pixels frames[2];
    for (int f = 0; f < 2; f++) {
        tc_random_pixels(&frames[f], 24, 16, 4, VKFX_SAMPLE_U8, 70 + (uint64_t)f);
        for (size_t i = 0; i < 24 * 16; i++)
            ((unsigned char *)frames[f].data)[4 * i + 3] = 255;
        WebPPicture pic;
        cr_assert(WebPPictureInit(&pic));
        pic.use_argb = 1;
        pic.width = 24;
        pic.height = 16;
        cr_assert(WebPPictureImportRGBA(&pic, frames[f].data, 24 * 4));
        cr_assert(WebPAnimEncoderAdd(enc, &pic, f * 100, &cfg));
        WebPPictureFree(&pic);
    }
    cr_assert(WebPAnimEncoderAdd(enc, NULL, 200, NULL));
    WebPData anim;
    WebPDataInit(&anim);
    cr_assert(WebPAnimEncoderAssemble(enc, &anim));
    WebPAnimEncoderDelete(enc);
    vkfx_pixels got = {0};
    load_memory_ok(anim.bytes, anim.size, "anim.webp", &got);
    cr_assert_eq(got.channels, 4);
    cr_assert(!memcmp(got.data, frames[0].data, vkfx_pixels_bytes(&got)), "not the first frame");
    const char *note = vkfx_file_note();
    cr_assert(note && strstr(note, "anim.webp: an animated WebP of 2 frames"), "%s",
              note ? note : "(no note)");
    /* Cut short: an error. */
    expect_format_error(anim.bytes, anim.size * 2 / 3, "cut anim.webp");
    WebPDataClear(&anim);
    vkfx_pixels_free(&got);
    vkfx_pixels_free(&frames[0]);
    vkfx_pixels_free(&frames[1]);
}

Test(codecs, webp_truncated_is_an_error)
{
    vkfx_pixels src = {0};
    photo_like(&src, 40, 40, 3, 8);
    cr_assert_eq(vkfx_file_save(tc_tpath("t.webp"), VKFX_FILE_WEBP, &src, NULL), VKFX_OK);
    size_t size;
    unsigned char *data = slurp(tc_tpath("t.webp"), &size);
    const size_t cuts[] = {6, 11, 20, 40, size / 2, size - 1};
    for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
        char what[48];
        snprintf(what, sizeof(what), "WebP cut to %zu of %zu", cuts[i], size);
        expect_format_error(data, cuts[i], what);
    }
    free(data);
    vkfx_pixels_free(&src);
}

/* ------------------------------------------------------------------------ */
/* PNG level, BMP headers, signatures over names */

Test(codecs, png_level)
{
    vkfx_pixels src = {0}, back = {0};
    photo_like(&src, 120, 80, 3, 12);
    size_t sizes[3];
    const int levels[] = {0, 9, -1};
    for (int i = 0; i < 3; i++) {
        vkfx_save_opts o = {.png_level_set = levels[i] >= 0, .png_level = levels[i]};
        cr_assert_eq(vkfx_file_save(tc_tpath("l.png"), VKFX_FILE_PNG, &src, &o), VKFX_OK, "%s",
                     vkfx_error_message());
        free(slurp(tc_tpath("l.png"), &sizes[i]));
        cr_assert_eq(vkfx_file_load(tc_tpath("l.png"), &back), VKFX_OK);
        expect_same(&back, &src, "PNG at a level");
        vkfx_pixels_free(&back);
    }
    /* Level 0 stores: the file holds every filtered byte. */
    cr_assert_gt(sizes[0], vkfx_pixels_bytes(&src), "level 0: %zu bytes", sizes[0]);
    cr_assert_lt(sizes[1], sizes[0] * 3 / 4, "level 9 %zu, level 0 %zu", sizes[1], sizes[0]);
    cr_assert_leq(sizes[1], sizes[2], "level 9 %zu, default %zu", sizes[1], sizes[2]);
    vkfx_save_opts bad = {.png_level_set = true, .png_level = 10};
    cr_assert_eq(vkfx_file_save(tc_tpath("l.png"), VKFX_FILE_PNG, &src, &bad), VKFX_E_USAGE);
    vkfx_pixels_free(&src);
}

static void put_le32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

/* stb takes abs() of a BMP's height: -2^31 is refused first. A negative
 * height is a top-down BMP and reads upright; a size the file cannot hold
 * is refused before stb allocates for it. */
Test(codecs, bmp_heights)
{
    vkfx_pixels src = {0}, up = {0}, down = {0};
    tc_random_pixels(&src, 5, 4, 3, VKFX_SAMPLE_U8, 3);
    cr_assert_eq(vkfx_file_save(tc_tpath("a.bmp"), VKFX_FILE_BMP, &src, NULL), VKFX_OK);
    size_t size;
    unsigned char *bmp = slurp(tc_tpath("a.bmp"), &size);
    load_memory_ok(bmp, size, "a.bmp", &up);
    expect_same(&up, &src, "bottom-up BMP");
    /* The same rows in reverse order under a negative height. */
    uint32_t off = (uint32_t)bmp[10] | (uint32_t)bmp[11] << 8;
    size_t row = (5 * 3 + 3) / 4 * 4;
    unsigned char *flip = malloc(size);
    memcpy(flip, bmp, size);
    for (int y = 0; y < 4; y++)
        memcpy(flip + off + row * (size_t)y, bmp + off + row * (size_t)(3 - y), row);
    put_le32(flip + 22, (uint32_t)-4);
    load_memory_ok(flip, size, "topdown.bmp", &down);
    expect_same(&down, &src, "top-down BMP");
    put_le32(flip + 22, 0x80000000u);
    expect_format_error(flip, size, "minheight.bmp");
    put_le32(flip + 18, 10000);
    put_le32(flip + 22, 10000);
    expect_format_error(flip, size, "huge.bmp");
    free(flip);
    free(bmp);
    vkfx_pixels_free(&src);
    vkfx_pixels_free(&up);
    vkfx_pixels_free(&down);
}

/* A PNG named .jpg is a PNG; text named .png is not a format vkfx reads,
 * and says which formats it does. */
Test(codecs, format_from_signature_not_name)
{
    vkfx_pixels src = {0}, got = {0};
    tc_random_pixels(&src, 6, 6, 3, VKFX_SAMPLE_U16, 4);
    cr_assert_eq(vkfx_file_save(tc_tpath("p.png"), VKFX_FILE_PNG, &src, NULL), VKFX_OK);
    cr_assert_eq(rename(tc_tpath("p.png"), tc_tpath("p.jpg")), 0);
    cr_assert_eq(vkfx_file_load(tc_tpath("p.jpg"), &got), VKFX_OK, "%s", vkfx_error_message());
    expect_same(&got, &src, "PNG named .jpg");
    vkfx_pixels_free(&got);
    FILE *f = fopen(tc_tpath("t.png"), "w");
    cr_assert(f && fputs("hello", f) >= 0 && fclose(f) == 0);
    cr_assert_eq(vkfx_file_load(tc_tpath("t.png"), &got), VKFX_E_FORMAT);
    cr_assert(strstr(vkfx_error_message(),
                     "t.png: not a format vkfx reads (PNG, JPEG, TIFF, WebP, OpenEXR, "),
              "%s", vkfx_error_message());
    vkfx_image_info info;
    cr_assert_eq(vkfx_file_probe(tc_tpath("p.jpg"), &info), VKFX_OK);
    cr_assert(info.width == 6 && info.height == 6 && info.channels == 3 &&
              info.sample == VKFX_SAMPLE_U16);
    vkfx_pixels_free(&got);
    vkfx_pixels_free(&src);
}
