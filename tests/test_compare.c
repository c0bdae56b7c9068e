/* Tests of vkfx compare as a script meets it: the real binary run on small
 * PNGs written here, its exit status (0 pass, 1 fail, 2 usage or trouble)
 * and the one result line on stdout, parsed key by key in the documented
 * order. No Vulkan is involved. */
#include <criterion/criterion.h>

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "error.h"
#include "fileio.h"
#include "pixels.h"

#ifndef VKFX_BINARY
#error "the build must define VKFX_BINARY, the path of the vkfx executable"
#endif

static void setup(void)
{
    if (tc_tmpdir_make("compare") != 0)
        cr_assert_fail("mkdtemp: %s", strerror(errno));
}

TestSuite(compare, .init = setup, .fini = tc_tmpdir_remove);

/* ------------------------------------------------------------------------ */
/* Running the binary (tests/run_binary.h) */

#include "run_binary.h"

#define COMPARE(r, ...) VKFX((r), "compare", __VA_ARGS__)

/* ------------------------------------------------------------------------ */
/* The result line */

typedef struct result_line {
    char metric[16], value[64], tolerance[64], result[16], reason[16], differ[32], share[32],
        a[512], b[512];
} result_line;

/* Parses stdout as exactly one line "vkfx compare: metric=M value=V
 * tolerance=X result=R reason=Q differ=N share=S a=A b=B", keys in this order, single
 * spaces. */
static void parse_line(const cli_run *r, result_line *l)
{
    static const char prefix[] = "vkfx compare: ";
    cr_assert(!strncmp(r->out, prefix, strlen(prefix)), "%s: stdout does not start with '%s':\n%s",
              r->cmd, prefix, r->out);
    const char *nl = strchr(r->out, '\n');
    cr_assert(nl && !nl[1], "%s: want exactly one line on stdout:\n%s", r->cmd, r->out);
    static const char *const keys[] = {"metric", "value",  "tolerance", "result", "reason",
                                       "differ", "share", "a",         "b"};
    char *fields[] = {l->metric, l->value,  l->tolerance, l->result, l->reason,
                      l->differ, l->share, l->a,         l->b};
    size_t caps[] = {sizeof(l->metric), sizeof(l->value), sizeof(l->tolerance),
                     sizeof(l->result), sizeof(l->reason), sizeof(l->differ),
                     sizeof(l->share),  sizeof(l->a),     sizeof(l->b)};
    const char *p = r->out + strlen(prefix);
    for (size_t i = 0; i < 9; i++) {
        size_t klen = strlen(keys[i]);
        cr_assert(!strncmp(p, keys[i], klen) && p[klen] == '=', "%s: key %zu is not '%s=' in:\n%s",
                  r->cmd, i, keys[i], r->out);
        p += klen + 1;
        size_t vlen = strcspn(p, " \n");
        cr_assert(vlen > 0 && vlen < caps[i], "%s: empty or long value of '%s'", r->cmd, keys[i]);
        memcpy(fields[i], p, vlen);
        fields[i][vlen] = 0;
        p += vlen;
        cr_assert_eq(*p, i < 8 ? ' ' : '\n', "%s: odd separator after '%s' in:\n%s", r->cmd,
                     keys[i], r->out);
        p++;
    }
}

static double number(const char *s)
{
    char *end = NULL;
    double v = strtod(s, &end);
    cr_assert(end != s && !*end, "'%s' is not a number", s);
    return v;
}

/* Runs compare, expects exit code want and a parseable line naming A and B. */
static void expect_result(cli_run *r, int want, result_line *l, const char *a, const char *b)
{
    cr_assert_eq(r->status, want, "%s: exit %d, want %d; stdout:\n%s\nstderr:\n%s", r->cmd,
                 r->status, want, r->out, r->err);
    parse_line(r, l);
    cr_assert_str_eq(l->a, a);
    cr_assert_str_eq(l->b, b);
    cr_assert_str_eq(l->result, want == 0 ? "pass" : "fail");
    if (want == 0)
        cr_assert_str_eq(l->reason, "none");
}

