/* Tests of the vkfx command line as a user meets it: the real binary run with
 * argument vectors (no shell), its exit status, stdout and stderr. Usage
 * mistakes exit 2 with one line naming the problem, processing failures
 * exit 1 with one line naming the file, and no failure leaves an output or a
 * temporary file behind or touches an existing one. Successful runs keep the
 * input's layout where the format can, and match the C reference. */
#include <criterion/criterion.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "chain.h"
#include "common.h"
#include "error.h"
#include "filter.h"
#include "fileio.h"
#include "pixels.h"
#include "ref/ref.h"

#ifndef VKFX_BINARY
#error "the build must define VKFX_BINARY, the path of the vkfx executable"
#endif
#ifndef VKFX_SOURCE_ROOT
#error "the build must define VKFX_SOURCE_ROOT, for the version in meson.build"
#endif

/* ------------------------------------------------------------------------ */
/* Scaffolding: one temporary directory per test */

static void setup(void)
{
    if (tc_tmpdir_make("cli") != 0)
        cr_assert_fail("mkdtemp: %s", strerror(errno));
}

TestSuite(cli, .init = setup, .fini = tc_tmpdir_remove);

/* tc_tmpdir "/" name in one of a few rotating buffers, so that a call can
 * hold several paths at once. */
static unsigned char *slurp(const char *path, size_t *size)
{
    char *data = tc_slurp(path, size);
    cr_assert(data, "read %s: %s", path, strerror(errno));
    return (unsigned char *)data;
}

static void spit(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    cr_assert(f, "create %s: %s", path, strerror(errno));
    cr_assert_eq(fwrite(data, 1, size, f), size);
    cr_assert_eq(fclose(f), 0);
}

/* Writes a random image as a PNG with the library's own writer; px keeps
 * the pixels when not NULL. */
static void write_random_png(const char *path, uint32_t w, uint32_t h, uint32_t channels,
                             vkfx_sample s, uint64_t seed, vkfx_pixels *px)
{
    vkfx_pixels tmp = {0};
    tc_random_pixels(&tmp, w, h, channels, s, seed);
    int r = vkfx_file_save(path, VKFX_FILE_PNG, &tmp, NULL);
    cr_assert_eq(r, 0, "save %s: %s", path, vkfx_error_message());
    if (px)
        *px = tmp;
    else
        vkfx_pixels_free(&tmp);
}

static void load_ok(const char *path, vkfx_pixels *px)
{
    int r = vkfx_file_load(path, px);
    cr_assert_eq(r, 0, "load %s: %d %s", path, r, vkfx_error_message());
}

/* Case-insensitive strstr: messages may capitalise a format name. */
static const char *find_ci(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++)
        if (!strncasecmp(hay, needle, n))
            return hay;
    return n ? NULL : hay;
}

/* ------------------------------------------------------------------------ */
/* Running the binary */

#include "run_binary.h"

static size_t count_lines(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

/* A successful run: exit 0 and, unless the caller expects more, silence. */
static void expect_ok(const cli_run *r)
{
    cr_assert_eq(r->status, 0, "%s: exit %d, want 0; stderr:\n%s", r->cmd, r->status, r->err);
    cr_assert_str_empty(r->err, "%s: exit 0 but stderr is not empty:\n%s", r->cmd, r->err);
    cr_assert_str_empty(r->out, "%s: exit 0 but stdout is not empty:\n%s", r->cmd, r->out);
}

#define USAGE_HINT "Try 'vkfx --help'.\n"

/* A failed run: the exit code, nothing on stdout, and one line "vkfx: ..."
 * on stderr that holds every needle (case-insensitive). A usage error may
 * follow it with the hint line USAGE_HINT, which names no problem of its
 * own; anything else is a second message and fails. */
static void expect_error_v(const cli_run *r, int code, const char *const *needles)
{
    cr_assert_eq(r->status, code, "%s: exit %d, want %d; stderr:\n%s", r->cmd, r->status, code,
                 r->err);
    cr_assert_str_empty(r->out, "%s: a failed run wrote to stdout:\n%s", r->cmd, r->out);
    cr_assert(!strncmp(r->err, "vkfx: ", 6), "%s: stderr does not start with 'vkfx: ':\n%s", r->cmd,
              r->err);
    const char *nl = strchr(r->err, '\n');
    cr_assert(nl, "%s: stderr is not a complete line: '%s'", r->cmd, r->err);
    const char *rest = nl + 1;
    bool hint_ok = code == 2 && !strcmp(rest, USAGE_HINT);
    cr_assert(!*rest || hint_ok, "%s: want one line on stderr, got %zu:\n%s", r->cmd,
              count_lines(r->err), r->err);
    char *line = strndup(r->err, (size_t)(nl - r->err));
    cr_assert(line);
    for (size_t i = 0; needles[i]; i++)
        cr_assert(find_ci(line, needles[i]), "%s: the message does not mention '%s':\n%s", r->cmd,
                  needles[i], line);
    cr_assert(strlen(line) > 6 + 8, "%s: message too short to explain anything: '%s'", r->cmd,
              line);
    free(line);
}

#define EXPECT_ERROR(r, code, ...)                                                                 \
    expect_error_v((r), (code), (const char *const[]){__VA_ARGS__, NULL})

/* ------------------------------------------------------------------------ */
/* Directory snapshots: what a failing run must leave exactly as it was */

typedef struct entry {
    char name[256];
    bool dir;
    unsigned char *data;
    size_t size;
} entry;

typedef struct snapshot {
    entry e[32];
    size_t n;
} snapshot;

static int entry_cmp(const void *a, const void *b)
{
    return strcmp(((const entry *)a)->name, ((const entry *)b)->name);
}

static void snap_take(snapshot *s, const char *dir)
{
    s->n = 0;
    DIR *d = opendir(dir);
    cr_assert(d, "opendir %s: %s", dir, strerror(errno));
    struct dirent *de;
    while ((de = readdir(d))) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        cr_assert(s->n < sizeof(s->e) / sizeof(s->e[0]), "too many files in %s", dir);
        entry *e = &s->e[s->n++];
        snprintf(e->name, sizeof(e->name), "%s", de->d_name);
        char p[600];
        snprintf(p, sizeof(p), "%s/%s", dir, de->d_name);
        struct stat st;
        cr_assert_eq(lstat(p, &st), 0, "lstat %s: %s", p, strerror(errno));
        e->dir = S_ISDIR(st.st_mode);
        e->data = NULL;
        e->size = 0;
        if (S_ISREG(st.st_mode))
            e->data = slurp(p, &e->size);
    }
    closedir(d);
    qsort(s->e, s->n, sizeof(s->e[0]), entry_cmp);
}

static void snap_names(const snapshot *s, char *out, size_t cap)
{
    size_t len = 0;
    out[0] = 0;
    for (size_t i = 0; i < s->n && len < cap; i++)
        len += (size_t)snprintf(out + len, cap - len, "%s%s%s", i ? " " : "", s->e[i].name,
                                s->e[i].dir ? "/" : "");
}

