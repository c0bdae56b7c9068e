/* Every registered filter, whatever tests of its own it has: at its defaults, at each number
 * option's least and greatest value (one at a time, the others at their defaults), with each
 * choice and each flag, on small smooth opaque images of odd sizes (tc_ramp_pixels: random
 * content puts refraction and thresholds on knife edges, and nearly transparent pixels test
 * the un-premultiplying division, not the filter), with the validation layer on, against its
 * reference ref_filter_NAME in tests/ref (tests/ref/ref.h). A filter without a reference fails
 * here. Required file options (depth maps) get a map of the image's size; optional ones
 * (histogram's output files, satblur's map) are left to the filters' own tests. Every value
 * within an option's range must run: a refusal fails like a miss of the reference. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filter.h"
#include "gpu_harness.h"
#include "vkfx_filter_list.h"

#define X(name)                                                                                    \
    __attribute__((weak)) int ref_filter_##name(const ref_image *in, ref_opts *o, int precision,   \
                                                ref_image *out);
VKFX_FILTER_LIST
#undef X

static const struct {
    const char *name;
    ref_filter_fn fn;
} refs[] = {
#define X(name) {#name, ref_filter_##name},
    VKFX_FILTER_LIST
#undef X
};

static ref_filter_fn reference_of(const char *name)
{
    for (size_t i = 0; i < sizeof(refs) / sizeof(refs[0]); i++)
        if (strcmp(refs[i].name, name) == 0)
            return refs[i].fn;
    return NULL;
}

Test(registry, every_filter_has_a_reference)
{
    int missing = 0;
    for (const vkfx_filter *const *f = vkfx_filters; *f; f++)
        if (!reference_of((*f)->name)) {
            fprintf(stderr, "filter %s has no reference ref_filter_%s in tests/ref\n", (*f)->name,
                    (*f)->name);
            missing++;
        }
    cr_assert_eq(missing, 0, "%d filter(s) without a reference (above)", missing);
}

/* A filter that reshapes the image runs in windows too, so that no image is too large for it
 * (core/include/filter.h). */
Test(registry, every_filter_that_reshapes_runs_in_windows)
{
    int missing = 0;
    for (const vkfx_filter *const *f = vkfx_filters; *f; f++)
        if ((*f)->size && !(*f)->window) {
            fprintf(stderr, "filter %s has a size hook and no window hook\n", (*f)->name);
            missing++;
        }
    cr_assert_eq(missing, 0, "%d filter(s) that reshape the image without windows (above)",
                 missing);
}

/* The reference side of one case: the filter's reference with the link's options; it sets the
 * case's tolerance to the one the reference states. */
typedef struct call {
    ref_filter_fn fn;
    ref_opts opts;
    th_case *tc;
} call;

static int call_ref(const ref_image *in, ref_image *out, const void *arg, int precision)
{
    const call *c = arg;
    ref_opts o = c->opts;
    o.tol = 1;
    int ret = c->fn(in, &o, precision, out);
    c->tc->tol = o.tol;
    return ret;
}

/* Runs chain (one link) on in at precision against its reference; returns 1 when out of
 * tolerance, REFUSED when refused (every value within an option's range must run, unless
 * outside_ok says otherwise), 0 when within. */
enum { REFUSED = 2 };
static int check_chain(th_gpu *g, const char *chain, const vkfx_pixels *in, int precision)
{
    vkfx_chain *parsed = NULL;
    if (vkfx_chain_parse(chain, &parsed) == VKFX_E_USAGE) {
        fprintf(stderr, "registry: %s refused: %s\n", chain, vkfx_error_message());
        return REFUSED;
    }
    cr_assert(parsed && parsed->count == 1, "%s: %s", chain, vkfx_error_message());
    const vkfx_filter *f = parsed->links[0].filter;
    th_case tc = {.chain = chain, .ref = call_ref, .precision = precision, .tol = 1};
    call c = {reference_of(f->name), {f, parsed->links[0].params, 1}, &tc};
    cr_assert(c.fn, "filter %s has no reference", f->name);
    tc.arg = &c;
    th_result r = th_check_unless(g, &tc, in, in->channels, VKFX_SAMPLE_U8, "registry", "");
    if (r == TH_REFUSED)
        fprintf(stderr, "registry: %s refused: %s\n", chain, vkfx_error_message());
    vkfx_chain_free(parsed);
    return r == TH_REFUSED ? REFUSED : r != TH_WITHIN;
}

/* Options whose greatest value reaches outside the image, where a refusal is the contract
 * (FILTERS.md "Geometry and everyday filters": a crop outside the image is an error naming
 * its size). */
static const struct outside {
    const char *filter, *options;
} outside[] = {
    {"crop", " x y width height "},
};

static bool outside_ok(const vkfx_filter *f, const vkfx_option *o)
{
    char word[64];
    snprintf(word, sizeof(word), " %s ", o->name);
    for (size_t i = 0; i < sizeof(outside) / sizeof(outside[0]); i++)
        if (strcmp(outside[i].filter, f->name) == 0 && strstr(outside[i].options, word))
            return true;
    return false;
}

