/* The two reductions on the GPU. histogram: the counts must equal the
 * reference exactly (integers), both the histogram of the raw 8-bit codes
 * (through the default pipeline an 8-bit input's encoded code is its own
 * code, so this needs no floating point at all) and tests/ref's count of
 * the decoded image, on random images at awkward sizes (1x1, 1x257, 257x1,
 * 333x517, 1024x768) in both precisions and on every shared photo; the
 * JSON is parsed back (arrays, pixel count, min, max, mean), the plot is
 * loaded back, and the pass-through output must be byte for byte the input.
 * tonemap: against ref_tonemap within 1 code on 8-bit output and 1e-3
 * relative on float (.hdr-like F32) output, at the same sizes and both
 * precisions, plus a constant image and an all-black one (Y = 0 gives 0), and
 * a Radiance .hdr file through the command line to an 8-bit TGA. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "context.h"
#include "fileio.h"
#include "gpu_harness.h"
#include "run_binary.h"

static const uint32_t sizes[][2] = {{1, 1}, {1, 257}, {257, 1}, {333, 517}, {1024, 768}};
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

/* ---- histogram ---- */

/* The histogram of an 8-bit image's own codes: gray is R = G = B, and a
 * pixel of alpha 0 encodes as colour 0. */
static void raw_histogram(const vkfx_pixels *px, uint32_t counts[1024])
{
    memset(counts, 0, 1024 * sizeof(uint32_t));
    const uint8_t *d = px->data;
    uint32_t ch = px->channels;
    for (size_t i = 0; i < (size_t)px->width * px->height; i++) {
        const uint8_t *p = d + i * ch;
        bool alpha0 = (ch == 2 || ch == 4) && p[ch - 1] == 0;
        uint32_t r = ch <= 2 ? p[0] : p[0], g = ch <= 2 ? p[0] : p[1], b = ch <= 2 ? p[0] : p[2];
        if (alpha0)
            r = g = b = 0;
        ref_histogram_add(counts, r, g, b);
    }
}

/* What decode then encode give back for an 8-bit image: the image itself,
 * except that a pixel of alpha 0 has no colour left (RGB 0). */
static void expected_passthrough(const vkfx_pixels *in, vkfx_pixels *want)
{
    *want = *in;
    cr_assert_eq(vkfx_pixels_alloc(want, in->width, in->height, in->channels, in->sample), VKFX_OK);
    memcpy(want->data, in->data, vkfx_pixels_bytes(in));
    uint32_t ch = in->channels;
    uint8_t *d = want->data;
    if (ch == 2 || ch == 4)
        for (size_t i = 0; i < (size_t)in->width * in->height; i++)
            if (d[i * ch + ch - 1] == 0)
                memset(d + i * ch, 0, ch - 1);
}

/* Runs histogram with out= and plot= on in, checks the pass-through, the
 * counts against want (and the reference of the decoded image), the JSON's
 * statistics and the plot. Returns the number of failed checks. */
