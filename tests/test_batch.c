/* Batches through the vkfx binary on lavapipe (validation on): a corrupt
 * file in the middle is reported and skipped while the others complete;
 * template fields in -o and in filter options; --outdir; directories;
 * standard input and output; the --json report read back; output names
 * that collide or would overwrite an input refused before any work; Ctrl-C
 * leaves only complete files; the pipeline cache on disk. Every batch output
 * is compared byte for byte with a single run of the same file; thumbnails of a folder are read
 * back with libjpeg. Runs of alternating shapes reuse the device objects of the runs before. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jpeglib.h>

#include "chain.h"
#include "common.h"
#include "context.h"
#include "error.h"
#include "fileio.h"
#include "gpu_harness.h"
#include "meta.h"
#include "run_binary.h"
#include "spare.h"

static void write_png(const char *path, uint32_t w, uint32_t h, uint64_t seed)
{
    vkfx_pixels px;
    tc_random_pixels(&px, w, h, 3, VKFX_SAMPLE_U8, seed);
    cr_assert_eq(vkfx_file_save(path, VKFX_FILE_PNG, &px, NULL), VKFX_OK, "%s",
                 vkfx_error_message());
    vkfx_pixels_free(&px);
}

static char *slurp(const char *path, size_t *size)
{
    char *data = tc_slurp(path, size);
    cr_assert(data, "cannot read %s", path);
    return data;
}

/* The file a single run of chain on input writes (in got's format), compared with got. */
static void expect_same_as_single(const char *input, const char *chain, const char *got)
{
    char want[1100];
    const char *dot = strrchr(got, '.');
    int n = snprintf(want, sizeof(want), "%s.single%s", got, dot ? dot : ".png");
    cr_assert(n > 0 && (size_t)n < sizeof(want), "path too long: %s.single", got);
    cli_run r;
    VKFX(&r, input, "-f", chain, "-o", want);
    cr_assert_eq(r.status, 0, "%s: %s", r.cmd, r.err);
    run_free(&r);
    size_t na, nb;
    char *a = slurp(want, &na), *b = slurp(got, &nb);
    cr_assert(na == nb && memcmp(a, b, na) == 0, "%s differs from a single run of %s", got, input);
    free(a);
    free(b);
    unlink(want);
}

/* The names in dir, sorted and joined with spaces. */
static void list_dir(const char *dir, char *out, size_t n)
{
    cr_assert(tc_list_dir(dir, false, out, n) >= 0, "cannot open %s", dir);
}

static void setup(void)
{
    cr_assert_eq(tc_tmpdir_make("batch"), 0);
    cr_assert_eq(mkdir(tc_tpath("in"), 0777), 0);
    cr_assert_eq(mkdir(tc_tpath("out"), 0777), 0);
    /* Tests never touch the real cache directory. */
    setenv("XDG_CACHE_HOME", tc_tpath("cache"), 1);
}

static void teardown(void)
{
    tc_tmpdir_remove();
}

TestSuite(batch, .init = setup, .fini = teardown);

Test(batch, corrupt_file_in_the_middle)
{
    write_png(tc_tpath("in/a.png"), 37, 21, 1);
    FILE *f = fopen(tc_tpath("in/b.png"), "wb");
    cr_assert(f);
    fputs("\x89PNG\r\n\x1a\n not really", f);
    fclose(f);
    write_png(tc_tpath("in/c.png"), 19, 40, 2);
    cli_run r;
    VKFX(&r, "-f", "box:radius=1", "-o", tc_tpath("out/{stem}.png"), "-j", "2", tc_tpath("in"));
    cr_assert_eq(r.status, 1, "%s: exit %d: %s", r.cmd, r.status, r.err);
    cr_assert(strstr(r.err, "b.png") && !strstr(r.err, "a.png") && !strstr(r.err, "c.png"),
              "stderr should name b.png alone: %s", r.err);
    run_free(&r);
    char names[1024];
    list_dir(tc_tpath("out"), names, sizeof(names));
    cr_assert_str_eq(names, "a.png c.png", "outputs: %s", names);
    expect_same_as_single(tc_tpath("in/a.png"), "box:radius=1", tc_tpath("out/a.png"));
    expect_same_as_single(tc_tpath("in/c.png"), "box:radius=1", tc_tpath("out/c.png"));
}

Test(batch, template_fields_and_braces)
{
    write_png(tc_tpath("in/one.png"), 9, 7, 3);
    write_png(tc_tpath("in/two.png"), 7, 9, 4);
    cli_run r;
    char tmpl[1024];
    snprintf(tmpl, sizeof(tmpl), "%s/{index}-{stem}-{ext}-{{x}}.png", tc_tpath("out"));
    VKFX(&r, tc_tpath("in/two.png"), tc_tpath("in/one.png"), "-f", "sobel", "-o", tmpl);
    cr_assert_eq(r.status, 0, "%s: %s", r.cmd, r.err);
    run_free(&r);
    char names[1024];
    list_dir(tc_tpath("out"), names, sizeof(names));
    cr_assert_str_eq(names, "1-two-png-{x}.png 2-one-png-{x}.png", "outputs: %s", names);
    /* {dir} and {name}: beside each input, under a name that keeps its own. */
    VKFX(&r, tc_tpath("in/one.png"), "-f", "sobel", "-o", "{dir}/edges-{name}");
    cr_assert_eq(r.status, 0, "%s: %s", r.cmd, r.err);
    run_free(&r);
    expect_same_as_single(tc_tpath("in/one.png"), "sobel", tc_tpath("in/edges-one.png"));
}

Test(batch, template_mistakes_are_usage_errors)
{
    write_png(tc_tpath("in/a.png"), 5, 5, 5);
    static const char *const bad[][2] = {
        {"{size}.png", "unknown field {size}"},
        {"{stem.png", "'{' without '}'"},
        {"a}.png", "lone '}'"},
    };
    for (size_t i = 0; i < 3; i++) {
        char tmpl[1024];
        snprintf(tmpl, sizeof(tmpl), "%s/%s", tc_tpath("out"), bad[i][0]);
        cli_run r;
        VKFX(&r, tc_tpath("in/a.png"), "-f", "sobel", "-o", tmpl);
        cr_assert_eq(r.status, 2, "%s: exit %d: %s", r.cmd, r.status, r.err);
        cr_assert(strstr(r.err, bad[i][1]), "%s: stderr lacks '%s': %s", r.cmd, bad[i][1], r.err);
        run_free(&r);
    }
    char names[64];
    list_dir(tc_tpath("out"), names, sizeof(names));
    cr_assert_str_eq(names, "", "a refused batch wrote %s", names);
}

