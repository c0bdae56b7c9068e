/* --fast: the option on the command line, in job files and in vkfx bench reaches the filters
 * with a fast path, and only those; --help-filter says which have one (README,
 * "Determinism"). Without it the outputs are the device-independent ones the golden hashes
 * check (tests/bench/hashes.py). */
#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chain.h"
#include "common.h"
#include "filter.h"
#include "gpu_harness.h"
#include "preview.h"
#include "run_binary.h"

#ifndef VKFX_TEST_IMAGES
#error "the build must define VKFX_TEST_IMAGES"
#endif

static void setup(void)
{
    if (tc_tmpdir_make("fast") != 0)
        cr_assert_fail("no temporary directory");
}

TestSuite(fast, .init = setup, .fini = tc_tmpdir_remove);

static const char photo[] = VKFX_TEST_IMAGES "/chelsea.png";

/* vkfx PHOTO -f chain -o out (float OpenEXR: every bit shows), with --fast where fast. */
static void run_chain(const char *chain, bool fast, const char *out)
{
    cli_run r = {0};
    if (fast)
        VKFX(&r, photo, "-f", chain, "-o", tc_tpath(out), "--exr-float", "--fast");
    else
        VKFX(&r, photo, "-f", chain, "-o", tc_tpath(out), "--exr-float");
    cr_assert_eq(r.status, 0, "%s: exit %d: %s", r.cmd, r.status, r.err);
    run_free(&r);
}

static bool same(const char *a, const char *b)
{
    char why[256];
    return tc_same_files(tc_tpath(a), tc_tpath(b), why, sizeof(why));
}

/* The filters with a fast path take it, the others ignore the option (the same bytes). The
 * Gaussian's and bilateral's fast paths give other bytes on every device (weights of 24
 * significant bits, not 13; exp, not the table); unsharp's and cartoon's differ only where
 * the device fuses multiply-adds, which lavapipe may not. */
Test(fast, reaches_the_filters_that_have_one, .timeout = 300)
{
    static const char *const chains[] = {"gauss:sigma=2", "bilateral",        "box:radius=2",
                                         "sobel",         "resize:scale=0.5", "grayscale"};
    for (size_t i = 0; i < sizeof(chains) / sizeof(chains[0]); i++) {
        char name[32];
        const char *filter_name = strtok(strcpy(name, chains[i]), ":");
        const vkfx_filter *f = vkfx_filter_find(filter_name);
        cr_assert(f, "%s", filter_name);
        run_chain(chains[i], false, "default.exr");
        run_chain(chains[i], true, "fast.exr");
        if (f->fast)
            cr_assert(!same("default.exr", "fast.exr"), "%s: --fast changed nothing", chains[i]);
        else
            cr_assert(same("default.exr", "fast.exr"), "%s has no fast path, yet --fast changed it",
                      chains[i]);
    }
}

/* --fast in a job file is the command line's --fast, for its line alone. */
Test(fast, job_file_option, .timeout = 300)
{
    run_chain("gauss:sigma=2", true, "one-fast.exr");
    run_chain("gauss:sigma=2", false, "one.exr");
    char jobs[1024];
    snprintf(jobs, sizeof(jobs),
             "%s -f gauss:sigma=2 -o %s --exr-float --fast\n"
             "%s -f gauss:sigma=2 -o %s --exr-float\n",
             photo, tc_tpath("job-fast.exr"), photo, tc_tpath("job.exr"));
    cr_assert_eq(tc_spit_text(tc_tpath("jobs.txt"), jobs), 0);
    cli_run r = {0};
    VKFX(&r, "run", tc_tpath("jobs.txt"));
    cr_assert_eq(r.status, 0, "%s: exit %d: %s", r.cmd, r.status, r.err);
    run_free(&r);
    cr_assert(same("job-fast.exr", "one-fast.exr"), "the job's --fast differs from the command's");
    cr_assert(same("job.exr", "one.exr"), "--fast leaked into the next job");
}

/* --help-filter says for every filter whether it has a fast path, and what it changes. */
Test(fast, help_filter_says_what_fast_changes)
{
    for (const vkfx_filter *const *f = vkfx_filters; *f; f++) {
        cli_run r = {0};
        VKFX(&r, "--help-filter", (*f)->name);
        cr_assert_eq(r.status, 0, "%s: exit %d: %s", r.cmd, r.status, r.err);
        const char *line = strstr(r.out, "\n--fast: ");
        cr_assert(line, "--help-filter %s says nothing of --fast:\n%s", (*f)->name, r.out);
        if ((*f)->fast)
            cr_assert(strstr(line, (*f)->fast) && !strstr(line, "no faster path"), "%s:\n%s",
                      (*f)->name, r.out);
        else
            cr_assert(strstr(line, "no faster path"), "%s:\n%s", (*f)->name, r.out);
        run_free(&r);
    }
    cr_assert(vkfx_filter_find("gauss")->fast && vkfx_filter_find("bilateral")->fast &&
              !vkfx_filter_find("box")->fast);
}