/* A gray ramp of the image's size, saved as an 8-bit PNG at path: every depth from 0 to 1. */
static void save_map(uint32_t w, uint32_t h, const char *path)
{
    vkfx_pixels m;
    cr_assert_eq(vkfx_pixels_alloc(&m, w, h, 1, VKFX_SAMPLE_U8), VKFX_OK);
    uint8_t *d = m.data;
    for (uint32_t i = 0; i < w * h; i++)
        d[i] = (uint8_t)(i * 255 / (w * h > 1 ? w * h - 1 : 1));
    cr_assert_eq(vkfx_file_save(path, VKFX_FILE_PNG, &m, NULL), VKFX_OK, "%s",
                 vkfx_error_message());
    vkfx_pixels_free(&m);
}

/* Options a filter needs in this world besides its maps: given in every case but those that
 * set one of the options they stand for (resize has no size unless one is given). */
static const struct given {
    const char *filter, *options, *instead_of;
} givens[] = {
    {"resize", ":width=14:height=6", " width height scale longest "},
};

static const char *given_for(const vkfx_filter *f, const char *option)
{
    char word[64];
    snprintf(word, sizeof(word), " %s ", option ? option : "");
    for (size_t i = 0; i < sizeof(givens) / sizeof(givens[0]); i++)
        if (strcmp(givens[i].filter, f->name) == 0)
            return option && strstr(givens[i].instead_of, word) ? "" : givens[i].options;
    return "";
}

/* The greatest value of option o tried on in: its maximum, except for the sides and offsets of
 * filters that reshape the image, which stop at four times the image's longer side (resize's
 * maximum, 65536 pixels a side, takes more memory than the reference has). */
static double greatest(const vkfx_filter *f, const vkfx_option *o, const vkfx_pixels *in)
{
    double most = 4.0 * (in->width > in->height ? in->width : in->height);
    return f->size && o->type == VKFX_OPT_INT && o->max > most ? most : o->max;
}

/* Every case of filter f on in (its depth map at map); returns the comparisons out of
 * tolerance. */
static int check_filter(th_gpu *g, const vkfx_filter *f, const vkfx_pixels *in, const char *map)
{
    char base[1024], chain[1400];
    int n = snprintf(base, sizeof(base), "%s", f->name);
    for (const vkfx_option *o = f->options; o->name; o++)
        if (o->type == VKFX_OPT_PATH && o->required)
            n += snprintf(base + n, sizeof(base) - (size_t)n, ":%s=%s", o->name, map);
    snprintf(chain, sizeof(chain), "%s%s", base, given_for(f, NULL));
    int failures = !!check_chain(g, chain, in, 16) + !!check_chain(g, chain, in, 32);
    for (const vkfx_option *o = f->options; o->name; o++) {
        const char *given = given_for(f, o->name);
        switch (o->type) {
        case VKFX_OPT_INT:
        case VKFX_OPT_FLOAT:
            for (int end = 0; end < 2; end++) {
                snprintf(chain, sizeof(chain), "%s%s:%s=%.17g", base, given, o->name,
                         end ? greatest(f, o, in) : o->min);
                int out = check_chain(g, chain, in, 16);
                if (out == REFUSED && end && outside_ok(f, o)) {
                    fprintf(stderr, "registry: %s: refused as it should be\n", chain);
                    out = 0;
                }
                failures += !!out;
            }
            break;
        case VKFX_OPT_BOOL:
            for (int v = 0; v < 2; v++) {
                snprintf(chain, sizeof(chain), "%s%s:%s=%d", base, given, o->name, v);
                failures += !!check_chain(g, chain, in, 16);
            }
            break;
        case VKFX_OPT_CHOICE:
            for (const char *const *c = o->choices; *c; c++) {
                snprintf(chain, sizeof(chain), "%s%s:%s=%s", base, given, o->name, *c);
                failures += !!check_chain(g, chain, in, 16);
            }
            break;
        case VKFX_OPT_PATH:
            break;
        }
    }
    return failures;
}

static void check_all(uint32_t w, uint32_t h)
{
    cr_assert_eq(tc_tmpdir_make("registry"), 0);
    char map[1024];
    snprintf(map, sizeof(map), "%s", tc_tpath("depth.png"));
    save_map(w, h, map);
    vkfx_pixels in;
    tc_ramp_pixels(&in, w, h);
    th_gpu g;
    th_gpu_open(&g);
    int failures = 0;
    for (const vkfx_filter *const *f = vkfx_filters; *f; f++)
        failures += check_filter(&g, *f, &in, map);
    th_gpu_close(&g);
    vkfx_pixels_free(&in);
    tc_tmpdir_remove();
    cr_assert_eq(failures, 0, "%d comparisons out of tolerance (worst pixels above)", failures);
}

Test(registry, every_filter_at_defaults_and_limits_23x17, .timeout = 900)
{
    check_all(23, 17);
}

Test(registry, every_filter_at_defaults_and_limits_5x3, .timeout = 900)
{
    check_all(5, 3);
}
