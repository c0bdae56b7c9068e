/* JPEG encoding on the device (core/gpu/jpeg_gpu_enc.c) against libjpeg-turbo's file for the same
 * settings, byte for byte: the photos, flat, noisy and smooth images of every size modulo the
 * MCU, 1x1, every quality on some, each subsampling and gray, restart markers, optimised
 * tables. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec.h"
#include "common.h"
#include "error.h"
#include "gpu_harness.h"
#include "jpeg_gpu_enc.h"
#include "preview.h"
#include "run_binary.h"

static const vkfx_codec *jpeg_codec(void)
{
    for (const vkfx_codec *const *c = vkfx_codecs; *c; c++)
        if (!strcmp((*c)->name, "JPEG"))
            return *c;
    cr_assert_fail("no JPEG codec");
    return NULL;
}

/* libjpeg-turbo's file, through the codec vkfx writes JPEG with. */
static unsigned char *cpu_file(const vkfx_pixels *px, const vkfx_save_opts *opts, size_t *size)
{
    char *data = NULL;
    FILE *f = open_memstream(&data, size);
    cr_assert(f);
    cr_assert_eq(jpeg_codec()->encode(f, "mem.jpg", px, opts), VKFX_OK, "%s", vkfx_error_message());
    cr_assert_eq(fclose(f), 0);
    return (unsigned char *)data;
}

static const char *sub_name(vkfx_jpeg_subsampling s)
{
    switch (s) {
    case VKFX_JPEG_SUBSAMPLING_AUTO:
        return "auto";
    case VKFX_JPEG_SUBSAMPLING_444:
        return "444";
    case VKFX_JPEG_SUBSAMPLING_422:
        return "422";
    case VKFX_JPEG_SUBSAMPLING_420:
        return "420";
    }
    return "?";
}

static void check(th_gpu *g, const vkfx_pixels *px, const vkfx_save_opts *opts, const char *what)
{
    size_t want_size = 0, got_size = 0;
    unsigned char *want = cpu_file(px, opts, &want_size), *got = NULL;
    int ret = vkfx_jpegenc_encode(g->ctx, g->staging, px, opts, &got, &got_size);
    cr_assert_eq(ret, VKFX_OK, "%s: %s", what, vkfx_error_message());
    size_t at = 0;
    while (at < want_size && at < got_size && want[at] == got[at])
        at++;
    cr_assert(at == want_size && at == got_size,
              "%s %ux%ux%u q%d %s%s restart %u: %zu bytes, libjpeg-turbo %zu, first difference "
              "at %zu",
              what, px->width, px->height, px->channels, opts->jpeg_quality,
              sub_name(opts->jpeg_subsampling), opts->jpeg_optimize ? " optimised" : "",
              opts->jpeg_restart, got_size, want_size, at);
    free(want);
    free(got);
}

/* 8-bit gray or RGB from an RGBA image: its first channel, or its colour. */
static void to_channels(const vkfx_pixels *rgba, uint32_t channels, vkfx_pixels *out)
{
    cr_assert_eq(vkfx_pixels_alloc(out, rgba->width, rgba->height, channels, VKFX_SAMPLE_U8),
                 VKFX_OK);
    const unsigned char *s = rgba->data;
    unsigned char *d = out->data;
    for (size_t i = 0; i < (size_t)rgba->width * rgba->height; i++)
        for (uint32_t c = 0; c < channels; c++)
            d[i * channels + c] = s[i * 4 + c];
}

static void flat(vkfx_pixels *px, uint32_t w, uint32_t h, uint32_t channels, unsigned value)
{
    cr_assert_eq(vkfx_pixels_alloc(px, w, h, channels, VKFX_SAMPLE_U8), VKFX_OK);
    unsigned char *d = px->data;
    for (size_t i = 0; i < (size_t)w * h * channels; i++)
        d[i] = (unsigned char)(value + 40 * (i % channels));
}

static const vkfx_jpeg_subsampling subs[] = {VKFX_JPEG_SUBSAMPLING_444, VKFX_JPEG_SUBSAMPLING_422,
                                             VKFX_JPEG_SUBSAMPLING_420};

/* Every size modulo the largest MCU (16x16), and 1x1, in noise, ramps and flat colour, gray and
 * each subsampling. */
