/* The preview session (core/include/preview.h) and its downscale (core/io/resample.h):
 * - the area average against tests/ref/resample.c, a direct 2D integration,
 *   on random images from 1x1 to 333x517, 1 and 4 channels, within 1e-6;
 * - at the input's width a render is the file run's result byte for byte
 *   (dof with the motorcycle's disparity map, gauss);
 * - smaller, the input is the area average of its linear light: the
 *   motorcycle with no filter within 1 code value of the reference at
 *   several widths, and dof with the map averaged the same way within 2
 *   (test_dof's budget);
 * - a draft at a quarter of the width, every length in pixels of its chain
 *   scaled, is near the view (the saved file scaled), for every kind of
 *   length: gauss, box, bilateral, unsharp, satblur, dof, satdof;
 * - an OpenEXR depth map in metres: its span, a pixel's focus, a draft with it;
 *   a chain with ripple, whose waves hang on the pixel grid, has no draft;
 * - focus is the map's value under a pixel as the filter reads it (flipped
 *   for kind=disparity), for dof, satdof and bokeh; a filter without a depth map
 *   has none;
 * - a cancel check is polled between passes, and stops render and Save there;
 *   maps that are not regular files are refused before any read.
 * Every run has the validation layer on. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "fileio.h"
#include "gpu_harness.h"
#include "preview.h"
#include "resample.h"

#define PHOTO VKFX_TEST_IMAGES "/motorcycle_left.png"
#define DEPTH VKFX_TEST_IMAGES "/motorcycle_disparity16.png"
#define DOF   "dof:depth=" DEPTH ":kind=disparity:focus=0.8:range=0.3:maxcoc=8"

static void float_image(uint32_t w, uint32_t h, uint32_t channels, uint64_t seed, float **out)
{
    vkfx_pixels px = {0};
    tc_random_pixels(&px, w, h, channels, VKFX_SAMPLE_F32, seed);
    *out = px.data;
}

Test(resample, against_reference)
{
    static const uint32_t cases[][4] = {{1, 1, 1, 1},         {7, 5, 3, 2},     {1, 9, 1, 4},
                                        {9, 1, 2, 1},         {64, 64, 64, 64}, {741, 500, 1, 1},
                                        {333, 517, 100, 155}, {100, 3, 99, 2}};
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        for (uint32_t channels = 1; channels <= 4; channels += 3) {
            uint32_t sw = cases[k][0], sh = cases[k][1], dw = cases[k][2], dh = cases[k][3];
            float *src = NULL;
            float_image(sw, sh, channels, 100 + k, &src);
            float *dst = malloc((size_t)dw * dh * channels * sizeof(*dst));
            cr_assert(dst);
            cr_assert_eq(vkfx_area_downscale(src, sw, sh, channels, dst, dw, dh), VKFX_OK);
            ref_image in = {0}, want = {0};
            cr_assert_eq(ref_image_alloc(&in, sw, sh), 0);
            for (size_t i = 0; i < (size_t)sw * sh; i++)
                for (uint32_t c = 0; c < channels; c++)
                    in.px[i * 4 + c] = src[i * channels + c];
            cr_assert_eq(ref_area_downscale(&in, dw, dh, &want), 0);
            double worst = 0;
            size_t at = 0;
            for (size_t i = 0; i < (size_t)dw * dh; i++)
                for (uint32_t c = 0; c < channels; c++) {
                    double d = fabs(dst[i * channels + c] - want.px[i * 4 + c]);
                    if (d > worst) {
                        worst = d;
                        at = i;
                    }
                }
            cr_expect(worst <= 1e-6, "%ux%u -> %ux%u, %u channels: off by %g at pixel %zu", sw, sh,
                      dw, dh, channels, worst, at);
            ref_image_free(&in);
            ref_image_free(&want);
            free(src);
            free(dst);
        }
    }
    cr_expect_eq(vkfx_scaled_height(741, 500, 200), 135);
    cr_expect_eq(vkfx_scaled_height(1920, 1080, 1280), 720);
    cr_expect_eq(vkfx_scaled_height(1000, 1, 10), 1);
}

static vkfx_chain *parse(const char *text)
{
    vkfx_chain *chain = NULL;
    if (!*text) {
        chain = calloc(1, sizeof(*chain));
        cr_assert(chain);
        return chain;
    }
    cr_assert_eq(vkfx_chain_parse(text, &chain), VKFX_OK, "%s: %s", text, vkfx_error_message());
    return chain;
}

static void render(vkfx_preview *p, const char *text, uint32_t width, vkfx_pixels *out)
{
    vkfx_chain *chain = parse(text);
    double gpu_ms = 0;
    cr_assert_eq(vkfx_preview_render(p, chain, width, out, &gpu_ms, NULL), VKFX_OK, "%s at %u: %s",
                 text, width, vkfx_error_message());
    vkfx_chain_free(chain);
}

/* A session on the motorcycle in a context with the validation layer. */
static vkfx_preview *open_preview(th_gpu *g)
{
    th_gpu_open(g);
    vkfx_preview *p = NULL;
    cr_assert_eq(vkfx_preview_open(g->ctx, PHOTO, &p), VKFX_OK, "%s", vkfx_error_message());
    return p;
}