/* Exit 2, nothing on stdout, a first stderr line "vkfx compare: ..." that
 * holds needle. */
static void expect_usage(const cli_run *r, const char *needle)
{
    cr_assert_eq(r->status, 2, "%s: exit %d, want 2; stderr:\n%s", r->cmd, r->status, r->err);
    cr_assert_str_empty(r->out, "%s: a failed run wrote to stdout:\n%s", r->cmd, r->out);
    cr_assert(!strncmp(r->err, "vkfx compare: ", 14), "%s: odd stderr:\n%s", r->cmd, r->err);
    const char *nl = strchr(r->err, '\n');
    cr_assert(nl);
    cr_assert(strstr(r->err, needle) && strstr(r->err, needle) < nl,
              "%s: the message does not mention '%s':\n%s", r->cmd, needle, r->err);
}

/* ------------------------------------------------------------------------ */
/* Images */

static void save_png(const char *path, const vkfx_pixels *px)
{
    int ret = vkfx_file_save(path, VKFX_FILE_PNG, px, NULL);
    cr_assert_eq(ret, 0, "save %s: %s", path, vkfx_error_message());
}

/* A smooth 8-bit RGB image: noise would make SSIM's test meaningless. */
static void gradient(vkfx_pixels *px, uint32_t w, uint32_t h)
{
    cr_assert_eq(vkfx_pixels_alloc(px, w, h, 3, VKFX_SAMPLE_U8), 0);
    uint8_t *p = px->data;
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++, p += 3) {
            p[0] = (uint8_t)(20 + 200 * x / w);
            p[1] = (uint8_t)(20 + 200 * y / h);
            p[2] = (uint8_t)(128 + ((x + y) % 16));
        }
}

/* ------------------------------------------------------------------------ */

Test(compare, identical_files_pass_every_metric)
{
    vkfx_pixels px = {0};
    tc_random_pixels(&px, 24, 20, 4, VKFX_SAMPLE_U8, 1);
    save_png(tc_tpath("a.png"), &px);
    save_png(tc_tpath("b.png"), &px);
    vkfx_pixels_free(&px);
    static const char *const metrics[] = {"maxabs", "psnr", "ssim"};
    static const char *const values[] = {"0", "inf", "1"};
    static const char *const tolerances[] = {"0", "40", "0.99"};
    for (size_t i = 0; i < 3; i++) {
        cli_run r = {0};
        COMPARE(&r, tc_tpath("a.png"), tc_tpath("b.png"), "--metric", metrics[i]);
        result_line l;
        expect_result(&r, 0, &l, tc_tpath("a.png"), tc_tpath("b.png"));
        cr_assert_str_eq(l.metric, metrics[i]);
        cr_assert_str_eq(l.value, values[i], "%s: value=%s", metrics[i], l.value);
        cr_assert_str_eq(l.tolerance, tolerances[i], "%s: default tolerance=%s", metrics[i],
                         l.tolerance);
        cr_assert(!strcmp(l.differ, "0") && !strcmp(l.share, "0"), "%s: differ=%s share=%s",
                  r.cmd, l.differ, l.share);
        cr_assert_str_empty(r.err, "%s: stderr on a pass:\n%s", r.cmd, r.err);
        run_free(&r);
    }
}

