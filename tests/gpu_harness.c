#include "gpu_harness.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "context.h"

static void log_message(void *user, const char *message)
{
    (void)user;
    fprintf(stderr, "%s\n", message);
}

void th_gpu_open(th_gpu *g)
{
    const char *v = getenv("VKFX_VALIDATE");
    const char *nsg = getenv("VKFX_TEST_NO_SUBGROUP_OPS");
    const char *n64 = getenv("VKFX_TEST_NO_SUBGROUP_INT64");
    const char *pack = getenv("VKFX_HALF_PACK");
    const char *tile = getenv("VKFX_TILE");
    vkfx_context_opts o = {.validate = v && strcmp(v, "1") == 0,
                           .tile = tile && atoi(tile) > 0 ? (uint32_t)atoi(tile) : 0,
                           .no_subgroup_ops = nsg && strcmp(nsg, "1") == 0,
                           .no_subgroup_int64 = n64 && strcmp(n64, "1") == 0,
                           .no_half_pack = pack && strcmp(pack, "0") == 0,
                           .log = log_message};
    memset(g, 0, sizeof(*g));
    int ret = vkfx_context_create(&o, &g->ctx);
    cr_assert_eq(ret, VKFX_OK, "context: %s", vkfx_error_message());
    ret = vkfx_staging_create(g->ctx, 0, &g->staging);
    cr_assert_eq(ret, VKFX_OK, "staging: %s", vkfx_error_message());
}

void th_gpu_close(th_gpu *g)
{
    unsigned messages = g->ctx ? vkfx_context_validation_messages(g->ctx) : 0;
    vkfx_staging_destroy(g->staging);
    vkfx_context_destroy(g->ctx);
    cr_assert_eq(messages, 0, "the validation layer reported %u message(s) (above)", messages);
}

int th_ref_gauss(const ref_image *in, ref_image *out, const void *arg, int precision)
{
    const th_gauss_arg *a = arg;
    return ref_gauss_stored(in, a->sigma, a->radius, precision == 16, out);
}

int th_ref_box(const ref_image *in, ref_image *out, const void *arg, int precision)
{
    (void)precision;
    return ref_box(in, *(const int *)arg, out);
}

int th_ref_cartoon(const ref_image *in, ref_image *out, const void *arg, int precision)
{
    (void)precision;
    const double *a = arg;
    return ref_cartoon(in, a[0], a[1], out);
}

int th_ref_satblur(const ref_image *in, ref_image *out, const void *arg, int precision)
{
    (void)precision;
    return ref_satblur(in, arg, out);
}

int th_ref_tonemap(const ref_image *in, ref_image *out, const void *arg, int precision)
{
    const th_tonemap_arg *a = arg;
    int ret = ref_tonemap(in, a->key, a->white, out);
    if (ret == 0 && precision == 16)
        ref_round_half(out);
    return ret;
}

bool th_run_unless(th_gpu *g, const char *text, const vkfx_pixels *in, uint32_t out_channels,
                   vkfx_sample out_sample, int precision, const char *refused, vkfx_pixels *out)
{
    vkfx_chain *chain = NULL;
    vkfx_run_result result;
    vkfx_run_opts opts = {.precision = precision};
    *out = (vkfx_pixels){.channels = out_channels, .sample = out_sample};
    cr_assert_eq(vkfx_chain_parse(text, &chain), VKFX_OK, "%s: %s", text, vkfx_error_message());
    int ret = vkfx_run(g->ctx, g->staging, chain, in, out, &opts, &result);
    vkfx_chain_free(chain);
    if (ret == VKFX_E_USAGE && refused && strstr(vkfx_error_message(), refused))
        return false;
    cr_assert_eq(ret, VKFX_OK, "%s %ux%u %uch rgba%df: %s", text, in->width, in->height,
                 in->channels, precision, vkfx_error_message());
    free(result.times);
    return true;
}

void th_run(th_gpu *g, const char *text, const vkfx_pixels *in, uint32_t out_channels,
            vkfx_sample out_sample, int precision, vkfx_pixels *out)
{
    th_run_unless(g, text, in, out_channels, out_sample, precision, NULL, out);
}

bool th_check(th_gpu *g, const th_case *c, const vkfx_pixels *in, uint32_t out_channels,
              vkfx_sample out_sample, const char *what)
{
    return th_check_unless(g, c, in, out_channels, out_sample, what, NULL) == TH_WITHIN;
}