static void snap_free(snapshot *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->e[i].data);
    s->n = 0;
}

/* dir holds the same names as before, and every file the same bytes: no
 * output, no temporary file, no overwritten input or old output. */
static void expect_unchanged(const snapshot *before, const char *dir, const char *what)
{
    snapshot now;
    snap_take(&now, dir);
    char a[2048], b[2048];
    snap_names(before, a, sizeof(a));
    snap_names(&now, b, sizeof(b));
    cr_assert_str_eq(b, a, "%s: the directory changed: before [%s], after [%s]", what, a, b);
    for (size_t i = 0; i < now.n; i++) {
        const entry *x = &before->e[i], *y = &now.e[i];
        cr_assert(x->size == y->size && (!x->size || !memcmp(x->data, y->data, x->size)),
                  "%s: %s changed (%zu bytes before, %zu after)", what, x->name, x->size, y->size);
    }
    snap_free(&now);
}

/* ------------------------------------------------------------------------ */
/* Usage errors: exit 2, one line, nothing written, the input untouched */

/* Runs args (which fail with code) in a tc_tmpdir holding a valid in.png and,
 * where old_output, an out.png from an earlier run; checks the message and
 * that the directory is exactly as before. */
static void expect_failure_in_place(bool old_output, int code, const char *const *args,
                                    const char *const *needles)
{
    write_random_png(tc_tpath("in.png"), 16, 12, 4, VKFX_SAMPLE_U8, 1, NULL);
    if (old_output)
        write_random_png(tc_tpath("out.png"), 5, 3, 3, VKFX_SAMPLE_U8, 2, NULL);
    snapshot before;
    snap_take(&before, tc_tmpdir);
    cli_run r = {0};
    run_with(&r, NULL, args);
    expect_error_v(&r, code, needles);
    expect_unchanged(&before, tc_tmpdir, r.cmd);
    snap_free(&before);
    run_free(&r);
}

#define ARGS(...) ((const char *const[]){__VA_ARGS__, NULL})
#define FAILS(old, code, args, ...)                                                                \
    expect_failure_in_place((old), (code), args, (const char *const[]){__VA_ARGS__, NULL})

/* "min..max" of a filter option as --help-filter and the messages print it. */
static const char *option_range(const char *filter, const char *option)
{
    static char bufs[4][64];
    static unsigned next;
    const vkfx_filter *f = vkfx_filter_find(filter);
    cr_assert(f, "no filter '%s' in the registry", filter);
    for (const vkfx_option *o = f->options; o && o->name; o++) {
        if (strcmp(o->name, option))
            continue;
        char *b = bufs[next++ % 4];
        if (o->type == VKFX_OPT_INT)
            snprintf(b, 64, "%.0f..%.0f", o->min, o->max);
        else
            snprintf(b, 64, "%g..%g", o->min, o->max);
        return b;
    }
    cr_assert_fail("filter '%s' has no option '%s'", filter, option);
    return NULL;
}

static double option_default(const char *filter, const char *option)
{
    const vkfx_filter *f = vkfx_filter_find(filter);
    cr_assert(f, "no filter '%s' in the registry", filter);
    for (const vkfx_option *o = f->options; o && o->name; o++)
        if (!strcmp(o->name, option))
            return o->def;
    cr_assert_fail("filter '%s' has no option '%s'", filter, option);
    return 0;
}

Test(cli, unknown_filter_suggests_the_closest)
{
    FAILS(false, 2, ARGS(tc_tpath("in.png"), "-f", "gaus", "-o", tc_tpath("out.png")), "'gaus'",
          "did you mean 'gauss'");
}

/* --max-pixels: a larger input is refused from its header (exit 1, nothing
 * written); 0 is not a limit. */
Test(cli, max_pixels)
{
    FAILS(true, 1,
          ARGS(tc_tpath("in.png"), "--max-pixels", "100", "-f", "box", "-o", tc_tpath("out.png")),
          "in.png", "16x12 = 192 pixels", "limit of 100", "--max-pixels");
    FAILS(false, 2,
          ARGS(tc_tpath("in.png"), "--max-pixels", "0", "-f", "box", "-o", tc_tpath("out.png")),
          "--max-pixels", "'0'", "1..1099511627776");
}

/* Every command's usage mistakes read alike: "vkfx COMMAND: what", then where its help is. */
static void expect_usage(const char *const *args, const char *want)
{
    cli_run r = {0};
    run_with(&r, NULL, args);
    cr_expect_eq(r.status, 2, "%s: exit %d, want 2", r.cmd, r.status);
    cr_expect_str_eq(r.err, want, "%s: stderr\n%s\nwant\n%s", r.cmd, r.err, want);
    run_free(&r);
}

Test(cli, usage_errors_of_every_command_read_alike)
{
    expect_usage(ARGS("bench", "--reps", "0"),
                 "vkfx bench: --reps '0' must be 1..10000\nTry 'vkfx bench --help'.\n");
    expect_usage(ARGS("run"), "vkfx run: one job file (or '-' for standard input) is needed; "
                              "got 0\nTry 'vkfx run --help'.\n");
    expect_usage(ARGS("compare", "--tolerance", "x"),
                 "vkfx compare: --tolerance 'x' must be a number >= 0\n"
                 "Try 'vkfx compare --help'.\n");
    expect_usage(ARGS("preview", "--port", "x"),
                 "vkfx preview: --port 'x' must be an integer 0..65535\n"
                 "Try 'vkfx preview --help'.\n");
}

/* The command line hands the environment's knobs to the library (vkfx_context_opts): a forced
 * variant of no filter's family, and staging memory below its least, are usage errors. */
Test(cli, environment_knobs_reach_the_library)
{
    setenv("VKFX_VARIANT", "blur:fast", 1);
    FAILS(false, 2, ARGS(tc_tpath("in.png"), "-f", "gauss", "-o", tc_tpath("out.png")),
          "'blur:fast' is not FAMILY:VARIANT");
    unsetenv("VKFX_VARIANT");
    setenv("VKFX_STAGING_BYTES", "100", 1);
    FAILS(false, 2, ARGS(tc_tpath("in.png"), "-f", "gauss", "-o", tc_tpath("out.png")),
          "staging memory of 100 bytes is too small");
    unsetenv("VKFX_STAGING_BYTES");
}

Test(cli, unknown_filter_option)
{
    FAILS(false, 2, ARGS(tc_tpath("in.png"), "-f", "gauss:sigam=3", "-o", tc_tpath("out.png")),
          "gauss", "'sigam'", "sigma");
}

Test(cli, filter_option_value_missing)
{
    FAILS(false, 2, ARGS(tc_tpath("in.png"), "-f", "gauss:sigma=", "-o", tc_tpath("out.png")),
          "gauss", "sigma", "value");
}