Test(compare, one_pixel_off_by_three_codes)
{
    vkfx_pixels px = {0};
    tc_random_pixels(&px, 16, 12, 3, VKFX_SAMPLE_U8, 2);
    uint8_t *p = px.data;
    p[(5 * 16 + 7) * 3 + 1] = 100;
    save_png(tc_tpath("a.png"), &px);
    p[(5 * 16 + 7) * 3 + 1] = 103;
    save_png(tc_tpath("b.png"), &px);
    vkfx_pixels_free(&px);

    cli_run r = {0};
    result_line l;
    COMPARE(&r, tc_tpath("a.png"), tc_tpath("b.png"));
    expect_result(&r, 1, &l, tc_tpath("a.png"), tc_tpath("b.png"));
    cr_assert_str_eq(l.metric, "maxabs");
    cr_assert_str_eq(l.value, "3");
    cr_assert_str_eq(l.reason, "value");
    /* One sample of 16*12*3 differs. */
    cr_assert_str_eq(l.differ, "1");
    cr_assert_float_eq(number(l.share), 1.0 / (16 * 12 * 3), 1e-6, "share=%s", l.share);
    run_free(&r);

    COMPARE(&r, tc_tpath("a.png"), tc_tpath("b.png"), "--metric", "maxabs", "--tolerance", "2");
    expect_result(&r, 1, &l, tc_tpath("a.png"), tc_tpath("b.png"));
    cr_assert_str_eq(l.value, "3");
    cr_assert_str_eq(l.tolerance, "2");
    cr_assert_str_eq(l.reason, "value");
    run_free(&r);

    COMPARE(&r, "--tolerance", "3", tc_tpath("a.png"), tc_tpath("b.png"));
    expect_result(&r, 0, &l, tc_tpath("a.png"), tc_tpath("b.png"));
    cr_assert_str_eq(l.value, "3");
    cr_assert_str_eq(l.tolerance, "3");
    run_free(&r);

    /* PSNR of one sample off by 3/255 among 16*12*3: the formula, and the
     * pass threshold on either side of it. */
    double mse = (3.0 / 255) * (3.0 / 255) / (16 * 12 * 3);
    double want = 10 * log10(1 / mse);
    COMPARE(&r, tc_tpath("a.png"), tc_tpath("b.png"), "--metric", "psnr");
    expect_result(&r, want >= 40 ? 0 : 1, &l, tc_tpath("a.png"), tc_tpath("b.png"));
    cr_assert_float_eq(number(l.value), want, 1e-6, "psnr %s, want %.10g", l.value, want);
    run_free(&r);
    char tol[32];
    snprintf(tol, sizeof(tol), "%.6f", want + 0.01);
    COMPARE(&r, tc_tpath("a.png"), tc_tpath("b.png"), "--metric", "psnr", "--tolerance", tol);
    expect_result(&r, 1, &l, tc_tpath("a.png"), tc_tpath("b.png"));
    run_free(&r);
    snprintf(tol, sizeof(tol), "%.6f", want - 0.01);
    COMPARE(&r, tc_tpath("a.png"), tc_tpath("b.png"), "--metric", "psnr", "--tolerance", tol);
    expect_result(&r, 0, &l, tc_tpath("a.png"), tc_tpath("b.png"));
    run_free(&r);
}

Test(compare, ssim_of_noise_is_between_zero_and_one)
{
    vkfx_pixels px = {0};
    gradient(&px, 40, 32);
    save_png(tc_tpath("a.png"), &px);
    vkfx_pixels noise = {0};
    tc_random_pixels(&noise, 40, 32, 3, VKFX_SAMPLE_U8, 3);
    uint8_t *p = px.data;
    const uint8_t *n = noise.data;
    for (size_t i = 0; i < 40 * 32 * 3; i++)
        p[i] = (uint8_t)(p[i] + n[i] % 41 - 20); /* the gradient keeps 20..235 */
    save_png(tc_tpath("b.png"), &px);
    vkfx_pixels_free(&px);
    vkfx_pixels_free(&noise);

    cli_run r = {0};
    result_line l;
    COMPARE(&r, tc_tpath("a.png"), tc_tpath("b.png"), "--metric", "ssim");
    expect_result(&r, 1, &l, tc_tpath("a.png"), tc_tpath("b.png"));
    double v = number(l.value);
    cr_assert(v > 0 && v < 1, "ssim of a noisy copy is %s", l.value);
    cr_assert(v < 0.99, "ssim of a noisy copy is %s, no lower than the default tolerance", l.value);
    run_free(&r);
    COMPARE(&r, tc_tpath("a.png"), tc_tpath("b.png"), "--metric", "ssim", "--tolerance", "0");
    expect_result(&r, 0, &l, tc_tpath("a.png"), tc_tpath("b.png"));
    run_free(&r);
    COMPARE(&r, tc_tpath("a.png"), tc_tpath("a.png"), "--metric", "ssim");
    expect_result(&r, 0, &l, tc_tpath("a.png"), tc_tpath("a.png"));
    cr_assert_str_eq(l.value, "1");
    run_free(&r);
}

