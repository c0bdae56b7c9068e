/* Summed-area tables, satblur and satdof.
 *
 * "sat" runs under every subgroup configuration meson sets up (lavapipe at
 * LP_NATIVE_VECTOR_WIDTH 128, 256 and 512: 4, 8 and 16 lanes, and the
 * shared-memory path with VKFX_TEST_NO_SUBGROUP_OPS=1):
 * - the table of 8-bit integer data (fixed-point shift 0) equals a 64-bit
 *   CPU sum exactly at 1x1, 1xN, Nx1, odd sizes and sizes around the tile;
 * - the table pass reports the subgroup size it ran with (gl_SubgroupSize)
 *   and it is the one the pipeline was specialised and pinned for;
 * - satblur (fixed radius, radius map, smooth shape) and satdof (random and
 *   real depth maps, the motorcycle with its disparity) against the C
 *   reference tests/ref/sat.c: 8-bit outputs within 1 code value, float
 *   outputs within 1e-3 relative (floor 1e-3);
 * - a depth map of another size is a usage error.
 * "sat_large" (run once): the 4096x4096 table exactly, and box means from
 * it within 0.5/255 of the exact means, which a float32 table misses. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fileio.h"
#include "filters/filters.h"
#include "gpu_harness.h"
#include "run.h"

/* The table, with fixed-point shift 0, of the w x h gray (ch 1) or RGB (ch
 * 3) integer samples vals given as floats (alpha 1), read in through the decode kernel as
 * linear float data, into table (w h 4 int64), and the probe the table
 * pass wrote. */
static void sat_gpu(th_gpu *g, const float *vals, uint32_t ch, uint32_t w, uint32_t h,
                    int64_t *table, uint32_t probe[4])
{
    vkfx_graph *gr = NULL;
    vkfx_buffer *raw = NULL, *pb = NULL;
    vkfx_image *img = NULL;
    vkfx_sat sat = {0};
    size_t n = (size_t)w * h;
    vkfx_pixels px = {.width = w,
                      .height = h,
                      .channels = ch,
                      .sample = VKFX_SAMPLE_F32,
                      .linear = true,
                      .straight = true,
                      .data = (void *)vals};
    cr_assert_eq(vkfx_graph_begin(g->ctx, w, h, VK_FORMAT_R32G32B32A32_SFLOAT, false, &gr), VKFX_OK,
                 "%s", vkfx_error_message());
    vkfx_graph_set_staging(gr, g->staging);
    cr_assert_eq(vkfx_graph_upload(gr, vals, n * ch * 4, &raw), VKFX_OK, "%s",
                 vkfx_error_message());
    cr_assert_eq(vkfx_graph_image(gr, w, h, VK_FORMAT_R32G32B32A32_SFLOAT, &img), VKFX_OK);
    cr_assert_eq(vkfx_graph_buffer(gr, 16, 0, &pb), VKFX_OK);
    cr_assert_eq(vkfx_record_decode(gr, raw, &px, true, NULL, img), VKFX_OK, "%s",
                 vkfx_error_message());
    cr_assert_eq(vkfx_sat_record(gr, img, 0, pb, &sat), VKFX_OK, "%s", vkfx_error_message());
    /* Read back in bands of at most 512 rows: 64 MiB at 4096 columns, within
     * every device's storage-buffer range. */
    enum { BAND = 512 };
    vkfx_buffer *bands[(16384 + BAND - 1) / BAND] = {0};
    for (uint32_t y = 0, b = 0; y < h; y += BAND, b++) {
        uint32_t rows = h - y < BAND ? h - y : BAND;
        cr_assert_eq(vkfx_graph_buffer(gr, (VkDeviceSize)w * rows * 32, 0, &bands[b]), VKFX_OK);
        cr_assert_eq(vkfx_sat_record_export(gr, &sat, y, rows, bands[b]), VKFX_OK, "%s",
                     vkfx_error_message());
    }
    cr_assert_eq(vkfx_graph_run(gr), VKFX_OK, "%s", vkfx_error_message());
    for (uint32_t y = 0, b = 0; y < h; y += BAND, b++) {
        uint32_t rows = h - y < BAND ? h - y : BAND;
        cr_assert_eq(vkfx_staging_download(g->staging, bands[b]->buffer, 0,
                                           table + (size_t)y * w * 4, (size_t)w * rows * 32),
                     VKFX_OK, "%s", vkfx_error_message());
    }
    cr_assert_eq(vkfx_staging_download(g->staging, pb->buffer, 0, probe, 16), VKFX_OK);
    vkfx_graph_destroy(gr);
}