Test(cli, filter_option_not_a_number)
{
    FAILS(false, 2, ARGS(tc_tpath("in.png"), "-f", "gauss:sigma=abc", "-o", tc_tpath("out.png")),
          "sigma", "abc", "number");
}

Test(cli, filter_option_out_of_range_float)
{
    FAILS(false, 2, ARGS(tc_tpath("in.png"), "-f", "gauss:sigma=0", "-o", tc_tpath("out.png")),
          "gauss", "sigma", "range", option_range("gauss", "sigma"));
}

Test(cli, filter_option_out_of_range_int)
{
    FAILS(false, 2, ARGS(tc_tpath("in.png"), "-f", "box:radius=-1", "-o", tc_tpath("out.png")),
          "box", "radius", "-1", option_range("box", "radius"));
}

Test(cli, empty_chain)
{
    FAILS(false, 2, ARGS(tc_tpath("in.png"), "-f", "", "-o", tc_tpath("out.png")), "empty");
}

Test(cli, no_output_option)
{
    FAILS(false, 2, ARGS(tc_tpath("in.png"), "-f", "sobel"), "-o");
}

Test(cli, no_input)
{
    FAILS(false, 2, ARGS("-f", "sobel", "-o", tc_tpath("out.png")), "input");
}

/* Two inputs and one plain output file: a usage error that says how to
 * name several outputs, before anything is written. */
Test(cli, two_inputs_one_output)
{
    write_random_png(tc_tpath("second.png"), 4, 4, 3, VKFX_SAMPLE_U8, 3, NULL);
    FAILS(
        false, 2,
        ARGS(tc_tpath("in.png"), tc_tpath("second.png"), "-f", "sobel", "-o", tc_tpath("out.png")),
        "2 inputs", "out.png", "{stem}", "--outdir");
}

Test(cli, unknown_command_line_option)
{
    FAILS(false, 2, ARGS(tc_tpath("in.png"), "--sharpen", "-f", "sobel", "-o", tc_tpath("out.png")),
          "--sharpen");
}

/* getopt reports an unknown letter inside a cluster ("-Zq 50") before it
 * moves past the argument, so the message must come from optopt, not from
 * argv[optind - 1], which is then the argument before it. */
Test(cli, unknown_short_option_in_a_cluster)
{
    write_random_png(tc_tpath("in.png"), 16, 12, 4, VKFX_SAMPLE_U8, 1, NULL);
    snapshot before;
    snap_take(&before, tc_tmpdir);
    cli_run r = {0};
    VKFX(&r, tc_tpath("in.png"), "-Zq", "50", "-f", "sobel", "-o", tc_tpath("out.png"));
    EXPECT_ERROR(&r, 2, "-Z");
    cr_assert(!strstr(r.err, "in.png"), "%s: the message names the input, not the option:\n%s",
              r.cmd, r.err);
    expect_unchanged(&before, tc_tmpdir, r.cmd);
    snap_free(&before);
    run_free(&r);
}

Test(cli, command_line_option_value_missing)
{
    FAILS(false, 2,
          ARGS(tc_tpath("in.png"), "-f", "sobel", "-o", tc_tpath("out.png"), "--precision"),
          "--precision");
}

Test(cli, unknown_output_extension)
{
    FAILS(false, 2, ARGS(tc_tpath("in.png"), "-f", "sobel", "-o", tc_tpath("out.xyz")), "xyz",
          "png");
}

Test(cli, unwritable_output_format_gif)
{
    FAILS(false, 2, ARGS(tc_tpath("in.png"), "-f", "sobel", "-o", tc_tpath("out.gif")), "gif",
          "png");
}

Test(cli, precision_must_be_auto_16_or_32)
{
    FAILS(false, 2,
          ARGS(tc_tpath("in.png"), "-f", "sobel", "-o", tc_tpath("out.png"), "--precision", "24"),
          "--precision", "24", "auto", "16", "32");
}

Test(cli, quality_out_of_range)
{
    FAILS(false, 2,
          ARGS(tc_tpath("in.png"), "-f", "sobel", "-o", tc_tpath("out.jpg"), "--quality", "0"),
          "quality", "1..100");
    FAILS(false, 2, ARGS(tc_tpath("in.png"), "-f", "sobel", "-o", tc_tpath("out.jpg"), "-q", "101"),
          "quality", "101");
    FAILS(false, 2, ARGS(tc_tpath("in.png"), "-f", "sobel", "-o", tc_tpath("out.jpg"), "-q", "50x"),
          "quality", "50x");
}

Test(cli, usage_error_leaves_an_existing_output_intact)
{
    FAILS(true, 2, ARGS(tc_tpath("in.png"), "-f", "gauss:sigma=abc", "-o", tc_tpath("out.png")),
          "abc");
}

/* The output may not replace the input, however the path is spelled. */
Test(cli, output_equal_to_input_is_refused)
{
    cr_assert_eq(mkdir(tc_tpath("dir"), 0777), 0);
    cr_assert_eq(mkdir(tc_tpath("dir/sub"), 0777), 0);
    write_random_png(tc_tpath("dir/in.png"), 16, 12, 4, VKFX_SAMPLE_U8, 4, NULL);
    cr_assert_eq(symlink("in.png", tc_tpath("dir/alias.png")), 0);
    cr_assert_eq(link(tc_tpath("dir/in.png"), tc_tpath("dir/hard.png")), 0);
    char input[512], dir[512];
    snprintf(input, sizeof(input), "%s", tc_tpath("dir/in.png"));
    snprintf(dir, sizeof(dir), "%s", tc_tpath("dir"));
    const char *const names[] = {
        "/dir/in.png",       "./dir/../dir/in.png", /* relative: it runs in tc_tmpdir */
        "dir/sub/../in.png", "/dir//./in.png",
        "/dir/alias.png",    "/dir/hard.png",
        "dir/new/../in.png", "/dir/new/deeper/../../sub/../in.png", /* folders not made yet */
    };
    enum { N = sizeof(names) / sizeof(names[0]) };
    char spellings[N][512];
    for (size_t i = 0; i < N; i++)
        snprintf(spellings[i], sizeof(spellings[i]), "%s%s", names[i][0] == '/' ? tc_tmpdir : "",
                 names[i]);
    run_opts o = {.cwd = tc_tmpdir};
    for (size_t i = 0; i < N; i++) {
        snapshot before;
        snap_take(&before, dir);
        cli_run r = {0};
        VKFX_OPTS(&r, &o, input, "-f", "gauss:sigma=2", "-o", spellings[i]);
        EXPECT_ERROR(&r, 2, spellings[i], "input");
        expect_unchanged(&before, dir, r.cmd);
        snap_free(&before);
        run_free(&r);
    }
}

/* Outputs in folders still to be made are compared where they will land:
 * ".." through such a folder leads back to the files read, and two
 * outputs spelled apart may be one file. Standard output is compared by
 * the file it is. Each is refused before any folder is made. */