/* Each image paired with its depth map by a field inside a filter option,
 * also when the name holds the chain's own separators. */
Test(batch, fields_in_filter_options)
{
    cr_assert_eq(mkdir(tc_tpath("depth"), 0777), 0);
    static const char *const stems[] = {"plain", "a,b:c=d"};
    for (int i = 0; i < 2; i++) {
        char path[1024];
        snprintf(path, sizeof(path), "%s/%s.png", tc_tpath("in"), stems[i]);
        write_png(path, 23, 17, 10 + (uint64_t)i);
        vkfx_pixels d;
        tc_random_pixels(&d, 23, 17, 1, VKFX_SAMPLE_U8, 20 + (uint64_t)i);
        snprintf(path, sizeof(path), "%s/%s.png", tc_tpath("depth"), stems[i]);
        cr_assert_eq(vkfx_file_save(path, VKFX_FILE_PNG, &d, NULL), VKFX_OK);
        vkfx_pixels_free(&d);
    }
    char chain[1024], out[1024];
    snprintf(chain, sizeof(chain), "satdof:depth=%s/{stem}.png:maxcoc=4", tc_tpath("depth"));
    snprintf(out, sizeof(out), "%s/{stem}.png", tc_tpath("out"));
    cli_run r;
    VKFX(&r, "-f", chain, "-o", out, tc_tpath("in"));
    cr_assert_eq(r.status, 0, "%s: %s", r.cmd, r.err);
    run_free(&r);
    for (int i = 0; i < 2; i++) {
        char in[1024], got[1024], single[1024], esc[256] = "";
        for (const char *s = stems[i]; *s; s++)
            snprintf(esc + strlen(esc), sizeof(esc) - strlen(esc), "%s%c",
                     strchr(",:=", *s) ? "\\" : "", *s);
        snprintf(in, sizeof(in), "%s/%s.png", tc_tpath("in"), stems[i]);
        snprintf(got, sizeof(got), "%s/%s.png", tc_tpath("out"), stems[i]);
        snprintf(single, sizeof(single), "satdof:depth=%s/%s.png:maxcoc=4", tc_tpath("depth"), esc);
        expect_same_as_single(in, single, got);
    }
}

Test(batch, outdir_keeps_names)
{
    write_png(tc_tpath("in/p.png"), 11, 6, 6);
    cli_run r;
    VKFX(&r, tc_tpath("in/p.png"), "-f", "gauss:sigma=1", "-o", tc_tpath("in/q.tga"));
    cr_assert_eq(r.status, 0, "%s: %s", r.cmd, r.err);
    run_free(&r);
    VKFX(&r, "-f", "gauss:sigma=1", "--outdir", tc_tpath("out"), tc_tpath("in/p.png"),
         tc_tpath("in/q.tga"));
    cr_assert_eq(r.status, 0, "%s: %s", r.cmd, r.err);
    run_free(&r);
    char names[256];
    list_dir(tc_tpath("out"), names, sizeof(names));
    cr_assert_str_eq(names, "p.png q.tga", "outputs: %s", names);
    expect_same_as_single(tc_tpath("in/p.png"), "gauss:sigma=1", tc_tpath("out/p.png"));
}

Test(batch, stdin_to_stdout)
{
    write_png(tc_tpath("in/s.png"), 31, 13, 7);
    cli_run r;
    run_opts o = {.stdin_path = tc_tpath("in/s.png")};
    VKFX_OPTS(&r, &o, "-", "-f", "sobel:invert=1", "-o", "-");
    cr_assert_eq(r.status, 0, "%s: %s", r.cmd, r.err);
    FILE *f = fopen(tc_tpath("out/piped.png"), "wb");
    cr_assert(f && fwrite(r.out, 1, r.out_len, f) == r.out_len);
    fclose(f);
    run_free(&r);
    expect_same_as_single(tc_tpath("in/s.png"), "sobel:invert=1", tc_tpath("out/piped.png"));
    /* Another format through --format, and the mistakes. */
    VKFX_OPTS(&r, &o, "-", "-f", "sobel", "-o", "-", "--format", "bmp");
    cr_assert(r.status == 0 && r.out_len > 2 && r.out[0] == 'B' && r.out[1] == 'M', "%s: %s", r.cmd,
              r.err);
    run_free(&r);
    VKFX_OPTS(&r, &o, "-", "-f", "sobel", "-o", "-", "--format", "gif");
    cr_assert_eq(r.status, 2, "%s: %s", r.cmd, r.err);
    run_free(&r);
    VKFX_OPTS(&r, &o, "-", tc_tpath("in/s.png"), "-f", "sobel", "-o", "-");
    cr_assert(r.status == 2 && strstr(r.err, "one image to standard output"), "%s: %s", r.cmd,
              r.err);
    run_free(&r);
}

/* The value after "key": in a JSON line, or NULL. */
static const char *json_value(const char *line, const char *key)
{
    char pat[64];
    snprintf(pat, sizeof(pat), "\"%s\": ", key);
    const char *p = strstr(line, pat);
    return p ? p + strlen(pat) : NULL;
}

