/* dof (diffusion depth of field) on the GPU against tests/ref/dof.c, the
 * Thomas algorithm in double precision on the same systems:
 * - random RGBA with random 8-bit depth maps at 1x1, 2x1, 1x2, 1x257, 257x1,
 *   333x517 and 1024x768, both internal precisions, and the motorcycle
 *   photo with its 16-bit disparity map: 8-bit output within 2 code values;
 *   16-bit output within 2/255 (514 codes) and float output within 2e-3
 *   relative (floor 1e-3) at rgba32f, the same budget in those units;
 * - properties: maxcoc=0 gives output bit-identical to the input; a
 *   constant image stays constant (1e-5); each line's sum is kept (1e-3
 *   relative, rows of a W x 1 image and columns of a 1 x H image, and the
 *   whole image); maxcoc=256 stays finite and within the input's range.
 * Lines longer than 4096 pixels take the 1024-invocation path (5000x3).
 * hole=0 (the depth filters' hole fill) on the motorcycle's map: dof, satdof
 * and bokeh byte for byte as on the map tests/ref fills, dof within 2 codes
 * of ref_dof there.
 * Every run has the validation layer on. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fileio.h"
#include "gpu_harness.h"

typedef struct dof_case {
    const vkfx_pixels *depth;
    ref_coc_params coc;
    double strength;
} dof_case;

static int ref_dof_fn(const ref_image *in, ref_image *out, const void *arg, int precision)
{
    const dof_case *c = arg;
    size_t n = (size_t)in->w * in->h;
    double *coc = malloc(n * sizeof(*coc));
    if (!coc)
        return VKFX_E_NOMEM;
    for (size_t i = 0; i < n; i++)
        coc[i] = ref_coc(ref_map_value(c->depth, i), &c->coc);
    int ret = ref_dof(in, coc, c->strength, precision == 16, out);
    free(coc);
    return ret;
}

static void save_map(const vkfx_pixels *m, const char *name)
{
    cr_assert_eq(vkfx_file_save(tc_tpath(name), VKFX_FILE_PNG, m, NULL), VKFX_OK, "%s",
                 vkfx_error_message());
}

static const uint32_t sizes[][2] = {{1, 1},   {2, 1},     {1, 2},     {1, 257},
                                    {257, 1}, {333, 517}, {1024, 768}};
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

Test(dof, random_awkward_sizes)
{
    cr_assert_eq(tc_tmpdir_make("dof"), 0);
    th_gpu g;
    th_gpu_open(&g);
    int failures = 0;
    for (size_t i = 0; i < NSIZES; i++)
        for (int precision = 16; precision <= 32; precision += 16) {
            vkfx_pixels px, depth;
            tc_random_pixels(&px, sizes[i][0], sizes[i][1], 4, VKFX_SAMPLE_U8, 200 + i);
            tc_random_pixels(&depth, sizes[i][0], sizes[i][1], 1, VKFX_SAMPLE_U8, 210 + i);
            char file[32], chain[256];
            snprintf(file, sizeof(file), "d%zu.png", i);
            save_map(&depth, file);
            snprintf(chain, sizeof(chain), "dof:depth=%s:focus=0.4:range=0.3:maxcoc=12",
                     tc_tpath(file));
            dof_case dc = {&depth, {0.4, 0.3, 12, false}, 1.0};
            th_case c = {chain, ref_dof_fn, &dc, precision, 2};
            failures += !th_check(&g, &c, &px, 4, VKFX_SAMPLE_U8, "random");
            vkfx_pixels_free(&px);
            vkfx_pixels_free(&depth);
        }
    /* 16-bit and float outputs, and a strength other than 1. */
    vkfx_pixels px, depth;
    tc_random_pixels(&px, 333, 517, 3, VKFX_SAMPLE_U16, 7);
    tc_random_pixels(&depth, 333, 517, 1, VKFX_SAMPLE_U16, 8);
    save_map(&depth, "d16.png");
    char chain[256];
    snprintf(chain, sizeof(chain), "dof:depth=%s:maxcoc=20:strength=0.7", tc_tpath("d16.png"));
    dof_case dc = {&depth, {0.5, 0.5, 20, false}, 0.7};
    th_case c16 = {chain, ref_dof_fn, &dc, 16, 2 * 257};
    failures += !th_check(&g, &c16, &px, 3, VKFX_SAMPLE_U16, "16-bit out");
    th_case cf = {chain, ref_dof_fn, &dc, 32, 2e-3};
    failures += !th_check(&g, &cf, &px, 3, VKFX_SAMPLE_F32, "float out");
    vkfx_pixels_free(&px);
    vkfx_pixels_free(&depth);
    th_gpu_close(&g);
    tc_tmpdir_remove();
    cr_assert_eq(failures, 0, "%d comparisons out of tolerance (worst pixels above)", failures);
}

