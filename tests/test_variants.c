/* Every kernel variant against the C reference, as dav1d's checkasm runs every implementation
 * of a function against C: for each family of variants that a registered filter uses, each
 * variant is forced with VKFX_VARIANT=family:variant and run on random images (one with even sides)
 * and a photo cut to odd sizes, at both precisions, wherever it applies; its output must match the
 * reference within the filters' tolerance (8-bit output within 1 code value; histogram's counts,
 * its output, exactly). Every variant must run at least once unless the device lacks what it needs,
 * and a family without cases here fails. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "context.h"
#include "filter.h"
#include "gpu_harness.h"
#include "variant.h"

static const th_gauss_arg sigma_half = {0.5, -1}, sigma2 = {2.0, -1}, sigma5 = {5.0, -1};
static const int radius1 = 1, radius7 = 7, radius16 = 16;
static const th_tonemap_arg tone_default = {0.18, 0}, tone_white = {0.36, 2};
static const ref_sat_params sat5 = {.radius = 5}, sat12_smooth = {.radius = 12, .smooth = true};

/* resize by a factor (each side times it, rounded to nearest, at least 1) with a kernel. */
typedef struct scale_arg {
    double scale;
    ref_resize_kind kind;
} scale_arg;

static uint32_t scaled_side(uint32_t n, double scale)
{
    double v = floor(n * scale + 0.5);
    return v < 1 ? 1 : (uint32_t)v;
}

static int ref_scaled(const ref_image *in, ref_image *out, const void *arg, int precision)
{
    (void)precision;
    const scale_arg *a = arg;
    return ref_resize(in, scaled_side(in->w, a->scale), scaled_side(in->h, a->scale), a->kind, out);
}

static const scale_arg half_lanczos = {0.5, REF_RESIZE_LANCZOS3},
                       shrink_mitchell = {0.37, REF_RESIZE_MITCHELL},
                       enlarge_linear = {2.3, REF_RESIZE_LINEAR};

static const double cartoon_default[2] = {2.0, 4.0}, cartoon_wide[2] = {4.5, 1.5};

/* histogram hands its input on: its variants are checked by their counts, which must equal
 * the reference's exactly (integers). */
static th_result histogram_counts(th_gpu *g, const vkfx_pixels *in, int precision,
                                  const char *force)
{
    char dir[] = "/tmp/vkfx_variants_XXXXXX", json[64], chain[128];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(json, sizeof(json), "%s/h.json", dir);
    snprintf(chain, sizeof(chain), "histogram:out=%s", json);
    vkfx_pixels got;
    th_result r = TH_REFUSED;
    if (th_run_unless(g, chain, in, in->channels, VKFX_SAMPLE_U8, precision, "does not apply",
                      &got)) {
        vkfx_pixels_free(&got);
        ref_image a = {0};
        cr_assert_eq(ref_decode(in, false, &a), VKFX_OK);
        if (precision == 16)
            ref_round_half(&a);
        uint32_t want[1024];
        ref_histogram(&a, want);
        ref_image_free(&a);
        unsigned long long pixels;
        tc_histogram_channel ch[4];
        r = TH_WITHIN;
        if (!tc_histogram_json(json, &pixels, ch)) {
            fprintf(stderr, "%s: %s is missing or unreadable\n", force, json);
            r = TH_OUTSIDE;
        }
        for (int c = 0; c < 4 && r == TH_WITHIN; c++)
            for (int i = 0; i < 256; i++)
                if (ch[c].counts[i] != want[c * 256 + i]) {
                    fprintf(stderr, "%s %ux%u %uch rgba%df: channel %d bin %d: %u, reference %u\n",
                            force, in->width, in->height, in->channels, precision, c, i,
                            ch[c].counts[i], want[c * 256 + i]);
                    r = TH_OUTSIDE;
                    break;
                }
    }
    tc_remove_tree(dir);
    return r;
}

static const struct family_cases {
    const char *family;
    th_case cases[4];
    /* Instead of cases, for a filter whose output is not an image. */
    th_result (*check)(th_gpu *g, const vkfx_pixels *in, int precision, const char *force);
} all_cases[] = {
    {.family = "gauss",
     .cases = {{"gauss:sigma=0.5", th_ref_gauss, &sigma_half, 0, 1},
               {"gauss:sigma=2", th_ref_gauss, &sigma2, 0, 1},
               {"gauss:sigma=5", th_ref_gauss, &sigma5, 0, 1}}},
    {.family = "cartoon",
     .cases = {{"cartoon", th_ref_cartoon, cartoon_default, 0, 1},
               {"cartoon:sigma=4.5:gain=1.5", th_ref_cartoon, cartoon_wide, 0, 1}}},
    {.family = "box",
     .cases = {{"box:radius=1", th_ref_box, &radius1, 0, 1},
               {"box:radius=7", th_ref_box, &radius7, 0, 1},
               {"box:radius=16", th_ref_box, &radius16, 0, 1}}},
    {.family = "sat",
     .cases = {{"satblur:radius=5", th_ref_satblur, &sat5, 0, 1},
               {"satblur:radius=12:shape=smooth", th_ref_satblur, &sat12_smooth, 0, 1}}},
    {.family = "tonemap",
     .cases = {{"tonemap", th_ref_tonemap, &tone_default, 0, 1},
               {"tonemap:key=0.36:white=2", th_ref_tonemap, &tone_white, 0, 1}}},
    {.family = "histogram", .check = histogram_counts},
    {.family = "resize",
     .cases = {{"resize:scale=0.5", ref_scaled, &half_lanczos, 0, 1},
               {"resize:scale=0.37:kernel=mitchell", ref_scaled, &shrink_mitchell, 0, 1},
               /* Not lanczos: its lobes take a nearly transparent pixel's alpha to a few
                * thousandths of the random images', where dividing the colour back out tests
                * the division (tests/test_resize.c enlarges with every kernel). */
               {"resize:scale=2.3:kernel=linear", ref_scaled, &enlarge_linear, 0, 1}}},
};