static int check_histogram(th_gpu *g, const vkfx_pixels *in, int precision, const char *what)
{
    char dir[] = "/tmp/vkfx_reduce_XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char json[128], plot[128], chain_text[400];
    snprintf(json, sizeof(json), "%s/h.json", dir);
    snprintf(plot, sizeof(plot), "%s/h.png", dir);
    snprintf(chain_text, sizeof(chain_text), "histogram:out=%s:plot=%s", json, plot);
    char label[512];
    snprintf(label, sizeof(label), "%s %ux%u %uch rgba%df", what, in->width, in->height,
             in->channels, precision);
    int failures = 0;

    vkfx_pixels got;
    th_run(g, chain_text, in, in->channels, VKFX_SAMPLE_U8, precision, &got);
    vkfx_pixels same;
    expected_passthrough(in, &same);
    if (memcmp(got.data, same.data, vkfx_pixels_bytes(in)) != 0) {
        fprintf(stderr, "%s: the output differs from the input\n", label);
        failures++;
    }
    vkfx_pixels_free(&same);
    vkfx_pixels_free(&got);

    uint32_t raw[1024], ref[1024];
    raw_histogram(in, raw);
    ref_image a = {0};
    cr_assert_eq(ref_decode(in, false, &a), VKFX_OK);
    if (precision == 16)
        ref_round_half(&a);
    ref_histogram(&a, ref);
    ref_image_free(&a);

    unsigned long long pixels = 0;
    tc_histogram_channel ch[4];
    if (!tc_histogram_json(json, &pixels, ch)) {
        fprintf(stderr, "%s: %s is missing or unreadable\n", label, json);
        failures++;
    } else {
        if (pixels != (unsigned long long)in->width * in->height) {
            fprintf(stderr, "%s: pixels %llu\n", label, pixels);
            failures++;
        }
        for (int c = 0; c < 4; c++) {
            int lo = -1, hi = -1;
            double sum = 0;
            for (int i = 0; i < 256; i++) {
                uint32_t got_n = ch[c].counts[i], want_n = raw[c * 256 + i];
                if (got_n != want_n || ref[c * 256 + i] != want_n) {
                    fprintf(stderr, "%s: channel %d bin %d: got %u, raw codes %u, reference %u\n",
                            label, c, i, got_n, want_n, ref[c * 256 + i]);
                    failures++;
                }
                if (want_n) {
                    lo = lo < 0 ? i : lo;
                    hi = i;
                }
                sum += (double)i * want_n;
            }
            double mean = sum / (double)pixels;
            if (ch[c].min != lo || ch[c].max != hi || fabs(ch[c].mean - mean) > 1e-6 * (1 + mean)) {
                fprintf(stderr, "%s: channel %d min/max/mean %d %d %g, want %d %d %g\n", label, c,
                        ch[c].min, ch[c].max, ch[c].mean, lo, hi, mean);
                failures++;
            }
        }
    }
    vkfx_pixels pic;
    if (vkfx_file_load(plot, &pic) != VKFX_OK) {
        fprintf(stderr, "%s: plot: %s\n", label, vkfx_error_message());
        failures++;
    } else {
        if (pic.width != 512 || pic.height != 256 || pic.channels != 3)
            failures++;
        vkfx_pixels_free(&pic);
    }
    tc_remove_tree(dir);
    return failures;
}

/* histogram hands its input on unchanged without a copy: inside a chain,
 * before, between and after other filters, the bytes are those of the
 * chain without it (check_histogram checks it alone). */
Test(histogram, passes_through_inside_chains)
{
    th_gpu g;
    th_gpu_open(&g);
    vkfx_pixels px;
    tc_random_pixels(&px, 97, 61, 4, VKFX_SAMPLE_U8, 77);
    static const char *const pairs[][2] = {
        {"histogram,box:radius=1", "box:radius=1"},
        {"gauss:sigma=2,histogram", "gauss:sigma=2"},
        {"sobel,histogram,histogram,box:radius=2", "sobel,box:radius=2"},
    };
    for (int precision = 16; precision <= 32; precision += 16)
        for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
            vkfx_pixels a, b;
            th_run(&g, pairs[i][0], &px, 4, VKFX_SAMPLE_U8, precision, &a);
            th_run(&g, pairs[i][1], &px, 4, VKFX_SAMPLE_U8, precision, &b);
            cr_assert(memcmp(a.data, b.data, vkfx_pixels_bytes(&a)) == 0,
                      "'%s' differs from '%s' at --precision %d", pairs[i][0], pairs[i][1],
                      precision);
            vkfx_pixels_free(&a);
            vkfx_pixels_free(&b);
        }
    vkfx_pixels_free(&px);
    th_gpu_close(&g);
}

Test(histogram, random_exact, .timeout = 300)
{
    th_gpu g;
    th_gpu_open(&g);
    int failures = 0;
    for (int precision = 16; precision <= 32; precision += 16)
        for (size_t i = 0; i < NSIZES; i++)
            for (uint32_t ch = 1; ch <= 4; ch++) {
                /* With alpha, un-premultiplying half-rounded values can
                 * move a code; the raw-code check needs rgba32f there. */
                if ((ch == 2 || ch == 4) && precision == 16)
                    continue;
                vkfx_pixels px;
                tc_random_pixels(&px, sizes[i][0], sizes[i][1], ch, VKFX_SAMPLE_U8, 31 + i + ch);
                failures += check_histogram(&g, &px, precision, "random");
                vkfx_pixels_free(&px);
            }
    th_gpu_close(&g);
    cr_assert_eq(failures, 0, "%d histogram checks failed (above)", failures);
}