Test(batch, json_report)
{
    write_png(tc_tpath("in/a.png"), 40, 30, 8);
    FILE *f = fopen(tc_tpath("in/b\"q.jpg"), "wb");
    cr_assert(f);
    fputs("not a jpeg", f);
    fclose(f);
    cli_run r;
    VKFX(&r, "-f", "gauss:sigma=1,box:radius=2", "-o", tc_tpath("out/{stem}.png"), "--json",
         tc_tpath("in/a.png"), tc_tpath("in/b\"q.jpg"));
    cr_assert_eq(r.status, 1, "%s: %s", r.cmd, r.err);
    /* One object per line, one line per input, in any order. */
    int lines = 0, ok = 0, failed = 0;
    for (char *line = strtok(r.out, "\n"); line; line = strtok(NULL, "\n"), lines++) {
        cr_assert(line[0] == '{' && line[strlen(line) - 1] == '}', "not an object: %s", line);
        const char *status = json_value(line, "status");
        cr_assert(status, "no status: %s", line);
        if (!strncmp(status, "\"ok\"", 4)) {
            ok++;
            unsigned w = 0, h = 0;
            cr_assert(sscanf(json_value(line, "width"), "%u", &w) == 1 && w == 40, "%s", line);
            cr_assert(sscanf(json_value(line, "height"), "%u", &h) == 1 && h == 30, "%s", line);
            cr_assert(strstr(line, "\"input\": \"") && strstr(line, "a.png\"") &&
                          strstr(line, "\"error\": null"),
                      "%s", line);
            double total = -1, wall = -1;
            cr_assert(sscanf(json_value(line, "gpu_ms_total"), "%lf", &total) == 1 && total > 0,
                      "%s", line);
            cr_assert(sscanf(json_value(line, "wall_ms"), "%lf", &wall) == 1 && wall > 0, "%s",
                      line);
            cr_assert(strstr(line, "\"gauss\": ") && strstr(line, "\"box\": "),
                      "no per-pass times: %s", line);
        } else {
            failed++;
            cr_assert(!strncmp(status, "\"error\"", 7), "%s", line);
            /* The quote in the file name is escaped. */
            cr_assert(strstr(line, "b\\\"q.jpg") && !strstr(line, "\"error\": null"), "%s", line);
        }
    }
    cr_assert(lines == 2 && ok == 1 && failed == 1, "%d lines, %d ok, %d failed:\n%s", lines, ok,
              failed, r.out);
    run_free(&r);
    /* --json=FILE: the same lines in a file, stdout quiet. */
    VKFX(&r, "-f", "sobel", "-o", tc_tpath("out/{stem}.png"), tc_tpath("in/a.png"),
         "--json=" VKFX_SOURCE_ROOT "/../nonexistent-dir/report.json");
    cr_assert_eq(r.status, 1, "%s: %s", r.cmd, r.err);
    run_free(&r);
    char arg[1100];
    snprintf(arg, sizeof(arg), "--json=%s", tc_tpath("report.json"));
    VKFX(&r, "-f", "sobel", "-o", tc_tpath("out/{stem}.png"), tc_tpath("in/a.png"), arg);
    cr_assert(r.status == 0 && r.out_len == 0, "%s: %s", r.cmd, r.err);
    run_free(&r);
    size_t n;
    char *report = slurp(tc_tpath("report.json"), &n);
    cr_assert(strstr(report, "\"status\": \"ok\"") && strstr(report, "\"sobel\": "), "%s", report);
    free(report);
}

Test(batch, colliding_or_overwriting_outputs_refused)
{
    cr_assert_eq(mkdir(tc_tpath("in/x"), 0777), 0);
    cr_assert_eq(mkdir(tc_tpath("in/y"), 0777), 0);
    write_png(tc_tpath("in/x/same.png"), 5, 5, 9);
    write_png(tc_tpath("in/y/same.png"), 5, 5, 10);
    cli_run r;
    VKFX(&r, "-f", "sobel", "-o", tc_tpath("out/{stem}.png"), tc_tpath("in/x"), tc_tpath("in/y"));
    cr_assert(r.status == 2 && strstr(r.err, "x/same.png") && strstr(r.err, "y/same.png"),
              "%s: exit %d: %s", r.cmd, r.status, r.err);
    run_free(&r);
    /* The second input's output would be the first input. */
    write_png(tc_tpath("in/x/other.png"), 5, 5, 11);
    char tmpl[1024];
    snprintf(tmpl, sizeof(tmpl), "%s/x/{index}{ext}.png", tc_tpath("in"));
    cr_assert_eq(rename(tc_tpath("in/x/same.png"), tc_tpath("in/x/2png.png")), 0);
    VKFX(&r, "-f", "sobel", "-o", tmpl, tc_tpath("in/x/other.png"), tc_tpath("in/x/2png.png"));
    cr_assert(r.status == 2 && strstr(r.err, "overwrite"), "%s: exit %d: %s", r.cmd, r.status,
              r.err);
    run_free(&r);
    char names[256];
    list_dir(tc_tpath("out"), names, sizeof(names));
    cr_assert_str_eq(names, "", "a refused batch wrote %s", names);
}

/* SIGINT while a batch runs (sent as soon as its first output is in place):
 * exit 130, the files written are complete and equal to single runs, no
 * temporary file is left, and the rest is not written. */
Test(batch, interrupt_leaves_only_complete_files, .timeout = 240)
{
    enum { N = 40 };
    for (int i = 0; i < N; i++) {
        char path[1024];
        snprintf(path, sizeof(path), "%s/f%02d.png", tc_tpath("in"), i);
        write_png(path, 300, 200, 100 + (uint64_t)i);
    }
    cli_run r;
    char out_dir[1024];
    snprintf(out_dir, sizeof(out_dir), "%s", tc_tpath("out"));
    run_opts o = {.interrupt_dir = out_dir};
    VKFX_OPTS(&r, &o, "-f", "gauss:sigma=6,bilateral:sigma_s=2:sigma_r=0.1", "-o",
              tc_tpath("out/{stem}.png"), "-j", "1", tc_tpath("in"));
    cr_assert_eq(r.status, 130, "%s: exit %d: %s", r.cmd, r.status, r.err);
    cr_assert(strstr(r.err, "interrupted"), "%s", r.err);
    run_free(&r);
    DIR *d = opendir(tc_tpath("out"));
    cr_assert(d);
    int written = 0;
    struct dirent *e;
    char first[256] = "";
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        int idx = -1;
        cr_assert(sscanf(e->d_name, "f%02d.png", &idx) == 1 && strlen(e->d_name) == 7,
                  "a stray file: %s", e->d_name);
        written++;
        snprintf(first, sizeof(first), "%s", e->d_name);
        char path[1024];
        snprintf(path, sizeof(path), "%s/%s", tc_tpath("out"), e->d_name);
        vkfx_pixels px;
        cr_assert_eq(vkfx_file_load(path, &px), VKFX_OK, "%s is not a complete image: %s",
                     e->d_name, vkfx_error_message());
        vkfx_pixels_free(&px);
    }
    closedir(d);
    cr_assert(written >= 1 && written < N, "%d of %d files written", written, N);
    char in[1024], out[1024];
    snprintf(in, sizeof(in), "%s/%s", tc_tpath("in"), first);
    snprintf(out, sizeof(out), "%s/%s", tc_tpath("out"), first);
    expect_same_as_single(in, "gauss:sigma=6,bilateral:sigma_s=2:sigma_r=0.1", out);
}

/* The pipeline cache: written after a run, used by the next (no message),
 * replaced with a warning when corrupt or from another device, and not
 * written with VKFX_PIPELINE_CACHE=0. */