/* Asserts the validation layer reported nothing, then frees. */
static void close_preview(th_gpu *g, vkfx_preview *p)
{
    vkfx_preview_close(p);
    th_gpu_close(g);
}

/* Sizes in a chain that reshapes the image are the input's pixels: whatever the width asked,
 * such a chain runs on the full-size input, and its render is the file run's result. */
Test(preview, reshaping_chains_are_the_file_run)
{
    th_gpu g;
    vkfx_preview *p = open_preview(&g);
    vkfx_pixels in = {0};
    cr_assert_eq(vkfx_file_load(PHOTO, &in), VKFX_OK);
    static const char *const chains[] = {"resize:width=301,gauss:sigma=2",
                                         "crop:x=100:y=50:width=200:height=99,rotate:angle=270"};
    for (size_t i = 0; i < 2; i++) {
        vkfx_pixels got = {0}, want = {0};
        render(p, chains[i], 160, &got);
        th_run(&g, chains[i], &in, 3, VKFX_SAMPLE_U8, 16, &want);
        tc_diff d = tc_compare(&got, &want, 0);
        tc_report(&d, chains[i]);
        cr_expect(tc_diff_ok(&d), "%s: the render differs from the file run", chains[i]);
        vkfx_pixels_free(&got);
        vkfx_pixels_free(&want);
    }
    vkfx_pixels_free(&in);
    close_preview(&g, p);
}

Test(preview, full_width_is_the_file_run)
{
    th_gpu g;
    vkfx_preview *p = open_preview(&g);
    vkfx_pixels in = {0};
    cr_assert_eq(vkfx_file_load(PHOTO, &in), VKFX_OK);
    static const char *const chains[] = {DOF, "gauss:sigma=2"};
    for (size_t i = 0; i < 2; i++) {
        vkfx_pixels got = {0}, want = {0};
        render(p, chains[i], 0, &got);
        th_run(&g, chains[i], &in, 3, VKFX_SAMPLE_U8, 16, &want);
        tc_diff d = tc_compare(&got, &want, 0);
        tc_report(&d, chains[i]);
        cr_expect(tc_diff_ok(&d), "%s: the full-width render differs from the file run", chains[i]);
        vkfx_pixels_free(&got);
        vkfx_pixels_free(&want);
    }
    vkfx_pixels_free(&in);
    close_preview(&g, p);
}

/* A click on a hole (hole=0) focuses on the value the fill gives there (tests/ref), for
 * kind=disparity (the smaller neighbour) and kind=depth (the larger); elsewhere on the map's. */