Test(jpegenc, sizes)
{
    th_gpu g;
    th_gpu_open(&g);
    static const uint32_t sizes[][2] = {{1, 1},   {1, 9},   {2, 2},   {3, 17},  {7, 5},
                                        {8, 8},   {9, 15},  {15, 16}, {16, 16}, {17, 1},
                                        {23, 31}, {31, 23}, {33, 34}, {40, 47}, {13, 11}};
    for (size_t s = 0; s < sizeof(sizes) / sizeof(*sizes); s++) {
        uint32_t w = sizes[s][0], h = sizes[s][1];
        vkfx_pixels rgba, px;
        for (int kind = 0; kind < 3; kind++) {
            for (uint32_t channels = 1; channels <= 3; channels += 2) {
                if (kind == 2) {
                    flat(&px, w, h, channels, 100);
                } else {
                    if (kind == 0)
                        tc_random_pixels(&rgba, w, h, 4, VKFX_SAMPLE_U8, s * 7 + 1);
                    else
                        tc_ramp_pixels(&rgba, w, h);
                    to_channels(&rgba, channels, &px);
                    vkfx_pixels_free(&rgba);
                }
                for (size_t k = 0; k < (channels == 1 ? 1 : 3); k++) {
                    vkfx_save_opts o = {.jpeg_quality = 85, .jpeg_subsampling = subs[k]};
                    check(&g, &px, &o, kind == 0 ? "noise" : kind == 1 ? "ramp" : "flat");
                }
                vkfx_pixels_free(&px);
            }
        }
    }
    th_gpu_close(&g);
}

/* Every quality, with vkfx's default subsampling (4:4:4 from 90, 4:2:0 below), and gray. */
Test(jpegenc, qualities)
{
    th_gpu g;
    th_gpu_open(&g);
    vkfx_pixels rgba, rgb, gray, noise;
    tc_ramp_pixels(&rgba, 45, 37);
    to_channels(&rgba, 3, &rgb);
    to_channels(&rgba, 1, &gray);
    vkfx_pixels_free(&rgba);
    tc_random_pixels(&rgba, 21, 19, 4, VKFX_SAMPLE_U8, 5);
    to_channels(&rgba, 3, &noise);
    vkfx_pixels_free(&rgba);
    for (int q = 1; q <= 100; q++) {
        vkfx_save_opts o = {.jpeg_quality = q};
        check(&g, &rgb, &o, "ramp");
        check(&g, &gray, &o, "gray ramp");
        check(&g, &noise, &o, "noise");
    }
    vkfx_pixels_free(&rgb);
    vkfx_pixels_free(&gray);
    vkfx_pixels_free(&noise);
    th_gpu_close(&g);
}

/* The photos at the default quality and at 75 in 4:2:0 and 4:2:2, with standard and optimised
 * tables. */
Test(jpegenc, photos)
{
    th_gpu g;
    th_gpu_open(&g);
    for (const char *const *name = tc_photos(); *name; name++) {
        vkfx_pixels px;
        cr_assert_eq(tc_load_photo(*name, &px), VKFX_OK, "%s", *name);
        if (px.channels != 1 && px.channels != 3) {
            vkfx_pixels rgba = px;
            cr_assert_eq(rgba.channels, 4);
            to_channels(&rgba, 3, &px);
            vkfx_pixels_free(&rgba);
        }
        for (int optimise = 0; optimise < 2; optimise++) {
            vkfx_save_opts o = {.jpeg_optimize = optimise};
            check(&g, &px, &o, *name);
            o.jpeg_quality = 75;
            o.jpeg_subsampling = VKFX_JPEG_SUBSAMPLING_420;
            check(&g, &px, &o, *name);
            o.jpeg_subsampling = VKFX_JPEG_SUBSAMPLING_422;
            check(&g, &px, &o, *name);
        }
        vkfx_pixels_free(&px);
    }
    th_gpu_close(&g);
}

/* Restart markers every 1, 3 and 7 MCUs, and every 9 with one interval only; optimised tables
 * over small and skewed images, where the lengths folded back to 16 bits matter. */