Test(batch, pipeline_cache)
{
    write_png(tc_tpath("in/a.png"), 8, 8, 12);
    setenv("XDG_CACHE_HOME", tc_tpath("cache"), 1);
    setenv("VKFX_PIPELINE_CACHE", "0", 1);
    cli_run r;
    VKFX(&r, tc_tpath("in/a.png"), "-f", "sobel", "-o", tc_tpath("out/a.png"));
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    struct stat st;
    cr_assert_neq(stat(tc_tpath("cache/vkfx"), &st), 0, "VKFX_PIPELINE_CACHE=0 wrote a cache");
    unsetenv("VKFX_PIPELINE_CACHE");
    VKFX(&r, tc_tpath("in/a.png"), "-f", "sobel", "-o", tc_tpath("out/a.png"));
    cr_assert(r.status == 0 && !*r.err, "%s: %s", r.cmd, r.err);
    run_free(&r);
    char name[512];
    list_dir(tc_tpath("cache/vkfx"), name, sizeof(name));
    cr_assert(!strncmp(name, "pipelines-", 10) && strstr(name, ".bin") && !strchr(name, ' '),
              "cache files: %s", name);
    char path[1024];
    snprintf(path, sizeof(path), "%s/%s", tc_tpath("cache/vkfx"), name);
    size_t n;
    char *good = slurp(path, &n);
    cr_assert_geq(n, 32u, "the cache holds no header");
    struct stat before;
    cr_assert_eq(stat(path, &before), 0);
    VKFX(&r, tc_tpath("in/a.png"), "-f", "sobel", "-o", tc_tpath("out/a.png"));
    cr_assert(r.status == 0 && !*r.err, "a warm start said: %s", r.err);
    run_free(&r);
    /* Nothing new compiled: the file is left as it was, not written again (a rewrite is a new
     * file renamed into place). */
    cr_assert(stat(path, &st) == 0 && st.st_ino == before.st_ino,
              "a warm start rewrote the pipeline cache");
    /* Corrupt, then another device's (its UUID changed). */
    for (int kind = 0; kind < 2; kind++) {
        FILE *f = fopen(path, "wb");
        cr_assert(f);
        if (kind == 0) {
            fputs("garbage", f);
        } else {
            good[16] ^= 0x5a;
            fwrite(good, 1, n, f);
            good[16] ^= 0x5a;
        }
        fclose(f);
        VKFX(&r, tc_tpath("in/a.png"), "-f", "sobel", "-o", tc_tpath("out/a.png"));
        cr_assert(r.status == 0 && strstr(r.err, "pipeline cache") &&
                      strstr(r.err, kind ? "another device" : "too short"),
                  "%s: exit %d: %s", r.cmd, r.status, r.err);
        run_free(&r);
        expect_same_as_single(tc_tpath("in/a.png"), "sobel", tc_tpath("out/a.png"));
        size_t m;
        char *now = slurp(path, &m);
        cr_assert(m >= 32 && !memcmp(now, good, 32), "the cache was not rewritten");
        free(now);
    }
    free(good);
}

/* Puts tests/fault_layer.c between vkfx and the driver with VKFX_FAULT=spec (spec NULL: takes
 * it away again). It is an implicit layer, found in $XDG_DATA_HOME/vulkan/implicit_layer.d and
 * enabled by VKFX_FAULT_LAYER=1: the loader puts implicit layers above the validation layer that
 * vkfx enables, and says nothing of them (a layer enabled through VK_INSTANCE_LAYERS or
 * VK_LOADER_LAYERS_ENABLE draws a loader warning, which fails a validated run). */
static void inject(const char *spec)
{
    if (!spec) {
        unsetenv("XDG_DATA_HOME");
        unsetenv("VKFX_FAULT_LAYER");
        unsetenv("VKFX_FAULT");
        return;
    }
    const char *dirs[] = {"layer", "layer/vulkan", "layer/vulkan/implicit_layer.d"};
    for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
        cr_assert(mkdir(tc_tpath(dirs[i]), 0777) == 0 || errno == EEXIST, "%s", tc_tpath(dirs[i]));
    size_t n;
    char *manifest = tc_slurp(VKFX_FAULT_LAYER, &n);
    cr_assert(manifest, "cannot read %s", VKFX_FAULT_LAYER);
    FILE *f = fopen(tc_tpath("layer/vulkan/implicit_layer.d/vkfx_fault_layer.json"), "wb");
    cr_assert(f && fwrite(manifest, 1, n, f) == n && fclose(f) == 0);
    free(manifest);
    setenv("XDG_DATA_HOME", tc_tpath("layer"), 1);
    setenv("VKFX_FAULT_LAYER", "1", 1);
    setenv("VKFX_FAULT", spec, 1);
}

/* Runs one small file with VKFX_FAULT=kind:n for n = 1, 2, ... until a run
 * succeeds (the fault then comes after the run's last allocation or
 * submission); each failing run must exit 1 with one line holding want and
 * leave no output. Returns the first n that succeeded. */
static int fail_at_each(const char *kind, const char *want)
{
    write_png(tc_tpath("in/f.png"), 21, 13, 30);
    int n = 1;
    for (; n < 100; n++) {
        char spec[32];
        snprintf(spec, sizeof(spec), "%s:%d", kind, n);
        inject(spec);
        cli_run r;
        VKFX(&r, tc_tpath("in/f.png"), "-f", "gauss:sigma=2,sobel", "-o", tc_tpath("out/f.png"));
        if (r.status == 0) {
            run_free(&r);
            break;
        }
        const char *nl = strchr(r.err, '\n');
        cr_assert(r.status == 1 && strstr(r.err, want) && nl && !nl[1], "%s: exit %d: %s", spec,
                  r.status, r.err);
        run_free(&r);
        char names[256];
        list_dir(tc_tpath("out"), names, sizeof(names));
        cr_assert_str_eq(names, "", "%s left %s", spec, names);
    }
    inject(NULL);
    cr_assert(n > 2 && n < 100, "%s: the run failed %d times", kind, n - 1);
    return n;
}

Test(batch, out_of_gpu_memory_at_every_allocation, .timeout = 300)
{
    fail_at_each("alloc", "out of GPU");
}

/* A lost device fails every run that meets it. In a batch, at whichever
 * submission the device is lost: exit 1 with the message, every file
 * written is complete and equal to a single run, and later ones are not
 * attempted; at some point of the batch, files written before the loss
 * stay. */