Test(cli, outputs_through_new_folders_are_resolved)
{
    cr_assert_eq(mkdir(tc_tpath("dir"), 0777), 0);
    write_random_png(tc_tpath("dir/in.png"), 16, 12, 4, VKFX_SAMPLE_U8, 4, NULL);
    write_random_png(tc_tpath("dir/b.png"), 12, 16, 4, VKFX_SAMPLE_U8, 5, NULL);
    char dir[512];
    snprintf(dir, sizeof(dir), "%s", tc_tpath("dir"));
    static const char *const cases[][8] = {
        {"in.png", "-f", "sobel", "--outdir", "nd/..", NULL, "input"},
        {"in.png", "-f", "sobel", "--outdir", "nd/../", NULL, "input"},
        {"in.png", "-f", "sobel", "-o", "x{index}/../{name}", NULL, "input"},
        {"in.png", "b.png", "-f", "sobel", "-o", "x{index}/../same.png", NULL, "both be written"},
        {"in.png", "-f", "sobel", "-o", "-", NULL, "standard output"},
    };
    run_opts o = {.cwd = dir};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        size_t n = 0;
        while (cases[i][n])
            n++;
        /* Standard output is the input, opened for writing as "1<>in.png" does. */
        o.stdout_path = strcmp(cases[i][n - 1], "-") == 0 ? tc_tpath("dir/in.png") : NULL;
        snapshot before;
        snap_take(&before, dir);
        cli_run r = {0};
        run_with(&r, &o, cases[i]);
        EXPECT_ERROR(&r, 2, cases[i][n + 1]);
        expect_unchanged(&before, dir, r.cmd);
        snap_free(&before);
        run_free(&r);
    }
}

/* ------------------------------------------------------------------------ */
/* Processing errors: exit 1, one line naming the file, nothing written */

Test(cli, missing_input)
{
    FAILS(false, 1, ARGS(tc_tpath("nosuch.png"), "-f", "sobel", "-o", tc_tpath("out.png")),
          tc_tpath("nosuch.png"));
}

/* chmod 000 does not stop root, who runs the tests in CI; a path through a
 * file cannot be opened by anyone. */
Test(cli, unreadable_input)
{
    char path[1024];
    snprintf(path, sizeof(path), "%s/x.png", tc_tpath("in.png"));
    FAILS(false, 1, ARGS(path, "-f", "sobel", "-o", tc_tpath("out.png")), path, "not a directory");
}

/* A directory stands for the images in it; one without any is a usage
 * error that names it. */
Test(cli, directory_without_images)
{
    cr_assert_eq(mkdir(tc_tpath("folder.png"), 0777), 0);
    FAILS(false, 2, ARGS(tc_tpath("folder.png"), "-f", "sobel", "-o", tc_tpath("{stem}.png")),
          tc_tpath("folder.png"), "no image files");
}

Test(cli, corrupt_input)
{
    unsigned char junk[3000];
    uint64_t s = 12345;
    for (size_t i = 0; i < sizeof(junk); i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        junk[i] = (unsigned char)(s >> 56);
    }
    spit(tc_tpath("junk.png"), junk, sizeof(junk));
    FAILS(false, 1, ARGS(tc_tpath("junk.png"), "-f", "sobel", "-o", tc_tpath("out.png")),
          tc_tpath("junk.png"));
}

Test(cli, truncated_png)
{
    write_random_png(tc_tpath("whole.png"), 32, 24, 4, VKFX_SAMPLE_U8, 5, NULL);
    size_t size;
    unsigned char *data = slurp(tc_tpath("whole.png"), &size);
    cr_assert_gt(size, 200);
    spit(tc_tpath("cut.png"), data, size / 2);
    free(data);
    FAILS(false, 1, ARGS(tc_tpath("cut.png"), "-f", "sobel", "-o", tc_tpath("out.png")),
          tc_tpath("cut.png"));
}

/* A missing output folder is created (tests/test_files.c); one that cannot
 * be, because a file stands in its place, is a processing error naming it. */
Test(cli, output_directory_cannot_be_created)
{
    spit(tc_tpath("blocker"), "x", 1);
    FAILS(false, 1, ARGS(tc_tpath("in.png"), "-f", "sobel", "-o", tc_tpath("blocker/out.png")),
          tc_tpath("blocker"));
}

/* An output larger than its format stores is refused once the input's size is known, before
 * the GPU makes it: within 10 s, where making these 131 million pixels first took lavapipe
 * 22.5 s in the sanitizer build; the old output stays. */
Test(cli, output_too_large_for_its_format)
{
    double t = tc_seconds();
    FAILS(
        true, 1,
        ARGS(tc_tpath("in.png"), "-f", "resize:width=65536:height=2000", "-o", tc_tpath("out.jpg")),
        "a 65536x2000 image is too large for JPEG");
    cr_expect_lt(tc_seconds() - t, 10, "the refusal took %.1f s", tc_seconds() - t);
    FAILS(true, 1,
          ARGS(tc_tpath("in.png"), "-f", "rotate,resize:width=10:height=65536", "-o",
               tc_tpath("out.webp")),
          "a 10x65536 image is too large for WebP");
}

Test(cli, processing_error_leaves_an_existing_output_intact)
{
    spit(tc_tpath("junk.png"), "\x89PNG\r\n\x1a\n not really", 19);
    FAILS(true, 1, ARGS(tc_tpath("junk.png"), "-f", "sobel", "-o", tc_tpath("out.png")),
          tc_tpath("junk.png"));
}

/* A write that fails half way (here: the file size limit) must remove the
 * temporary file and leave the old output as it was. */
Test(cli, failed_write_leaves_no_temporary_and_keeps_the_old_output)
{
    write_random_png(tc_tpath("in.png"), 48, 32, 4, VKFX_SAMPLE_U8, 6, NULL);
    write_random_png(tc_tpath("out.png"), 5, 3, 3, VKFX_SAMPLE_U8, 7, NULL);
    snapshot before;
    snap_take(&before, tc_tmpdir);
    /* An empty pipeline cache, so that the run builds pipelines and tries to save them at the
     * end, which the same limit stops (lavapipe's cache is a 32-byte header): the user still
     * gets the one line about the output. */
    char cache[] = "/tmp/vkfx-cache-XXXXXX";
    cr_assert(mkdtemp(cache), "mkdtemp: %s", strerror(errno));
    setenv("XDG_CACHE_HOME", cache, 1);
    /* Below the size of any PNG, whatever the pixels are. */
    run_opts o = {.fsize = 16};
    cli_run r = {0};
    VKFX_OPTS(&r, &o, tc_tpath("in.png"), "-f", "gauss:sigma=2", "-o", tc_tpath("out.png"));
    unsetenv("XDG_CACHE_HOME");
    tc_remove_tree(cache);
    EXPECT_ERROR(&r, 1, tc_tpath("out.png"));
    expect_unchanged(&before, tc_tmpdir, r.cmd);
    snap_free(&before);
    run_free(&r);
}

/* ------------------------------------------------------------------------ */
/* Successful runs */

