/* resize on the GPU against ref_resize (tests/ref/geometry.c, Pillow's scheme in double): every
 * kernel, shrink factors from 1.01 to 64 and enlargements to 16x, odd sizes, 1-pixel outputs,
 * random images in every channel layout and the shared photos, both precisions; 8-bit output
 * within 1 code value. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "context.h"
#include "gpu_harness.h"
#include "icc.h"
#include "kernel.h"
#include "run_binary.h"

static const char *const kernels[] = {"lanczos3", "mitchell", "linear", "box"};

typedef struct size_arg {
    uint32_t w, h;
    ref_resize_kind kind;
} size_arg;

/* Random RGBA with alpha from 128 to 255: lanczos and mitchell's negative lobes can take a
 * nearly transparent pixel's alpha to a few thousandths, where dividing the colour back out
 * tests the division and not the filter. */
static void random_rgba(vkfx_pixels *px, uint32_t w, uint32_t h, unsigned seed)
{
    tc_random_pixels(px, w, h, 4, VKFX_SAMPLE_U8, seed);
    uint8_t *d = px->data;
    for (size_t i = 0; i < (size_t)w * h; i++)
        d[4 * i + 3] = (uint8_t)(128 + d[4 * i + 3] / 2);
}

static int ref_fn(const ref_image *in, ref_image *out, const void *arg, int precision)
{
    (void)precision;
    const size_arg *a = arg;
    return ref_resize(in, a->w, a->h, a->kind, out);
}

/* resize of px to w x h with kernel k, within 1 code value; returns 1 when not. */
static int check(th_gpu *g, const vkfx_pixels *px, uint32_t w, uint32_t h, int k, int precision,
                 const char *what)
{
    char chain[128];
    snprintf(chain, sizeof(chain), "resize:width=%u:height=%u:kernel=%s", w, h, kernels[k]);
    size_arg a = {w, h, (ref_resize_kind)k};
    th_case c = {chain, ref_fn, &a, precision, 1};
    return !th_check(g, &c, px, px->channels, VKFX_SAMPLE_U8, what);
}

/* Every kernel on px resized by each factor (an output side is the input's times it, rounded),
 * the two precisions in turn; returns the comparisons out of tolerance. */
static int sweep(th_gpu *g, const vkfx_pixels *px, const double *factors, size_t n,
                 const char *what)
{
    int failures = 0;
    for (int k = 0; k < 4; k++)
        for (size_t i = 0; i < n; i++) {
            uint32_t w = (uint32_t)(px->width * factors[i] + 0.5);
            uint32_t h = (uint32_t)(px->height * factors[i] + 0.5);
            failures += check(g, px, w, h, k, 16 + 16 * (int)(i & 1), what);
        }
    return failures;
}

Test(resize, shrink_1_01_to_64_every_kernel, .timeout = 600)
{
    static const double factors[] = {1 / 1.01, 1 / 1.5, 1 / 2.0, 1 / 2.37, 1 / 3.0,
                                     1 / 4.5,  1 / 8.0, 1 / 13.3, 1 / 64.0};
    th_gpu g;
    th_gpu_open(&g);
    vkfx_pixels px;
    random_rgba(&px, 321, 259, 2901);
    int failures = sweep(&g, &px, factors, sizeof(factors) / sizeof(factors[0]), "shrink");
    vkfx_pixels_free(&px);
    th_gpu_close(&g);
    cr_assert_eq(failures, 0, "%d comparisons out of tolerance (worst pixels above)", failures);
}

Test(resize, enlarge_to_16x_every_kernel, .timeout = 300)
{
    static const double factors[] = {1.01, 1.7, 3, 16};
    th_gpu g;
    th_gpu_open(&g);
    vkfx_pixels px;
    random_rgba(&px, 19, 13, 2902);
    int failures = sweep(&g, &px, factors, sizeof(factors) / sizeof(factors[0]), "enlarge");
    /* Shrinking one axis while growing the other. */
    failures += check(&g, &px, 5, 77, 0, 32, "mixed");
    failures += check(&g, &px, 301, 3, 1, 16, "mixed");
    vkfx_pixels_free(&px);
    th_gpu_close(&g);
    cr_assert_eq(failures, 0, "%d comparisons out of tolerance (worst pixels above)", failures);
}