/* Whether the device lacks what a variant needs, so that it applies to none of the cases. */
static bool device_lacks(const vkfx_context *ctx, const char *family, const char *variant)
{
    if (strcmp(family, "gauss") == 0 && strcmp(variant, "matrix") == 0)
        return !ctx->matrix16 || ctx->subgroup_size != 32;
    if (strcmp(family, "sat") == 0 && strcmp(variant, "subgroup64") == 0)
        return !ctx->subgroup_arith || !ctx->subgroup_int64;
    if (strcmp(variant, "subgroup") == 0 &&
        (strcmp(family, "sat") == 0 || strcmp(family, "histogram") == 0))
        return !ctx->subgroup_arith;
    return false;
}

static const struct family_cases *cases_of(const char *family)
{
    for (size_t i = 0; i < sizeof(all_cases) / sizeof(all_cases[0]); i++)
        if (strcmp(all_cases[i].family, family) == 0)
            return &all_cases[i];
    return NULL;
}

/* Runs every variant of family on the inputs; returns the comparisons out of tolerance. */
static int check_family(th_gpu *g, const vkfx_variants *family, const vkfx_pixels *inputs,
                        size_t ninputs)
{
    const struct family_cases *fc = cases_of(family->name);
    cr_assert(fc, "family %s has no cases in tests/test_variants.c", family->name);
    int failures = 0;
    for (const vkfx_variant *v = family->list; v->name; v++) {
        char force[128];
        snprintf(force, sizeof(force), "%s:%s", family->name, v->name);
        g->ctx->opts.variants = force;
        unsigned ran = 0;
        for (int precision = 16; fc->check && precision <= 32; precision += 16)
            for (size_t i = 0; i < ninputs; i++) {
                th_result r = fc->check(g, &inputs[i], precision, force);
                failures += r == TH_OUTSIDE;
                ran += r != TH_REFUSED;
            }
        for (const th_case *c = fc->cases; c->chain; c++)
            for (int precision = 16; precision <= 32; precision += 16)
                for (size_t i = 0; i < ninputs; i++) {
                    th_case pc = *c;
                    pc.precision = precision;
                    th_result r = th_check_unless(g, &pc, &inputs[i], inputs[i].channels,
                                                  VKFX_SAMPLE_U8, force, "does not apply");
                    failures += r == TH_OUTSIDE;
                    ran += r != TH_REFUSED;
                }
        g->ctx->opts.variants = NULL;
        if (device_lacks(g->ctx, family->name, v->name))
            cr_expect_eq(ran, 0, "%s ran on a device that lacks what it needs", force);
        else
            cr_expect_gt(ran, 0, "%s applied to none of the cases", force);
        fprintf(stderr, "variants: %s ran %u comparisons\n", force, ran);
    }
    return failures;
}

Test(variants, every_variant_against_reference, .timeout = 900)
{
    th_gpu g;
    th_gpu_open(&g);
    vkfx_pixels inputs[4], photo;
    tc_random_pixels(&inputs[0], 97, 61, 4, VKFX_SAMPLE_U8, 281);
    tc_random_pixels(&inputs[1], 1, 3, 3, VKFX_SAMPLE_U8, 282);
    /* even sides: resize:scale=0.5 halves them exactly, where resize:ratio applies */
    tc_random_pixels(&inputs[3], 66, 50, 4, VKFX_SAMPLE_U8, 284);
    cr_assert_eq(tc_load_photo(tc_photos()[0], &photo), VKFX_OK, "%s", vkfx_error_message());
    cr_assert_eq(tc_fit(&photo, 131, 77, &inputs[2]), VKFX_OK);
    vkfx_pixels_free(&photo);
    int failures = 0;
    const vkfx_variants *done[16];
    size_t ndone = 0;
    for (const vkfx_filter *const *f = vkfx_filters; *f; f++)
        for (const vkfx_variants *const *v = (*f)->variants; v && *v; v++) {
            bool seen = false;
            for (size_t i = 0; i < ndone; i++)
                seen |= done[i] == *v;
            if (seen)
                continue;
            cr_assert_lt(ndone, sizeof(done) / sizeof(done[0]));
            done[ndone++] = *v;
            failures += check_family(&g, *v, inputs, 4);
        }
    cr_expect_gt(ndone, 0, "no filter declares kernel variants");
    for (size_t i = 0; i < 4; i++)
        vkfx_pixels_free(&inputs[i]);
    th_gpu_close(&g);
    cr_assert_eq(failures, 0, "%d comparisons out of tolerance (worst pixels above)", failures);
}

Test(variants, forcing_a_variant_that_does_not_apply_or_does_not_exist_is_a_usage_error)
{
    th_gpu g;
    th_gpu_open(&g);
    vkfx_pixels px;
    tc_random_pixels(&px, 17, 9, 4, VKFX_SAMPLE_U8, 283);
    g.ctx->opts.variants = "gauss:one-pass";
    th_expect_usage_error(&g, "gauss:sigma=5", &px, "gauss:one-pass does not apply");
    g.ctx->opts.variants = "gauss:fast";
    th_expect_usage_error(&g, "gauss:sigma=1", &px,
                          "gauss has no variant 'fast' (one-pass, matrix, unrolled, generic)");
    g.ctx->opts.variants = "blur:fast";
    th_expect_usage_error(&g, "gauss:sigma=1", &px, "'blur:fast' is not FAMILY:VARIANT");
    g.ctx->opts.variants = NULL;
    vkfx_pixels_free(&px);
    th_gpu_close(&g);
}