typedef int (*ref_fn)(const ref_image *in, ref_image *out);

/* The C reference of a file-to-file run: decode, filter, encode into the
 * layout of got (the CLI's output as loaded back). */
static void reference_run(const vkfx_pixels *in, bool linear, ref_fn fn, const vkfx_pixels *got,
                          vkfx_pixels *want)
{
    ref_image a = {0}, b = {0};
    cr_assert_eq(ref_decode(in, linear, &a), 0, "ref_decode: %s", vkfx_error_message());
    cr_assert_eq(fn(&a, &b), 0, "reference filter: %s", vkfx_error_message());
    *want = (vkfx_pixels){.channels = got->channels, .sample = got->sample};
    cr_assert_eq(ref_encode(&b, linear, want), 0, "ref_encode: %s", vkfx_error_message());
    ref_image_free(&a);
    ref_image_free(&b);
}

static void expect_close(const vkfx_pixels *got, const vkfx_pixels *want, double tol,
                         const char *what)
{
    tc_diff d = tc_compare(got, want, tol);
    if (!tc_diff_ok(&d))
        tc_report(&d, what);
    cr_assert(tc_diff_ok(&d),
              "%s differs from the C reference by more than %g (worst %g at "
              "x=%u y=%u c=%u: got %g want %g)",
              what, tol, d.max_abs, d.x, d.y, d.c, d.got, d.want);
}

static int ref_gauss2(const ref_image *in, ref_image *out)
{
    return ref_gauss(in, 2.0, -1, out);
}

static int ref_box3(const ref_image *in, ref_image *out)
{
    return ref_box(in, 3, out);
}

static int ref_sobel_default(const ref_image *in, ref_image *out)
{
    return ref_sobel(in, option_default("sobel", "invert") != 0, option_default("sobel", "gain"),
                     out);
}

static int ref_cartoon_default(const ref_image *in, ref_image *out)
{
    return ref_cartoon(in, option_default("cartoon", "sigma"), option_default("cartoon", "gain"),
                       out);
}

static int ref_gauss1_sobel_inverted(const ref_image *in, ref_image *out)
{
    ref_image mid = {0};
    int ret = ref_gauss(in, 1.0, -1, &mid);
    if (ret == 0)
        ret = ref_sobel(&mid, true, option_default("sobel", "gain"), out);
    ref_image_free(&mid);
    return ret;
}

/* Runs in.png (w x h, channels, sample) through chain into out_name with
 * extra arguments; checks a clean exit and the output's size; returns the
 * input and the output as loaded. */
static void run_ok(const char *chain, const char *out_name, uint32_t channels, vkfx_sample s,
                   const char *const *extra, vkfx_pixels *in, vkfx_pixels *got)
{
    const uint32_t w = 64, h = 48;
    write_random_png(tc_tpath("in.png"), w, h, channels, s, 42 + channels, in);
    const char *args[16] = {tc_tpath("in.png"), "-f", chain, "-o", tc_tpath(out_name)};
    size_t n = 5;
    for (size_t i = 0; extra && extra[i]; i++)
        args[n++] = extra[i];
    args[n] = NULL;
    cli_run r = {0};
    run_with(&r, NULL, args);
    expect_ok(&r);
    load_ok(tc_tpath(out_name), got);
    cr_assert(got->width == w && got->height == h, "%s: output is %ux%u, input %ux%u", r.cmd,
              got->width, got->height, w, h);
    run_free(&r);
}

/* The RGBA 8-bit run of one chain, checked against its reference. The
 * tolerance is one code value: rgba16f holds 11 significant bits, more than
 * the 8 the file keeps. */
static void check_chain(const char *chain, ref_fn fn)
{
    vkfx_pixels in = {0}, got = {0}, want = {0};
    run_ok(chain, "out.png", 4, VKFX_SAMPLE_U8, NULL, &in, &got);
    cr_assert(got.channels == 4 && got.sample == VKFX_SAMPLE_U8,
              "%s: RGBA 8-bit in, %u channels of sample type %d out", chain, got.channels,
              got.sample);
    reference_run(&in, false, fn, &got, &want);
    expect_close(&got, &want, 1.0, chain);
    vkfx_pixels_free(&in);
    vkfx_pixels_free(&got);
    vkfx_pixels_free(&want);
}

Test(cli, run_gauss)
{
    check_chain("gauss:sigma=2", ref_gauss2);
}

Test(cli, run_box)
{
    check_chain("box:radius=3", ref_box3);
}

Test(cli, run_sobel)
{
    check_chain("sobel", ref_sobel_default);
}

Test(cli, run_cartoon)
{
    check_chain("cartoon", ref_cartoon_default);
}

Test(cli, run_chain_of_two)
{
    check_chain("gauss:sigma=1,sobel:invert=1", ref_gauss1_sobel_inverted);
}

/* The library-equality check the README promises: a CLI run gives what the
 * reference pipeline gives, within one code value on every sample. */
Test(cli, cli_result_equals_library_result)
{
    vkfx_pixels in = {0}, got = {0}, want = {0};
    write_random_png(tc_tpath("in.png"), 64, 48, 4, VKFX_SAMPLE_U8, 99, NULL);
    cli_run r = {0};
    VKFX(&r, tc_tpath("in.png"), "-f", "gauss:sigma=2", "-o", tc_tpath("out.png"));
    expect_ok(&r);
    load_ok(tc_tpath("in.png"), &in);
    load_ok(tc_tpath("out.png"), &got);
    reference_run(&in, false, ref_gauss2, &got, &want);
    cr_assert(got.channels == 4 && got.sample == VKFX_SAMPLE_U8);
    expect_close(&got, &want, 1.0, "vkfx in.png -f gauss:sigma=2 -o out.png");
    vkfx_pixels_free(&in);
    vkfx_pixels_free(&got);
    vkfx_pixels_free(&want);
    run_free(&r);
}

Test(cli, gray_stays_gray)
{
    vkfx_pixels in = {0}, got = {0}, want = {0};
    run_ok("gauss:sigma=2", "out.png", 1, VKFX_SAMPLE_U8, NULL, &in, &got);
    cr_assert(got.channels == 1 && got.sample == VKFX_SAMPLE_U8,
              "gray 8-bit in, %u channels of sample type %d out", got.channels, got.sample);
    reference_run(&in, false, ref_gauss2, &got, &want);
    expect_close(&got, &want, 1.0, "gray gauss:sigma=2");
    vkfx_pixels_free(&in);
    vkfx_pixels_free(&got);
    vkfx_pixels_free(&want);
}

Test(cli, gray_alpha_stays_gray_alpha)
{
    vkfx_pixels in = {0}, got = {0};
    run_ok("box:radius=1", "out.png", 2, VKFX_SAMPLE_U8, NULL, &in, &got);
    cr_assert(got.channels == 2 && got.sample == VKFX_SAMPLE_U8,
              "gray+alpha 8-bit in, %u channels of sample type %d out", got.channels, got.sample);
    vkfx_pixels_free(&in);
    vkfx_pixels_free(&got);
}