/* Random 8-bit gray or RGB integers as floats, and the CPU table of them
 * with alpha 1, in 64 bits. */
static float *random_values(uint32_t ch, uint32_t w, uint32_t h, uint64_t seed)
{
    vkfx_pixels px;
    tc_random_pixels(&px, w, h, ch, VKFX_SAMPLE_U8, seed);
    size_t n = (size_t)w * h * ch;
    float *v = malloc(n * sizeof(*v));
    cr_assert(v);
    for (size_t i = 0; i < n; i++)
        v[i] = ((const uint8_t *)px.data)[i];
    vkfx_pixels_free(&px);
    return v;
}

static int64_t *cpu_table(const float *v, uint32_t ch, uint32_t w, uint32_t h)
{
    int64_t *s = malloc((size_t)w * h * 4 * sizeof(*s));
    cr_assert(s);
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++)
            for (int c = 0; c < 4; c++) {
                size_t p = (size_t)y * w + x, i = p * 4 + c;
                int64_t left = x ? s[i - 4] : 0, up = y ? s[i - (size_t)w * 4] : 0;
                int64_t corner = x && y ? s[i - (size_t)w * 4 - 4] : 0;
                int64_t sample = c == 3 ? 1 : (int64_t)v[p * ch + (ch == 1 ? 0 : c)];
                s[i] = sample + left + up - corner;
            }
    return s;
}

static bool expected_subgroup(const th_gpu *g, uint32_t *size)
{
    const char *nsg = getenv("VKFX_TEST_NO_SUBGROUP_OPS");
    if (nsg && strcmp(nsg, "1") == 0)
        return false;
    *size = g->ctx->subgroup_size;
    return true;
}

/* Compares the whole table; returns the number of wrong entries. */
static size_t check_table(th_gpu *g, uint32_t ch, uint32_t w, uint32_t h, uint64_t seed)
{
    size_t n = (size_t)w * h * 4;
    float *v = random_values(ch, w, h, seed);
    int64_t *want = cpu_table(v, ch, w, h);
    int64_t *got = malloc(n * sizeof(*got));
    uint32_t probe[4] = {0};
    cr_assert(got);
    sat_gpu(g, v, ch, w, h, got, probe);
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < n; i++)
        if (got[i] != want[i] && bad++ == 0)
            first = i;
    if (bad)
        fprintf(stderr,
                "sat %ux%u: %zu of %zu entries wrong; first at (%zu, %zu) channel %zu: got %lld, "
                "want %lld\n",
                w, h, bad, n, first / 4 % w, first / 4 / w, first % 4, (long long)got[first],
                (long long)want[first]);
    uint32_t sg = 0;
    if (expected_subgroup(g, &sg)) {
        cr_expect_eq(probe[0], sg,
                     "%ux%u: the table pass ran with %u lanes, the device's "
                     "subgroup size is %u",
                     w, h, probe[0], sg);
        cr_expect_eq(probe[1], sg, "%ux%u: specialised for %u lanes, not %u", w, h, probe[1], sg);
    } else {
        cr_expect_eq(probe[0], 0, "the shared-memory path reported subgroup size %u", probe[0]);
    }
    free(v);
    free(want);
    free(got);
    return bad;
}