Test(preview, focus_on_a_hole_is_the_filled_value)
{
    th_gpu g;
    vkfx_preview *p = open_preview(&g);
    vkfx_pixels map = {0};
    cr_assert_eq(vkfx_file_load(DEPTH, &map), VKFX_OK);
    size_t n = (size_t)map.width * map.height, hole = n;
    double *disp = malloc(n * sizeof(*disp)), *depth = malloc(n * sizeof(*depth));
    cr_assert(disp && depth);
    for (size_t i = 0; i < n; i++) {
        disp[i] = depth[i] = ref_map_value(&map, i);
        /* The first hole past a row's start. */
        if (hole == n && i > 0 && i + 1 < n && depth[i] == 0 && i % map.width > 0)
            hole = i;
    }
    cr_assert_lt(hole, n, "the map has a hole");
    cr_assert_eq(ref_fill_holes(disp, map.width, map.height, 0, false), 0);
    cr_assert_eq(ref_fill_holes(depth, map.width, map.height, 0, true), 0);
    vkfx_chain *chain = parse("dof:depth=" DEPTH ":kind=disparity:hole=0,dof:depth=" DEPTH
                              ":hole=0,dof:depth=" DEPTH ":kind=disparity");
    uint32_t x = (uint32_t)(hole % map.width), y = (uint32_t)(hole / map.width);
    bool has = false;
    double focus = 0;
    cr_assert_eq(vkfx_preview_focus(p, chain, 0, x, y, &has, &focus), VKFX_OK, "%s",
                 vkfx_error_message());
    cr_expect((float)focus == 1.0f - (float)disp[hole], "disparity hole at (%u, %u): %.9g, want %.9g",
              x, y, focus, 1.0f - (float)disp[hole]);
    cr_assert_eq(vkfx_preview_focus(p, chain, 1, x, y, &has, &focus), VKFX_OK);
    cr_expect((float)focus == (float)depth[hole], "depth hole at (%u, %u): %.9g, want %.9g", x, y,
              focus, depth[hole]);
    cr_expect(disp[hole] > 0 && depth[hole] > 0, "the hole is filled");
    cr_assert_eq(vkfx_preview_focus(p, chain, 2, x, y, &has, &focus), VKFX_OK);
    cr_expect((float)focus == 1.0f, "without hole=, the hole is the map's 0: %.9g", focus);
    vkfx_chain_free(chain);
    free(disp);
    free(depth);
    vkfx_pixels_free(&map);
    close_preview(&g, p);
}

/* The in-focus band: tinted where the circle of confusion (tests/ref) is under half a pixel,
 * clear elsewhere (pixels within 0.1 px of the edge may go either way: the core is in float),
 * at full size and, the map sampled at footprint centres, at 300 wide. */
Test(preview, band_is_where_the_blur_is_under_half_a_pixel)
{
    th_gpu g;
    vkfx_preview *p = open_preview(&g);
    vkfx_pixels map = {0};
    cr_assert_eq(vkfx_file_load(DEPTH, &map), VKFX_OK);
    vkfx_chain *chain = parse("gauss," DOF);
    ref_coc_params cp = {.focus = 0.8, .range = 0.3, .maxcoc = 8, .disparity = true};
    static const uint32_t widths[] = {0, 300};
    for (size_t k = 0; k < 2; k++) {
        vkfx_pixels band = {0};
        cr_assert_eq(vkfx_preview_band(p, chain, widths[k], &band), VKFX_OK, "%s",
                     vkfx_error_message());
        cr_assert_eq(band.width, widths[k] ? widths[k] : map.width);
        cr_assert_eq(band.height, vkfx_preview_height(p, widths[k]));
        size_t wrong = 0, tinted = 0;
        for (uint32_t y = 0; y < band.height; y++)
            for (uint32_t x = 0; x < band.width; x++) {
                uint32_t sx = (2 * x + 1) * map.width / (2 * band.width);
                uint32_t sy = (2 * y + 1) * map.height / (2 * band.height);
                double coc = ref_coc(ref_map_value(&map, (size_t)sy * map.width + sx), &cp);
                uint8_t a = ((const uint8_t *)band.data)[((size_t)y * band.width + x) * 4 + 3];
                tinted += a != 0;
                wrong += (coc < 0.4 && a == 0) || (coc > 0.6 && a != 0);
            }
        cr_expect_eq(wrong, 0, "width %u: %zu pixels tinted where they should not be, or clear",
                     widths[k], wrong);
        cr_expect(tinted > 0 && tinted < (size_t)band.width * band.height,
                  "width %u: a band, not all or nothing (%zu)", widths[k], tinted);
        vkfx_pixels_free(&band);
    }
    vkfx_chain *none = parse("gauss");
    vkfx_pixels band = {0};
    cr_expect_eq(vkfx_preview_band(p, none, 0, &band), VKFX_E_USAGE);
    vkfx_chain_free(none);
    vkfx_chain_free(chain);
    vkfx_pixels_free(&map);
    close_preview(&g, p);
}