Test(jpegenc, restarts_and_optimised)
{
    th_gpu g;
    th_gpu_open(&g);
    static const uint16_t restarts[] = {1, 3, 7, 500};
    for (uint32_t channels = 1; channels <= 3; channels += 2) {
        vkfx_pixels rgba, px, ramp;
        tc_random_pixels(&rgba, 61, 35, 4, VKFX_SAMPLE_U8, channels);
        to_channels(&rgba, channels, &px);
        vkfx_pixels_free(&rgba);
        tc_ramp_pixels(&rgba, 70, 26);
        to_channels(&rgba, channels, &ramp);
        vkfx_pixels_free(&rgba);
        for (size_t k = 0; k < (channels == 1 ? 1 : 3); k++)
            for (int optimise = 0; optimise < 2; optimise++) {
                for (size_t r = 0; r < sizeof(restarts) / sizeof(*restarts); r++) {
                    vkfx_save_opts o = {.jpeg_quality = 80,
                                        .jpeg_subsampling = subs[k],
                                        .jpeg_optimize = optimise,
                                        .jpeg_restart = restarts[r]};
                    check(&g, &px, &o, "noise");
                    check(&g, &ramp, &o, "ramp");
                }
                for (int q = 5; q <= 100; q += 19) {
                    vkfx_save_opts o = {
                        .jpeg_quality = q, .jpeg_subsampling = subs[k], .jpeg_optimize = optimise};
                    check(&g, &ramp, &o, "ramp");
                }
            }
        vkfx_pixels_free(&px);
        vkfx_pixels_free(&ramp);
    }
    vkfx_pixels flat1;
    flat(&flat1, 1, 1, 3, 7);
    vkfx_save_opts o = {.jpeg_optimize = true};
    check(&g, &flat1, &o, "1x1");
    vkfx_pixels_free(&flat1);
    th_gpu_close(&g);
}

/* ---- the command line: the same file either way, the device's path taken when asked ---- */

static void cli_setup(void)
{
    cr_assert_eq(tc_tmpdir_make("jpegenc"), 0);
}

static void same_files(const char *a, const char *b)
{
    char why[600];
    cr_assert(tc_same_files(a, b, why, sizeof(why)), "%s", why);
}

/* vkfx with --jpeg-codec gpu and cpu and the same other arguments (args[0] the output's name),
 * --timings: whether the device encoded, from its passes. */
static void both_codecs(const char *input, const char *chain, const char *const *extra,
                        bool device_expected)
{
    const char *codecs[] = {"gpu", "cpu"};
    char outs[2][256];
    for (int k = 0; k < 2; k++) {
        snprintf(outs[k], sizeof(outs[k]), "%s", tc_tpath(codecs[k]));
        strcat(outs[k], ".jpg");
        const char *args[24] = {input,   "-f",           chain,     "-o",
                                outs[k], "--jpeg-codec", codecs[k], "--timings"};
        size_t n = 8;
        for (size_t i = 0; extra[i]; i++)
            args[n++] = extra[i];
        args[n] = NULL;
        cli_run r;
        run_with(&r, NULL, args);
        cr_assert_eq(r.status, 0, "%s: %s", r.cmd, r.err);
        bool device = strstr(r.err, "jpegenc.coef") != NULL;
        cr_assert_eq(device, k == 0 && device_expected, "%s: the device %s", r.cmd,
                     device ? "encoded" : "did not encode");
        run_free(&r);
    }
    same_files(outs[0], outs[1]);
}

TestSuite(jpegenc_cli, .init = cli_setup, .fini = tc_tmpdir_remove);

Test(jpegenc_cli, codecs)
{
    const char *photo = VKFX_TEST_IMAGES "/chelsea.png", *gray = VKFX_TEST_IMAGES "/camera.png";
    both_codecs(photo, "resize:width=203", (const char *const[]){NULL}, true);
    both_codecs(photo, "resize:width=203", (const char *const[]){"-q", "60", NULL}, true);
    both_codecs(gray, "resize:width=99", (const char *const[]){"--jpeg-optimize", NULL}, true);
    both_codecs(photo, "resize:width=150",
                (const char *const[]){"--jpeg-subsampling", "422", "--strip", NULL}, true);
    /* progressive stays with libjpeg-turbo, without a word */
    both_codecs(photo, "resize:width=120", (const char *const[]){"--jpeg-progressive", NULL},
                false);
}