Test(batch, device_lost_at_every_submission_and_mid_batch, .timeout = 300)
{
    int first_ok = fail_at_each("lost", "GPU was lost");
    for (int i = 0; i < 3; i++) {
        char path[1024];
        snprintf(path, sizeof(path), "%s/b%d.png", tc_tpath("in"), i);
        write_png(path, 21, 13, 30);
    }
    unlink(tc_tpath("in/f.png"));
    unlink(tc_tpath("out/f.png"));
    int most_kept = 0;
    for (int n = first_ok - 1; n < first_ok * 4; n++) {
        char spec[32];
        snprintf(spec, sizeof(spec), "lost:%d", n);
        inject(spec);
        cli_run r;
        VKFX(&r, "-f", "gauss:sigma=2,sobel", "-o", tc_tpath("out/{stem}.png"), "-j", "1",
             tc_tpath("in"));
        inject(NULL);
        if (r.status == 0) {
            run_free(&r);
            break;
        }
        cr_assert(r.status == 1 && strstr(r.err, "GPU was lost") && strstr(r.err, " of 3 files"),
                  "%s: exit %d: %s", spec, r.status, r.err);
        run_free(&r);
        DIR *d = opendir(tc_tpath("out"));
        cr_assert(d);
        int kept = 0;
        struct dirent *e;
        while ((e = readdir(d))) {
            if (e->d_name[0] == '.')
                continue;
            cr_assert(strlen(e->d_name) == 6 && e->d_name[0] == 'b', "%s: a stray file %s", spec,
                      e->d_name);
            char in[1024], out[1024];
            snprintf(in, sizeof(in), "%s/%s", tc_tpath("in"), e->d_name);
            snprintf(out, sizeof(out), "%s/%s", tc_tpath("out"), e->d_name);
            expect_same_as_single(in, "gauss:sigma=2,sobel", out);
            unlink(out);
            kept++;
        }
        closedir(d);
        cr_assert(kept < 3, "%s: all files written, yet exit 1", spec);
        most_kept = kept > most_kept ? kept : most_kept;
    }
    cr_assert_geq(most_kept, 1, "no file survived a loss later in the batch");
}
/* File names with spaces, commas, colons, '=', '#', quotes and UTF-8, as
 * file arguments and as option values (escaped with backslashes as --help
 * says, or filled in by a template field). */
Test(batch, awkward_file_names)
{
    static const char name[] = "a b,c:d=e#f'g\"\xc3\xbc";
    char in[1024], depth[1024], out[1024], chain[2048], esc[256] = "";
    snprintf(in, sizeof(in), "%s/%s.png", tc_tpath("in"), name);
    snprintf(depth, sizeof(depth), "%s/%s-depth.png", tc_tpath("in"), name);
    snprintf(out, sizeof(out), "%s/%s out.png", tc_tpath("out"), name);
    write_png(in, 19, 11, 60);
    vkfx_pixels d;
    tc_random_pixels(&d, 19, 11, 1, VKFX_SAMPLE_U8, 61);
    cr_assert_eq(vkfx_file_save(depth, VKFX_FILE_PNG, &d, NULL), VKFX_OK);
    vkfx_pixels_free(&d);
    for (const char *s = depth; *s; s++)
        snprintf(esc + strlen(esc), sizeof(esc) - strlen(esc), "%s%c",
                 strchr(",:=\\", *s) ? "\\" : "", *s);
    snprintf(chain, sizeof(chain), "satdof:depth=%s:maxcoc=3", esc);
    cli_run r;
    VKFX(&r, in, "-f", chain, "-o", out);
    cr_assert_eq(r.status, 0, "%s: %s", r.cmd, r.err);
    run_free(&r);
    vkfx_pixels px;
    cr_assert_eq(vkfx_file_load(out, &px), VKFX_OK, "%s", vkfx_error_message());
    cr_assert(px.width == 19 && px.height == 11);
    vkfx_pixels_free(&px);
    /* The same pairing through {stem}, into the same output name. */
    char tmpl[1024];
    snprintf(chain, sizeof(chain), "satdof:depth=%s/{stem}-depth.png:maxcoc=3", tc_tpath("in"));
    snprintf(tmpl, sizeof(tmpl), "%s/{stem} out.png", tc_tpath("out"));
    char single[1100];
    snprintf(single, sizeof(single), "%s.first.png", out);
    cr_assert_eq(rename(out, single), 0);
    VKFX(&r, in, "-f", chain, "-o", tmpl);
    cr_assert_eq(r.status, 0, "%s: %s", r.cmd, r.err);
    run_free(&r);
    size_t na, nb;
    char *a = slurp(out, &na), *b = slurp(single, &nb);
    cr_assert(na == nb && !memcmp(a, b, na), "the template run differs from the escaped one");
    free(a);
    free(b);
}

/* The same bytes whatever the number of codec threads: one thread, and
 * more threads than files, where each PNG encoder spreads a large image's
 * deflate segments (core/io/pngdeflate.h) over the spare ones; 2400x2400 RGB
 * is above the size deflated in segments. Read back with libpng. */
Test(batch, same_bytes_with_one_thread_and_many, .timeout = 300)
{
    write_png(tc_tpath("in/big.png"), 2400, 2400, 70);
    write_png(tc_tpath("in/small.png"), 33, 17, 71);
    cr_assert_eq(mkdir(tc_tpath("out1"), 0777), 0);
    cli_run r;
    VKFX(&r, "-f", "box:radius=1", "-o", tc_tpath("out1/{stem}.png"), "-j", "1", tc_tpath("in"));
    cr_assert_eq(r.status, 0, "%s: %s", r.cmd, r.err);
    run_free(&r);
    VKFX(&r, "-f", "box:radius=1", "-o", tc_tpath("out/{stem}.png"), "-j", "6", tc_tpath("in"));
    cr_assert_eq(r.status, 0, "%s: %s", r.cmd, r.err);
    run_free(&r);
    /* Six threads held to one job in flight at a time by the memory budget. */
    cr_assert_eq(mkdir(tc_tpath("out6"), 0777), 0);
    setenv("VKFX_BATCH_BYTES", "1", 1);
    VKFX(&r, "-f", "box:radius=1", "-o", tc_tpath("out6/{stem}.png"), "-j", "6", tc_tpath("in"));
    unsetenv("VKFX_BATCH_BYTES");
    cr_assert_eq(r.status, 0, "%s: %s", r.cmd, r.err);
    run_free(&r);
    static const char *const names[] = {"big.png", "small.png"};
    for (int i = 0; i < 2; i++) {
        char one[1024], many[1024], held[1024];
        snprintf(one, sizeof(one), "%s/%s", tc_tpath("out1"), names[i]);
        snprintf(many, sizeof(many), "%s/%s", tc_tpath("out"), names[i]);
        snprintf(held, sizeof(held), "%s/%s", tc_tpath("out6"), names[i]);
        size_t na, nb, nc;
        char *a = slurp(one, &na), *b = slurp(many, &nb), *c = slurp(held, &nc);
        cr_assert(na == nb && !memcmp(a, b, na), "%s: -j 1 wrote %zu bytes, -j 6 %zu, not the same",
                  names[i], na, nb);
        cr_assert(na == nc && !memcmp(a, c, na),
                  "%s: -j 1 wrote %zu bytes, -j 6 within a budget of 1 byte %zu, not the same",
                  names[i], na, nc);
        free(a);
        free(b);
        free(c);
        vkfx_pixels px;
        cr_assert_eq(vkfx_file_load(many, &px), VKFX_OK, "%s", vkfx_error_message());
        cr_assert_eq(px.width, i ? 33u : 2400u);
        vkfx_pixels_free(&px);
    }
}