Test(cli, sixteen_bit_stays_sixteen_bit)
{
    vkfx_pixels in = {0}, got = {0}, want = {0};
    run_ok("gauss:sigma=2", "out.png", 4, VKFX_SAMPLE_U16, NULL, &in, &got);
    cr_assert(got.channels == 4 && got.sample == VKFX_SAMPLE_U16,
              "RGBA 16-bit in, %u channels of sample type %d out", got.channels, got.sample);
    /* Not 8-bit data widened: most samples use the low byte. */
    const uint16_t *p = got.data;
    size_t n = (size_t)got.width * got.height * got.channels, fine = 0;
    for (size_t i = 0; i < n; i++)
        fine += p[i] % 257 != 0;
    cr_assert_gt(fine, n / 2, "only %zu of %zu samples are not multiples of 257", fine, n);
    /* The default rgba16f holds 11 significant bits: a few roundings of
     * 2^-12 through the sRGB curve stay below 2^-9 of full scale. */
    reference_run(&in, false, ref_gauss2, &got, &want);
    expect_close(&got, &want, 128.0, "16-bit gauss:sigma=2");
    vkfx_pixels_free(&in);
    vkfx_pixels_free(&got);
    vkfx_pixels_free(&want);
}

Test(cli, jpeg_output_is_rgb_8bit)
{
    vkfx_pixels in = {0}, got = {0};
    run_ok("gauss:sigma=2", "out.jpg", 4, VKFX_SAMPLE_U8,
           (const char *[]){"--background", "black", NULL}, &in, &got);
    cr_assert(got.channels == 3 && got.sample == VKFX_SAMPLE_U8,
              "jpg out: %u channels of sample type %d", got.channels, got.sample);
    vkfx_pixels_free(&in);
    vkfx_pixels_free(&got);
}

/* JPEG stores gray (one component), so gray stays gray there too, as
 * --help promises: "the output keeps the input's channels ... where its
 * format can store them". */
Test(cli, gray_jpeg_output_is_gray)
{
    vkfx_pixels in = {0}, got = {0};
    run_ok("gauss:sigma=2", "out.jpg", 1, VKFX_SAMPLE_U8, NULL, &in, &got);
    cr_assert(got.channels == 1 && got.sample == VKFX_SAMPLE_U8,
              "gray in, jpg out: %u channels of sample type %d, want 1 channel 8-bit",
              got.channels, got.sample);
    vkfx_pixels_free(&in);
    vkfx_pixels_free(&got);
}

Test(cli, hdr_output_is_float)
{
    vkfx_pixels in = {0}, got = {0};
    run_ok("gauss:sigma=2", "out.hdr", 4, VKFX_SAMPLE_U8,
           (const char *[]){"--background", "black", NULL}, &in, &got);
    cr_assert(got.sample == VKFX_SAMPLE_F32 && got.channels == 3,
              "hdr out: %u channels of sample type %d", got.channels, got.sample);
    vkfx_pixels_free(&in);
    vkfx_pixels_free(&got);
}

/* rgba32f is what lets a 16-bit file through at full depth: rgba16f keeps
 * 11 significant bits and misses the reference by tens of codes there,
 * rgba32f stays within one or two. */
Test(cli, precision_32)
{
    const char *const extra[] = {"--precision", "32", NULL};
    vkfx_pixels in = {0}, got = {0}, want = {0};
    run_ok("gauss:sigma=2", "out.png", 4, VKFX_SAMPLE_U16, extra, &in, &got);
    cr_assert(got.channels == 4 && got.sample == VKFX_SAMPLE_U16);
    reference_run(&in, false, ref_gauss2, &got, &want);
    expect_close(&got, &want, 2.0, "16-bit gauss:sigma=2 --precision 32");
    vkfx_pixels_free(&in);
    vkfx_pixels_free(&got);
    vkfx_pixels_free(&want);
}

/* --linear skips the sRGB transfer: the result matches the linear
 * reference, which on random data is far from the sRGB one. */
Test(cli, linear)
{
    const char *const extra[] = {"--linear", NULL};
    vkfx_pixels in = {0}, got = {0}, want = {0}, srgb = {0};
    run_ok("gauss:sigma=2", "out.png", 4, VKFX_SAMPLE_U8, extra, &in, &got);
    reference_run(&in, true, ref_gauss2, &got, &want);
    reference_run(&in, false, ref_gauss2, &got, &srgb);
    tc_diff apart = tc_compare(&want, &srgb, 1.0);
    cr_assert(!tc_diff_ok(&apart), "the test image cannot tell --linear from sRGB");
    expect_close(&got, &want, 1.0, "gauss:sigma=2 --linear");
    vkfx_pixels_free(&in);
    vkfx_pixels_free(&got);
    vkfx_pixels_free(&want);
    vkfx_pixels_free(&srgb);
}

/* --timings: every stderr line "vkfx: LABEL N ms", a total last, equal to
 * the sum of the passes. */
Test(cli, timings)
{
    write_random_png(tc_tpath("in.png"), 32, 24, 4, VKFX_SAMPLE_U8, 8, NULL);
    cli_run r = {0};
    VKFX(&r, tc_tpath("in.png"), "-f", "gauss:sigma=1,sobel", "-o", tc_tpath("out.png"),
         "--timings");
    cr_assert_eq(r.status, 0, "%s: exit %d; stderr:\n%s", r.cmd, r.status, r.err);
    cr_assert_str_empty(r.out);
    /* The GPU's passes and their total, then the host's wall clock (its
     * lines end in "(wall...)", tests/test_jobs.c reads them). */
    size_t lines = count_lines(r.err), wall_lines = 0;
    for (const char *w = strstr(r.err, "(wall"); w; w = strstr(w + 1, "(wall"))
        wall_lines++;
    lines -= wall_lines;
    cr_assert_geq(lines, 3, "want a line per pass and a total, got:\n%s", r.err);
    double sum = 0, total = -1;
    size_t seen = 0;
    char *copy = strdup(r.err), *save = NULL;
    for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        /* "vkfx: LABEL N ms[ (note)]"; a label may hold spaces. */
        cr_assert(!strncmp(l, "vkfx: ", 6), "not a vkfx line: '%s'", l);
        if (strstr(l, "(wall")) {
            cr_assert_geq(total, 0, "a wall-clock line before the GPU total:\n%s", r.err);
            continue;
        }
        char *ms_at = strstr(l, " ms");
        cr_assert(ms_at && (ms_at[3] == 0 || ms_at[3] == ' '), "no ' ms' in '%s'", l);
        *ms_at = 0;
        char *num = strrchr(l, ' ');
        char *end = NULL;
        double ms = strtod(num + 1, &end);
        cr_assert(num > l + 5 && end != num + 1 && !*end, "no number before 'ms' in '%s'", l);
        cr_assert(ms >= 0, "negative time in '%s'", l);
        while (num > l + 6 && num[-1] == ' ')
            num--;
        *num = 0;
        const char *label = l + 6;
        cr_assert(*label, "no label in a timing line");
        seen++;
        if (!strcmp(label, "total")) {
            cr_assert_eq(seen, lines, "the total is not the last line:\n%s", r.err);
            total = ms;
        } else {
            sum += ms;
        }
    }
    free(copy);
    cr_assert_geq(total, 0, "no total line:\n%s", r.err);
    cr_assert(sum > 0, "every pass took 0 ms:\n%s", r.err);
    cr_assert(total > sum - 0.001 * (double)lines && total < sum + 0.001 * (double)lines,
              "total %.3f is not the sum %.3f of the passes:\n%s", total, sum, r.err);
    vkfx_pixels got = {0};
    load_ok(tc_tpath("out.png"), &got);
    vkfx_pixels_free(&got);
    run_free(&r);
}