Test(histogram, photos_exact, .timeout = 300)
{
    th_gpu g;
    th_gpu_open(&g);
    int failures = 0;
    for (const char *const *name = tc_photos(); *name; name++) {
        vkfx_pixels photo;
        cr_assert_eq(tc_load_photo(*name, &photo), VKFX_OK, "%s: %s", *name, vkfx_error_message());
        for (int precision = 16; precision <= 32; precision += 16)
            failures += check_histogram(&g, &photo, precision, *name);
        vkfx_pixels_free(&photo);
    }
    th_gpu_close(&g);
    cr_assert_eq(failures, 0, "%d histogram checks failed (above)", failures);
}

static void log_stderr(void *user, const char *message)
{
    (void)user;
    fprintf(stderr, "%s\n", message);
}

/* The same without subgroup operations: the shared-atomics-only kernels. */
Test(histogram, without_subgroup_ops, .timeout = 300)
{
    th_gpu g = {0};
    const char *v = getenv("VKFX_VALIDATE");
    vkfx_context_opts o = {
        .validate = v && strcmp(v, "1") == 0, .no_subgroup_ops = true, .log = log_stderr};
    cr_assert_eq(vkfx_context_create(&o, &g.ctx), VKFX_OK, "%s", vkfx_error_message());
    cr_assert_eq(vkfx_staging_create(g.ctx, 0, &g.staging), VKFX_OK);
    cr_assert(!g.ctx->subgroup_arith);
    int failures = 0;
    for (size_t i = 0; i < NSIZES; i++) {
        vkfx_pixels px;
        tc_random_pixels(&px, sizes[i][0], sizes[i][1], 3, VKFX_SAMPLE_U8, 51 + i);
        failures += check_histogram(&g, &px, 16, "random, no subgroup ops");
        vkfx_pixels_free(&px);
    }
    th_gpu_close(&g);
    cr_assert_eq(failures, 0, "%d histogram checks failed (above)", failures);
}

/* Without out= and plot= nothing is written and the image still passes. */
Test(histogram, no_files)
{
    th_gpu g;
    th_gpu_open(&g);
    vkfx_pixels px, got;
    tc_random_pixels(&px, 45, 37, 4, VKFX_SAMPLE_U8, 3);
    th_run(&g, "histogram", &px, 4, VKFX_SAMPLE_U8, 32, &got);
    vkfx_pixels same;
    expected_passthrough(&px, &same);
    cr_assert_eq(memcmp(got.data, same.data, vkfx_pixels_bytes(&px)), 0);
    vkfx_pixels_free(&same);
    vkfx_pixels_free(&got);
    vkfx_pixels_free(&px);
    th_gpu_close(&g);
}

/* An unwritable JSON path is an I/O error, not a crash or a silent pass. */
Test(histogram, unwritable_path)
{
    th_gpu g;
    th_gpu_open(&g);
    vkfx_pixels px, got = {.channels = 3, .sample = VKFX_SAMPLE_U8};
    tc_random_pixels(&px, 8, 8, 3, VKFX_SAMPLE_U8, 4);
    vkfx_chain *chain = NULL;
    cr_assert_eq(vkfx_chain_parse("histogram:out=/nonexistent_dir_vkfx/h.json", &chain), VKFX_OK);
    vkfx_run_opts opts = {.precision = 16};
    vkfx_run_result result;
    cr_assert_eq(vkfx_run(g.ctx, g.staging, chain, &px, &got, &opts, &result), VKFX_E_IO);
    vkfx_chain_free(chain);
    vkfx_pixels_free(&px);
    th_gpu_close(&g);
}

/* ---- tonemap ---- */

static void scale_f32(vkfx_pixels *px, float s)
{
    float *d = px->data;
    for (size_t i = 0; i < (size_t)px->width * px->height * px->channels; i++)
        d[i] *= s;
}