Test(dof, long_lines)
{
    cr_assert_eq(tc_tmpdir_make("doflong"), 0);
    th_gpu g;
    th_gpu_open(&g);
    vkfx_pixels px, depth;
    tc_random_pixels(&px, 5000, 3, 3, VKFX_SAMPLE_U8, 9);
    tc_random_pixels(&depth, 5000, 3, 1, VKFX_SAMPLE_U8, 10);
    save_map(&depth, "d.png");
    char chain[256];
    snprintf(chain, sizeof(chain), "dof:depth=%s:maxcoc=30", tc_tpath("d.png"));
    dof_case dc = {&depth, {0.5, 0.5, 30, false}, 1.0};
    th_case c = {chain, ref_dof_fn, &dc, 32, 2};
    int failures = !th_check(&g, &c, &px, 3, VKFX_SAMPLE_U8, "5000x3");
    vkfx_pixels_free(&px);
    vkfx_pixels_free(&depth);
    th_gpu_close(&g);
    tc_tmpdir_remove();
    cr_assert_eq(failures, 0, "out of tolerance (worst pixel above)");
}

/* The motorcycle photo and its 16-bit Middlebury disparity map, and dof on them. */
#define MOTORCYCLE_DOF                                                                             \
    "dof:depth=" VKFX_TEST_IMAGES "/motorcycle_disparity16.png:kind=disparity:focus=0.75:"         \
    "range=0.4:maxcoc=12"

static void load_motorcycle(vkfx_pixels *photo, vkfx_pixels *disp)
{
    cr_assert_eq(tc_load_photo("motorcycle_left.png", photo), VKFX_OK, "%s",
                 vkfx_error_message());
    cr_assert_eq(tc_load_photo("motorcycle_disparity16.png", disp), VKFX_OK, "%s",
                 vkfx_error_message());
}

Test(dof, motorcycle_disparity)
{
    th_gpu g;
    th_gpu_open(&g);
    vkfx_pixels photo, disp;
    load_motorcycle(&photo, &disp);
    const char *chain = MOTORCYCLE_DOF;
    dof_case dc = {&disp, {0.75, 0.4, 12, true}, 1.0};
    int failures = 0;
    for (int precision = 16; precision <= 32; precision += 16) {
        th_case c = {chain, ref_dof_fn, &dc, precision, 2};
        failures += !th_check(&g, &c, &photo, photo.channels, VKFX_SAMPLE_U8, "motorcycle");
    }
    vkfx_pixels_free(&photo);
    vkfx_pixels_free(&disp);
    th_gpu_close(&g);
    cr_assert_eq(failures, 0, "%d comparisons out of tolerance (worst pixels above)", failures);
}

/* Runs chain on a float RGB image at rgba32f, float output. */
static void run_float(th_gpu *g, const char *chain, const vkfx_pixels *in, vkfx_pixels *out)
{
    th_run(g, chain, in, 3, VKFX_SAMPLE_F32, 32, out);
}

