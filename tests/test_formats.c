/* The file formats from the command line: 16-bit and float files through
 * the identity chain bit-identical under --precision auto, each encoder
 * option reaching the file it writes, notes for pages and frames left
 * unread, folder scans by content. Runs the built binary. */
#include <criterion/criterion.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jpeglib.h>
#include <tiffio.h>

#include "common.h"
#include "error.h"
#include "fileio.h"
#include "run_binary.h"

static void setup(void)
{
    if (tc_tmpdir_make("formats") != 0)
        cr_assert_fail("mkdtemp: %s", strerror(errno));
}

TestSuite(formats, .init = setup, .fini = tc_tmpdir_remove);

static void save_ok(const char *path, vkfx_file_format fmt, const vkfx_pixels *px)
{
    int ret = vkfx_file_save(path, fmt, px, NULL);
    cr_assert_eq(ret, VKFX_OK, "save %s: %s", path, vkfx_error_message());
}

static void load_ok(const char *path, vkfx_pixels *px)
{
    int ret = vkfx_file_load(path, px);
    cr_assert_eq(ret, VKFX_OK, "load %s: %s", path, vkfx_error_message());
}

static void expect_ok(const cli_run *r)
{
    cr_assert_eq(r->status, 0, "%s: exit %d; stderr:\n%s", r->cmd, r->status, r->err);
    cr_assert_str_empty(r->err, "%s: stderr:\n%s", r->cmd, r->err);
}

static size_t file_size(const char *path)
{
    struct stat st;
    cr_assert_eq(stat(path, &st), 0, "%s: %s", path, strerror(errno));
    return (size_t)st.st_size;
}

/* Whether two images have the same shape and samples. */
static bool same(const vkfx_pixels *a, const vkfx_pixels *b)
{
    return a->width == b->width && a->height == b->height && a->channels == b->channels &&
           a->sample == b->sample && !memcmp(a->data, b->data, vkfx_pixels_bytes(a));
}

/* Full-range random samples: rgba16f would round most of them. Opaque
 * 16-bit images go through box:radius=0; float ones and those with alpha
 * through histogram, which hands its input on untouched: box's rolling
 * sums round in the last bit of a float, which a float file keeps and
 * un-premultiplying a small alpha magnifies past half a 16-bit step. Float
 * colour with alpha makes the round trip through premultiplied colour. */