Test(sat, table_exact_awkward_sizes)
{
    static const uint32_t sizes[][2] = {{1, 1},   {1, 300}, {300, 1},  {2, 2},     {31, 33},
                                        {32, 32}, {33, 31}, {65, 129}, {333, 517}, {1024, 768}};
    th_gpu g;
    th_gpu_open(&g);
    size_t bad = 0;
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
        bad += check_table(&g, 3, sizes[i][0], sizes[i][1], 40 + i);
    bad += check_table(&g, 1, 333, 517, 50);
    th_gpu_close(&g);
    cr_assert_eq(bad, 0, "%zu table entries differ from the 64-bit CPU sums (above)", bad);
}

Test(sat, runs_with_the_subgroup_size_it_claims)
{
    th_gpu g;
    th_gpu_open(&g);
    uint32_t sg = 0;
    float v[3] = {1, 2, 3};
    int64_t t[4];
    uint32_t probe[4] = {0};
    sat_gpu(&g, v, 3, 1, 1, t, probe);
    if (expected_subgroup(&g, &sg)) {
        /* lavapipe's subgroup size follows LP_NATIVE_VECTOR_WIDTH / 32. */
        const char *lp = getenv("LP_NATIVE_VECTOR_WIDTH");
        if (lp && strstr(g.ctx->props.deviceName, "llvmpipe"))
            cr_expect_eq(sg, (uint32_t)atoi(lp) / 32, "LP_NATIVE_VECTOR_WIDTH=%s gave %u lanes", lp,
                         sg);
        cr_expect_eq(probe[0], sg, "gl_SubgroupSize %u, device %u", probe[0], sg);
        cr_expect_eq(probe[1], sg, "specialisation constant %u, device %u", probe[1], sg);
        /* Work groups of 32 invocations (or one subgroup, if larger):
         * bands of one subgroup each. */
        uint32_t group = sg < 32 ? 32 : sg;
        cr_expect_eq(probe[2] * probe[0], group, "%u subgroups of %u lanes in a %u-lane group",
                     probe[2], probe[0], group);
        fprintf(stderr, "sat: the table pass ran with %u lanes per subgroup\n", probe[0]);
    } else {
        cr_expect_eq(probe[0], 0);
    }
    th_gpu_close(&g);
}

static const uint32_t sizes[][2] = {{1, 1}, {1, 257}, {257, 1}, {333, 517}, {1024, 768}};
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

Test(sat, satblur_random_awkward_sizes)
{
    static const int radii[] = {0, 1, 7, 600};
    th_gpu g;
    th_gpu_open(&g);
    int failures = 0;
    for (size_t i = 0; i < NSIZES; i++)
        for (size_t r = 0; r < sizeof(radii) / sizeof(radii[0]); r++)
            for (int smooth = 0; smooth <= 1; smooth++) {
                int precision = (i + r + smooth) % 2 ? 32 : 16;
                char chain[64];
                snprintf(chain, sizeof(chain), "satblur:radius=%d%s", radii[r],
                         smooth ? ":shape=smooth" : "");
                ref_sat_params p = {.radius = radii[r], .smooth = smooth};
                th_case c = {chain, th_ref_satblur, &p, precision, 1};
                vkfx_pixels px;
                tc_random_pixels(&px, sizes[i][0], sizes[i][1], 4, VKFX_SAMPLE_U8, 70 + i);
                failures += !th_check(&g, &c, &px, 4, VKFX_SAMPLE_U8, "random");
                vkfx_pixels_free(&px);
            }
    /* Every channel layout on tiny images, and float output. */
    ref_sat_params p3 = {.radius = 3};
    th_case c3 = {"satblur:radius=3", th_ref_satblur, &p3, 16, 1};
    failures += th_check_small(&g, &c3);
    th_case cf = {"satblur:radius=5", th_ref_satblur, &(ref_sat_params){.radius = 5}, 32, 1e-3};
    vkfx_pixels px;
    tc_random_pixels(&px, 333, 517, 4, VKFX_SAMPLE_U16, 5);
    failures += !th_check(&g, &cf, &px, 4, VKFX_SAMPLE_F32, "float out");
    vkfx_pixels_free(&px);
    th_gpu_close(&g);
    cr_assert_eq(failures, 0, "%d comparisons out of tolerance (worst pixels above)", failures);
}