/* -q reaches the JPEG writer: quality 50 gives a smaller file than 100. */
Test(cli, jpeg_quality)
{
    write_random_png(tc_tpath("in.png"), 64, 48, 3, VKFX_SAMPLE_U8, 9, NULL);
    cli_run r = {0};
    VKFX(&r, tc_tpath("in.png"), "-f", "box:radius=1", "-o", tc_tpath("q50.jpg"), "-q", "50");
    expect_ok(&r);
    run_free(&r);
    VKFX(&r, tc_tpath("in.png"), "-f", "box:radius=1", "-o", tc_tpath("q100.jpg"), "--quality",
         "100");
    expect_ok(&r);
    run_free(&r);
    vkfx_pixels got = {0};
    load_ok(tc_tpath("q50.jpg"), &got);
    cr_assert(got.width == 64 && got.height == 48 && got.channels == 3 &&
              got.sample == VKFX_SAMPLE_U8);
    vkfx_pixels_free(&got);
    struct stat s50, s100;
    cr_assert_eq(stat(tc_tpath("q50.jpg"), &s50), 0);
    cr_assert_eq(stat(tc_tpath("q100.jpg"), &s100), 0);
    cr_assert_lt(s50.st_size, s100.st_size, "-q 50 gave %lld bytes, -q 100 %lld",
                 (long long)s50.st_size, (long long)s100.st_size);
}

/* A successful run over an existing output replaces it and leaves nothing
 * else beside it. */
Test(cli, success_replaces_the_output_and_leaves_no_temporary)
{
    write_random_png(tc_tpath("in.png"), 16, 12, 4, VKFX_SAMPLE_U8, 10, NULL);
    write_random_png(tc_tpath("out.png"), 5, 3, 3, VKFX_SAMPLE_U8, 11, NULL);
    cli_run r = {0};
    VKFX(&r, tc_tpath("in.png"), "-f", "sobel", "-o", tc_tpath("out.png"));
    expect_ok(&r);
    snapshot now;
    snap_take(&now, tc_tmpdir);
    char names[512];
    snap_names(&now, names, sizeof(names));
    cr_assert_str_eq(names, "in.png out.png");
    snap_free(&now);
    vkfx_pixels got = {0};
    load_ok(tc_tpath("out.png"), &got);
    cr_assert(got.width == 16 && got.height == 12 && got.channels == 4);
    vkfx_pixels_free(&got);
    run_free(&r);
}

/* ------------------------------------------------------------------------ */
/* Informational commands */

Test(cli, help_mentions_every_option)
{
    cli_run r = {0};
    VKFX(&r, "--help");
    cr_assert_eq(r.status, 0, "exit %d; stderr:\n%s", r.status, r.err);
    cr_assert_str_empty(r.err);
    static const char *const want[] = {
        "-f, --filter",       "-o, --output",       "-q, --quality",   "--precision",
        "--linear",           "--timings",          "--device",        "--filters",
        "--help-filter",      "--list-devices",     "--version",       "--help",
        "--jpeg-subsampling", "--jpeg-progressive", "--png-level",     "--tiff-compression",
        "--lossless",         "exit status",        "--jpeg-optimize",
    };
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
        cr_assert(find_ci(r.out, want[i]), "--help does not mention '%s':\n%s", want[i], r.out);
    run_free(&r);
    VKFX(&r, "-h");
    cr_assert_eq(r.status, 0);
    cr_assert(strstr(r.out, "--list-devices"), "-h is not --help:\n%s", r.out);
    run_free(&r);
}

Test(cli, filters_lists_one_per_line)
{
    cli_run r = {0};
    VKFX(&r, "--filters");
    cr_assert_eq(r.status, 0, "exit %d; stderr:\n%s", r.status, r.err);
    cr_assert_str_empty(r.err);
    static const char *const want[] = {"gauss", "box", "sobel", "cartoon"};
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        size_t found = 0;
        char *copy = strdup(r.out), *save = NULL;
        for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
            size_t n = strlen(want[i]);
            if (!strncmp(l, want[i], n) && (l[n] == ' ' || l[n] == '\t'))
                found++;
        }
        free(copy);
        cr_assert_eq(found, 1, "--filters has %zu lines starting with '%s':\n%s", found, want[i],
                     r.out);
    }
    for (const vkfx_filter *const *f = vkfx_filters; *f; f++)
        cr_assert(strstr(r.out, (*f)->help), "--filters lacks the help of %s:\n%s", (*f)->name,
                  r.out);
    run_free(&r);
}

Test(cli, help_filter_gauss_lists_options_and_ranges)
{
    cli_run r = {0};
    VKFX(&r, "--help-filter", "gauss");
    cr_assert_eq(r.status, 0, "exit %d; stderr:\n%s", r.status, r.err);
    cr_assert_str_empty(r.err);
    static const char *const want[] = {"sigma", "radius"};
    for (size_t i = 0; i < 2; i++) {
        char range[80];
        snprintf(range, sizeof(range), "range %s", option_range("gauss", want[i]));
        bool found = false;
        char *copy = strdup(r.out), *save = NULL;
        for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
            while (*l == ' ')
                l++;
            size_t n = strlen(want[i]);
            if (!strncmp(l, want[i], n) && l[n] == ' ' && strstr(l, range))
                found = true;
        }
        free(copy);
        cr_assert(found, "--help-filter gauss has no line for %s with '%s':\n%s", want[i], range,
                  r.out);
    }
    run_free(&r);
}

Test(cli, help_filter_unknown)
{
    cli_run r = {0};
    VKFX(&r, "--help-filter", "nosuch");
    EXPECT_ERROR(&r, 2, "'nosuch'");
    run_free(&r);
    VKFX(&r, "--help-filter", "sobl");
    EXPECT_ERROR(&r, 2, "'sobl'", "did you mean 'sobel'");
    run_free(&r);
}

/* Device names from --list-devices ("* 0: NAME [TYPE] ..."), and the index
 * of the line marked '*'. */