static int check_tonemap_all(th_gpu *g, const char *chain, const th_tonemap_arg *a)
{
    int failures = 0;
    for (int precision = 16; precision <= 32; precision += 16) {
        th_case c8 = {chain, th_ref_tonemap, a, precision, 1};
        th_case cf = {chain, th_ref_tonemap, a, precision, 1e-3};
        for (size_t i = 0; i < NSIZES; i++) {
            vkfx_pixels px;
            tc_random_pixels(&px, sizes[i][0], sizes[i][1], 4, VKFX_SAMPLE_U8, 11 + i);
            failures += !th_check(g, &c8, &px, 4, VKFX_SAMPLE_U8, "random 8-bit");
            vkfx_pixels_free(&px);
            /* Radiance-like input: linear float RGB with a wide range. */
            tc_random_pixels(&px, sizes[i][0], sizes[i][1], 3, VKFX_SAMPLE_F32, 21 + i);
            scale_f32(&px, 20.0f);
            failures += !th_check(g, &cf, &px, 3, VKFX_SAMPLE_F32, "random float");
            vkfx_pixels_free(&px);
        }
    }
    return failures;
}

Test(tonemap, default_key, .timeout = 300)
{
    th_gpu g;
    th_gpu_open(&g);
    static const th_tonemap_arg a = {0.18, 0};
    int failures = check_tonemap_all(&g, "tonemap", &a);
    th_gpu_close(&g);
    cr_assert_eq(failures, 0, "%d comparisons out of tolerance (worst pixels above)", failures);
}

Test(tonemap, key_and_white, .timeout = 300)
{
    th_gpu g;
    th_gpu_open(&g);
    static const th_tonemap_arg a = {0.5, 2.5};
    int failures = check_tonemap_all(&g, "tonemap:key=0.5:white=2.5", &a);
    th_case c = {"tonemap:key=0.5:white=2.5", th_ref_tonemap, &a, 16, 1};
    for (const char *const *name = tc_photos(); *name; name++) {
        vkfx_pixels photo;
        cr_assert_eq(tc_load_photo(*name, &photo), VKFX_OK);
        failures += !th_check(&g, &c, &photo, photo.channels, VKFX_SAMPLE_U8, *name);
        vkfx_pixels_free(&photo);
    }
    th_gpu_close(&g);
    cr_assert_eq(failures, 0, "%d comparisons out of tolerance (worst pixels above)", failures);
}

static void fill(vkfx_pixels *px, float v)
{
    float *d = px->data;
    for (size_t i = 0; i < (size_t)px->width * px->height * px->channels; i++)
        d[i] = v;
}

/* A constant image maps to key/(1+key) everywhere; a black one stays black
 * (Y = 0 gives 0, no NaN from 0/0). */
Test(tonemap, without_subgroup_ops, .timeout = 300)
{
    th_gpu g = {0};
    const char *v = getenv("VKFX_VALIDATE");
    vkfx_context_opts o = {
        .validate = v && strcmp(v, "1") == 0, .no_subgroup_ops = true, .log = log_stderr};
    cr_assert_eq(vkfx_context_create(&o, &g.ctx), VKFX_OK, "%s", vkfx_error_message());
    cr_assert_eq(vkfx_staging_create(g.ctx, 0, &g.staging), VKFX_OK);
    static const th_tonemap_arg a = {0.18, 0};
    int failures = check_tonemap_all(&g, "tonemap", &a);
    th_gpu_close(&g);
    cr_assert_eq(failures, 0, "%d comparisons out of tolerance (worst pixels above)", failures);
}

