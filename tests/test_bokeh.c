/* bokeh on the GPU against tests/ref/bokeh.c (gather, the base blur from
 * tests/ref/dof.c or tests/ref/sat.c, splats, all in double precision):
 * 8-bit outputs within 2 code values on random images at awkward sizes and
 * on hubble_deep_field.jpg and the motorcycle pair, with both bases, discs
 * and hexagons. Properties: one bright pixel on black becomes a disc (or
 * hexagon) of radius coc carrying exactly its energy; an image without hot
 * spots gives the base filter's bytes; total energy is kept within 1e-3
 * relative; ten runs give identical bytes, also when hot spots overflow max
 * (then the first max in row-major order are splatted, as the reference
 * does); overflow beyond max is reported
 * and the run completes. Inputs whose luminance or circle of confusion lies
 * within 5e-6 of a decision (threshold, coc 2, a radius rounding tie) are
 * nudged by one code first, so float32 and double agree on every decision. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fileio.h"
#include "gpu_harness.h"
#include "run_binary.h"

typedef struct bokeh_case {
    const vkfx_pixels *depth;
    ref_coc_params coc;
    ref_bokeh_params p;
    bool satdof;
} bokeh_case;

static double *coc_map(const bokeh_case *c, size_t n)
{
    double *coc = malloc(n * sizeof(*coc));
    cr_assert(coc);
    for (size_t i = 0; i < n; i++)
        coc[i] = ref_coc(ref_map_value(c->depth, i), &c->coc);
    return coc;
}

static int ref_bokeh_fn(const ref_image *in, ref_image *out, const void *arg, int precision)
{
    const bokeh_case *c = arg;
    size_t n = (size_t)in->w * in->h, kept, total;
    double *coc = coc_map(c, n);
    ref_image base_in = {0};
    ref_bokeh_spot *spots = NULL;
    int ret = ref_bokeh_gather(in, coc, &c->p, &base_in, &spots, &kept, &total);
    if (ret == VKFX_OK) {
        if (c->satdof) {
            ref_sat_params sp = {.map = c->depth, .coc = &c->coc};
            ret = ref_satblur(&base_in, &sp, out);
        } else {
            ret = ref_dof(&base_in, coc, 1.0, precision == 16, out);
        }
    }
    /* The base result is stored in the internal format before the splats. */
    if (ret == VKFX_OK && precision == 16)
        ref_round_half(out);
    if (ret == VKFX_OK)
        ref_bokeh_splat(out, spots, kept, &c->p);
    ref_image_free(&base_in);
    free(spots);
    free(coc);
    return ret;
}

static bool near(double v, double edge)
{
    return fabs(v - edge) < 5e-6;
}

/* Nudges 8-bit pixels whose luminance is within 5e-6 of the threshold, and
 * fails if a circle of confusion sits on a decision that matters: 2 px or
 * a radius rounding tie for hot spots, a rounding tie anywhere under the
 * satdof base (float32 errors stay below 4e-6 for these maps). */
static void condition(vkfx_pixels *px, const bokeh_case *c, int precision)
{
    size_t n = (size_t)px->width * px->height;
    double *coc = coc_map(c, n);
    uint8_t *d = px->data;
    for (size_t i = 0; i < n; i++) {
        bool tie = near(coc[i] - floor(coc[i]), 0.5);
        cr_assert(!(c->satdof && tie), "pixel %zu: coc %.9f is a rounding tie", i, coc[i]);
        double y = 0;
        for (int tries = 0; tries < 4; tries++) {
            vkfx_pixels one = *px;
            one.width = one.height = 1;
            one.data = d + i * px->channels;
            ref_image r = {0};
            cr_assert_eq(ref_decode(&one, false, &r), VKFX_OK);
            if (precision == 16)
                ref_round_half(&r);
            y = ref_luma(r.px[0], r.px[1], r.px[2]);
            ref_image_free(&r);
            if (!near(y, c->p.threshold))
                break;
            d[i * px->channels] ^= 1;
        }
        if (y > c->p.threshold)
            cr_assert(!near(coc[i], 2.0) && !tie, "hot pixel %zu: coc %.9f on a decision", i,
                      coc[i]);
    }
    free(coc);
}

static void save_map(const vkfx_pixels *m, const char *name)
{
    cr_assert_eq(vkfx_file_save(tc_tpath(name), VKFX_FILE_PNG, m, NULL), VKFX_OK, "%s",
                 vkfx_error_message());
}