/* Smaller than the SSIM window: the window shrinks, the answer is sane. */
Test(compare, tiny_images)
{
    vkfx_pixels px = {0};
    tc_random_pixels(&px, 1, 3, 1, VKFX_SAMPLE_U8, 4);
    save_png(tc_tpath("a.png"), &px);
    ((uint8_t *)px.data)[1] ^= 0x40;
    save_png(tc_tpath("b.png"), &px);
    vkfx_pixels_free(&px);
    cli_run r = {0};
    result_line l;
    COMPARE(&r, tc_tpath("a.png"), tc_tpath("a.png"), "--metric", "ssim");
    expect_result(&r, 0, &l, tc_tpath("a.png"), tc_tpath("a.png"));
    cr_assert_str_eq(l.value, "1");
    run_free(&r);
    COMPARE(&r, tc_tpath("a.png"), tc_tpath("b.png"), "--metric", "ssim");
    expect_result(&r, 1, &l, tc_tpath("a.png"), tc_tpath("b.png"));
    cr_assert(number(l.value) < 1, "ssim %s", l.value);
    run_free(&r);
    COMPARE(&r, tc_tpath("a.png"), tc_tpath("b.png"));
    expect_result(&r, 1, &l, tc_tpath("a.png"), tc_tpath("b.png"));
    cr_assert_str_eq(l.value, "64");
    run_free(&r);
}

Test(compare, size_mismatch_is_a_failed_comparison)
{
    vkfx_pixels px = {0};
    tc_random_pixels(&px, 16, 12, 3, VKFX_SAMPLE_U8, 5);
    save_png(tc_tpath("a.png"), &px);
    vkfx_pixels_free(&px);
    tc_random_pixels(&px, 12, 16, 3, VKFX_SAMPLE_U8, 5);
    save_png(tc_tpath("b.png"), &px);
    vkfx_pixels_free(&px);
    cli_run r = {0};
    result_line l;
    COMPARE(&r, tc_tpath("a.png"), tc_tpath("b.png"), "--diff", tc_tpath("d.png"));
    expect_result(&r, 1, &l, tc_tpath("a.png"), tc_tpath("b.png"));
    cr_assert_str_eq(l.reason, "size");
    cr_assert_str_eq(l.value, "nan");
    cr_assert(!strcmp(l.differ, "nan") && !strcmp(l.share, "nan"), "differ=%s share=%s",
              l.differ, l.share);
    cr_assert(strstr(r.err, "16x12") && strstr(r.err, "12x16"), "stderr: %s", r.err);
    cr_assert_neq(access(tc_tpath("d.png"), F_OK), 0, "--diff written for different sizes");
    run_free(&r);
    /* Even a generous tolerance does not make different sizes pass. */
    COMPARE(&r, tc_tpath("a.png"), tc_tpath("b.png"), "--metric", "psnr", "--tolerance", "0");
    expect_result(&r, 1, &l, tc_tpath("a.png"), tc_tpath("b.png"));
    cr_assert_str_eq(l.reason, "size");
    run_free(&r);
}

/* Gray against the same gray as RGB, RGB against RGBA with opaque alpha,
 * 8-bit against the same values in 16 bits: all equal. A translucent alpha
 * is a difference. */