static void float_image(vkfx_pixels *px, uint32_t w, uint32_t h, uint64_t seed, bool constant)
{
    tc_random_pixels(px, w, h, 3, VKFX_SAMPLE_F32, seed);
    if (constant)
        for (size_t i = 0; i < (size_t)w * h * 3; i++)
            ((float *)px->data)[i] = 0.3f + 0.1f * (float)(i % 3);
}

Test(dof, properties)
{
    cr_assert_eq(tc_tmpdir_make("dofprop"), 0);
    th_gpu g;
    th_gpu_open(&g);
    static const uint32_t shapes[][2] = {{97, 61}, {300, 1}, {1, 300}};
    for (size_t s = 0; s < 3; s++) {
        uint32_t w = shapes[s][0], h = shapes[s][1];
        vkfx_pixels depth, in, out;
        tc_random_pixels(&depth, w, h, 1, VKFX_SAMPLE_U8, 300 + s);
        save_map(&depth, "d.png");
        char chain[256];

        /* coc 0 everywhere: the identity, bit for bit. */
        float_image(&in, w, h, 310 + s, false);
        snprintf(chain, sizeof(chain), "dof:depth=%s:maxcoc=0", tc_tpath("d.png"));
        run_float(&g, chain, &in, &out);
        cr_assert(memcmp(in.data, out.data, vkfx_pixels_bytes(&in)) == 0,
                  "%ux%u: maxcoc=0 changed the image", w, h);
        vkfx_pixels_free(&out);

        /* Sums along every line (and in all) kept; maxcoc 256 stays finite
         * and within the input's range (the implicit step is monotone). */
        snprintf(chain, sizeof(chain), "dof:depth=%s:maxcoc=256", tc_tpath("d.png"));
        run_float(&g, chain, &in, &out);
        const float *a = in.data, *b = out.data;
        double lo = 1e30, hi = -1e30, sum_in[3] = {0}, sum_out[3] = {0};
        for (size_t i = 0; i < (size_t)w * h * 3; i++) {
            lo = fmin(lo, a[i]);
            hi = fmax(hi, a[i]);
            sum_in[i % 3] += a[i];
            sum_out[i % 3] += b[i];
        }
        for (size_t i = 0; i < (size_t)w * h * 3; i++)
            cr_assert(isfinite(b[i]) && b[i] >= lo - 1e-5 && b[i] <= hi + 1e-5,
                      "%ux%u maxcoc=256: sample %zu is %g outside [%g, %g]", w, h, i, b[i], lo, hi);
        for (int c = 0; c < 3; c++)
            cr_assert(fabs(sum_out[c] - sum_in[c]) <= 1e-3 * fabs(sum_in[c]),
                      "%ux%u channel %d: sum %g became %g", w, h, c, sum_in[c], sum_out[c]);
        vkfx_pixels_free(&out);

        /* A constant image stays constant. */
        vkfx_pixels_free(&in);
        float_image(&in, w, h, 0, true);
        run_float(&g, chain, &in, &out);
        for (size_t i = 0; i < (size_t)w * h * 3; i++) {
            float want = ((const float *)in.data)[i], got = ((const float *)out.data)[i];
            cr_assert(fabsf(got - want) <= 1e-5f * want, "%ux%u: constant %g became %g at %zu", w,
                      h, want, got, i);
        }
        vkfx_pixels_free(&out);
        vkfx_pixels_free(&in);
        vkfx_pixels_free(&depth);
    }
    th_gpu_close(&g);
    tc_tmpdir_remove();
}

Test(dof, depth_of_another_size_is_a_usage_error)
{
    cr_assert_eq(tc_tmpdir_make("dofsize"), 0);
    th_gpu g;
    th_gpu_open(&g);
    vkfx_pixels px, depth;
    tc_random_pixels(&px, 40, 30, 3, VKFX_SAMPLE_U8, 1);
    tc_random_pixels(&depth, 41, 30, 1, VKFX_SAMPLE_U8, 2);
    save_map(&depth, "d.png");
    char chain[256];
    snprintf(chain, sizeof(chain), "dof:depth=%s", tc_tpath("d.png"));
    th_expect_usage_error(&g, chain, &px, "41x30 but the image is 40x30");
    vkfx_pixels_free(&px);
    vkfx_pixels_free(&depth);
    th_gpu_close(&g);
    tc_tmpdir_remove();
}