/* A view is the saved file scaled: the chain on the full-size input, then
 * box-scaled as `vkfx SAVED -f resize:...:kernel=box` scales that file,
 * within 1 code (the view is scaled before its 8-bit encode). */
Test(preview, view_is_the_saved_file_scaled)
{
    th_gpu g;
    vkfx_preview *p = open_preview(&g);
    vkfx_pixels in = {0};
    cr_assert_eq(vkfx_file_load(PHOTO, &in), VKFX_OK);
    static const char *const chains[] = {DOF, "gauss:sigma=3", "crop:x=10:y=20:width=400:height=300"};
    static const uint32_t widths[] = {300, 0};
    for (size_t i = 0; i < 3; i++)
        for (size_t k = 0; k < 2; k++) {
            vkfx_pixels got = {0}, saved = {0}, want = {0};
            vkfx_chain *chain = parse(chains[i]);
            double gpu_ms = 0;
            cr_assert_eq(vkfx_preview_view(p, chain, widths[k], &got, &gpu_ms, NULL), VKFX_OK,
                         "%s: %s", chains[i], vkfx_error_message());
            th_run(&g, chains[i], &in, 3, VKFX_SAMPLE_U8, vkfx_auto_precision(chain, &in), &saved);
            vkfx_chain_free(chain);
            char scale[96], what[160];
            uint32_t w = widths[k] ? widths[k] : saved.width;
            uint32_t h = vkfx_scaled_height(saved.width, saved.height, w);
            snprintf(scale, sizeof(scale), "resize:width=%u:height=%u:kernel=box", w, h);
            if (widths[k])
                th_run(&g, scale, &saved, 3, VKFX_SAMPLE_U8, 32, &want);
            snprintf(what, sizeof(what), "%s at width %u", chains[i], widths[k]);
            tc_diff d = tc_compare(&got, widths[k] ? &want : &saved, widths[k] ? 1 : 0);
            tc_report(&d, what);
            cr_expect(tc_diff_ok(&d), "%s: the view is not the saved file scaled", what);
            vkfx_pixels_free(&got);
            vkfx_pixels_free(&saved);
            vkfx_pixels_free(&want);
        }
    vkfx_pixels_free(&in);
    close_preview(&g, p);
}

/* The map's first channel as a reference image (in every channel). */
static void map_image(const vkfx_pixels *map, ref_image *out)
{
    cr_assert_eq(ref_image_alloc(out, map->width, map->height), 0);
    for (size_t i = 0; i < (size_t)map->width * map->height; i++)
        for (int c = 0; c < 4; c++)
            out->px[i * 4 + c] = ref_map_value(map, i);
}