Test(resize, one_pixel_outputs_and_inputs_every_layout, .timeout = 300)
{
    static const uint32_t cases[][4] = {
        {37, 23, 1, 1}, {37, 23, 1, 23}, {37, 23, 37, 1}, {1, 1, 7, 5}, {1, 9, 4, 1}, {9, 1, 1, 1},
    };
    th_gpu g;
    th_gpu_open(&g);
    int failures = 0;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        for (uint32_t ch = 1; ch <= 4; ch++) {
            vkfx_pixels px;
            tc_random_pixels(&px, cases[i][0], cases[i][1], ch, VKFX_SAMPLE_U8, 2910 + i * 4 + ch);
            failures += check(&g, &px, cases[i][2], cases[i][3], (int)(i + ch) % 4, 16, "edge");
            vkfx_pixels_free(&px);
        }
    th_gpu_close(&g);
    cr_assert_eq(failures, 0, "%d comparisons out of tolerance (worst pixels above)", failures);
}

Test(resize, photos_at_awkward_sizes, .timeout = 600)
{
    th_gpu g;
    th_gpu_open(&g);
    int failures = 0;
    for (const char *const *name = tc_photos(); *name; name++) {
        vkfx_pixels photo;
        cr_assert_eq(tc_load_photo(*name, &photo), VKFX_OK, "%s: %s", *name, vkfx_error_message());
        failures += check(&g, &photo, 97, 61, 0, 16, *name);
        failures += check(&g, &photo, photo.width / 3 + 1, photo.height / 5 + 2, 1, 32, *name);
        failures += check(&g, &photo, photo.width / 8 + 3, photo.height / 7, 3, 16, *name);
        vkfx_pixels_free(&photo);
    }
    th_gpu_close(&g);
    cr_assert_eq(failures, 0, "%d comparisons out of tolerance (worst pixels above)", failures);
}

/* resize's variants (ratio, walk, rows, texture) sum each output's taps in the same order: the
 * same float bits from each that applies, at rgba16f and rgba32f, on a photo and on random RGBA,
 * for shrinks the walk takes (both sides, 6 taps or more along x), one it does not, a size kept
 * along one axis, an enlargement (walk refused), and shrinks by whole numbers (ratio: segments
 * of a whole turn of the kernel, of part of one, and of several turns). */
Test(resize, variants_give_the_same_bits, .timeout = 300)
{
    static const char *const chains[] = {
        "resize:scale=0.5",
        "resize:width=97:height=61",
        "resize:scale=0.37:kernel=mitchell",
        "resize:width=43:height=19:kernel=lanczos3",
        "resize:scale=0.5:kernel=linear",
        "resize:width=301:height=40",
        "resize:scale=1.7:kernel=mitchell",
        "crop:width=300:height=200,resize:scale=0.5",
        "crop:width=300:height=200,resize:scale=0.5:kernel=linear",
        "crop:width=300:height=200,resize:width=75:height=50:kernel=mitchell",
        "crop:width=300:height=200,resize:width=100:height=200",
        "crop:width=301:height=203,resize:width=43:height=29:kernel=box",
    };
    static const char *const variants[] = {"ratio", "walk", "rows", "texture"};
    enum { NV = sizeof(variants) / sizeof(variants[0]) };
    th_gpu g;
    th_gpu_open(&g);
    vkfx_pixels inputs[2];
    random_rgba(&inputs[0], 301, 203, 2940);
    cr_assert_eq(tc_load_photo(tc_photos()[0], &inputs[1]), VKFX_OK, "%s", vkfx_error_message());
    unsigned compared = 0, ran_as[NV] = {0};
    for (size_t i = 0; i < 2; i++)
        for (int precision = 16; precision <= 32; precision += 16)
            for (size_t c = 0; c < sizeof(chains) / sizeof(chains[0]); c++) {
                vkfx_pixels first = {0};
                const char *first_name = NULL;
                for (size_t v = 0; v < NV; v++) {
                    char force[64];
                    snprintf(force, sizeof(force), "resize:%s", variants[v]);
                    g.ctx->opts.variants = force;
                    vkfx_pixels got;
                    bool ran = th_run_unless(&g, chains[c], &inputs[i], 4, VKFX_SAMPLE_F32,
                                             precision, "does not apply", &got);
                    g.ctx->opts.variants = NULL;
                    if (!ran)
                        continue;
                    ran_as[v]++;
                    if (!first_name) {
                        first = got;
                        first_name = variants[v];
                        continue;
                    }
                    cr_expect_eq(memcmp(first.data, got.data, vkfx_pixels_bytes(&got)), 0,
                                 "%s at rgba%df on input %zu: %s and %s differ", chains[c],
                                 precision, i, first_name, variants[v]);
                    compared++;
                    vkfx_pixels_free(&got);
                }
                vkfx_pixels_free(&first);
            }
    for (size_t i = 0; i < 2; i++)
        vkfx_pixels_free(&inputs[i]);
    th_gpu_close(&g);
    for (size_t v = 0; v < NV; v++)
        cr_expect_gt(ran_as[v], 0, "resize:%s applied to none of the chains", variants[v]);
    cr_expect_gt(compared, 40, "only %u pairs compared", compared);
}

