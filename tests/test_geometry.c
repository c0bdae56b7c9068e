/* crop, rotate and flip (one kernel, glsl/remap.comp, through core/filters/geometry.c) move
 * pixels exactly: their output is, sample for sample, the output of
 * the identity (a crop of the whole image: the codecs' round trip alone) with its pixels moved
 * as tests/ref/geometry.c moves them, for
 * 8-bit and 16-bit images in every channel layout, at edge sizes and on the photos. Chains see
 * the new size; crops outside the image, maps after a reshaping filter and images too large
 * for one piece are refused with messages that say why. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_harness.h"

/* The samples of px (each channel a double of ref_image's RGBA) moved by the reference of
 * chain (one of the chains below). */
static void move_samples(const char *chain, const vkfx_pixels *px, vkfx_pixels *out)
{
    ref_image a = {0}, b = {0};
    size_t n = (size_t)px->width * px->height, ss = vkfx_sample_size(px->sample);
    cr_assert_eq(ref_image_alloc(&a, px->width, px->height), 0);
    for (size_t i = 0; i < n * px->channels; i++)
        a.px[4 * (i / px->channels) + i % px->channels] =
            ss == 1 ? ((const uint8_t *)px->data)[i] : ((const uint16_t *)px->data)[i];
    int ret = -1;
    if (strcmp(chain, "rotate:angle=90") == 0)
        ret = ref_rotate(&a, 90, &b);
    else if (strcmp(chain, "rotate:angle=180") == 0)
        ret = ref_rotate(&a, 180, &b);
    else if (strcmp(chain, "rotate:angle=270") == 0)
        ret = ref_rotate(&a, 270, &b);
    else if (strcmp(chain, "flip:axis=h") == 0)
        ret = ref_flip(&a, true, &b);
    else if (strcmp(chain, "flip:axis=v") == 0)
        ret = ref_flip(&a, false, &b);
    else if (strncmp(chain, "crop:", 5) == 0) {
        unsigned x, y, w, h;
        cr_assert_eq(sscanf(chain, "crop:x=%u:y=%u:width=%u:height=%u", &x, &y, &w, &h), 4);
        ret = ref_crop(&a, x, y, w, h, &b);
    }
    cr_assert_eq(ret, 0, "%s: %s", chain, vkfx_error_message());
    cr_assert_eq(vkfx_pixels_alloc(out, b.w, b.h, px->channels, px->sample), VKFX_OK);
    for (size_t i = 0; i < (size_t)b.w * b.h * px->channels; i++) {
        double v = b.px[4 * (i / px->channels) + i % px->channels];
        if (ss == 1)
            ((uint8_t *)out->data)[i] = (uint8_t)v;
        else
            ((uint16_t *)out->data)[i] = (uint16_t)v;
    }
    ref_image_free(&a);
    ref_image_free(&b);
}

/* chain's output of px against the identity's, moved; returns 1 on any difference. (box:radius=0
 * is no identity here: with alpha at rgba32f it moves some 16-bit samples by a few codes.) */
static int exact(th_gpu *g, const char *chain, const vkfx_pixels *px, int precision,
                 const char *what)
{
    vkfx_pixels same, got, want;
    th_run(g, "crop", px, px->channels, px->sample, precision, &same);
    th_run(g, chain, px, px->channels, px->sample, precision, &got);
    move_samples(chain, &same, &want);
    tc_diff d = tc_compare(&got, &want, 0);
    bool ok = tc_diff_ok(&d);
    if (!ok) {
        char label[256];
        snprintf(label, sizeof(label), "%s [%s] %ux%u %uch rgba%df", what, chain, px->width,
                 px->height, px->channels, precision);
        tc_report(&d, label);
    }
    vkfx_pixels_free(&same);
    vkfx_pixels_free(&got);
    vkfx_pixels_free(&want);
    return !ok;
}

static int every_move(th_gpu *g, const vkfx_pixels *px, int precision, const char *what)
{
    static const char *const moves[] = {"rotate:angle=90", "rotate:angle=180", "rotate:angle=270",
                                        "flip:axis=h",     "flip:axis=v"};
    int failures = 0;
    for (size_t i = 0; i < sizeof(moves) / sizeof(moves[0]); i++)
        failures += exact(g, moves[i], px, precision, what);
    char crop[128];
    uint32_t x = px->width / 3, y = px->height / 4;
    snprintf(crop, sizeof(crop), "crop:x=%u:y=%u:width=%u:height=%u", x, y, px->width - x,
             (px->height - y + 1) / 2);
    failures += exact(g, crop, px, precision, what);
    snprintf(crop, sizeof(crop), "crop:x=%u:y=%u:width=1:height=1", px->width - 1, px->height - 1);
    failures += exact(g, crop, px, precision, what);
    return failures;
}