Test(tonemap, constant_and_black)
{
    th_gpu g;
    th_gpu_open(&g);
    static const th_tonemap_arg a = {0.18, 0};
    int failures = 0;
    for (int precision = 16; precision <= 32; precision += 16) {
        th_case cf = {"tonemap", th_ref_tonemap, &a, precision, 1e-3};
        vkfx_pixels px;
        tc_random_pixels(&px, 67, 45, 3, VKFX_SAMPLE_F32, 1);
        fill(&px, 3.5f);
        failures += !th_check(&g, &cf, &px, 3, VKFX_SAMPLE_F32, "constant");
        vkfx_pixels got;
        th_run(&g, "tonemap", &px, 3, VKFX_SAMPLE_F32, precision, &got);
        /* Lw = 1e-4 + 3.5 (up to float), so Ld = 0.18 3.5 / (3.5 + 1e-4) / (1 + that) */
        double lm = 0.18 * 3.5 / (3.5 + 1e-4);
        double want = lm / (1 + lm);
        float v = ((float *)got.data)[0];
        cr_expect(fabs(v - want) < 1e-3 * want, "constant: got %g, want %g", v, want);
        vkfx_pixels_free(&got);

        fill(&px, 0.0f);
        failures += !th_check(&g, &cf, &px, 3, VKFX_SAMPLE_F32, "black");
        th_run(&g, "tonemap", &px, 3, VKFX_SAMPLE_F32, precision, &got);
        for (size_t i = 0; i < (size_t)67 * 45 * 3; i++)
            if (((float *)got.data)[i] != 0.0f) {
                failures++;
                break;
            }
        vkfx_pixels_free(&got);
        vkfx_pixels_free(&px);
    }
    th_gpu_close(&g);
    cr_assert_eq(failures, 0, "%d comparisons failed (above)", failures);
}

/* A Radiance file end to end: vkfx reads it as linear light (no sRGB decode),
 * tone-maps it and writes an 8-bit TGA (a PNG would keep 16 bits); the reference starts from the
 * same file's decoded floats (RGBE keeps 8 bits of mantissa). 8-bit within 1. */
Test(tonemap, radiance_file_to_8_bit, .timeout = 300)
{
    cr_assert_eq(tc_tmpdir_make("tonemap"), 0);
    vkfx_pixels px;
    tc_random_pixels(&px, 333, 517, 3, VKFX_SAMPLE_F32, 77);
    scale_f32(&px, 40.0f);
    const char *hdr = tc_tpath("scene.hdr"), *tga = tc_tpath("scene.tga");
    cr_assert_eq(vkfx_file_save(hdr, VKFX_FILE_HDR, &px, NULL), VKFX_OK, "%s",
                 vkfx_error_message());
    vkfx_pixels_free(&px);
    cr_assert_eq(vkfx_file_load(hdr, &px), VKFX_OK, "%s", vkfx_error_message());
    cr_assert(px.linear && px.sample == VKFX_SAMPLE_F32, "a .hdr file reads as linear floats");

    int failures = 0;
    for (int precision = 16; precision <= 32; precision += 16) {
        cli_run r;
        VKFX(&r, hdr, "-f", "tonemap:key=0.3", "-o", tga, "--precision",
             precision == 16 ? "16" : "32");
        cr_assert_eq(r.status, 0, "%s: exit %d: %s", r.cmd, r.status, r.err);
        run_free(&r);
        vkfx_pixels got, want = {.channels = 3, .sample = VKFX_SAMPLE_U8};
        cr_assert_eq(vkfx_file_load(tga, &got), VKFX_OK, "%s", vkfx_error_message());
        cr_assert(got.channels == 3 && got.sample == VKFX_SAMPLE_U8, "RGB 8-bit TGA out");
        ref_image a = {0}, b = {0};
        cr_assert_eq(ref_decode(&px, false, &a), VKFX_OK);
        if (precision == 16)
            ref_round_half(&a);
        cr_assert_eq(ref_tonemap(&a, 0.3, 0, &b), VKFX_OK);
        if (precision == 16)
            ref_round_half(&b);
        cr_assert_eq(ref_encode(&b, false, &want), VKFX_OK);
        tc_diff d = tc_compare(&got, &want, 1);
        if (!tc_diff_ok(&d)) {
            tc_report(&d, precision == 16 ? "scene.hdr, rgba16f" : "scene.hdr, rgba32f");
            failures++;
        }
        ref_image_free(&a);
        ref_image_free(&b);
        vkfx_pixels_free(&got);
        vkfx_pixels_free(&want);
    }
    vkfx_pixels_free(&px);
    tc_tmpdir_remove();
    cr_assert_eq(failures, 0, "%d comparisons out of tolerance (worst pixels above)", failures);
}