/* A run takes the walk where it applies, except on a software device (such as lavapipe), where
 * its long loops were 6 times slower than rows'; VKFX_VARIANT forces it there too. --timings
 * names the kernels a run built. */
Test(resize, walk_passed_over_on_a_software_device_unless_forced, .timeout = 120)
{
    th_gpu g;
    th_gpu_open(&g);
    bool cpu = g.ctx->props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
    th_gpu_close(&g);
    cr_assert_eq(tc_tmpdir_make("resize"), 0);
    const char *in = VKFX_TEST_IMAGES "/chelsea.png", *out = tc_tpath("half.png");
    cli_run r;
    unsetenv("VKFX_VARIANT");
    VKFX(&r, "--timings", in, "-f", "resize:scale=0.5", "-o", out);
    cr_assert_eq(r.status, 0, "%s: %s", r.cmd, r.err);
    bool walked = strstr(r.err, "kernel resize_walk") != NULL;
    cr_expect_eq(walked, !cpu, "%s device, resize_walk %s:\n%s", cpu ? "a software" : "a GPU",
                 walked ? "ran" : "did not run", r.err);
    if (cpu)
        cr_expect(strstr(r.err, "kernel resize_rows") != NULL, "%s", r.err);
    run_free(&r);
    setenv("VKFX_VARIANT", "resize:walk", 1);
    VKFX(&r, "--timings", in, "-f", "resize:scale=0.5", "-o", out);
    unsetenv("VKFX_VARIANT");
    cr_assert_eq(r.status, 0, "%s: %s", r.cmd, r.err);
    cr_expect(strstr(r.err, "kernel resize_walk") != NULL, "forced, it did not run:\n%s", r.err);
    run_free(&r);
    tc_tmpdir_remove();
}

/* Where both sides shrink by whole numbers with few enough taps, a run takes resize_ratio on
 * every device (on lavapipe too it was the fastest); elsewhere it does not apply. */
Test(resize, ratio_taken_where_sides_shrink_by_whole_numbers, .timeout = 120)
{
    cr_assert_eq(tc_tmpdir_make("resize"), 0);
    const char *in = VKFX_TEST_IMAGES "/chelsea.png", *out = tc_tpath("half.png");
    static const struct {
        const char *chain;
        bool ratio;
    } cases[] = {
        {"crop:width=450:height=300,resize:scale=0.5", true},
        {"crop:width=448:height=300,resize:width=112:height=75", true},
        {"resize:scale=0.5", false},                                      /* 451 wide */
        {"crop:width=448:height=296,resize:scale=0.125", false},          /* 48 taps */
        {"crop:width=450:height=300,resize:width=900:height=600", false}, /* enlarged */
    };
    unsetenv("VKFX_VARIANT");
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cli_run r;
        VKFX(&r, "--timings", in, "-f", cases[i].chain, "-o", out);
        cr_assert_eq(r.status, 0, "%s: %s", r.cmd, r.err);
        bool ratio = strstr(r.err, "kernel resize_ratio") != NULL;
        cr_expect_eq(ratio, cases[i].ratio, "%s: resize_ratio %s:\n%s", cases[i].chain,
                     ratio ? "ran" : "did not run", r.err);
        run_free(&r);
    }
    tc_tmpdir_remove();
}

/* The value of half bit pattern h (not infinity or NaN). */
static double half_value(uint16_t h)
{
    int e = (h >> 10) & 31, m = h & 1023;
    double v = e ? ldexp(1024 + m, e - 25) : ldexp(m, -24);
    return h & 0x8000 ? -v : v;
}

/* resize's weights (vkfx_exact_weight): at most VKFX_WEIGHT_BITS significant bits, within half
 * a unit of that precision of the weight asked for, and a product with every finite half that
 * a float holds exactly, so that contracting the multiply-adds changes nothing. */