Test(compare, common_layout)
{
    vkfx_pixels g = {0}, rgb = {0}, rgba = {0}, g16 = {0};
    tc_random_pixels(&g, 9, 7, 1, VKFX_SAMPLE_U8, 6);
    cr_assert_eq(vkfx_pixels_alloc(&rgb, 9, 7, 3, VKFX_SAMPLE_U8), 0);
    cr_assert_eq(vkfx_pixels_alloc(&rgba, 9, 7, 4, VKFX_SAMPLE_U8), 0);
    cr_assert_eq(vkfx_pixels_alloc(&g16, 9, 7, 1, VKFX_SAMPLE_U16), 0);
    for (size_t i = 0; i < 9 * 7; i++) {
        uint8_t v = ((uint8_t *)g.data)[i];
        for (int c = 0; c < 3; c++) {
            ((uint8_t *)rgb.data)[i * 3 + c] = v;
            ((uint8_t *)rgba.data)[i * 4 + c] = v;
        }
        ((uint8_t *)rgba.data)[i * 4 + 3] = 255;
        ((uint16_t *)g16.data)[i] = (uint16_t)(v * 257);
    }
    save_png(tc_tpath("g.png"), &g);
    save_png(tc_tpath("rgb.png"), &rgb);
    save_png(tc_tpath("rgba.png"), &rgba);
    save_png(tc_tpath("g16.png"), &g16);
    ((uint8_t *)rgba.data)[3] = 250;
    save_png(tc_tpath("rgba2.png"), &rgba);
    cli_run r = {0};
    result_line l;
    static const char *const pairs[][2] = {
        {"g.png", "rgb.png"}, {"rgb.png", "rgba.png"}, {"g.png", "rgba.png"}, {"g.png", "g16.png"}};
    for (size_t i = 0; i < 4; i++) {
        COMPARE(&r, tc_tpath(pairs[i][0]), tc_tpath(pairs[i][1]));
        expect_result(&r, 0, &l, tc_tpath(pairs[i][0]), tc_tpath(pairs[i][1]));
        cr_assert_str_eq(l.value, "0", "%s", r.cmd);
        run_free(&r);
    }
    COMPARE(&r, tc_tpath("rgb.png"), tc_tpath("rgba2.png"));
    expect_result(&r, 1, &l, tc_tpath("rgb.png"), tc_tpath("rgba2.png"));
    cr_assert_str_eq(l.value, "5");
    run_free(&r);
    vkfx_pixels_free(&g);
    vkfx_pixels_free(&rgb);
    vkfx_pixels_free(&rgba);
    vkfx_pixels_free(&g16);
}

Test(compare, diff_heat_map)
{
    vkfx_pixels px = {0};
    tc_random_pixels(&px, 20, 10, 3, VKFX_SAMPLE_U8, 7);
    save_png(tc_tpath("a.png"), &px);
    uint8_t *p = px.data;
    p[(2 * 20 + 3) * 3 + 0] ^= 1;    /* the smallest difference */
    p[(7 * 20 + 15) * 3 + 2] ^= 128; /* a large one */
    save_png(tc_tpath("b.png"), &px);
    vkfx_pixels_free(&px);

    cli_run r = {0};
    result_line l;
    COMPARE(&r, tc_tpath("a.png"), tc_tpath("b.png"), "--diff", tc_tpath("d.png"), "--tolerance",
            "255");
    expect_result(&r, 0, &l, tc_tpath("a.png"), tc_tpath("b.png"));
    run_free(&r);
    vkfx_pixels d = {0};
    int ret = vkfx_file_load(tc_tpath("d.png"), &d);
    cr_assert_eq(ret, 0, "load the diff: %s", vkfx_error_message());
    cr_assert(d.width == 20 && d.height == 10, "diff is %ux%u", d.width, d.height);
    cr_assert_eq(d.sample, VKFX_SAMPLE_U8);
    const uint8_t *q = d.data;
    for (uint32_t y = 0; y < 10; y++)
        for (uint32_t x = 0; x < 20; x++) {
            bool differs = (y == 2 && x == 3) || (y == 7 && x == 15);
            bool nonzero = false;
            for (uint32_t c = 0; c < d.channels; c++)
                nonzero |= q[(y * 20 + x) * d.channels + c] != 0;
            cr_assert_eq(nonzero, differs, "diff pixel (%u,%u) is %s", x, y,
                         nonzero ? "nonzero where equal" : "zero where different");
        }
    /* The largest difference is white, as --help says. */
    for (uint32_t c = 0; c < d.channels; c++)
        cr_assert_eq(q[(7 * 20 + 15) * d.channels + c], 255);
    vkfx_pixels_free(&d);

    /* Identical inputs give an all-black map. */
    COMPARE(&r, tc_tpath("a.png"), tc_tpath("a.png"), "--diff", tc_tpath("d0.png"));
    expect_result(&r, 0, &l, tc_tpath("a.png"), tc_tpath("a.png"));
    run_free(&r);
    ret = vkfx_file_load(tc_tpath("d0.png"), &d);
    cr_assert_eq(ret, 0, "load the diff: %s", vkfx_error_message());
    for (size_t i = 0; i < (size_t)d.width * d.height * d.channels; i++)
        cr_assert_eq(((uint8_t *)d.data)[i], 0);
    vkfx_pixels_free(&d);
}