Test(bokeh, random_awkward_sizes)
{
    cr_assert_eq(tc_tmpdir_make("bokeh"), 0);
    static const uint32_t sizes[][2] = {{1, 1}, {2, 1}, {1, 257}, {257, 1}, {333, 517}};
    th_gpu g;
    th_gpu_open(&g);
    int failures = 0;
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
        for (int k = 0; k < 2; k++) {
            int precision = k ? 32 : 16;
            vkfx_pixels px, depth;
            tc_random_pixels(&px, sizes[i][0], sizes[i][1], 4, VKFX_SAMPLE_U8, 400 + i);
            tc_random_pixels(&depth, sizes[i][0], sizes[i][1], 1, VKFX_SAMPLE_U8, 410 + i);
            save_map(&depth, "d.png");
            bokeh_case bc = {&depth, {0.5, 0.5, 16, false}, {0.4, 1.5, k ? 6 : 0, 65536}, k};
            condition(&px, &bc, precision);
            char chain[256];
            snprintf(chain, sizeof(chain),
                     "bokeh:depth=%s:threshold=0.4:gain=1.5:blades=%d:base=%s", tc_tpath("d.png"),
                     bc.p.blades, k ? "satdof" : "dof");
            th_case c = {chain, ref_bokeh_fn, &bc, precision, 2};
            failures += !th_check(&g, &c, &px, 4, VKFX_SAMPLE_U8, "random");
            vkfx_pixels_free(&px);
            vkfx_pixels_free(&depth);
        }
    th_gpu_close(&g);
    tc_tmpdir_remove();
    cr_assert_eq(failures, 0, "%d comparisons out of tolerance (worst pixels above)", failures);
}

/* hubble_deep_field.jpg with a depth ramp (far on the left, in focus on
 * the right), and the motorcycle with its disparity. */
Test(bokeh, photos)
{
    cr_assert_eq(tc_tmpdir_make("bokehp"), 0);
    th_gpu g;
    th_gpu_open(&g);
    int failures = 0;
    vkfx_pixels sky, ramp, bike, disp;
    cr_assert_eq(tc_load_photo("hubble_deep_field.jpg", &sky), VKFX_OK, "%s",
                 vkfx_error_message());
    cr_assert_eq(vkfx_pixels_alloc(&ramp, sky.width, sky.height, 1, VKFX_SAMPLE_U8), VKFX_OK);
    for (uint32_t y = 0; y < sky.height; y++)
        for (uint32_t x = 0; x < sky.width; x++)
            ((uint8_t *)ramp.data)[(size_t)y * sky.width + x] =
                (uint8_t)(255 - x * 255 / sky.width);
    save_map(&ramp, "ramp.png");
    bokeh_case sc = {&ramp, {0.2, 0.5, 12, false}, {0.5, 1.0, 0, 65536}, false};
    condition(&sky, &sc, 16);
    char chain[512];
    snprintf(chain, sizeof(chain), "bokeh:depth=%s:focus=0.2:range=0.5:maxcoc=12:threshold=0.5",
             tc_tpath("ramp.png"));
    th_case c1 = {chain, ref_bokeh_fn, &sc, 16, 2};
    failures += !th_check(&g, &c1, &sky, 3, VKFX_SAMPLE_U8, "hubble");
    /* More hot spots than max: the first 100 in row-major order are splatted. */
    bokeh_case oc = sc;
    oc.p.max = 100;
    snprintf(chain, sizeof(chain),
             "bokeh:depth=%s:focus=0.2:range=0.5:maxcoc=12:threshold=0.5:max=100",
             tc_tpath("ramp.png"));
    th_case c3 = {chain, ref_bokeh_fn, &oc, 16, 2};
    failures += !th_check(&g, &c3, &sky, 3, VKFX_SAMPLE_U8, "hubble, max=100");

    cr_assert_eq(tc_load_photo("motorcycle_left.png", &bike), VKFX_OK);
    cr_assert_eq(tc_load_photo("motorcycle_disparity16.png", &disp), VKFX_OK);
    bokeh_case mc = {&disp, {0.7, 0.4, 12, true}, {0.6, 2.0, 6, 65536}, true};
    condition(&bike, &mc, 32);
    snprintf(chain, sizeof(chain),
             "bokeh:depth=%s/motorcycle_disparity16.png:kind=disparity:focus=0.7:range=0.4:"
             "maxcoc=12:threshold=0.6:gain=2:blades=6:base=satdof",
             VKFX_TEST_IMAGES);
    th_case c2 = {chain, ref_bokeh_fn, &mc, 32, 2};
    failures += !th_check(&g, &c2, &bike, 3, VKFX_SAMPLE_U8, "motorcycle");
    vkfx_pixels_free(&sky);
    vkfx_pixels_free(&ramp);
    vkfx_pixels_free(&bike);
    vkfx_pixels_free(&disp);
    th_gpu_close(&g);
    tc_tmpdir_remove();
    cr_assert_eq(failures, 0, "%d comparisons out of tolerance (worst pixels above)", failures);
}