Test(resize, weights_exact_with_any_half)
{
    unsigned seed = 2930;
    int inexact = 0;
    for (int i = 0; i < 400; i++) {
        seed = seed * 1103515245u + 12345u;
        double w = ldexp(1.0 + (seed >> 8) / 16777216.0, -(int)(i % 40)) * (i & 1 ? -1 : 1);
        float f = vkfx_exact_weight(w);
        int e;
        double m = frexp(f, &e);
        cr_assert_eq(ldexp(m, VKFX_WEIGHT_BITS), floor(ldexp(m, VKFX_WEIGHT_BITS)),
                     "%.17g -> %.17g has more than %d significant bits", w, f, VKFX_WEIGHT_BITS);
        cr_assert_leq(fabs(f - w), ldexp(fabs(w), -VKFX_WEIGHT_BITS),
                      "%.17g -> %.17g is not the nearest", w, f);
        for (uint32_t h = 0; h < 0x10000; h++) {
            if (((h >> 10) & 31) == 31)
                continue;
            double exact = (double)f * half_value((uint16_t)h);
            inexact += (double)(float)exact != exact;
        }
    }
    cr_assert_eq(inexact, 0, "%d products of a weight and a half are not floats", inexact);
    cr_expect_eq(vkfx_exact_weight(0x1p-101), 0.0f);
    cr_expect_eq(vkfx_exact_weight(0.5), 0.5f);
}

/* width alone keeps the aspect ratio, scale multiplies both sides, rounded to nearest. */
Test(resize, sizes_from_the_options)
{
    static const struct {
        const char *chain;
        uint32_t w, h;
    } cases[] = {
        {"resize:width=100", 100, 67},  {"resize:height=100", 149, 100},
        {"resize:scale=0.5", 75, 51},   {"resize:scale=0.001", 1, 1},
        {"resize:width=7:height=300", 7, 300},
    };
    th_gpu g;
    th_gpu_open(&g);
    vkfx_pixels px, out;
    tc_random_pixels(&px, 150, 101, 3, VKFX_SAMPLE_U8, 2920);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        th_run(&g, cases[i].chain, &px, 3, VKFX_SAMPLE_U8, 16, &out);
        cr_expect(out.width == cases[i].w && out.height == cases[i].h, "%s: %ux%u, not %ux%u",
                  cases[i].chain, out.width, out.height, cases[i].w, cases[i].h);
        vkfx_pixels_free(&out);
    }
    vkfx_pixels_free(&px);
    th_gpu_close(&g);
}

Test(resize, needs_one_size_and_not_two_kinds)
{
    vkfx_chain *c = NULL;
    cr_expect_eq(vkfx_chain_parse("resize", &c), VKFX_E_USAGE);
    cr_expect(strstr(vkfx_error_message(), "width=W, height=H, longest=N or scale=F"), "%s",
              vkfx_error_message());
    cr_expect_eq(vkfx_chain_parse("resize:width=4:scale=2", &c), VKFX_E_USAGE);
    cr_expect(strstr(vkfx_error_message(), "not both"), "%s", vkfx_error_message());
}

/* An image larger than a tile (VKFX_TILE forces small ones) goes through resize in tiles of its
 * outputs, each from the input rectangle its taps read, and through the rest of the chain as
 * runs of their own: the same bytes as one piece, at both precisions, in 8-bit and float
 * outputs, with a profile's curves and with a shrink-on-load source size; a resize whose one
 * output reads more than a tile is refused. */