Test(geometry, moves_are_exact, .timeout = 600)
{
    static const uint32_t sizes[][2] = {{1, 1}, {1, 7}, {7, 1}, {33, 17}, {17, 40}};
    th_gpu g;
    th_gpu_open(&g);
    int failures = 0;
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
        for (uint32_t ch = 1; ch <= 4; ch++) {
            vkfx_pixels px;
            tc_random_pixels(&px, sizes[i][0], sizes[i][1], ch, VKFX_SAMPLE_U8, 2930 + i * 4 + ch);
            failures += every_move(&g, &px, 16, "random 8-bit");
            vkfx_pixels_free(&px);
            tc_random_pixels(&px, sizes[i][0], sizes[i][1], ch, VKFX_SAMPLE_U16, 2950 + i * 4 + ch);
            failures += every_move(&g, &px, 32, "random 16-bit");
            vkfx_pixels_free(&px);
        }
    for (const char *const *name = tc_photos(); *name; name++) {
        vkfx_pixels photo;
        cr_assert_eq(tc_load_photo(*name, &photo), VKFX_OK, "%s: %s", *name, vkfx_error_message());
        failures += every_move(&g, &photo, 16, *name);
        vkfx_pixels_free(&photo);
    }
    th_gpu_close(&g);
    cr_assert_eq(failures, 0, "%d outputs not exact (worst pixels above)", failures);
}

/* Moves feed filters that need the whole image and read the new size: a turn then a blur is
 * the reference's blur of the turned image. */
static int ref_turn_blur_crop(const ref_image *in, ref_image *out, const void *arg, int precision)
{
    (void)arg;
    (void)precision;
    ref_image a = {0}, b = {0}, c = {0};
    int ret = ref_rotate(in, 90, &a);
    if (ret == 0)
        ret = ref_resize(&a, 40, 61, REF_RESIZE_MITCHELL, &b);
    if (ret == 0)
        ret = ref_gauss(&b, 1.5, -1, &c);
    if (ret == 0)
        ret = ref_crop(&c, 3, 5, 30, 50, out);
    ref_image_free(&a);
    ref_image_free(&b);
    ref_image_free(&c);
    return ret;
}

Test(geometry, later_filters_see_the_new_size)
{
    th_gpu g;
    th_gpu_open(&g);
    vkfx_pixels px;
    tc_random_pixels(&px, 157, 103, 3, VKFX_SAMPLE_U8, 2970);
    th_case c = {"rotate:angle=90,resize:width=40:kernel=mitchell,gauss:sigma=1.5,"
                 "crop:x=3:y=5:width=30:height=50",
                 ref_turn_blur_crop, NULL, 32, 1};
    cr_expect(th_check(&g, &c, &px, 3, VKFX_SAMPLE_U8, "chain"));
    vkfx_pixels_free(&px);
    th_gpu_close(&g);
}

Test(geometry, refusals_say_why)
{
    th_gpu g;
    th_gpu_open(&g);
    vkfx_pixels px;
    tc_random_pixels(&px, 40, 30, 3, VKFX_SAMPLE_U8, 2971);
    th_expect_usage_error(&g, "crop:x=10:y=0:width=31:height=5", &px, "which is 40x30");
    th_expect_usage_error(&g, "crop:x=40", &px, "(40, 0) is outside the image, which is 40x30");
    /* After a resize, the crop is checked against the new size. */
    th_expect_usage_error(&g, "resize:width=20,crop:width=21", &px, "which is 20x15");
    vkfx_chain *chain = NULL;
    cr_expect_eq(vkfx_chain_parse("rotate,satdof:depth=d.png", &chain), VKFX_E_USAGE);
    cr_expect(strstr(vkfx_error_message(), "maps are not resampled or turned: put satdof before "
                                           "rotate"),
              "%s", vkfx_error_message());
    cr_expect_eq(vkfx_chain_parse("satdof:depth=d.png,flip", &chain), VKFX_OK);
    vkfx_chain_free(chain);
    vkfx_pixels_free(&px);
    th_gpu_close(&g);
}

/* An image larger than a tile (VKFX_TILE forces small ones) is moved in tiles of its outputs,
 * each from the input rectangle it reads, the filters between as runs of their own: the bytes
 * of one piece, in 8-bit and float outputs, at both precisions. */
Test(geometry, in_tiles_the_bytes_of_one_piece, .timeout = 300)
{
    static const char *const chains[] = {
        "gauss,flip",
        "flip:axis=v,sobel",
        "rotate:angle=90,gauss:sigma=1",
        "rotate:angle=180",
        "rotate:angle=270,crop:x=7:y=2:width=90:height=150",
        "crop:x=5:y=11:width=140:height=61,rotate:angle=90,flip",
    };
    th_gpu g;
    th_gpu_open(&g);
    vkfx_pixels rgb, gray;
    tc_random_pixels(&rgb, 157, 103, 3, VKFX_SAMPLE_U8, 2972);
    tc_random_pixels(&gray, 161, 99, 2, VKFX_SAMPLE_U16, 2973);
    int failures = 0;
    for (size_t i = 0; i < sizeof(chains) / sizeof(chains[0]); i++) {
        failures += th_tiled_same(&g, chains[i], &rgb, (vkfx_run_opts){.precision = 16}, 3,
                                  VKFX_SAMPLE_U8, "48");
        failures += th_tiled_same(&g, chains[i], &gray, (vkfx_run_opts){.precision = 32}, 2,
                                  VKFX_SAMPLE_F32, "40");
    }
    cr_expect_eq(failures, 0, "%d runs in tiles differ from one piece", failures);
    vkfx_pixels_free(&rgb);
    vkfx_pixels_free(&gray);
    th_gpu_close(&g);
}