Test(sat, satblur_photos)
{
    th_gpu g;
    th_gpu_open(&g);
    ref_sat_params p = {.radius = 9}, ps = {.radius = 21, .smooth = true};
    int failures = th_check_photos(&g, &(th_case){"satblur:radius=9", th_ref_satblur, &p, 16, 1});
    failures += th_check_photos(
        &g, &(th_case){"satblur:radius=21:shape=smooth", th_ref_satblur, &ps, 32, 1});
    th_gpu_close(&g);
    cr_assert_eq(failures, 0, "%d comparisons out of tolerance (worst pixels above)", failures);
}

static void save_map(const vkfx_pixels *m, const char *name)
{
    cr_assert_eq(vkfx_file_save(tc_tpath(name), VKFX_FILE_PNG, m, NULL), VKFX_OK, "%s",
                 vkfx_error_message());
}

Test(sat, satblur_radius_map)
{
    cr_assert_eq(tc_tmpdir_make("sat"), 0);
    th_gpu g;
    th_gpu_open(&g);
    int failures = 0;
    for (size_t i = 0; i < NSIZES; i++)
        for (int bits = 8; bits <= 16; bits += 8) {
            vkfx_pixels px, map;
            vkfx_sample s = bits == 8 ? VKFX_SAMPLE_U8 : VKFX_SAMPLE_U16;
            tc_random_pixels(&px, sizes[i][0], sizes[i][1], 3, VKFX_SAMPLE_U8, 90 + i);
            tc_random_pixels(&map, sizes[i][0], sizes[i][1], bits == 8 ? 1 : 2, s, 95 + i);
            char file[32], chain[128];
            snprintf(file, sizeof(file), "map%zu_%d.png", i, bits);
            save_map(&map, file);
            int scale = bits == 8 ? 20 : 40;
            snprintf(chain, sizeof(chain), "satblur:map=%s:scale=%d%s", tc_tpath(file), scale,
                     bits == 16 ? ":shape=smooth" : "");
            ref_sat_params p = {.map = &map, .scale = scale, .smooth = bits == 16};
            th_case c = {chain, th_ref_satblur, &p, 16, 1};
            failures += !th_check(&g, &c, &px, 3, VKFX_SAMPLE_U8, "map");
            vkfx_pixels_free(&px);
            vkfx_pixels_free(&map);
        }
    th_gpu_close(&g);
    tc_tmpdir_remove();
    cr_assert_eq(failures, 0, "%d comparisons out of tolerance (worst pixels above)", failures);
}

/* The device computes the circle of confusion in float32: a value within
 * a rounding error of n + 1/2 could round either way there. The inputs
 * below keep every value at least 5e-6 from such a tie (float32 errors stay below 4e-6 for them)
 * (checked here), so the radii are the same and the comparison is of the blur alone. */
static void assert_no_ties(const ref_sat_params *p, size_t n, const char *what)
{
    for (size_t i = 0; i < n; i++) {
        double t = ref_coc(ref_map_value(p->map, i), p->coc);
        double frac = t - floor(t);
        cr_assert(fabs(frac - 0.5) > 5e-6, "%s: pixel %zu has coc %.9f, a rounding tie", what, i,
                  t);
    }
}