/* One white pixel on black, depth everywhere giving coc 6: a disc (or
 * hexagon) of radius 6 whose values sum to the pixel's energy. */
Test(bokeh, single_point_becomes_its_shape)
{
    cr_assert_eq(tc_tmpdir_make("bokeh1"), 0);
    th_gpu g;
    th_gpu_open(&g);
    const uint32_t w = 41, h = 37, cx = 20, cy = 18;
    vkfx_pixels px, depth, out;
    cr_assert_eq(vkfx_pixels_alloc(&px, w, h, 3, VKFX_SAMPLE_F32), VKFX_OK);
    memset(px.data, 0, vkfx_pixels_bytes(&px));
    px.linear = px.straight = true;
    float *p = (float *)px.data + ((size_t)cy * w + cx) * 3;
    p[0] = 2.0f, p[1] = 1.0f, p[2] = 0.5f;
    cr_assert_eq(vkfx_pixels_alloc(&depth, w, h, 1, VKFX_SAMPLE_U8), VKFX_OK);
    memset(depth.data, 255, (size_t)w * h);
    save_map(&depth, "d.png");
    for (int blades = 0; blades <= 6; blades += 6) {
        char chain[256];
        snprintf(chain, sizeof(chain), "bokeh:depth=%s:focus=0:range=0.5:maxcoc=6:blades=%d",
                 tc_tpath("d.png"), blades);
        th_run(&g, chain, &px, 3, VKFX_SAMPLE_F32, 32, &out);
        size_t covered = 0;
        for (int dy = -6; dy <= 6; dy++)
            for (int dx = -6; dx <= 6; dx++)
                covered += ref_bokeh_in_shape(dx, dy, 6, blades);
        double sum[3] = {0};
        const float *o = out.data;
        for (uint32_t y = 0; y < h; y++)
            for (uint32_t x = 0; x < w; x++) {
                int dx = (int)x - (int)cx, dy = (int)y - (int)cy;
                bool in = abs(dx) <= 6 && abs(dy) <= 6 && ref_bokeh_in_shape(dx, dy, 6, blades);
                for (int k = 0; k < 3; k++) {
                    double v = o[((size_t)y * w + x) * 3 + k];
                    double want = in ? p[k] / (double)covered : 0.0;
                    cr_assert(fabs(v - want) <= 1e-6, "blades %d (%d,%d) c%d: %g, want %g", blades,
                              dx, dy, k, v, want);
                    sum[k] += v;
                }
            }
        for (int k = 0; k < 3; k++)
            cr_assert(fabs(sum[k] - p[k]) <= 1e-5 * p[k], "blades %d: energy %g of %g", blades,
                      sum[k], p[k]);
        vkfx_pixels_free(&out);
    }
    vkfx_pixels_free(&px);
    vkfx_pixels_free(&depth);
    th_gpu_close(&g);
    tc_tmpdir_remove();
}