Test(resize, in_tiles_the_bytes_of_one_piece, .timeout = 600)
{
    static const char *const chains[] = {
        "resize:scale=0.37",
        "resize:width=211:height=97:kernel=mitchell",
        "resize:scale=2.3:kernel=linear",
        "resize:scale=0.5:kernel=box",
        "gauss:sigma=2,resize:scale=0.61,sobel:invert=1",
        "resize:scale=0.5,resize:scale=1.7,sobel",
        "crop:x=3:y=5:width=230:height=150,resize:scale=0.45",
    };
    th_gpu g;
    th_gpu_open(&g);
    vkfx_pixels rgb, rgba;
    tc_random_pixels(&rgb, 301, 173, 3, VKFX_SAMPLE_U8, 71);
    random_rgba(&rgba, 245, 190, 72);
    int failures = 0;
    for (size_t i = 0; i < sizeof(chains) / sizeof(chains[0]); i++) {
        for (int precision = 16; precision <= 32; precision += 16) {
            vkfx_run_opts o = {.precision = precision};
            failures += th_tiled_same(&g, chains[i], &rgb, o, 3, VKFX_SAMPLE_U8, "96");
            failures += th_tiled_same(&g, chains[i], &rgba, o, 4, VKFX_SAMPLE_F32, "80");
        }
    }
    /* Profile curves on the way in and out; a source size that the first resize refers to
     * (shrink-on-load: the input decoded at half the file's size). */
    const char *icc_path = "/usr/share/color/icc/compatibleWithAdobeRGB1998.icc";
    size_t icc_size = 0;
    char *icc = tc_slurp(icc_path, &icc_size);
    cr_assert(icc, "%s is missing: install icc-profiles-free", icc_path);
    vkfx_tone *tone;
    cr_assert_eq(vkfx_tone_from_icc(icc, icc_size, icc_path, &tone), VKFX_OK, "%s",
                 vkfx_error_message());
    vkfx_run_opts profiled = {.precision = 16, .tone = tone};
    failures +=
        th_tiled_same(&g, "resize:scale=0.37,unsharp", &rgb, profiled, 3, VKFX_SAMPLE_U8, "64");
    vkfx_run_opts shrunk = {.precision = 16, .source_width = 602, .source_height = 346};
    failures += th_tiled_same(&g, "resize:width=150", &rgb, shrunk, 3, VKFX_SAMPLE_U8, "40");
    cr_expect_eq(failures, 0, "%d runs in tiles differ from one piece", failures);
    vkfx_tone_free(tone);
    free(icc);
    /* 301 columns to 4: each output reads about 226 of them, more than a tile of 64. */
    vkfx_chain *chain = NULL;
    cr_assert_eq(vkfx_chain_parse("resize:width=4", &chain), VKFX_OK);
    vkfx_pixels out = {.channels = 3, .sample = VKFX_SAMPLE_U8};
    vkfx_run_opts o = {.precision = 16};
    vkfx_run_result r;
    g.ctx->opts.tile = 64;
    cr_expect_eq(vkfx_run(g.ctx, g.staging, chain, &rgb, &out, &o, &r), VKFX_E_LIMIT);
    g.ctx->opts.tile = 0;
    cr_expect(strstr(vkfx_error_message(), "one output reads more than 64 pixels a side"), "%s",
              vkfx_error_message());
    vkfx_chain_free(chain);
    vkfx_pixels_free(&rgb);
    vkfx_pixels_free(&rgba);
    th_gpu_close(&g);
}

/* The thumbnail fits (fit=inside, longest, fit=cover, enlarge=0): the sizes vipsthumbnail and
 * ImageMagick's '-resize WxH', '-resize WxH^ -extent' and 'WxH>' give, on landscape and
 * portrait inputs. */
Test(resize, fit_sizes_keep_the_aspect_ratio)
{
    static const struct {
        const char *chain;
        uint32_t w, h; /* of the 150x101 landscape */
        uint32_t pw, ph; /* of the 101x150 portrait */
    } cases[] = {
        {"resize:width=100:height=100:fit=inside", 100, 67, 67, 100},
        {"resize:width=200:height=50:fit=inside", 74, 50, 34, 50},
        {"resize:width=60:fit=inside", 60, 40, 60, 89},
        {"resize:longest=60", 60, 40, 40, 60},
        {"resize:width=50:height=50:fit=cover", 50, 50, 50, 50},
        {"resize:width=90:height=20:fit=cover", 90, 20, 90, 20},
        {"resize:longest=300:enlarge=0", 150, 101, 101, 150},
        {"resize:longest=120:enlarge=0", 120, 81, 81, 120},
        {"resize:width=300:enlarge=0", 150, 101, 101, 150},
        {"resize:width=300:height=40:fit=cover:enlarge=0", 150, 40, 101, 40},
        {"resize:width=100:height=100", 100, 100, 100, 100},
    };
    th_gpu g;
    th_gpu_open(&g);
    vkfx_pixels land, portrait, out;
    tc_random_pixels(&land, 150, 101, 3, VKFX_SAMPLE_U8, 2921);
    tc_random_pixels(&portrait, 101, 150, 3, VKFX_SAMPLE_U8, 2922);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        th_run(&g, cases[i].chain, &land, 3, VKFX_SAMPLE_U8, 16, &out);
        cr_expect(out.width == cases[i].w && out.height == cases[i].h, "%s: %ux%u, not %ux%u",
                  cases[i].chain, out.width, out.height, cases[i].w, cases[i].h);
        vkfx_pixels_free(&out);
        th_run(&g, cases[i].chain, &portrait, 3, VKFX_SAMPLE_U8, 16, &out);
        cr_expect(out.width == cases[i].pw && out.height == cases[i].ph,
                  "%s on a portrait: %ux%u, not %ux%u", cases[i].chain, out.width, out.height,
                  cases[i].pw, cases[i].ph);
        vkfx_pixels_free(&out);
    }
    vkfx_pixels_free(&land);
    vkfx_pixels_free(&portrait);
    th_gpu_close(&g);
}