Test(formats, identity_keeps_16_bit_and_float_samples, .timeout = 120)
{
    const struct {
        const char *in;
        vkfx_file_format fmt;
        vkfx_sample s;
    } cases[] = {
        {"in16.png", VKFX_FILE_PNG, VKFX_SAMPLE_U16},
        {"in16.tif", VKFX_FILE_TIFF, VKFX_SAMPLE_U16},
        {"inf.tif", VKFX_FILE_TIFF, VKFX_SAMPLE_F32},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        for (uint32_t c = 1; c <= 4; c++) {
            vkfx_pixels src = {0}, got = {0};
            tc_random_pixels(&src, 67, 41, c, cases[i].s, 10 + i * 4 + c);
            const char *chain =
                c % 2 && cases[i].s == VKFX_SAMPLE_U16 ? "box:radius=0" : "histogram";
            save_ok(tc_tpath(cases[i].in), cases[i].fmt, &src);
            const char *ext = strrchr(cases[i].in, '.');
            char out[32], out16[32], what[96];
            snprintf(out, sizeof(out), "out%s", ext);
            snprintf(out16, sizeof(out16), "out16%s", ext);
            snprintf(what, sizeof(what), "%s, %u channels, %s", cases[i].in, c, chain);
            cli_run r = {0};
            VKFX(&r, tc_tpath(cases[i].in), "-f", chain, "-o", tc_tpath(out));
            expect_ok(&r);
            run_free(&r);
            load_ok(tc_tpath(out), &got);
            if (cases[i].s == VKFX_SAMPLE_F32 && c % 2 == 0) {
                /* Float colour is premultiplied and divided again: c * a / a
                 * is c to within two roundings of a float. */
                tc_diff d = tc_compare_rel(&got, &src, 2.5e-7, 1e-6);
                if (!tc_diff_ok(&d))
                    tc_report(&d, what);
                cr_assert(tc_diff_ok(&d), "%s: more than two float roundings off", what);
            } else {
                tc_diff d = tc_compare(&got, &src, 0);
                if (!tc_diff_ok(&d))
                    tc_report(&d, what);
                cr_assert(same(&got, &src), "%s: not bit-identical", what);
            }
            vkfx_pixels_free(&got);
            if (cases[i].s == VKFX_SAMPLE_U16) {
                /* --precision 16 still forces rgba16f, which rounds. */
                VKFX(&r, tc_tpath(cases[i].in), "-f", chain, "-o", tc_tpath(out16), "--precision",
                     "16");
                expect_ok(&r);
                run_free(&r);
                load_ok(tc_tpath(out16), &got);
                cr_assert(!same(&got, &src), "%s: --precision 16 changed nothing", what);
                vkfx_pixels_free(&got);
            }
            vkfx_pixels_free(&src);
        }
}

/* An 8-bit input with a 16-bit map runs in rgba32f: the same bytes as
 * --precision 32, other bytes than --precision 16. */
Test(formats, a_16_bit_map_selects_rgba32f, .timeout = 120)
{
    vkfx_pixels img = {0}, map = {0}, a = {0}, b = {0}, c = {0};
    tc_random_pixels(&img, 64, 48, 3, VKFX_SAMPLE_U8, 1);
    tc_random_pixels(&map, 64, 48, 1, VKFX_SAMPLE_U16, 2);
    save_ok(tc_tpath("img.png"), VKFX_FILE_PNG, &img);
    save_ok(tc_tpath("map.png"), VKFX_FILE_PNG, &map);
    char chain[600];
    snprintf(chain, sizeof(chain), "satblur:map=%s:scale=6", tc_tpath("map.png"));
    const char *const precisions[] = {NULL, "16", "32"};
    const char *const outs[] = {"auto.png", "p16.png", "p32.png"};
    vkfx_pixels *got[] = {&a, &b, &c};
    for (int i = 0; i < 3; i++) {
        cli_run r = {0};
        if (precisions[i])
            VKFX(&r, tc_tpath("img.png"), "-f", chain, "-o", tc_tpath(outs[i]), "--precision",
                 precisions[i]);
        else
            VKFX(&r, tc_tpath("img.png"), "-f", chain, "-o", tc_tpath(outs[i]));
        expect_ok(&r);
        run_free(&r);
        load_ok(tc_tpath(outs[i]), got[i]);
    }
    cr_assert(!same(&b, &c), "this image gives the same bytes at both precisions: no test");
    cr_assert(same(&a, &c), "auto with a 16-bit map did not run in rgba32f");
    vkfx_pixels_free(&img);
    vkfx_pixels_free(&map);
    vkfx_pixels_free(&a);
    vkfx_pixels_free(&b);
    vkfx_pixels_free(&c);
}

/* path read and its header parsed by libjpeg into d; returns the file's bytes (malloc'd), which
 * d reads from until it is destroyed. */
static char *jpeg_begin(const char *path, struct jpeg_decompress_struct *d,
                        struct jpeg_error_mgr *e)
{
    size_t size;
    char *data = tc_slurp(path, &size);
    cr_assert(data);
    d->err = jpeg_std_error(e);
    jpeg_create_decompress(d);
    jpeg_mem_src(d, (unsigned char *)data, (unsigned long)size);
    cr_assert_eq(jpeg_read_header(d, TRUE), JPEG_HEADER_OK);
    return data;
}

static void jpeg_header(const char *path, int *h, int *v, bool *progressive)
{
    struct jpeg_decompress_struct d;
    struct jpeg_error_mgr e;
    char *data = jpeg_begin(path, &d, &e);
    *h = d.comp_info[0].h_samp_factor;
    *v = d.comp_info[0].v_samp_factor;
    *progressive = d.progressive_mode;
    jpeg_destroy_decompress(&d);
    free(data);
}

/* The pixels libjpeg decodes from path (malloc'd, *n bytes). */
static unsigned char *jpeg_pixels(const char *path, size_t *n)
{
    struct jpeg_decompress_struct d;
    struct jpeg_error_mgr e;
    char *data = jpeg_begin(path, &d, &e);
    jpeg_start_decompress(&d);
    size_t stride = (size_t)d.output_width * d.output_components;
    *n = stride * d.output_height;
    unsigned char *px = malloc(*n);
    cr_assert(px);
    while (d.output_scanline < d.output_height) {
        JSAMPROW row = px + stride * d.output_scanline;
        jpeg_read_scanlines(&d, &row, 1);
    }
    jpeg_finish_decompress(&d);
    jpeg_destroy_decompress(&d);
    free(data);
    return px;
}

static uint16_t tiff_compression(const char *path)
{
    TIFF *t = TIFFOpen(path, "r");
    cr_assert(t, "%s", path);
    uint16_t comp = 0;
    TIFFGetField(t, TIFFTAG_COMPRESSION, &comp);
    TIFFClose(t);
    return comp;
}

/* Each option, given on the command line, shows in the file written. */
Test(formats, encoder_options_reach_the_file, .timeout = 300)
{
    vkfx_pixels src = {0};
    tc_random_pixels(&src, 80, 60, 3, VKFX_SAMPLE_U8, 3);
    save_ok(tc_tpath("in.png"), VKFX_FILE_PNG, &src);
    char in[512];
    snprintf(in, sizeof(in), "%s", tc_tpath("in.png"));
    cli_run r = {0};
#define RUN_OK(...)                                                                                \
    do {                                                                                           \
        VKFX(&r, in, "-f", "box:radius=1", __VA_ARGS__);                                           \
        expect_ok(&r);                                                                             \
        run_free(&r);                                                                              \
    } while (0)
    int h, v;
    bool prog;
    RUN_OK("-o", tc_tpath("d.jpg"));
    jpeg_header(tc_tpath("d.jpg"), &h, &v, &prog);
    cr_assert(h == 1 && v == 1 && !prog, "default: %dx%d progressive %d", h, v, prog);
    RUN_OK("-o", tc_tpath("q.jpg"), "-q", "80");
    jpeg_header(tc_tpath("q.jpg"), &h, &v, &prog);
    cr_assert(h == 2 && v == 2, "-q 80: %dx%d, want 4:2:0", h, v);
    RUN_OK("-o", tc_tpath("s.jpg"), "--jpeg-subsampling", "422");
    jpeg_header(tc_tpath("s.jpg"), &h, &v, &prog);
    cr_assert(h == 2 && v == 1, "--jpeg-subsampling 422: %dx%d", h, v);
    RUN_OK("-o", tc_tpath("p.jpg"), "--jpeg-progressive");
    jpeg_header(tc_tpath("p.jpg"), &h, &v, &prog);
    cr_assert(prog, "--jpeg-progressive: baseline");
    /* Optimised tables: a smaller file of the same pixels. */
    RUN_OK("-o", tc_tpath("o.jpg"), "--jpeg-optimize");
    jpeg_header(tc_tpath("o.jpg"), &h, &v, &prog);
    cr_assert(h == 1 && v == 1 && !prog, "--jpeg-optimize: %dx%d progressive %d", h, v, prog);
    cr_assert_lt(file_size(tc_tpath("o.jpg")), file_size(tc_tpath("d.jpg")));
    size_t nd, no;
    unsigned char *pd = jpeg_pixels(tc_tpath("d.jpg"), &nd),
                  *po = jpeg_pixels(tc_tpath("o.jpg"), &no);
    cr_assert(nd == no && !memcmp(pd, po, nd), "--jpeg-optimize changed the pixels");
    free(pd);
    free(po);

    RUN_OK("-o", tc_tpath("l0.png"), "--png-level", "0");
    RUN_OK("-o", tc_tpath("l9.png"), "--png-level", "9");
    cr_assert_gt(file_size(tc_tpath("l0.png")), vkfx_pixels_bytes(&src));
    cr_assert_lt(file_size(tc_tpath("l9.png")), file_size(tc_tpath("l0.png")));

    RUN_OK("-o", tc_tpath("d.tif"));
    RUN_OK("-o", tc_tpath("n.tif"), "--tiff-compression", "none");
    RUN_OK("-o", tc_tpath("z.tif"), "--tiff-compression", "lzw");
    cr_assert_eq(tiff_compression(tc_tpath("d.tif")), COMPRESSION_ADOBE_DEFLATE);
    cr_assert_eq(tiff_compression(tc_tpath("n.tif")), COMPRESSION_NONE);
    cr_assert_eq(tiff_compression(tc_tpath("z.tif")), COMPRESSION_LZW);

    RUN_OK("-o", tc_tpath("lossy.webp"));
    RUN_OK("-o", tc_tpath("low.webp"), "-q", "10");
    RUN_OK("-o", tc_tpath("exact.webp"), "--lossless");
    RUN_OK("-o", tc_tpath("exact.png"));
    cr_assert_lt(file_size(tc_tpath("low.webp")), file_size(tc_tpath("lossy.webp")));
    vkfx_pixels a = {0}, b = {0};
    load_ok(tc_tpath("exact.webp"), &a);
    load_ok(tc_tpath("exact.png"), &b);
    cr_assert(same(&a, &b), "--lossless WebP differs from the PNG of the same run");
    vkfx_pixels_free(&a);
    vkfx_pixels_free(&b);

    const char *const bad[][2] = {{"--jpeg-subsampling", "411"},
                                  {"--png-level", "10"},
                                  {"--tiff-compression", "zip"},
                                  {"--precision", "64"}};
    for (int i = 0; i < 4; i++) {
        VKFX(&r, in, "-f", "box:radius=1", "-o", tc_tpath("x.png"), bad[i][0], bad[i][1]);
        cr_assert_eq(r.status, 2, "%s %s: exit %d", bad[i][0], bad[i][1], r.status);
        cr_assert(strstr(r.err, bad[i][0]) && strstr(r.err, bad[i][1]), "%s", r.err);
        run_free(&r);
    }
#undef RUN_OK
    vkfx_pixels_free(&src);
}

/* A TIFF of two pages: the first is processed, and stderr says so. */
Test(formats, pages_left_unread_are_noted, .timeout = 120)
{
    vkfx_pixels src = {0};
    tc_random_pixels(&src, 20, 10, 3, VKFX_SAMPLE_U8, 4);
    cr_assert_eq(tc_write_pages_tiff(tc_tpath("two.tif"), &src, 2), 0);
    cli_run r = {0};
    VKFX(&r, tc_tpath("two.tif"), "-f", "box:radius=0", "-o", tc_tpath("one.png"));
    cr_assert_eq(r.status, 0, "exit %d: %s", r.status, r.err);
    cr_assert(strstr(r.err, "vkfx: note: ") && strstr(r.err, "two.tif: a TIFF of 2 pages; only "
                                                             "the first is read\n"),
              "stderr:\n%s", r.err);
    run_free(&r);
    vkfx_pixels got = {0};
    load_ok(tc_tpath("one.png"), &got);
    cr_assert(same(&got, &src));
    vkfx_pixels_free(&got);
    vkfx_pixels_free(&src);
}

/* A folder stands for every file in it that reads as an image, whatever
 * its name; a file named as an image that is not one is reported, a text
 * file with another name is passed over. */
Test(formats, folder_scan_by_content, .timeout = 120)
{
    cr_assert_eq(mkdir(tc_tpath("in"), 0777), 0);
    cr_assert_eq(mkdir(tc_tpath("out"), 0777), 0);
    vkfx_pixels px = {0};
    tc_random_pixels(&px, 12, 9, 3, VKFX_SAMPLE_U8, 5);
    save_ok(tc_tpath("in/a.tif"), VKFX_FILE_TIFF, &px);
    save_ok(tc_tpath("in/b.webp"), VKFX_FILE_WEBP, &px);
    save_ok(tc_tpath("in/c.jpg"), VKFX_FILE_JPEG, &px);
    save_ok(tc_tpath("in/scan0001"), VKFX_FILE_PNG, &px);
    FILE *f = fopen(tc_tpath("in/broken.jpg"), "w");
    cr_assert(f && fputs("not a JPEG at all", f) >= 0 && fclose(f) == 0);
    f = fopen(tc_tpath("in/notes.txt"), "w");
    cr_assert(f && fputs("shot list", f) >= 0 && fclose(f) == 0);
    cli_run r = {0};
    VKFX(&r, tc_tpath("in"), "-f", "box:radius=0", "-o", tc_tpath("out/{stem}.png"), "-j", "1");
    cr_assert_eq(r.status, 1, "exit %d: %s", r.status, r.err);
    cr_assert(strstr(r.err, "broken.jpg: not a format vkfx reads (PNG, JPEG, TIFF, WebP, OpenEXR"),
              "stderr:\n%s", r.err);
    run_free(&r);
    const char *const want[] = {"out/a.png", "out/b.png", "out/c.png", "out/scan0001.png"};
    for (int i = 0; i < 4; i++) {
        struct stat st;
        cr_assert_eq(stat(tc_tpath(want[i]), &st), 0, "%s was not written", want[i]);
    }
    struct stat st;
    cr_assert_neq(stat(tc_tpath("out/notes.png"), &st), 0, "notes.txt was taken for an image");
    vkfx_pixels_free(&px);
}

/* The files of other writers in tests/data/formats (README.md there says how each was
 * made), through the identity chain: each must come out as FILE.png beside it, Pillow's
 * decode of FILE (or, where Pillow does not read it right, the pixels FILE was made from
 * or ImageMagick's decode). Colour under alpha 0 is not compared. */
Test(formats, other_writers_decode_as_their_references, .timeout = 300)
{
    static const char *const names[] = {
        "bmp_hand_24_with_palette.bmp",
        "bmp_hand_os2_v2.bmp",
        "bmp_hand_rle8_delta.bmp",
        "bmp_hand_short_palette.bmp",
        "bmp_hand_v3_alpha_top_down.bmp",
        "bmp_magick_555.bmp",
        "bmp_magick_565.bmp",
        "bmp_magick_argb4444.bmp",
        "bmp_magick_os2_v1.bmp",
        "bmp_magick_rgba.bmp",
        "bmp_magick_rle4.bmp",
        "bmp_magick_rle8.bmp",
        "gif_gifbuild_background.gif",
        "gif_gifbuild_transparent.gif",
        "gif_magick_interlaced.gif",
        "gif_pillow_animated.gif",
        "gif_pillow_palette.gif",
        "gif_pillow_transparent.gif",
        "psd_magick_16.psd",
        "psd_magick_gray.psd",
        "psd_magick_raw.psd",
        "psd_magick_rgb.psd",
        "psd_magick_rgba.psd",
        "tga_hand_right_to_left.tga",
        "tga_hand_top_right.tga",
        "tga_pillow_rle.tga",
        "png_magick_text_exif6.png",
        "png_pillow_xmp_orientation8.png",
    };
    enum { N = sizeof(names) / sizeof(names[0]) };
    static char in[N][256];
    const char *args[N + 8];
    size_t k = 0;
    for (size_t i = 0; i < N; i++) {
        snprintf(in[i], sizeof(in[i]), "%s/tests/data/formats/%s", VKFX_SOURCE_ROOT, names[i]);
        args[k++] = in[i];
    }
    args[k++] = "-f";
    args[k++] = "box:radius=0";
    args[k++] = "-o";
    args[k++] = tc_tpath("{name}.png");
    args[k++] = "-j";
    args[k++] = "1";
    args[k] = NULL;
    cli_run r = {0};
    run_with(&r, NULL, args);
    cr_assert_eq(r.status, 0, "%s: exit %d; stderr:\n%s", r.cmd, r.status, r.err);
    run_free(&r);
    for (size_t i = 0; i < N; i++) {
        char want_path[600], got_path[700];
        snprintf(want_path, sizeof(want_path), "%s/tests/data/formats/%s.png", VKFX_SOURCE_ROOT,
                 names[i]);
        snprintf(got_path, sizeof(got_path), "%s/%s.png", tc_tmpdir, names[i]);
        vkfx_pixels want = {0}, got = {0};
        load_ok(want_path, &want);
        load_ok(got_path, &got);
        cr_assert(want.width == got.width && want.height == got.height && want.sample == got.sample,
                  "%s: %ux%u of sample %d, want %ux%u of %d", names[i], got.width, got.height,
                  got.sample, want.width, want.height, want.sample);
        const bool want_alpha = !(want.channels & 1), got_alpha = !(got.channels & 1);
        cr_assert_eq(got_alpha, want_alpha, "%s: %u channels, want %u", names[i], got.channels,
                     want.channels);
        for (size_t p = 0; p < (size_t)want.width * want.height; p++) {
            uint32_t a[4], b[4];
            for (int c = 0; c < 4; c++) {
                /* gray is one sample for R, G and B; a missing alpha is opaque */
                uint32_t wc = c == 3 ? want.channels - 1 : want.channels < 3 ? 0 : (uint32_t)c;
                uint32_t gc = c == 3 ? got.channels - 1 : got.channels < 3 ? 0 : (uint32_t)c;
                size_t wi = p * want.channels + wc, gi = p * got.channels + gc;
                a[c] = want.sample == VKFX_SAMPLE_U16 ? ((uint16_t *)want.data)[wi]
                                                      : ((unsigned char *)want.data)[wi];
                b[c] = got.sample == VKFX_SAMPLE_U16 ? ((uint16_t *)got.data)[gi]
                                                     : ((unsigned char *)got.data)[gi];
                if (c == 3 && !want_alpha)
                    a[c] = b[c] = 1;
            }
            if (a[3] == 0 && b[3] == 0)
                continue;
            cr_assert(!memcmp(a, b, sizeof(a)),
                      "%s: pixel (%zu, %zu) is %u %u %u %u, want %u %u %u %u", names[i],
                      p % want.width, p / want.width, b[0], b[1], b[2], b[3], a[0], a[1], a[2],
                      a[3]);
        }
        vkfx_pixels_free(&want);
        vkfx_pixels_free(&got);
    }
}

/* --depth sets the output's bits where the format holds them: 16-bit to 8 (rounded, as
 * v / 257), 8-bit to 16 (v * 257), in PNG and TIFF, on the command line and in a job file;
 * 16 for JPEG or 8 for OpenEXR is a usage error that writes nothing. */
Test(formats, depth_sets_the_output_bits, .timeout = 180)
{
    vkfx_pixels src16 = {0}, src8 = {0}, got = {0};
    tc_random_pixels(&src16, 9, 7, 3, VKFX_SAMPLE_U16, 11);
    tc_random_pixels(&src8, 9, 7, 4, VKFX_SAMPLE_U8, 12);
    save_ok(tc_tpath("in16.png"), VKFX_FILE_PNG, &src16);
    save_ok(tc_tpath("in8.png"), VKFX_FILE_PNG, &src8);
    cli_run r = {0};
    VKFX(&r, tc_tpath("in16.png"), "-f", "box:radius=0", "-o", tc_tpath("out8.png"), "--depth",
         "8");
    expect_ok(&r);
    run_free(&r);
    load_ok(tc_tpath("out8.png"), &got);
    cr_assert_eq(got.sample, VKFX_SAMPLE_U8, "--depth 8 wrote sample type %d", got.sample);
    for (size_t i = 0; i < 9 * 7 * 3; i++) {
        unsigned want = (((uint16_t *)src16.data)[i] * 255u + 32767u) / 65535u;
        cr_assert_eq(((unsigned char *)got.data)[i], want, "sample %zu", i);
    }
    vkfx_pixels_free(&got);

    FILE *f = fopen(tc_tpath("jobs"), "w");
    cr_assert(f);
    fprintf(f, "%s -o %s --depth 16\n", tc_tpath("in8.png"), tc_tpath("out16.tif"));
    cr_assert_eq(fclose(f), 0);
    VKFX(&r, "run", tc_tpath("jobs"));
    expect_ok(&r);
    run_free(&r);
    load_ok(tc_tpath("out16.tif"), &got);
    cr_assert_eq(got.sample, VKFX_SAMPLE_U16, "--depth 16 wrote sample type %d", got.sample);
    for (size_t i = 0; i < 9 * 7 * 4; i++) {
        const unsigned char *s8 = src8.data;
        if (s8[i | 3] == 0)
            continue; /* no colour under alpha 0 */
        cr_assert_eq(((uint16_t *)got.data)[i], s8[i] * 257u, "sample %zu: %u, want %u", i,
                     ((uint16_t *)got.data)[i], s8[i] * 257u);
    }
    vkfx_pixels_free(&got);

    const char *const bad[][3] = {
        {"x.jpg", "16", "JPEG cannot hold 16-bit samples (PNG, TIFF can)"},
        {"x.exr", "8", "OpenEXR cannot hold 8-bit samples"},
        {"x.png", "12", "--depth '12' must be 8 or 16"}};
    for (int i = 0; i < 3; i++) {
        VKFX(&r, tc_tpath("in8.png"), "-o", tc_tpath(bad[i][0]), "--depth", bad[i][1]);
        cr_assert_eq(r.status, 2, "--depth %s to %s: exit %d; stderr:\n%s", bad[i][1], bad[i][0],
                     r.status, r.err);
        cr_assert(strstr(r.err, bad[i][2]), "stderr:\n%s", r.err);
        run_free(&r);
        struct stat st;
        cr_assert_neq(stat(tc_tpath(bad[i][0]), &st), 0, "%s was written", bad[i][0]);
    }
    vkfx_pixels_free(&src16);
    vkfx_pixels_free(&src8);
}