th_result th_check_unless(th_gpu *g, const th_case *c, const vkfx_pixels *in, uint32_t out_channels,
                          vkfx_sample out_sample, const char *what, const char *refused)
{
    vkfx_pixels got;
    vkfx_pixels want = {
        .channels = out_channels, .sample = out_sample, .linear = out_sample == VKFX_SAMPLE_F32};
    const int precision = c->precision ? c->precision : 16;
    ref_image a = {0}, b = {0};
    char label[512];
    snprintf(label, sizeof(label), "%s [%s] %ux%u %uch rgba%df", what, c->chain, in->width,
             in->height, in->channels, precision);
    if (!th_run_unless(g, c->chain, in, out_channels, out_sample, precision, refused, &got))
        return TH_REFUSED;

    cr_assert_eq(ref_decode(in, false, &a), VKFX_OK);
    /* The chain's images are in the internal format: at rgba16f the decoded input is rounded
     * to half before any filter sees it, in the reference as on the device. */
    if (precision == 16)
        ref_round_half(&a);
    cr_assert_eq(c->ref(&a, &b, c->arg, precision), VKFX_OK, "%s: reference failed", label);
    cr_assert_eq(ref_encode(&b, false, &want), VKFX_OK);
    tc_diff d = out_sample == VKFX_SAMPLE_F32 ? tc_compare_rel(&got, &want, c->tol, 1e-3)
                                              : tc_compare(&got, &want, c->tol);
    bool ok = tc_diff_ok(&d);
    if (!ok)
        tc_report(&d, label);
    ref_image_free(&a);
    ref_image_free(&b);
    vkfx_pixels_free(&got);
    vkfx_pixels_free(&want);
    return ok ? TH_WITHIN : TH_OUTSIDE;
}

int th_check_small(th_gpu *g, const th_case *c)
{
    int failures = 0;
    static const uint32_t small[][2] = {{1, 1}, {2, 1}, {1, 3}, {7, 5}, {17, 3}};
    for (size_t i = 0; i < sizeof(small) / sizeof(small[0]); i++)
        for (uint32_t ch = 1; ch <= 4; ch++) {
            vkfx_pixels px;
            tc_random_pixels(&px, small[i][0], small[i][1], ch, VKFX_SAMPLE_U8, 100 + i * 4 + ch);
            failures += !th_check(g, c, &px, ch, VKFX_SAMPLE_U8, "small");
            vkfx_pixels_free(&px);
        }
    return failures;
}

int th_check_random_sizes(th_gpu *g, const th_case *base, const uint32_t (*sizes)[2], size_t n,
                          uint32_t channels, uint64_t seed)
{
    int failures = 0;
    for (int precision = 16; precision <= 32; precision += 16) {
        th_case c = *base;
        c.precision = precision;
        for (size_t i = 0; i < n; i++) {
            vkfx_pixels px;
            tc_random_pixels(&px, sizes[i][0], sizes[i][1], channels, VKFX_SAMPLE_U8, seed + i);
            failures += !th_check(g, &c, &px, channels, VKFX_SAMPLE_U8, "random");
            vkfx_pixels_free(&px);
        }
    }
    return failures;
}

int th_check_photos(th_gpu *g, const th_case *c)
{
    int failures = 0;
    for (const char *const *name = tc_photos(); *name; name++) {
        vkfx_pixels photo;
        cr_assert_eq(tc_load_photo(*name, &photo), VKFX_OK, "%s: %s", *name, vkfx_error_message());
        failures += !th_check(g, c, &photo, photo.channels, VKFX_SAMPLE_U8, *name);
        vkfx_pixels_free(&photo);
    }
    return failures;
}

void th_expect_usage_error(th_gpu *g, const char *chain, const vkfx_pixels *in, const char *part)
{
    vkfx_chain *ch = NULL;
    vkfx_run_result res;
    vkfx_run_opts o = {.precision = 16};
    vkfx_pixels out = {.channels = in->channels, .sample = VKFX_SAMPLE_U8};
    cr_assert_eq(vkfx_chain_parse(chain, &ch), VKFX_OK, "%s: %s", chain, vkfx_error_message());
    int ret = vkfx_run(g->ctx, g->staging, ch, in, &out, &o, &res);
    cr_expect_eq(ret, VKFX_E_USAGE, "%s: got %d: %s", chain, ret, vkfx_error_message());
    cr_expect(strstr(vkfx_error_message(), part), "%s: message '%s' lacks '%s'", chain,
              vkfx_error_message(), part);
    if (ret == VKFX_OK) {
        free(res.times);
        vkfx_pixels_free(&out);
    }
    vkfx_chain_free(ch);
}

int th_tiled_same(th_gpu *g, const char *text, const vkfx_pixels *in, vkfx_run_opts o,
                  uint32_t channels, vkfx_sample sample, const char *side)
{
    vkfx_chain *chain = NULL;
    cr_assert_eq(vkfx_chain_parse(text, &chain), VKFX_OK, "%s: %s", text, vkfx_error_message());
    vkfx_pixels whole = {.channels = channels, .sample = sample}, tiled = whole;
    vkfx_run_result r;
    cr_assert_eq(vkfx_run(g->ctx, g->staging, chain, in, &whole, &o, &r), VKFX_OK, "%s: %s", text,
                 vkfx_error_message());
    free(r.times);
    g->ctx->opts.tile = (uint32_t)atoi(side);
    int ret = vkfx_run(g->ctx, g->staging, chain, in, &tiled, &o, &r);
    g->ctx->opts.tile = 0;
    cr_assert_eq(ret, VKFX_OK, "%s in tiles of %s: %s", text, side, vkfx_error_message());
    free(r.times);
    char what[160];
    snprintf(what, sizeof(what), "%s on %ux%u in tiles of %s (%u channels, sample %d)", text,
             in->width, in->height, side, channels, (int)sample);
    tc_diff d = tc_compare(&tiled, &whole, 0);
    tc_report(&d, what);
    vkfx_pixels_free(&whole);
    vkfx_pixels_free(&tiled);
    vkfx_chain_free(chain);
    return !tc_diff_ok(&d);
}