Test(resize, fit_options_that_contradict_are_refused)
{
    static const struct {
        const char *chain, *part;
    } cases[] = {
        {"resize:width=10:fit=cover", "fit=cover needs both"},
        {"resize:scale=0.5:fit=inside", "not scale"},
        {"resize:longest=10:width=5", "longest=N is the whole size"},
        {"resize:longest=10:fit=cover", "fit=cover"},
        {"resize:fit=inside", "longest=N"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        vkfx_chain *c = NULL;
        cr_expect_eq(vkfx_chain_parse(cases[i].chain, &c), VKFX_E_USAGE, "%s", cases[i].chain);
        cr_expect(strstr(vkfx_error_message(), cases[i].part), "%s: %s", cases[i].chain,
                  vkfx_error_message());
        vkfx_chain_free(c);
    }
}

/* The fit modes against ref_filter_resize (tests/ref/geometry.c: cover resizes the whole image
 * and crops its middle), read from the parsed chain's options. */
int ref_filter_resize(const ref_image *in, ref_opts *o, int precision, ref_image *out);

typedef struct fit_arg {
    const vkfx_chain *chain;
} fit_arg;

static int fit_ref(const ref_image *in, ref_image *out, const void *arg, int precision)
{
    const fit_arg *a = arg;
    ref_opts o = {a->chain->links[0].filter, a->chain->links[0].params, 1};
    return ref_filter_resize(in, &o, precision, out);
}

Test(resize, fit_modes_match_the_reference, .timeout = 600)
{
    static const char *const chains[] = {
        "resize:width=97:height=97:fit=cover",
        "resize:width=61:height=140:fit=cover:kernel=mitchell",
        "resize:width=300:height=300:fit=cover:kernel=linear",
        "resize:width=80:height=80:fit=inside:kernel=box",
        "resize:longest=73",
        "resize:width=1000:height=37:fit=cover:enlarge=0",
    };
    th_gpu g;
    th_gpu_open(&g);
    vkfx_pixels rgba;
    random_rgba(&rgba, 245, 190, 73);
    int failures = 0;
    for (size_t i = 0; i < sizeof(chains) / sizeof(chains[0]); i++) {
        vkfx_chain *chain = NULL;
        cr_assert_eq(vkfx_chain_parse(chains[i], &chain), VKFX_OK, "%s", vkfx_error_message());
        fit_arg a = {chain};
        th_case c = {chains[i], fit_ref, &a, 16 + 16 * (int)(i & 1), 1};
        failures += !th_check(&g, &c, &rgba, 4, VKFX_SAMPLE_U8, "random rgba");
        if (i < 2)
            failures += th_check_photos(&g, &c);
        vkfx_run_opts o = {.precision = 16};
        failures += th_tiled_same(&g, chains[i], &rgba, o, 4, VKFX_SAMPLE_U8, "64");
        vkfx_chain_free(chain);
    }
    vkfx_pixels_free(&rgba);
    th_gpu_close(&g);
    cr_assert_eq(failures, 0, "%d comparisons out of tolerance (worst pixels above)", failures);
}

/* Each fit is shown with an example in 'vkfx --help-filter resize'. */
Test(resize, help_shows_each_fit_with_an_example)
{
    cli_run r;
    VKFX(&r, "--help-filter", "resize");
    cr_assert_eq(r.status, 0, "%s: %s", r.cmd, r.err);
    static const char *const examples[] = {
        "resize:width=800:height=800:fit=inside", "resize:longest=800",
        "resize:width=300:height=300:fit=cover", "resize:longest=1024:enlarge=0"};
    for (size_t i = 0; i < sizeof(examples) / sizeof(examples[0]); i++)
        cr_expect(strstr(r.out, examples[i]), "no example %s in: %s", examples[i], r.out);
    run_free(&r);
}