Test(preview, smaller_widths_are_the_area_average)
{
    th_gpu g;
    vkfx_preview *p = open_preview(&g);
    vkfx_pixels in = {0}, map = {0};
    cr_assert_eq(vkfx_file_load(PHOTO, &in), VKFX_OK);
    cr_assert_eq(vkfx_file_load(DEPTH, &map), VKFX_OK);
    ref_image full = {0}, full_map = {0};
    cr_assert_eq(ref_decode(&in, false, &full), 0);
    map_image(&map, &full_map);
    static const uint32_t widths[] = {740, 371, 200, 1, 371};
    for (size_t k = 0; k < sizeof(widths) / sizeof(widths[0]); k++) {
        uint32_t w = widths[k], h = vkfx_preview_height(p, w);
        ref_image small = {0};
        cr_assert_eq(ref_area_downscale(&full, w, h, &small), 0);
        vkfx_pixels got = {0}, want = {.channels = 3, .sample = VKFX_SAMPLE_U8, .straight = true};
        cr_assert_eq(ref_encode(&small, false, &want), 0);
        render(p, "", w, &got);
        char what[64];
        snprintf(what, sizeof(what), "no filter at width %u", w);
        tc_diff d = tc_compare(&got, &want, 1);
        tc_report(&d, what);
        cr_expect(tc_diff_ok(&d), "%s", what);
        vkfx_pixels_free(&got);
        vkfx_pixels_free(&want);
        ref_image_free(&small);
    }
    /* dof on the smaller input with the map averaged over the same footprints. */
    uint32_t w = 300, h = vkfx_preview_height(p, w);
    ref_image small = {0}, small_map = {0}, out = {0};
    cr_assert_eq(ref_area_downscale(&full, w, h, &small), 0);
    cr_assert_eq(ref_area_downscale(&full_map, w, h, &small_map), 0);
    double *coc = malloc((size_t)w * h * sizeof(*coc));
    cr_assert(coc);
    /* The draft's maxcoc is the full size's scaled, so that its blur is the saved file's. */
    ref_coc_params cp = {.focus = 0.8, .range = 0.3, .maxcoc = 8.0 * w / in.width, .disparity = true};
    for (size_t i = 0; i < (size_t)w * h; i++)
        coc[i] = ref_coc((float)small_map.px[i * 4], &cp);
    cr_assert_eq(ref_dof(&small, coc, 1, true, &out), 0);
    vkfx_pixels got = {0}, want = {.channels = 3, .sample = VKFX_SAMPLE_U8, .straight = true};
    cr_assert_eq(ref_encode(&out, false, &want), 0);
    render(p, DOF, w, &got);
    tc_diff d = tc_compare(&got, &want, 2);
    tc_report(&d, "dof at width 300");
    cr_expect(tc_diff_ok(&d), "dof at width 300");
    vkfx_pixels_free(&got);
    vkfx_pixels_free(&want);
    free(coc);
    ref_image_free(&small);
    ref_image_free(&small_map);
    ref_image_free(&out);
    ref_image_free(&full);
    ref_image_free(&full_map);
    vkfx_pixels_free(&in);
    vkfx_pixels_free(&map);
    close_preview(&g, p);
}

/* The mean over every sample of |a - b|, in codes (a and b of one shape). */
static double mean_codes(const vkfx_pixels *a, const vkfx_pixels *b)
{
    cr_assert(a->width == b->width && a->height == b->height && a->channels == b->channels);
    size_t n = (size_t)a->width * a->height * a->channels;
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += fabs((double)((const uint8_t *)a->data)[i] - ((const uint8_t *)b->data)[i]);
    return sum / n;
}

/* The draft (vkfx_preview_render) and the view of chain, width pixels wide. */
static void draft_and_view(vkfx_preview *p, const vkfx_chain *chain, uint32_t width,
                           vkfx_pixels *draft, vkfx_pixels *view)
{
    double gpu_ms = 0;
    cr_assert_eq(vkfx_preview_render(p, chain, width, draft, &gpu_ms, NULL), VKFX_OK, "draft: %s",
                 vkfx_error_message());
    cr_assert_eq(vkfx_preview_view(p, chain, width, view, &gpu_ms, NULL), VKFX_OK, "view: %s",
                 vkfx_error_message());
}

/* A draft at a quarter of the width looks as the view does (the saved file, scaled): every
 * length in pixels of the chain is scaled with the input. Left at the saved file's, each of
 * these blurs four times as far, 13 to 20 codes off on average; scaled, 0.4 to 3.8 (a draft
 * is near, not exact: a radius rounds to whole pixels, a diffusion or a sharpening on a
 * coarser grid differs). */