/* The width, height and components of a JPEG file, read by libjpeg itself. */
static void jpeg_size(const char *path, unsigned *w, unsigned *h, int *components)
{
    FILE *f = fopen(path, "rb");
    cr_assert(f, "cannot open %s", path);
    struct jpeg_decompress_struct d;
    struct jpeg_error_mgr e;
    d.err = jpeg_std_error(&e);
    jpeg_create_decompress(&d);
    jpeg_stdio_src(&d, f);
    cr_assert_eq(jpeg_read_header(&d, TRUE), JPEG_HEADER_OK, "%s", path);
    *w = d.image_width;
    *h = d.image_height;
    *components = d.num_components;
    jpeg_destroy_decompress(&d);
    fclose(f);
}

/* Thumbnails of a folder in one command: JPEGs (shrunk on load) and a PNG, each 64 wide with its
 * aspect ratio, named by the template, each the bytes a single run of its file writes. */
Test(batch, thumbnails_of_a_folder)
{
    static const char *const photos[] = {"chelsea.png", "astronaut.png", "rocket.jpg"};
    char path[1024], names[1024];
    unsigned widths[3], heights[3];
    for (size_t i = 0; i < 3; i++) {
        vkfx_pixels px;
        cr_assert_eq(tc_load_photo(photos[i], &px), VKFX_OK, "%s", vkfx_error_message());
        widths[i] = px.width;
        heights[i] = px.height;
        snprintf(path, sizeof(path), "%s/p%zu.%s", tc_tpath("in"), i, i == 2 ? "png" : "jpg");
        cr_assert_eq(vkfx_file_save(path, i == 2 ? VKFX_FILE_PNG : VKFX_FILE_JPEG, &px, NULL),
                     VKFX_OK, "%s", vkfx_error_message());
        vkfx_pixels_free(&px);
    }
    char out[1024];
    snprintf(out, sizeof(out), "%s/{stem}-thumb.jpg", tc_tpath("out"));
    cli_run r;
    VKFX(&r, "-f", "resize:width=64", "-o", out, tc_tpath("in"));
    cr_assert_eq(r.status, 0, "%s: %s", r.cmd, r.err);
    run_free(&r);
    list_dir(tc_tpath("out"), names, sizeof(names));
    cr_assert_str_eq(names, "p0-thumb.jpg p1-thumb.jpg p2-thumb.jpg");
    for (size_t i = 0; i < 3; i++) {
        unsigned w, h;
        int components;
        snprintf(path, sizeof(path), "%s/p%zu-thumb.jpg", tc_tpath("out"), i);
        jpeg_size(path, &w, &h, &components);
        unsigned want_h = (unsigned)((double)heights[i] * 64 / widths[i] + 0.5);
        cr_expect(w == 64 && h == want_h && components == 3,
                  "%s: %ux%u with %d components, not 64x%u", path, w, h, components, want_h);
        char input[1024];
        snprintf(input, sizeof(input), "%s/p%zu.%s", tc_tpath("in"), i, i == 2 ? "png" : "jpg");
        expect_same_as_single(input, "resize:width=64", path);
    }
    /* With --jpeg-codec cpu, --no-shrink-on-load is the full decode's result: that of a chain
     * that does not start with the resize. */
    char exact[1100], plain[1100], input[1024];
    snprintf(input, sizeof(input), "%s/p1.jpg", tc_tpath("in"));
    snprintf(exact, sizeof(exact), "%s/exact.jpg", tc_tpath("out"));
    snprintf(plain, sizeof(plain), "%s/plain.jpg", tc_tpath("out"));
    VKFX(&r, input, "-f", "resize:width=64", "--jpeg-codec", "cpu", "--no-shrink-on-load", "-o",
         exact);
    cr_assert_eq(r.status, 0, "%s: %s", r.cmd, r.err);
    run_free(&r);
    VKFX(&r, input, "-f", "crop,resize:width=64", "--jpeg-codec", "cpu", "-o", plain);
    cr_assert_eq(r.status, 0, "%s: %s", r.cmd, r.err);
    run_free(&r);
    size_t na, nb;
    char *a = slurp(exact, &na), *b = slurp(plain, &nb);
    cr_expect(na == nb && memcmp(a, b, na) == 0, "--no-shrink-on-load is not the full decode's");
    free(a);
    free(b);
}

/* Files of two shapes in turn, whose images and buffers the next file of the same shape takes
 * over (core/gpu/spare.h): each output equals a single run, with the validation layer's
 * synchronization checks on. */
Test(batch, alternating_shapes_same_as_single)
{
    static const char chain[] = "gauss:sigma=2,sobel,resize:width=29";
    for (int i = 0; i < 6; i++) {
        char path[1024];
        snprintf(path, sizeof(path), "%s/a%d.png", tc_tpath("in"), i);
        write_png(path, i & 1 ? 64 : 37, i & 1 ? 41 : 23, 200 + (uint64_t)i);
    }
    cli_run r;
    VKFX(&r, "-f", chain, "-o", tc_tpath("out/{stem}.png"), "-j", "2", tc_tpath("in"));
    cr_assert_eq(r.status, 0, "%s: %s", r.cmd, r.err);
    run_free(&r);
    for (int i = 0; i < 6; i++) {
        char in[1024], out[1024];
        snprintf(in, sizeof(in), "%s/a%d.png", tc_tpath("in"), i);
        snprintf(out, sizeof(out), "%s/a%d.png", tc_tpath("out"), i);
        expect_same_as_single(in, chain, out);
    }
}