Test(sat, satdof_random_depth)
{
    cr_assert_eq(tc_tmpdir_make("satdof"), 0);
    th_gpu g;
    th_gpu_open(&g);
    int failures = 0;
    ref_coc_params coc[] = {{0.5, 0.5, 16, false}, {0.25, 0.5, 40, true}};
    const char *opts[] = {"", ":focus=0.25:range=0.5:maxcoc=40:kind=disparity:shape=smooth"};
    for (size_t i = 0; i < NSIZES; i++)
        for (size_t k = 0; k < 2; k++) {
            vkfx_pixels px, depth;
            tc_random_pixels(&px, sizes[i][0], sizes[i][1], 4, VKFX_SAMPLE_U8, 120 + i);
            tc_random_pixels(&depth, sizes[i][0], sizes[i][1], 1, VKFX_SAMPLE_U8, 130 + i);
            char file[32], chain[160];
            snprintf(file, sizeof(file), "depth%zu.png", i);
            save_map(&depth, file);
            snprintf(chain, sizeof(chain), "satdof:depth=%s%s", tc_tpath(file), opts[k]);
            ref_sat_params p = {.map = &depth, .coc = &coc[k], .smooth = k == 1};
            assert_no_ties(&p, (size_t)depth.width * depth.height, chain);
            th_case c = {chain, th_ref_satblur, &p, 16, 1};
            failures += !th_check(&g, &c, &px, 4, VKFX_SAMPLE_U8, "random depth");
            vkfx_pixels_free(&px);
            vkfx_pixels_free(&depth);
        }
    th_gpu_close(&g);
    tc_tmpdir_remove();
    cr_assert_eq(failures, 0, "%d comparisons out of tolerance (worst pixels above)", failures);
}

Test(sat, satdof_motorcycle_disparity)
{
    th_gpu g;
    th_gpu_open(&g);
    vkfx_pixels photo, disp;
    cr_assert_eq(tc_load_photo("motorcycle_left.png", &photo), VKFX_OK, "%s", vkfx_error_message());
    cr_assert_eq(tc_load_photo("motorcycle_disparity16.png", &disp), VKFX_OK, "%s",
                 vkfx_error_message());
    int failures = 0;
    ref_coc_params coc[] = {{0.5, 0.5, 16, true}, {0.3, 0.4, 24, true}};
    const char *opts[] = {":kind=disparity", ":kind=disparity:focus=0.3:range=0.4:maxcoc=24"};
    for (size_t k = 0; k < 2; k++) {
        char chain[512];
        snprintf(chain, sizeof(chain), "satdof:depth=%s/motorcycle_disparity16.png%s",
                 VKFX_TEST_IMAGES, opts[k]);
        ref_sat_params p = {.map = &disp, .coc = &coc[k]};
        assert_no_ties(&p, (size_t)disp.width * disp.height, chain);
        th_case c = {chain, th_ref_satblur, &p, k ? 32 : 16, 1};
        failures += !th_check(&g, &c, &photo, photo.channels, VKFX_SAMPLE_U8, "motorcycle");
    }
    vkfx_pixels_free(&photo);
    vkfx_pixels_free(&disp);
    th_gpu_close(&g);
    cr_assert_eq(failures, 0, "%d comparisons out of tolerance (worst pixels above)", failures);
}

Test(sat, depth_of_another_size_is_a_usage_error)
{
    cr_assert_eq(tc_tmpdir_make("satsize"), 0);
    th_gpu g;
    th_gpu_open(&g);
    vkfx_pixels px, depth;
    tc_random_pixels(&px, 40, 30, 3, VKFX_SAMPLE_U8, 1);
    tc_random_pixels(&depth, 30, 40, 1, VKFX_SAMPLE_U8, 2);
    save_map(&depth, "d.png");
    const char *filters[] = {"satdof:depth=", "satblur:map="};
    for (int i = 0; i < 2; i++) {
        char chain[256];
        snprintf(chain, sizeof(chain), "%s%s", filters[i], tc_tpath("d.png"));
        th_expect_usage_error(&g, chain, &px, "30x40 but the image is 40x30");
    }
    vkfx_pixels_free(&px);
    vkfx_pixels_free(&depth);
    th_gpu_close(&g);
    tc_tmpdir_remove();
}

Test(sat_large, table_exact_4096)
{
    th_gpu g;
    th_gpu_open(&g);
    /* Gray: float RGB input would need a 192 MiB buffer, beyond lavapipe's
     * 128 MiB storage-buffer range. */
    size_t bad = check_table(&g, 1, 4096, 4096, 4096);
    th_gpu_close(&g);
    cr_assert_eq(bad, 0, "%zu table entries differ from the 64-bit CPU sums (above)", bad);
}

/* Box means of a 4096x4096 8-bit gray image (values c/255, --linear,
 * rgba32f, float gray output) against the exact means from integer sums;
 * the same means from a plain float32 table, computed here, miss the
 * 0.5/255 bound. */