static size_t list_devices(char names[][256], size_t cap, int *star)
{
    cli_run r = {0};
    VKFX(&r, "--list-devices");
    cr_assert_eq(r.status, 0, "--list-devices: exit %d; stderr:\n%s", r.status, r.err);
    cr_assert_str_empty(r.err, "--list-devices wrote to stderr:\n%s", r.err);
    size_t n = 0;
    *star = -1;
    char *copy = strdup(r.out), *save = NULL;
    for (char *l = strtok_r(copy, "\n", &save); l && n < cap; l = strtok_r(NULL, "\n", &save)) {
        unsigned index;
        int used = 0;
        cr_assert(l[0] == '*' || l[0] == ' ', "--list-devices: odd line '%s'", l);
        cr_assert_eq(sscanf(l + 1, " %u: %n", &index, &used), 1, "--list-devices: odd line '%s'",
                     l);
        cr_assert_eq(index, n, "--list-devices: line '%s' out of order", l);
        const char *name = l + 1 + used;
        const char *end = strstr(name, " [");
        cr_assert(end && end > name, "--list-devices: no name in '%s'", l);
        snprintf(names[n], 256, "%.*s", (int)(end - name), name);
        if (l[0] == '*') {
            cr_assert_eq(*star, -1, "--list-devices: two lines marked '*':\n%s", r.out);
            *star = (int)n;
        }
        n++;
    }
    free(copy);
    run_free(&r);
    return n;
}

Test(cli, list_devices_marks_the_default)
{
    char names[16][256];
    int star;
    size_t n = list_devices(names, 16, &star);
    cr_assert_geq(n, 1, "--list-devices lists no device");
    cr_assert_geq(star, 0, "--list-devices marks no device with '*'");
}

Test(cli, version)
{
    size_t size;
    char *meson = (char *)slurp(VKFX_SOURCE_ROOT "/meson.build", &size);
    meson = realloc(meson, size + 1);
    meson[size] = 0;
    const char *v = strstr(meson, "version :");
    cr_assert(v, "no version in meson.build");
    v = strchr(v, '\'');
    cr_assert(v);
    char want[64];
    snprintf(want, sizeof(want), "vkfx %.*s\n", (int)strcspn(v + 1, "'"), v + 1);
    free(meson);
    cli_run r = {0};
    VKFX(&r, "--version");
    cr_assert_eq(r.status, 0);
    cr_assert_str_empty(r.err);
    cr_assert_str_eq(r.out, want);
    cr_assert(isdigit((unsigned char)r.out[5]), "no version number in '%s'", r.out);
    run_free(&r);
}

Test(cli, unknown_device)
{
    char names[16][256];
    int star;
    size_t n = list_devices(names, 16, &star);
    write_random_png(tc_tpath("in.png"), 16, 12, 4, VKFX_SAMPLE_U8, 12, NULL);
    snapshot before;
    snap_take(&before, tc_tmpdir);
    cli_run r = {0};
    VKFX(&r, tc_tpath("in.png"), "-f", "sobel", "-o", tc_tpath("out.png"), "--device",
         "nosuchdevice");
    EXPECT_ERROR(&r, 2, "'nosuchdevice'");
    for (size_t i = 0; i < n; i++)
        cr_assert(strstr(r.err, names[i]), "the message does not list device '%s':\n%s", names[i],
                  r.err);
    expect_unchanged(&before, tc_tmpdir, r.cmd);
    snap_free(&before);
    run_free(&r);
}

Test(cli, device_by_index_and_by_name)
{
    char names[16][256];
    int star;
    list_devices(names, 16, &star);
    cr_assert_geq(star, 0);
    write_random_png(tc_tpath("in.png"), 16, 12, 4, VKFX_SAMPLE_U8, 13, NULL);
    char index[16];
    snprintf(index, sizeof(index), "%d", star);
    cli_run r = {0};
    VKFX(&r, tc_tpath("in.png"), "-f", "sobel", "-o", tc_tpath("a.png"), "--device", index);
    expect_ok(&r);
    run_free(&r);
    /* The first word of the name, a substring of it. */
    char word[256];
    snprintf(word, sizeof(word), "%.*s", (int)strcspn(names[star], " "), names[star]);
    VKFX(&r, tc_tpath("in.png"), "-f", "sobel", "-o", tc_tpath("b.png"), "--device", word);
    expect_ok(&r);
    run_free(&r);
    size_t na, nb;
    unsigned char *a = slurp(tc_tpath("a.png"), &na), *b = slurp(tc_tpath("b.png"), &nb);
    cr_assert(na == nb && !memcmp(a, b, na), "the same device gave two different files");
    free(a);
    free(b);
}

/* vkfx bench on a small image: every case present in the JSON with a
 * positive time, the copy kernel first with ratio 1, then the read-only
 * reference and the table-sized copy, then the chains in order, and per-pass medians
 * that add up to no more than the case's median of sums. */
Test(cli, bench_json)
{
    cli_run r = {0};
    VKFX(&r, "bench", "--size", "64x48", "--reps", "3", "--json", "gauss:sigma=8", "sobel");
    cr_assert_eq(r.status, 0, "stderr: %s", r.err);
    const char *names[] = {"\"copy\"", "\"read\"", "\"copy-sat\"", "\"gauss:sigma=8\"",
                           "\"sobel\""};
    const char *at = r.out;
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        const char *p = strstr(at, names[i]);
        cr_assert(p, "bench JSON lacks %s (or out of order): %s", names[i], r.out);
        double ms = -1, ratio = -1;
        const char *m = strstr(p, "\"ms\": ");
        const char *v = strstr(p, "\"vs_copy\": ");
        cr_assert(m && v && sscanf(m + 6, "%lf", &ms) == 1 && sscanf(v + 11, "%lf", &ratio) == 1,
                  "no ms/vs_copy after %s", names[i]);
        cr_assert_gt(ms, 0.0, "%s: %g ms", names[i], ms);
        if (i == 0)
            cr_assert_float_eq(ratio, 1.0, 1e-9);
        at = p + 1;
    }
    cr_assert(strstr(r.out, "\"gauss.h\"") && strstr(r.out, "\"gauss.v\""),
              "no per-pass times for gauss (two passes at radius 24): %s", r.out);
    cr_assert(strstr(r.out, "\"width\": 64, \"height\": 48"), "size not reported: %s", r.out);
    run_free(&r);
}

Test(cli, bench_usage_errors)
{
    cli_run r = {0};
    VKFX(&r, "bench", "--size", "0x10");
    cr_assert_eq(r.status, 2, "--size 0x10: status %d", r.status);
    run_free(&r);
    VKFX(&r, "bench", "--size", "64x64", "gaus:sigma=2");
    cr_assert_eq(r.status, 2, "bad chain: status %d", r.status);
    cr_assert(strstr(r.err, "did you mean 'gauss'"), "bad chain message: %s", r.err);
    run_free(&r);
    VKFX(&r, "bench", "--reps", "0");
    cr_assert_eq(r.status, 2, "--reps 0: status %d", r.status);
    run_free(&r);
}