/* vkfx bench --fast says so, in the table and in the JSON. */
Test(fast, bench_says_which_paths_it_timed, .timeout = 120)
{
    cli_run r = {0};
    VKFX(&r, "bench", "--size", "64x48", "--reps", "2", "--json", "--fast", "gauss:sigma=2");
    cr_assert_eq(r.status, 0, "%s: %s", r.cmd, r.err);
    cr_assert(strstr(r.out, "\"fast\": true"), "%s", r.out);
    run_free(&r);
    VKFX(&r, "bench", "--size", "64x48", "--reps", "2", "--json", "gauss:sigma=2");
    cr_assert_eq(r.status, 0, "%s: %s", r.cmd, r.err);
    cr_assert(strstr(r.out, "\"fast\": false"), "%s", r.out);
    run_free(&r);
    VKFX(&r, "bench", "--size", "64x48", "--reps", "2", "--fast", "gauss:sigma=2");
    cr_assert_eq(r.status, 0, "%s: %s", r.cmd, r.err);
    cr_assert(strstr(r.out, "runs, --fast\n"), "%s", r.out);
    run_free(&r);
}

/* vkfx preview's Fast box: its renders take the fast paths only while it is set. */
Test(fast, preview_renders_as_set, .timeout = 300)
{
    th_gpu g;
    th_gpu_open(&g);
    vkfx_preview *p = NULL;
    cr_assert_eq(vkfx_preview_open(g.ctx, photo, &p), VKFX_OK, "%s", vkfx_error_message());
    vkfx_chain *chain = NULL;
    cr_assert_eq(vkfx_chain_parse("gauss:sigma=2", &chain), VKFX_OK);
    vkfx_pixels a = {0}, b = {0}, c = {0};
    double ms;
    cr_assert_eq(vkfx_preview_render(p, chain, 200, &a, &ms, NULL), VKFX_OK);
    vkfx_preview_set_fast(p, true);
    cr_assert_eq(vkfx_preview_render(p, chain, 200, &b, &ms, NULL), VKFX_OK);
    vkfx_preview_set_fast(p, false);
    cr_assert_eq(vkfx_preview_render(p, chain, 200, &c, &ms, NULL), VKFX_OK);
    size_t n = vkfx_pixels_bytes(&a);
    cr_assert(n == vkfx_pixels_bytes(&b) && n == vkfx_pixels_bytes(&c));
    cr_assert(memcmp(a.data, b.data, n) != 0, "the Fast box changed nothing");
    cr_assert(memcmp(a.data, c.data, n) == 0, "the Fast box, cleared, left its bytes behind");
    vkfx_pixels_free(&a);
    vkfx_pixels_free(&b);
    vkfx_pixels_free(&c);
    vkfx_chain_free(chain);
    vkfx_preview_close(p);
    th_gpu_close(&g);
}

TestSuite(same, .init = setup, .fini = tc_tmpdir_remove);

/* Without --fast the Gaussian's variants give the same bytes, at both precisions, for the
 * Gaussian itself and for unsharp (its float blur of a half image; with the one-pass kernel
 * unsharp runs in that kernel, against the blur stored and unsharp's own pass with the others): each output adds the same taps
 * with the same weights in the same order, rounded alike (glsl/gauss_taps.glsl), whichever
 * variant the device's shared memory or matrix units would pick. */
Test(same, every_gauss_variant_the_same_bytes, .timeout = 600)
{
    static const struct {
        const char *chain;
        const char *variants[3];
    } cases[] = {
        {"gauss:sigma=2", {"one-pass", "unrolled", "generic"}},
        {"gauss:sigma=0.7", {"one-pass", "unrolled", "generic"}},
        {"unsharp:sigma=1.5", {"one-pass", "unrolled", "generic"}},
        {"gauss:sigma=8", {"unrolled", "generic"}},
        {"gauss:sigma=10:radius=30", {"unrolled", "generic"}},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        for (int precision = 16; precision <= 32; precision += 16)
            for (int v = 0; v < 3 && cases[i].variants[v]; v++) {
                char force[64], prec[8];
                snprintf(force, sizeof(force), "gauss:%s", cases[i].variants[v]);
                snprintf(prec, sizeof(prec), "%d", precision);
                cr_assert_eq(setenv("VKFX_VARIANT", force, 1), 0);
                cli_run r = {0};
                VKFX(&r, photo, "-f", cases[i].chain, "-o", tc_tpath(v ? "other.exr" : "first.exr"),
                     "--exr-float", "--precision", prec);
                unsetenv("VKFX_VARIANT");
                cr_assert_eq(r.status, 0, "%s: exit %d: %s", r.cmd, r.status, r.err);
                run_free(&r);
                if (v)
                    cr_assert(same("first.exr", "other.exr"), "%s at rgba%sf: %s differs from %s",
                              cases[i].chain, precision == 16 ? "16" : "32", cases[i].variants[v],
                              cases[i].variants[0]);
            }
}