Test(compare, missing_or_corrupt_input_is_exit_2)
{
    vkfx_pixels px = {0};
    tc_random_pixels(&px, 8, 8, 3, VKFX_SAMPLE_U8, 8);
    save_png(tc_tpath("a.png"), &px);
    vkfx_pixels_free(&px);
    cli_run r = {0};
    COMPARE(&r, tc_tpath("a.png"), tc_tpath("nosuch.png"));
    expect_usage(&r, "nosuch.png");
    run_free(&r);
    COMPARE(&r, tc_tpath("nosuch.png"), tc_tpath("a.png"));
    expect_usage(&r, "nosuch.png");
    run_free(&r);
    FILE *f = fopen(tc_tpath("junk.png"), "wb");
    cr_assert(f);
    fputs("\x89PNG\r\n\x1a\n truncated", f);
    fclose(f);
    COMPARE(&r, tc_tpath("a.png"), tc_tpath("junk.png"));
    expect_usage(&r, "junk.png");
    run_free(&r);
}

Test(compare, usage_errors_are_exit_2)
{
    vkfx_pixels px = {0};
    tc_random_pixels(&px, 8, 8, 3, VKFX_SAMPLE_U8, 9);
    save_png(tc_tpath("a.png"), &px);
    vkfx_pixels_free(&px);
    const char *a = tc_tpath("a.png");
    cli_run r = {0};
    COMPARE(&r, a, a, "--bogus");
    expect_usage(&r, "--bogus");
    run_free(&r);
    COMPARE(&r, a, a, "--metric", "mse");
    expect_usage(&r, "'mse'");
    run_free(&r);
    COMPARE(&r, a, a, "--tolerance", "-1");
    expect_usage(&r, "'-1'");
    run_free(&r);
    COMPARE(&r, a, a, "--tolerance", "abc");
    expect_usage(&r, "'abc'");
    run_free(&r);
    COMPARE(&r, a, a, "--metric");
    expect_usage(&r, "needs a value");
    run_free(&r);
    COMPARE(&r, a);
    expect_usage(&r, "two image files");
    run_free(&r);
    COMPARE(&r, a, a, a);
    expect_usage(&r, "two image files");
    run_free(&r);
    COMPARE(&r, a, a, "--diff", tc_tpath("d.jpg"));
    expect_usage(&r, "d.jpg");
    cr_assert_neq(access(tc_tpath("d.jpg"), F_OK), 0);
    run_free(&r);
    COMPARE(&r, a, a, "--diff", a);
    expect_usage(&r, "overwrite");
    run_free(&r);
}

Test(compare, help_documents_the_line_and_the_exit_codes)
{
    cli_run r = {0};
    COMPARE(&r, "--help");
    cr_assert_eq(r.status, 0);
    cr_assert_str_empty(r.err);
    static const char *const want[] = {
        "metric=M value=V tolerance=X result=pass|fail reason=R\n"
        "                differ=N share=S a=A b=B",
        "8-bit code units",
        "Exit status: 0",
        "missing, unreadable or corrupt",
        "--diff",
        "--tolerance",
    };
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
        cr_assert(strstr(r.out, want[i]), "compare --help lacks '%s':\n%s", want[i], r.out);
    run_free(&r);
    VKFX(&r, "--help");
    cr_assert(strstr(r.out, "vkfx compare A B"), "vkfx --help does not list compare:\n%s", r.out);
    run_free(&r);
}