Test(bokeh, no_hot_spots_is_the_base_and_runs_repeat_and_energy_is_kept)
{
    cr_assert_eq(tc_tmpdir_make("bokeh2"), 0);
    th_gpu g;
    th_gpu_open(&g);
    vkfx_pixels sky, depth, a, b;
    cr_assert_eq(tc_load_photo("hubble_deep_field.jpg", &sky), VKFX_OK);
    tc_random_pixels(&depth, sky.width, sky.height, 1, VKFX_SAMPLE_U8, 5);
    save_map(&depth, "d.png");
    char chain[256], base[256];
    const char *bases[] = {"dof", "satdof"};
    for (int k = 0; k < 2; k++) {
        snprintf(chain, sizeof(chain), "bokeh:depth=%s:threshold=1000:base=%s", tc_tpath("d.png"),
                 bases[k]);
        snprintf(base, sizeof(base), "%s:depth=%s", bases[k], tc_tpath("d.png"));
        th_run(&g, chain, &sky, 3, VKFX_SAMPLE_U8, 16, &a);
        th_run(&g, base, &sky, 3, VKFX_SAMPLE_U8, 16, &b);
        cr_assert(memcmp(a.data, b.data, vkfx_pixels_bytes(&a)) == 0,
                  "bokeh without hot spots differs from %s", bases[k]);
        vkfx_pixels_free(&a);
        vkfx_pixels_free(&b);
    }
    /* Ten runs, many hot spots, all splatted and with some beyond max:
     * identical bytes. */
    const char *limits[] = {"", ":max=1000"};
    for (int k = 0; k < 2; k++) {
        snprintf(chain, sizeof(chain), "bokeh:depth=%s:threshold=0.3:gain=3%s", tc_tpath("d.png"),
                 limits[k]);
        th_run(&g, chain, &sky, 3, VKFX_SAMPLE_F32, 32, &a);
        for (int run = 1; run < 10; run++) {
            th_run(&g, chain, &sky, 3, VKFX_SAMPLE_F32, 32, &b);
            cr_assert(memcmp(a.data, b.data, vkfx_pixels_bytes(&a)) == 0, "%s: run %d differs",
                      chain, run);
            vkfx_pixels_free(&b);
        }
        vkfx_pixels_free(&a);
    }
    /* gain 1 with the dof base: the total of each channel is kept. */
    snprintf(chain, sizeof(chain), "bokeh:depth=%s:threshold=0.3", tc_tpath("d.png"));
    th_run(&g, chain, &sky, 3, VKFX_SAMPLE_F32, 32, &a);
    th_run(&g, "box:radius=0", &sky, 3, VKFX_SAMPLE_F32, 32, &b);
    double sa[3] = {0}, sb[3] = {0};
    for (size_t i = 0; i < (size_t)sky.width * sky.height * 3; i++) {
        sa[i % 3] += ((const float *)a.data)[i];
        sb[i % 3] += ((const float *)b.data)[i];
    }
    for (int k = 0; k < 3; k++)
        cr_assert(fabs(sa[k] - sb[k]) <= 1e-3 * sb[k], "channel %d: energy %g became %g", k, sb[k],
                  sa[k]);
    vkfx_pixels_free(&a);
    vkfx_pixels_free(&b);
    vkfx_pixels_free(&sky);
    vkfx_pixels_free(&depth);
    th_gpu_close(&g);
    tc_tmpdir_remove();
}

Test(bokeh, overflow_is_reported)
{
    cr_assert_eq(tc_tmpdir_make("bokeh3"), 0);
    vkfx_pixels depth;
    tc_random_pixels(&depth, 1000, 872, 1, VKFX_SAMPLE_U8, 6);
    save_map(&depth, "d.png");
    char input[512], chain[256];
    snprintf(input, sizeof(input), "%s/hubble_deep_field.jpg", VKFX_TEST_IMAGES);
    for (int max = 0; max <= 10; max += 10) {
        snprintf(chain, sizeof(chain), "bokeh:depth=%s:threshold=0.3:max=%d", tc_tpath("d.png"),
                 max);
        cli_run r;
        VKFX(&r, input, "-f", chain, "-o", tc_tpath("out.png"));
        cr_assert_eq(r.status, 0, "%s: %s", r.cmd, r.err);
        char want[64];
        snprintf(want, sizeof(want), "beyond max=%d left in the base image", max);
        cr_assert(strstr(r.err, want) && strstr(r.err, "hot spots"), "%s: stderr: %s", r.cmd,
                  r.err);
        run_free(&r);
    }
    /* The counts in bench --json, as numbers a script can check. */
    snprintf(chain, sizeof(chain), "bokeh:depth=%s:threshold=0.3:max=10", tc_tpath("d.png"));
    cli_run r;
    VKFX(&r, "bench", "--size", "1000x872", "--reps", "1", "--json", chain);
    cr_assert_eq(r.status, 0, "%s: %s", r.cmd, r.err);
    unsigned long long found = 0, splatted = 0, beyond = 0;
    const char *f = strstr(r.out, "\"bokeh.hot_spots\": "),
               *s = strstr(r.out, "\"bokeh.splatted\": "),
               *b = strstr(r.out, "\"bokeh.beyond_max\": ");
    cr_assert(f && s && b && sscanf(f + 19, "%llu", &found) == 1 &&
                  sscanf(s + 18, "%llu", &splatted) == 1 && sscanf(b + 20, "%llu", &beyond) == 1,
              "no bokeh counts in bench --json: %s", r.out);
    cr_assert(splatted == 10 && beyond > 0 && found == splatted + beyond,
              "bench --json: %llu found, %llu splatted, %llu beyond max=10", found, splatted,
              beyond);
    run_free(&r);
    VKFX(&r, input, "-f", "bokeh:depth=x.png:blades=2", "-o", tc_tpath("out.png"));
    cr_assert_eq(r.status, 2, "%s: %s", r.cmd, r.err);
    cr_assert(strstr(r.err, "blades=2"), "%s", r.err);
    run_free(&r);
    vkfx_pixels_free(&depth);
    tc_tmpdir_remove();
}