/* Runs files runs of chain as a batch makes them: file i + 1 recorded (vkfx_run_start_held),
 * file i finished into got[i] (as layout), file i + 1 submitted; the last is finished without a
 * submit of its own (the finish submits it). File i is in[i], or with jin the JPEG jin[i] that
 * in[i] gives the shape of, decoded on the device. Returns *counter as it was once the third
 * file had started. */
static uint64_t run_as_a_batch(th_gpu *g, const vkfx_chain *chain, int files, const vkfx_pixels *in,
                               const vkfx_jpeg_input *jin, const vkfx_pixels *layout,
                               vkfx_pixels *got, const uint64_t *counter)
{
    vkfx_run_opts opts = {.precision = 16};
    vkfx_pending *flying = NULL;
    uint64_t at_third = 0;
    for (int i = 0; i <= files; i++) {
        vkfx_pending *started = NULL;
        if (i < files) {
            opts.jpeg_in = jin ? &jin[i] : NULL;
            cr_assert_eq(
                vkfx_run_start_held(g->ctx, g->staging, chain, &in[i], layout, &opts, &started),
                VKFX_OK, "file %d: %s", i, vkfx_error_message());
        }
        if (flying) {
            vkfx_run_result result;
            got[i - 1] = *layout;
            cr_assert_eq(vkfx_run_finish(flying, &got[i - 1], &result), VKFX_OK, "file %d: %s",
                         i - 1, vkfx_error_message());
            free(result.times);
        }
        if (started && i < files - 1)
            cr_assert_eq(vkfx_run_submit(started), VKFX_OK, "%s", vkfx_error_message());
        flying = started;
        if (i == 2)
            at_third = *counter;
    }
    return at_third;
}

/* Runs as a batch makes them (the next recorded, the one in flight finished, the next
 * submitted: vkfx_run_start_held), of two shapes in turn: from the fourth on (by then as many
 * command buffers are in use at once as ever will be), none makes a device object, as each takes
 * what the run before the one in flight left; each output equals a run on objects made afresh, and
 * every file's pixels differ, so that anything a reused image or buffer kept would show. The
 * spares' memory stays counted in device_bytes until they are released. */
Test(batch, runs_of_alternating_shapes_make_no_objects)
{
    enum { FILES = 8 };
    th_gpu g;
    th_gpu_open(&g);
    vkfx_chain *chain = NULL;
    cr_assert_eq(vkfx_chain_parse("gauss:sigma=2,sobel,resize:width=29", &chain), VKFX_OK, "%s",
                 vkfx_error_message());
    vkfx_run_opts opts = {.precision = 16};
    const vkfx_pixels layout = {.channels = 3, .sample = VKFX_SAMPLE_U8};
    vkfx_pixels in[FILES], got[FILES];
    for (int i = 0; i < FILES; i++)
        tc_random_pixels(&in[i], i & 1 ? 64 : 37, i & 1 ? 41 : 23, 3, VKFX_SAMPLE_U8,
                         300 + (uint64_t)i);
    uint64_t made = run_as_a_batch(&g, chain, FILES, in, NULL, &layout, got, &g.ctx->objects_made);
    cr_assert_eq(g.ctx->objects_made, made, "files 4 to %d made %llu device objects", FILES,
                 (unsigned long long)(g.ctx->objects_made - made));
    cr_assert(g.ctx->spare_bytes > 0 && g.ctx->spare_bytes < g.ctx->device_bytes,
              "%llu bytes of spares of %llu", (unsigned long long)g.ctx->spare_bytes,
              (unsigned long long)g.ctx->device_bytes);
    for (int i = 0; i < FILES; i++) {
        uint64_t held = g.ctx->device_bytes, spare = g.ctx->spare_bytes;
        vkfx_spares_release(g.ctx);
        cr_assert(g.ctx->spare_bytes == 0 && g.ctx->device_bytes == held - spare);
        vkfx_pixels fresh = layout;
        vkfx_run_result result;
        cr_assert_eq(vkfx_run(g.ctx, g.staging, chain, &in[i], &fresh, &opts, &result), VKFX_OK,
                     "file %d: %s", i, vkfx_error_message());
        free(result.times);
        cr_assert(fresh.width == got[i].width && fresh.height == got[i].height &&
                      memcmp(fresh.data, got[i].data, vkfx_pixels_bytes(&fresh)) == 0,
                  "file %d (%ux%u) differs from a run on objects made afresh", i, in[i].width,
                  in[i].height);
        vkfx_pixels_free(&fresh);
        vkfx_pixels_free(&got[i]);
        vkfx_pixels_free(&in[i]);
    }
    vkfx_chain_free(chain);
    th_gpu_close(&g);
}

/* JPEG files of one size whose compressed bytes differ in length, decoded on the device as a batch
 * runs them (vkfx_run_start_held): the buffers of each file's
 * bytes and of the tables made from them take the memory of the file before the one in flight,
 * so from the fourth file on no device memory is allocated; every output equals the same chain
 * over libjpeg-turbo's decode of the file. */