Test(preview, draft_scales_every_length_in_pixels)
{
    th_gpu g;
    vkfx_preview *p = open_preview(&g);
    static const char *const chains[] = {
        "gauss:sigma=6",
        "box:radius=6",
        "bilateral:sigma_s=5:sigma_r=0.5",
        "unsharp:sigma=4:amount=2",
        "satblur:radius=9",
        "dof:depth=" DEPTH ":kind=disparity:focus=0.8:range=0.3:maxcoc=24",
        "gauss:sigma=2:radius=9,satdof:depth=" DEPTH ":kind=disparity:focus=0.9:maxcoc=20",
    };
    uint32_t w = 185;
    for (size_t i = 0; i < sizeof(chains) / sizeof(chains[0]); i++) {
        vkfx_chain *chain = parse(chains[i]);
        vkfx_pixels draft = {0}, view = {0};
        draft_and_view(p, chain, w, &draft, &view);
        double mean = mean_codes(&draft, &view);
        fprintf(stderr, "%s: the draft %u wide is %.3f codes from the view on average\n", chains[i],
                w, mean);
        cr_expect(mean <= 5, "%s: the draft %u wide is %.3f codes from the view on average",
                  chains[i], w, mean);
        vkfx_pixels_free(&draft);
        vkfx_pixels_free(&view);
        vkfx_chain_free(chain);
    }
    close_preview(&g, p);
}

/* Ripple's drops and waves live on the pixel grid: on a smaller one they fall elsewhere, so a
 * chain with it has no draft, its draft is its view. */
Test(preview, grid_bound_chains_have_no_draft)
{
    th_gpu g;
    vkfx_preview *p = open_preview(&g);
    vkfx_chain *chain = parse("gauss:sigma=2,ripple:drops=6:steps=40");
    vkfx_pixels draft = {0}, view = {0};
    draft_and_view(p, chain, 185, &draft, &view);
    tc_diff d = tc_compare(&draft, &view, 0);
    tc_report(&d, "ripple's draft against its view");
    cr_expect(tc_diff_ok(&d), "ripple's draft is not its view");
    vkfx_pixels_free(&draft);
    vkfx_pixels_free(&view);
    vkfx_chain_free(chain);
    close_preview(&g, p);
}

/* A depth map in metres, as a render writes it: an OpenEXR file (gray, its channel Y) made
 * from the motorcycle's disparity, 1 m where it is largest, 10 m where it is 0. Its span is
 * its own values (the page's focus and range), a pixel's focus is its metres there, and a
 * draft with it is near the view as with an 8- or 16-bit map. */