Test(sat_large, box_means_within_half_a_code_4096)
{
    const uint32_t w = 4096, h = 4096;
    th_gpu g;
    th_gpu_open(&g);
    vkfx_pixels px;
    tc_random_pixels(&px, w, h, 1, VKFX_SAMPLE_U8, 4242);
    const uint8_t *c = px.data;
    int64_t *s = calloc((size_t)(w + 1) * (h + 1), sizeof(*s));
    float *f = calloc((size_t)(w + 1) * (h + 1), sizeof(*f));
    cr_assert(s && f);
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            size_t i = (size_t)(y + 1) * (w + 1) + x + 1;
            s[i] = c[(size_t)y * w + x] + s[i - 1] + s[i - w - 1] - s[i - w - 2];
            f[i] = c[(size_t)y * w + x] / 255.0f + f[i - 1] + f[i - w - 1] - f[i - w - 2];
        }
    static const int radii[] = {1, 40, 3000};
    double worst_float = 0;
    for (size_t r = 0; r < sizeof(radii) / sizeof(radii[0]); r++) {
        char chain[64];
        snprintf(chain, sizeof(chain), "satblur:radius=%d", radii[r]);
        vkfx_chain *ch = NULL;
        vkfx_run_result res;
        vkfx_run_opts o = {.precision = 32, .linear = true};
        vkfx_pixels out = {.channels = 1, .sample = VKFX_SAMPLE_F32};
        cr_assert_eq(vkfx_chain_parse(chain, &ch), VKFX_OK);
        cr_assert_eq(vkfx_run(g.ctx, g.staging, ch, &px, &out, &o, &res), VKFX_OK, "%s: %s", chain,
                     vkfx_error_message());
        free(res.times);
        vkfx_chain_free(ch);
        double worst = 0;
        uint32_t wx = 0, wy = 0;
        const float *got = out.data;
        int64_t rr = radii[r];
        for (uint32_t y = 0; y < h; y++)
            for (uint32_t x = 0; x < w; x++) {
                int64_t x1 = (int64_t)x - rr < 0 ? 0 : (int64_t)x - rr;
                int64_t x2 = (int64_t)x + rr + 1 > w ? w : (int64_t)x + rr + 1;
                int64_t y1 = (int64_t)y - rr < 0 ? 0 : (int64_t)y - rr;
                int64_t y2 = (int64_t)y + rr + 1 > h ? h : (int64_t)y + rr + 1;
                double area = (double)(x2 - x1) * (double)(y2 - y1);
#define AT(X, Y) ((size_t)(Y) * (w + 1) + (size_t)(X))
                double exact =
                    (s[AT(x2, y2)] - s[AT(x1, y2)] - s[AT(x2, y1)] + s[AT(x1, y1)]) / area / 255.0;
                double fm = (f[AT(x2, y2)] - f[AT(x1, y2)] - f[AT(x2, y1)] + f[AT(x1, y1)]) / area;
#undef AT
                double e = fabs(got[(size_t)y * w + x] - exact);
                if (e > worst) {
                    worst = e;
                    wx = x, wy = y;
                }
                if (fabs(fm - exact) > worst_float)
                    worst_float = fabs(fm - exact);
            }
        fprintf(stderr, "sat 4096x4096 radius %d: worst error %.3g (%.5f/255) at (%u, %u)\n",
                radii[r], worst, worst * 255, wx, wy);
        cr_expect(worst <= 0.5 / 255, "radius %d: mean off by %.6f/255 at (%u, %u)", radii[r],
                  worst * 255, wx, wy);
        vkfx_pixels_free(&out);
    }
    fprintf(stderr, "a float32 table would be off by up to %.1f/255\n", worst_float * 255);
    cr_expect(worst_float > 0.5 / 255,
              "a float32 table stayed within 0.5/255 (%.4f/255): the test image is too easy",
              worst_float * 255);
    free(s);
    free(f);
    vkfx_pixels_free(&px);
    th_gpu_close(&g);
}