Test(batch, device_decodes_of_other_lengths_allocate_no_memory, .timeout = 240)
{
    enum { FILES = 8, W = 160, H = 96 };
    th_gpu g;
    th_gpu_open(&g);
    vkfx_chain *chain = NULL;
    cr_assert_eq(vkfx_chain_parse("gauss:sigma=1", &chain), VKFX_OK, "%s", vkfx_error_message());
    vkfx_run_opts opts = {.precision = 16};
    const vkfx_pixels layout = {.channels = 3, .sample = VKFX_SAMPLE_U8};
    vkfx_jpeg_input jin[FILES];
    vkfx_pixels shape[FILES], got[FILES];
    char paths[FILES][1024];
    for (int i = 0; i < FILES; i++) {
        vkfx_pixels px;
        cr_assert_eq(vkfx_pixels_alloc(&px, W, H, 3, VKFX_SAMPLE_U8), VKFX_OK);
        uint64_t state = 77 + (uint64_t)i;
        unsigned char *d = px.data;
        for (uint32_t k = 0; k < W * H * 3; k++) {
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            d[k] = (unsigned char)((k / 3 % W) + (k / 3 / W) + (state >> 60));
        }
        snprintf(paths[i], sizeof(paths[i]), "%s/j%d.jpg", tc_tpath("in"), i);
        vkfx_save_opts save = {.jpeg_quality = 84 + (i * 3) % 5};
        cr_assert_eq(vkfx_file_save(paths[i], VKFX_FILE_JPEG, &px, &save), VKFX_OK, "%s",
                     vkfx_error_message());
        vkfx_pixels_free(&px);
        vkfx_meta meta = {0};
        /* Smaller than asked for: the file is libjpeg-turbo's, nothing kept. */
        cr_assert_eq(vkfx_file_load_jpeg_input(paths[i], W * H + 1, &shape[i], &meta, &jin[i]), 1);
        cr_assert(jin[i].bytes == NULL && meta.exif.data == NULL);
        cr_assert_eq(vkfx_file_load_jpeg_input(paths[i], W * H, &shape[i], &meta, &jin[i]), 0,
                     "%s: %s", paths[i], vkfx_error_message());
        vkfx_meta_free(&meta);
        for (int k = 0; k < i; k++)
            cr_assert_neq(jin[k].size, jin[i].size, "files %d and %d are as long", k, i);
    }
    uint64_t allocations =
        run_as_a_batch(&g, chain, FILES, shape, jin, &layout, got, &g.ctx->allocations);
    cr_assert_eq(g.ctx->allocations, allocations, "files 4 to %d allocated memory %llu times",
                 FILES, (unsigned long long)(g.ctx->allocations - allocations));
    for (int i = 0; i < FILES; i++) {
        vkfx_pixels px, want = layout;
        vkfx_run_result result;
        cr_assert_eq(vkfx_file_load(paths[i], &px), VKFX_OK, "%s", vkfx_error_message());
        cr_assert_eq(vkfx_run(g.ctx, g.staging, chain, &px, &want, &opts, &result), VKFX_OK,
                     "file %d: %s", i, vkfx_error_message());
        free(result.times);
        cr_assert(want.width == got[i].width && want.height == got[i].height &&
                      memcmp(want.data, got[i].data, vkfx_pixels_bytes(&want)) == 0,
                  "file %d: the device's decode through the chain differs from libjpeg-turbo's", i);
        vkfx_pixels_free(&want);
        vkfx_pixels_free(&got[i]);
        vkfx_pixels_free(&px);
        vkfx_jpeg_input_free(&jin[i]);
    }
    vkfx_chain_free(chain);
    th_gpu_close(&g);
}

/* Files with an ICC profile's curves (Adobe RGB's), 8 and 16-bit, with and without alpha: a
 * batch encodes their outputs through the curves on its codec threads, a single run in
 * vkfx_run, a batch in tiles in vkfx_run too; the bytes are the same. */
Test(batch, profiled_files_same_as_single, .timeout = 240)
{
    char src[1024];
    snprintf(src, sizeof(src), "%s/rocket.jpg", VKFX_TEST_IMAGES);
    vkfx_pixels px, wide, alpha;
    vkfx_meta meta;
    cr_assert_eq(vkfx_file_load_meta(src, &px, &meta), VKFX_OK, "%s", vkfx_error_message());
    cr_assert(meta.icc.size > 0, "%s carries no ICC profile", src);
    cr_assert_eq(vkfx_pixels_alloc(&wide, px.width, px.height, 3, VKFX_SAMPLE_U16), VKFX_OK);
    cr_assert_eq(vkfx_pixels_alloc(&alpha, px.width, px.height, 4, VKFX_SAMPLE_U8), VKFX_OK);
    const uint8_t *s = px.data;
    uint16_t *w = wide.data;
    uint8_t *a = alpha.data;
    for (size_t i = 0; i < (size_t)px.width * px.height; i++) {
        for (int c = 0; c < 3; c++) {
            w[3 * i + c] = (uint16_t)(s[3 * i + c] * 257 + (i * 7 + c) % 200);
            a[4 * i + c] = s[3 * i + c];
        }
        a[4 * i + 3] = (uint8_t)(64 + i % 192);
    }
    vkfx_save_opts keep = {.meta = &meta};
    cr_assert_eq(vkfx_file_save(tc_tpath("in/a8.png"), VKFX_FILE_PNG, &px, &keep), VKFX_OK);
    cr_assert_eq(vkfx_file_save(tc_tpath("in/b16.png"), VKFX_FILE_PNG, &wide, &keep), VKFX_OK);
    cr_assert_eq(vkfx_file_save(tc_tpath("in/c8a.png"), VKFX_FILE_PNG, &alpha, &keep), VKFX_OK);
    vkfx_pixels_free(&px);
    vkfx_pixels_free(&wide);
    vkfx_pixels_free(&alpha);
    vkfx_meta_free(&meta);
    static const char *const stems[] = {"a8", "b16", "c8a"};
    static const char *const exts[] = {"png", "tif", "jpg"};
    for (size_t e = 0; e < 3; e++) {
        char out[1024];
        snprintf(out, sizeof(out), "%s/{stem}.%s", tc_tpath("out"), exts[e]);
        cli_run r;
        VKFX(&r, "-f", "gauss:sigma=1.5,resize:scale=0.5", "-o", out, tc_tpath("in"));
        cr_assert_eq(r.status, 0, "%s: %s", r.cmd, r.err);
        run_free(&r);
        for (size_t i = 0; i < 3; i++) {
            char input[1024], many[1024];
            snprintf(input, sizeof(input), "%s/%s.png", tc_tpath("in"), stems[i]);
            snprintf(many, sizeof(many), "%s/%s.%s", tc_tpath("out"), stems[i], exts[e]);
            expect_same_as_single(input, "gauss:sigma=1.5,resize:scale=0.5", many);
        }
        /* In tiles (the Gaussian in tiles, the resize in tiles of its outputs), the profile's
         * encoding done once, on the host, as one piece leaves it to the codec threads. */
        char tiled[1024];
        snprintf(tiled, sizeof(tiled), "%s/tiled-{stem}.%s", tc_tpath("out"), exts[e]);
        setenv("VKFX_TILE", "96", 1);
        VKFX(&r, "-f", "gauss:sigma=1.5,resize:scale=0.5", "-o", tiled, tc_tpath("in"));
        unsetenv("VKFX_TILE");
        cr_assert_eq(r.status, 0, "%s: %s", r.cmd, r.err);
        run_free(&r);
        for (size_t i = 0; i < 3; i++) {
            char a_path[1024], b_path[1024];
            snprintf(a_path, sizeof(a_path), "%s/%s.%s", tc_tpath("out"), stems[i], exts[e]);
            snprintf(b_path, sizeof(b_path), "%s/tiled-%s.%s", tc_tpath("out"), stems[i], exts[e]);
            size_t na, nb;
            char *a = slurp(a_path, &na), *b = slurp(b_path, &nb);
            cr_expect(na == nb && memcmp(a, b, na) == 0, "%s differs from %s", b_path, a_path);
            free(a);
            free(b);
        }
    }
}