Test(preview, exr_depth_map_in_metres)
{
    th_gpu g;
    vkfx_preview *p = open_preview(&g);
    cr_assert_eq(tc_tmpdir_make("preview"), 0);
    vkfx_pixels disparity = {0}, metres = {0}, stored = {0};
    cr_assert_eq(vkfx_file_load(DEPTH, &disparity), VKFX_OK);
    cr_assert_eq(vkfx_pixels_alloc(&metres, disparity.width, disparity.height, 1, VKFX_SAMPLE_F32),
                 VKFX_OK);
    metres.linear = true;
    size_t n = (size_t)disparity.width * disparity.height;
    for (size_t i = 0; i < n; i++)
        ((float *)metres.data)[i] =
            (float)(1 +
                    9 * (1 - ((const uint16_t *)disparity.data)[i * disparity.channels] / 65535.0));
    uint32_t channels = 0;
    vkfx_sample sample = VKFX_SAMPLE_U8;
    vkfx_file_output_layout(VKFX_FILE_EXR, 1, VKFX_SAMPLE_F32, &channels, &sample);
    cr_assert(channels == 1 && sample == VKFX_SAMPLE_F32);
    char *exr = strdup(tc_tpath("depth.exr"));
    cr_assert_eq(vkfx_file_save(exr, VKFX_FILE_EXR, &metres, NULL), VKFX_OK, "%s",
                 vkfx_error_message());
    /* The values as the file holds them: what the filter reads. */
    cr_assert_eq(vkfx_file_load(exr, &stored), VKFX_OK, "%s", vkfx_error_message());
    const float *z = stored.data;
    float lo = z[0], hi = z[0];
    for (size_t i = 0; i < n; i++) {
        lo = z[i * stored.channels] < lo ? z[i * stored.channels] : lo;
        hi = z[i * stored.channels] > hi ? z[i * stored.channels] : hi;
    }
    cr_assert(lo >= 0.99f && hi <= 10.01f && hi - lo > 8, "%g..%g m", lo, hi);
    char text[512];
    snprintf(text, sizeof(text), "satdof:depth=%s#Y:focus=3:range=4:maxcoc=20", exr);
    vkfx_chain *chain = parse(text);
    bool has = false, is_float = false;
    double min = 0, max = 0, focus = 0;
    cr_assert_eq(vkfx_preview_depth_range(p, chain, 0, &has, &min, &max, &is_float), VKFX_OK, "%s",
                 vkfx_error_message());
    cr_expect(has && is_float && min == lo && max == hi, "the span %g..%g, the file's %g..%g", min,
              max, lo, hi);
    static const uint32_t at[][2] = {{0, 0}, {370, 300}, {250, 380}, {740, 499}};
    for (size_t k = 0; k < 4; k++) {
        uint32_t x = at[k][0], y = at[k][1];
        cr_assert_eq(vkfx_preview_focus(p, chain, 0, x, y, &has, &focus), VKFX_OK);
        float want = z[((size_t)y * stored.width + x) * stored.channels];
        cr_expect(has && focus == want, "focus at (%u, %u): %.9g m, the map holds %.9g", x, y,
                  focus, want);
    }
    vkfx_pixels draft = {0}, view = {0};
    draft_and_view(p, chain, 185, &draft, &view);
    double mean = mean_codes(&draft, &view);
    cr_expect(mean <= 5, "with the EXR map the draft is %.3f codes from the view on average", mean);
    vkfx_pixels_free(&draft);
    vkfx_pixels_free(&view);
    vkfx_chain_free(chain);
    free(exr);
    vkfx_pixels_free(&disparity);
    vkfx_pixels_free(&metres);
    vkfx_pixels_free(&stored);
    tc_tmpdir_remove();
    close_preview(&g, p);
}

Test(preview, focus_is_the_map_value_the_filter_reads)
{
    th_gpu g;
    vkfx_preview *p = open_preview(&g);
    vkfx_pixels map = {0};
    cr_assert_eq(vkfx_file_load(DEPTH, &map), VKFX_OK);
    vkfx_chain *chain = parse("gauss," DOF ",satdof:depth=" DEPTH ":kind=depth,bokeh:depth=" DEPTH
                              ":kind=disparity");
    static const uint32_t at[][2] = {{0, 0}, {370, 300}, {740, 499}, {100, 50}};
    for (size_t k = 0; k < 4; k++) {
        uint32_t x = at[k][0], y = at[k][1];
        float z = (float)(((const uint16_t *)map.data)[(size_t)y * map.width + x] / 65535.0);
        bool has = true;
        double focus = -1;
        cr_assert_eq(vkfx_preview_focus(p, chain, 0, x, y, &has, &focus), VKFX_OK);
        cr_expect(!has, "gauss has no focus");
        cr_assert_eq(vkfx_preview_focus(p, chain, 1, x, y, &has, &focus), VKFX_OK, "%s",
                     vkfx_error_message());
        cr_expect(has && (float)focus == 1.0f - z, "dof at (%u, %u): %.9g, want %.9g", x, y, focus,
                  1.0f - z);
        cr_assert_eq(vkfx_preview_focus(p, chain, 2, x, y, &has, &focus), VKFX_OK);
        cr_expect(has && (float)focus == z, "satdof at (%u, %u): %.9g, want %.9g", x, y, focus, z);
        cr_assert_eq(vkfx_preview_focus(p, chain, 3, x, y, &has, &focus), VKFX_OK);
        cr_expect(has && (float)focus == 1.0f - z, "bokeh at (%u, %u): %.9g, want %.9g", x, y,
                  focus, 1.0f - z);
    }
    bool has = false;
    double focus = 0;
    cr_expect_eq(vkfx_preview_focus(p, chain, 1, 741, 0, &has, &focus), VKFX_E_USAGE);
    vkfx_chain_free(chain);
    vkfx_pixels_free(&map);
    close_preview(&g, p);
}