/* hole=0 on the motorcycle's Middlebury disparity (0: no data): each of dof,
 * satdof and bokeh gives the bytes it gives on the map that tests/ref fills
 * (a 16-bit PNG: the fill only copies values, so it is exact), and dof is
 * within 2 codes of ref_dof on the filled map's circle of confusion. Without
 * the fill the holes (27226 pixels) read as the farthest depth. */
Test(dof, holes_filled_before_the_circle_of_confusion)
{
    th_gpu g;
    th_gpu_open(&g);
    vkfx_pixels photo, disp;
    load_motorcycle(&photo, &disp);
    cr_assert_eq(disp.sample, VKFX_SAMPLE_U16);
    uint32_t w = disp.width, h = disp.height;
    size_t n = (size_t)w * h, holes = 0;
    double *z = malloc(n * sizeof(*z));
    cr_assert(z);
    for (size_t i = 0; i < n; i++) {
        z[i] = ref_map_value(&disp, i);
        holes += z[i] == 0;
    }
    cr_assert_gt(holes, 1000, "the map has holes to fill (%zu)", holes);
    /* Disparity: the farther of two neighbours is the smaller value. */
    cr_assert_eq(ref_fill_holes(z, w, h, 0, false), 0);
    vkfx_pixels filled = {0};
    cr_assert_eq(vkfx_pixels_alloc(&filled, w, h, 1, VKFX_SAMPLE_U16), VKFX_OK);
    size_t left = 0;
    for (size_t i = 0; i < n; i++) {
        ((uint16_t *)filled.data)[i] = (uint16_t)lround(z[i] * 65535);
        left += z[i] == 0;
    }
    cr_expect_eq(left, 0, "every hole has a known neighbour in the motorcycle's map");
    save_map(&filled, "filled.png");
    static const char *const filters[] = {"dof", "satdof", "bokeh"};
    int failures = 0;
    for (size_t f = 0; f < 3; f++) {
        char with_holes[512], on_filled[512];
        const char *opts = "kind=disparity:focus=0.75:range=0.4:maxcoc=12";
        snprintf(with_holes, sizeof(with_holes), "%s:depth=%s/motorcycle_disparity16.png:%s:hole=0",
                 filters[f], VKFX_TEST_IMAGES, opts);
        snprintf(on_filled, sizeof(on_filled), "%s:depth=%s:%s", filters[f],
                 tc_tpath("filled.png"), opts);
        vkfx_pixels got = {0}, want = {0};
        th_run(&g, with_holes, &photo, 3, VKFX_SAMPLE_U8, 16, &got);
        th_run(&g, on_filled, &photo, 3, VKFX_SAMPLE_U8, 16, &want);
        tc_diff d = tc_compare(&got, &want, 0);
        tc_report(&d, filters[f]);
        failures += !tc_diff_ok(&d);
        vkfx_pixels_free(&got);
        vkfx_pixels_free(&want);
    }
    const char *chain = MOTORCYCLE_DOF ":hole=0";
    dof_case dc = {&filled, {0.75, 0.4, 12, true}, 1.0};
    th_case c = {chain, ref_dof_fn, &dc, 32, 2};
    failures += !th_check(&g, &c, &photo, photo.channels, VKFX_SAMPLE_U8, "motorcycle, holes");
    free(z);
    vkfx_pixels_free(&filled);
    vkfx_pixels_free(&photo);
    vkfx_pixels_free(&disp);
    th_gpu_close(&g);
    cr_assert_eq(failures, 0, "%d comparisons out of tolerance (worst pixels above)", failures);
}