/* Standard output and a resolution from the input (put into the JFIF segment after encoding). */
Test(jpegenc_cli, stdout_and_metadata)
{
    const char *png = tc_tpath("dense.png");
    char cmd[512];
    snprintf(cmd, sizeof(cmd),
             "convert '%s/coffee.png' -resize 77x51 -density 300 -units PixelsPerInch '%s'",
             VKFX_TEST_IMAGES, png);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    both_codecs(png, "grayscale", (const char *const[]){NULL}, true);
    const char *codecs[] = {"gpu", "cpu"};
    char outs[2][256];
    for (int k = 0; k < 2; k++) {
        snprintf(outs[k], sizeof(outs[k]), "%s", tc_tpath(codecs[k]));
        strcat(outs[k], "-stdout.jpg");
        FILE *f = fopen(outs[k], "w");
        cr_assert(f && fclose(f) == 0, "%s", outs[k]);
        run_opts o = {.stdout_path = outs[k]};
        cli_run r;
        VKFX_OPTS(&r, &o, png, "-f", "resize:width=40", "-o", "-", "--format", "jpg",
                  "--jpeg-codec", codecs[k], "--timings");
        cr_assert_eq(r.status, 0, "%s: %s", r.cmd, r.err);
        cr_assert_eq(strstr(r.err, "jpegenc.coef") != NULL, k == 0, "%s", r.cmd);
        run_free(&r);
    }
    same_files(outs[0], outs[1]);
    size_t n = 0;
    unsigned char *data = (unsigned char *)tc_slurp(outs[0], &n);
    cr_assert(n > 20 && data[13] == 1 && data[14] == 1 && data[15] == 44,
              "the JFIF segment holds no 300 dpi");
    free(data);
}

/* vkfx preview: its pictures and a JPEG Save encoded on the device, the bytes libjpeg-turbo
 * writes for the same pixels and settings. */
Test(jpegenc_cli, preview)
{
    th_gpu g;
    th_gpu_open(&g);
    const char *inputs[] = {VKFX_TEST_IMAGES "/chelsea.png", VKFX_TEST_IMAGES "/camera.png"};
    for (int i = 0; i < 2; i++) {
        vkfx_preview *p = NULL;
        vkfx_chain *chain = NULL;
        cr_assert_eq(vkfx_preview_open(g.ctx, inputs[i], &p), VKFX_OK, "%s", vkfx_error_message());
        cr_assert_eq(vkfx_chain_parse("grayscale", &chain), VKFX_OK, "%s", vkfx_error_message());
        unsigned char *jpeg = NULL;
        size_t size = 0;
        vkfx_pixels px = {0};
        double ms;
        cr_assert_eq(vkfx_preview_render_jpeg(p, chain, 203, VKFX_JPEG_CODEC_GPU, &jpeg, &size, &px,
                                              &ms, NULL),
                     VKFX_OK, "%s", vkfx_error_message());
        cr_assert(jpeg && !px.data, "%s: the device did not encode the picture", inputs[i]);
        cr_assert_eq(vkfx_preview_render(p, chain, 203, &px, &ms, NULL), VKFX_OK);
        size_t want_size = 0;
        unsigned char *want = cpu_file(&px, &vkfx_preview_jpeg, &want_size);
        cr_assert(size == want_size && !memcmp(jpeg, want, size), "%s: the picture differs",
                  inputs[i]);
        free(want);
        free(jpeg);
        vkfx_pixels_free(&px);
        cr_assert_eq(vkfx_preview_render_jpeg(p, chain, 203, VKFX_JPEG_CODEC_CPU, &jpeg, &size, &px,
                                              &ms, NULL),
                     VKFX_OK);
        cr_assert(!jpeg && px.data);
        vkfx_pixels_free(&px);
        const char *names[] = {"save-gpu.jpg", "save-cpu.jpg"};
        for (int k = 0; k < 2; k++) {
            vkfx_preview_set_jpeg_codec(p, k == 0 ? VKFX_JPEG_CODEC_GPU : VKFX_JPEG_CODEC_CPU);
            cr_assert_eq(vkfx_preview_save(p, chain, tc_tpath(names[k]), NULL, NULL), VKFX_OK, "%s",
                         vkfx_error_message());
        }
        same_files(tc_tpath(names[0]), tc_tpath(names[1]));
        vkfx_chain_free(chain);
        vkfx_preview_close(p);
    }
    th_gpu_close(&g);
}

Test(jpegenc_cli, bad_codec_names)
{
    cli_run r;
    VKFX(&r, VKFX_TEST_IMAGES "/camera.png", "-f", "grayscale", "-o", tc_tpath("x.jpg"),
         "--jpeg-codec", "fpga");
    cr_assert_eq(r.status, 2, "%s: exit %d", r.cmd, r.status);
    cr_assert(strstr(r.err, "--jpeg-codec 'fpga' must be auto, gpu or cpu"), "%s", r.err);
    run_free(&r);
    VKFX(&r, "preview", VKFX_TEST_IMAGES "/camera.png", "--jpeg-codec", "fpga");
    cr_assert_eq(r.status, 2, "%s: exit %d", r.cmd, r.status);
    cr_assert(strstr(r.err, "--jpeg-codec 'fpga' must be auto, gpu or cpu"), "%s", r.err);
    run_free(&r);
}