/* A cancel check that counts its calls and stops at call stop_at (0: never). */
typedef struct counter {
    unsigned calls, stop_at;
} counter;

static bool count_stop(void *user)
{
    counter *c = user;
    return ++c->calls == c->stop_at;
}

/* A render polls its cancel check between passes: asked every time, it
 * gives the render without one byte for byte; told to stop at the first
 * pass boundary, it ends there and the session renders on. Save too. */
Test(preview, cancel_check_between_passes)
{
    th_gpu g;
    vkfx_preview *p = open_preview(&g);
    cr_assert_eq(tc_tmpdir_make("preview"), 0);
    static const char text[] = "gauss:sigma=2,box:radius=3,sobel";
    vkfx_chain *chain = parse(text);
    vkfx_pixels want = {0}, got = {0};
    render(p, text, 200, &want);
    double gpu_ms = 0;
    counter never = {0};
    vkfx_cancel cancel = {count_stop, &never};
    cr_assert_eq(vkfx_preview_render(p, chain, 200, &got, &gpu_ms, &cancel), VKFX_OK, "%s",
                 vkfx_error_message());
    cr_expect(never.calls >= 4, "asked %u times in a chain of 4 passes and more", never.calls);
    tc_diff d = tc_compare(&got, &want, 0);
    tc_report(&d, text);
    cr_expect(tc_diff_ok(&d), "pass by pass, the render differs");
    vkfx_pixels_free(&got);
    counter first = {.stop_at = 1};
    cancel.user = &first;
    cr_assert_eq(vkfx_preview_render(p, chain, 200, &got, &gpu_ms, &cancel), VKFX_E_STOPPED);
    cr_expect(first.calls == 1 && !got.data, "stopped at the first boundary, nothing returned");
    first.calls = 0;
    cr_assert_eq(vkfx_preview_save(p, chain, tc_tpath("saved.png"), NULL, &cancel), VKFX_E_STOPPED);
    cr_expect(first.calls == 1 && access(tc_tpath("saved.png"), F_OK) != 0, "Save stopped");
    render(p, text, 200, &got);
    d = tc_compare(&got, &want, 0);
    cr_expect(tc_diff_ok(&d), "the render after a stopped one differs");
    vkfx_pixels_free(&got);
    vkfx_pixels_free(&want);
    vkfx_chain_free(chain);
    tc_tmpdir_remove();
    close_preview(&g, p);
}

/* A map the page names is a regular file: a FIFO would block the session
 * (and every request after) on its open, a device would be read without
 * end. Render, focus and Save refuse both at once. */
Test(preview, maps_are_regular_files, .timeout = 60)
{
    th_gpu g;
    vkfx_preview *p = open_preview(&g);
    cr_assert_eq(tc_tmpdir_make("preview"), 0);
    cr_assert_eq(mkfifo(tc_tpath("fifo"), 0600), 0);
    const char *const maps[] = {tc_tpath("fifo"), "/dev/zero", tc_tmpdir};
    for (size_t i = 0; i < 3; i++) {
        char text[256];
        snprintf(text, sizeof(text), "dof:depth=%s:kind=disparity", maps[i]);
        vkfx_chain *chain = parse(text);
        vkfx_pixels out = {0};
        double gpu_ms = 0, focus = 0;
        bool has = false;
        cr_expect_eq(vkfx_preview_render(p, chain, 100, &out, &gpu_ms, NULL), VKFX_E_USAGE, "%s",
                     text);
        cr_expect(strstr(vkfx_error_message(), "not a regular file"), "%s: %s", text,
                  vkfx_error_message());
        cr_expect_eq(vkfx_preview_focus(p, chain, 0, 1, 1, &has, &focus), VKFX_E_USAGE, "%s", text);
        cr_expect_eq(vkfx_preview_save(p, chain, tc_tpath("saved.png"), NULL, NULL), VKFX_E_USAGE,
                     "%s", text);
        vkfx_chain_free(chain);
    }
    tc_tmpdir_remove();
    close_preview(&g, p);
}
