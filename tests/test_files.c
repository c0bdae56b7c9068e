/* What vkfx does to files around the image, through the binary on lavapipe:
 * a file written that is also read (histogram's out= and plot= naming the
 * input, a depth map named as the output, links and other spellings) or
 * written twice is refused before any work; side outputs without a template
 * field in a batch are refused; replaced files keep their mode, read-only
 * ones, another user's and (-n) existing ones are kept; long names work; the README's batch
 * commands create their folders; directory scans take regular files only;
 * a FIFO input gives way to SIGINT and SIGTERM; every stop signal leaves no
 * temporary and exits 128 + the signal; standard output closed early, or
 * full, is an error without a file in $TMPDIR; control bytes in names are
 * escaped in messages; a pipeline cache that is a FIFO or a folder is
 * ignored, and so is any cache file that is not a regular file; an endless
 * input is cut off, /dev/zero on its first bytes; every file written is
 * flushed to disk before it is renamed into place (unless --no-fsync). */
#include <criterion/criterion.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "error.h"
#include "fileio.h"
#include "run_binary.h"

static void setup(void)
{
    cr_assert_eq(tc_tmpdir_make("files"), 0);
    cr_assert_eq(mkdir(tc_tpath("in"), 0777), 0);
    /* Tests never touch the real cache directory. */
    setenv("XDG_CACHE_HOME", tc_tpath("cache"), 1);
}

static void teardown(void)
{
    tc_tmpdir_remove();
}

TestSuite(files, .init = setup, .fini = teardown);

static void write_png(const char *path, uint32_t w, uint32_t h, uint64_t seed)
{
    vkfx_pixels px;
    tc_random_pixels(&px, w, h, 3, VKFX_SAMPLE_U8, seed);
    cr_assert_eq(vkfx_file_save(path, VKFX_FILE_PNG, &px, NULL), VKFX_OK, "%s",
                 vkfx_error_message());
    vkfx_pixels_free(&px);
}

/* n random images in/f00.png, in/f01.png... of w x h, from seeds seed, seed + 1... */
static void write_inputs(int n, uint32_t w, uint32_t h, uint64_t seed)
{
    for (int i = 0; i < n; i++) {
        char path[1024];
        snprintf(path, sizeof(path), "%s/f%02d.png", tc_tpath("in"), i);
        write_png(path, w, h, seed + (uint64_t)i);
    }
}

static bool same_bytes(const char *a, const char *b)
{
    size_t na, nb;
    char *x = tc_slurp(a, &na), *y = tc_slurp(b, &nb);
    bool same = x && y && na == nb && memcmp(x, y, na) == 0;
    free(x);
    free(y);
    return same;
}

#define EXPECT_EXIT(r, code, ...)                                                                  \
    cr_assert((r)->status == (code), "%s: exit %d, not %d: %s", (r)->cmd, (r)->status, (code),     \
              (r)->err)

static void expect_in_err(const cli_run *r, const char *what)
{
    cr_assert(strstr(r->err, what), "%s: no '%s' in: %s", r->cmd, what, r->err);
}

Test(files, a_file_written_that_is_read_is_refused)
{
    const char *in = tc_tpath("in/a.png"), *depth = tc_tpath("in/d.png");
    write_png(in, 24, 16, 1);
    write_png(depth, 24, 16, 2);
    char keep_in[1100], keep_depth[1100];
    snprintf(keep_in, sizeof(keep_in), "%s.keep", in);
    snprintf(keep_depth, sizeof(keep_depth), "%s.keep", depth);
    write_png(keep_in, 24, 16, 1);
    write_png(keep_depth, 24, 16, 2);
    char chain[2048];
    cli_run r;
    const char *opts[] = {"out", "plot"};
    for (int i = 0; i < 2; i++) {
        snprintf(chain, sizeof(chain), "histogram:%s=%s", opts[i], in);
        VKFX(&r, in, "-f", chain, "-o", tc_tpath("o.png"));
        EXPECT_EXIT(&r, 2);
        expect_in_err(&r, "which this run reads");
        expect_in_err(&r, "(input)");
        run_free(&r);
    }
    /* A depth map named as the output. */
    snprintf(chain, sizeof(chain), "satdof:depth=%s", depth);
    VKFX(&r, in, "-f", chain, "-o", depth);
    EXPECT_EXIT(&r, 2);
    expect_in_err(&r, "satdof:depth of");
    run_free(&r);
    /* The same file by a hard link and by another spelling. */
    cr_assert_eq(link(in, tc_tpath("link.png")), 0);
    VKFX(&r, in, "-f", "box3", "-o", tc_tpath("link.png"));
    EXPECT_EXIT(&r, 2);
    run_free(&r);
    snprintf(chain, sizeof(chain), "satdof:depth=%s/../in/./d.png", tc_tpath("in"));
    VKFX(&r, in, "-f", chain, "-o", tc_tpath("in//d.png"));
    EXPECT_EXIT(&r, 2);
    run_free(&r);
    /* A side output and the output are one file: written twice. */
    snprintf(chain, sizeof(chain), "histogram:plot=%s", tc_tpath("o.png"));
    VKFX(&r, in, "-f", chain, "-o", tc_tpath("./o.png"));
    EXPECT_EXIT(&r, 2);
    expect_in_err(&r, "would both be written");
    run_free(&r);
    cr_assert(same_bytes(in, keep_in) && same_bytes(depth, keep_depth), "a file read was touched");
    char names[1024];
    tc_list_dir(tc_tmpdir, true, names, sizeof(names));
    cr_assert_str_eq(names, "in link.png", "a refused run wrote: %s", names);
}

/* As root, renaming over /dev/null would replace the device with a file. */
Test(files, side_outputs_to_devices_are_written_through)
{
    write_png(tc_tpath("in/a.png"), 24, 16, 3);
    struct stat before, after;
    cr_assert_eq(stat("/dev/null", &before), 0);
    cli_run r;
    /* Written twice: a device takes both. */
    VKFX(&r, tc_tpath("in/a.png"), "-f", "histogram:out=/dev/null", "-o", tc_tpath("o.png"),
         "--json=/dev/null");
    EXPECT_EXIT(&r, 0);
    run_free(&r);
    /* A FIFO: the JSON arrives through it; it is still a FIFO after. */
    cr_assert_eq(mkfifo(tc_tpath("h.fifo"), 0600), 0);
    char chain[1100];
    snprintf(chain, sizeof(chain), "histogram:out=%s", tc_tpath("h.fifo"));
    FILE *reader = NULL;
    char cmd[1200];
    snprintf(cmd, sizeof(cmd), "cat '%s' > '%s'", tc_tpath("h.fifo"), tc_tpath("h.json"));
    reader = popen(cmd, "r");
    cr_assert(reader);
    VKFX(&r, tc_tpath("in/a.png"), "-f", chain, "-o", tc_tpath("o.png"));
    EXPECT_EXIT(&r, 0);
    run_free(&r);
    cr_assert_eq(pclose(reader), 0);
    size_t n;
    char *json = tc_slurp(tc_tpath("h.json"), &n);
    cr_assert(json && strstr(json, "\"pixels\": 384"), "%s", json ? json : "(none)");
    free(json);
    struct stat st;
    cr_assert(stat(tc_tpath("h.fifo"), &st) == 0 && S_ISFIFO(st.st_mode), "the FIFO was replaced");
    cr_assert_eq(stat("/dev/null", &after), 0);
    cr_assert(S_ISCHR(after.st_mode) && after.st_ino == before.st_ino, "/dev/null was replaced");
}

Test(files, batch_side_output_needs_a_template_field)
{
    write_png(tc_tpath("in/a.png"), 24, 16, 4);
    write_png(tc_tpath("in/b.png"), 24, 16, 5);
    char chain[1100];
    snprintf(chain, sizeof(chain), "histogram:out=%s", tc_tpath("h.json"));
    cli_run r;
    VKFX(&r, "-f", chain, "-o", tc_tpath("out/{stem}.png"), tc_tpath("in"));
    EXPECT_EXIT(&r, 2);
    expect_in_err(&r, "template field");
    run_free(&r);
    char names[1024];
    tc_list_dir(tc_tmpdir, true, names, sizeof(names));
    cr_assert_str_eq(names, "in", "a refused batch wrote: %s", names);
    snprintf(chain, sizeof(chain), "histogram:out=%s", tc_tpath("{stem}.json"));
    VKFX(&r, "-f", chain, "-o", tc_tpath("out/{stem}.png"), tc_tpath("in"));
    EXPECT_EXIT(&r, 0);
    run_free(&r);
    tc_list_dir(tc_tmpdir, true, names, sizeof(names));
    cr_assert_str_eq(names, "a.json b.json cache in out");
}

Test(files, replaced_outputs_keep_their_mode_and_read_only_ones_stay)
{
    const char *in = tc_tpath("in/a.png"), *out = tc_tpath("o.png");
    write_png(in, 24, 16, 6);
    write_png(out, 5, 5, 7);
    cr_assert_eq(chmod(out, 0600), 0);
    cli_run r;
    VKFX(&r, in, "-f", "box3", "-o", out);
    EXPECT_EXIT(&r, 0);
    run_free(&r);
    struct stat st;
    cr_assert_eq(stat(out, &st), 0);
    cr_assert_eq(st.st_mode & 07777, 0600, "mode %04o", (unsigned)(st.st_mode & 07777));
    write_png(tc_tpath("keep.png"), 5, 5, 8);
    cr_assert_eq(rename(tc_tpath("keep.png"), out), 0);
    write_png(tc_tpath("keep.png"), 5, 5, 8);
    cr_assert_eq(chmod(out, 0444), 0);
    VKFX(&r, in, "-f", "box3", "-o", out);
    EXPECT_EXIT(&r, 2);
    expect_in_err(&r, "read-only");
    run_free(&r);
    cr_assert(same_bytes(out, tc_tpath("keep.png")), "the read-only file was replaced");
    /* -n: every existing output named, none replaced, before any work. */
    cr_assert_eq(chmod(out, 0644), 0);
    write_png(tc_tpath("in/b.png"), 24, 16, 9);
    cr_assert_eq(mkdir(tc_tpath("out"), 0777), 0);
    write_png(tc_tpath("out/a.png"), 5, 5, 10);
    write_png(tc_tpath("out/b.png"), 5, 5, 11);
    VKFX(&r, "-n", "-f", "box3", "--outdir", tc_tpath("out"), tc_tpath("in"));
    EXPECT_EXIT(&r, 2);
    expect_in_err(&r, "out/a.png");
    expect_in_err(&r, "out/b.png");
    run_free(&r);
    VKFX(&r, "--no-clobber", in, "-f", "box3", "-o", tc_tpath("new.png"));
    EXPECT_EXIT(&r, 0);
    run_free(&r);
}

Test(files, an_output_name_of_250_bytes)
{
    write_png(tc_tpath("in/a.png"), 24, 16, 12);
    char name[256];
    memset(name, 'x', 246);
    strcpy(name + 246, ".png");
    cli_run r;
    VKFX(&r, tc_tpath("in/a.png"), "-f", "box3", "-o", tc_tpath(name));
    EXPECT_EXIT(&r, 0);
    run_free(&r);
    vkfx_pixels px;
    cr_assert_eq(vkfx_file_load(tc_tpath(name), &px), VKFX_OK, "%s", vkfx_error_message());
    vkfx_pixels_free(&px);
}

/* The lines of the fsync/rename trace (tests/sync_trace.c) of one run of
 * args, NULL-terminated, in *n. */
static char **traced_run(const char *const *args, int want_exit, size_t *n)
{
    const char *log = tc_tpath("trace.txt");
    unlink(log);
    setenv("VKFX_SYNC_TRACE", log, 1);
    setenv("LD_PRELOAD", VKFX_SYNC_TRACE_LIB, 1);
    /* An ASan build's runtime is linked in; the preloaded library may come first. */
    const char *asan = getenv("ASAN_OPTIONS");
    char *saved = asan ? strdup(asan) : NULL, opts[1024];
    snprintf(opts, sizeof(opts), "%s%sverify_asan_link_order=0", asan ? asan : "", asan ? ":" : "");
    setenv("ASAN_OPTIONS", opts, 1);
    cli_run r;
    run_with(&r, NULL, args);
    unsetenv("LD_PRELOAD");
    unsetenv("VKFX_SYNC_TRACE");
    if (saved)
        setenv("ASAN_OPTIONS", saved, 1);
    else
        unsetenv("ASAN_OPTIONS");
    free(saved);
    EXPECT_EXIT(&r, want_exit);
    run_free(&r);
    size_t len;
    char *text = tc_slurp(log, &len);
    cr_assert(text, "no trace at %s", log);
    char **lines = calloc(len + 1, sizeof(*lines));
    *n = 0;
    for (char *save = NULL, *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
        lines[(*n)++] = strdup(l);
    free(text);
    return lines;
}

static void free_lines(char **lines, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(lines[i]);
    free(lines);
}

/* -o /dev/null times a run without its write: the encoder writes to the device itself, with no
 * temporary beside it and no copy in a memory file (the trace shows neither), a batch of
 * several inputs included; the format is --format's (PNG without it). A device that fails the
 * write (/dev/full) says why; a FIFO without an extension gets --format's bytes whole. */
Test(files, dev_null_as_the_output_is_written_directly)
{
    write_png(tc_tpath("in/a.png"), 24, 16, 3);
    write_png(tc_tpath("in/b.png"), 16, 24, 4);
    char a[1024], b[1024];
    snprintf(a, sizeof(a), "%s", tc_tpath("in/a.png"));
    snprintf(b, sizeof(b), "%s", tc_tpath("in/b.png"));
    struct stat before, after;
    cr_assert_eq(stat("/dev/null", &before), 0);
    /* The report's rename shows that the trace works. */
    char json[1100];
    snprintf(json, sizeof(json), "--json=%s", tc_tpath("r.json"));
    static const char *const formats[] = {NULL, "jpg", "tif", "exr"};
    for (size_t f = 0; f < sizeof(formats) / sizeof(formats[0]); f++) {
        const char *const args[] = {a,          b,    "-f",        "box3",
                                    json,       "-o", "/dev/null", formats[f] ? "--format" : NULL,
                                    formats[f], NULL};
        size_t n;
        char **lines = traced_run(args, 0, &n);
        bool report = false;
        for (size_t i = 0; i < n; i++) {
            report |= strncmp(lines[i], "rename", 6) == 0 && strstr(lines[i], "r.json.vkfx-");
            cr_expect(!(strncmp(lines[i], "memfd", 5) == 0 && strstr(lines[i], "vkfx")) &&
                          !(strncmp(lines[i], "rename", 6) == 0 && strstr(lines[i], "/dev/")),
                      "-o /dev/null --format %s: %s", formats[f] ? formats[f] : "(png)", lines[i]);
        }
        cr_expect(report, "the trace lacks the report's rename");
        free_lines(lines, n);
    }
    cr_assert_eq(stat("/dev/null", &after), 0);
    cr_assert(S_ISCHR(after.st_mode) && after.st_ino == before.st_ino, "/dev/null was replaced");
    cli_run r;
    VKFX(&r, a, "-f", "box3", "-o", "/dev/full");
    EXPECT_EXIT(&r, 1);
    expect_in_err(&r, "/dev/full");
    expect_in_err(&r, "No space left on device");
    run_free(&r);
    cr_assert_eq(mkfifo(tc_tpath("pipe"), 0600), 0);
    char cmd[1200];
    snprintf(cmd, sizeof(cmd), "cat '%s' > '%s'", tc_tpath("pipe"), tc_tpath("got"));
    FILE *reader = popen(cmd, "r");
    cr_assert(reader);
    VKFX(&r, a, "-f", "box3", "-o", tc_tpath("pipe"), "--format", "jpg");
    EXPECT_EXIT(&r, 0);
    run_free(&r);
    cr_assert_eq(pclose(reader), 0);
    vkfx_pixels px;
    cr_assert_eq(vkfx_file_load(tc_tpath("got"), &px), VKFX_OK, "%s", vkfx_error_message());
    cr_expect(px.width == 24 && px.height == 16, "%ux%u", px.width, px.height);
    vkfx_pixels_free(&px);
    size_t size;
    unsigned char *bytes = (unsigned char *)tc_slurp(tc_tpath("got"), &size);
    cr_expect(bytes && size > 3 && bytes[0] == 0xff && bytes[1] == 0xd8, "not a JPEG");
    free(bytes);
    /* A file's format is its extension's; --format is for the others. */
    VKFX(&r, a, "-f", "box3", "-o", tc_tpath("x.png"), "--format", "jpg");
    EXPECT_EXIT(&r, 2);
    expect_in_err(&r, "--format is for");
    run_free(&r);
}

/* issue 22 point 1: each temporary is flushed to disk, then renamed; the
 * output, a side output and the pipeline cache alike. --no-fsync renames
 * without flushing. */
Test(files, every_file_is_on_disk_before_its_rename)
{
    char in[1024], out[1024], chain[1100];
    write_png(tc_tpath("in/a.png"), 24, 16, 21);
    snprintf(in, sizeof(in), "%s", tc_tpath("in/a.png"));
    snprintf(out, sizeof(out), "%s", tc_tpath("out.png"));
    snprintf(chain, sizeof(chain), "histogram:out=%s", tc_tpath("h.json"));
    for (int sync = 1; sync >= 0; sync--) {
        const char *const args[] = {in, sync ? "-f" : "--no-fsync", sync ? chain : "-f",
                                    sync ? "-o" : chain, sync ? out : "-o", sync ? NULL : out,
                                    NULL};
        size_t n, renames = 0;
        char **lines = traced_run(args, 0, &n);
        for (size_t i = 0; i < n; i++) {
            /* vkfx's temporaries, not Mesa's shader cache */
            if (strncmp(lines[i], "rename ", 7) != 0 || !strstr(lines[i], ".vkfx-"))
                continue;
            renames += strstr(lines[i], "/.out.png.vkfx-") || strstr(lines[i], "/.h.json.vkfx-");
            bool synced = false;
            for (size_t j = 0; j < i; j++)
                synced |= !strncmp(lines[j], "fsync ", 6) && !strcmp(lines[j] + 6, lines[i] + 7);
            cr_assert(synced == sync, "%s: renamed %s an fsync first", lines[i] + 7,
                      sync ? "without" : "after");
        }
        cr_assert_eq(renames, 2, "%zu renames, not the output's and the histogram's", renames);
        free_lines(lines, n);
    }
}

/* The README's commands, as written, in a folder without out/ or edges/. */
Test(files, readme_batch_commands_create_their_folders)
{
    cr_assert_eq(mkdir(tc_tpath("photos"), 0777), 0);
    write_png(tc_tpath("photos/p1.png"), 24, 16, 13);
    write_png(tc_tpath("photos/p2.png"), 24, 16, 14);
    write_png(tc_tpath("a.png"), 24, 16, 15);
    write_png(tc_tpath("b.png"), 24, 16, 16);
    run_opts o = {.cwd = tc_tmpdir};
    cli_run r;
    VKFX_OPTS(&r, &o, "-f", "gauss:sigma=3", "-o", "out/{stem}.png", "photos/");
    EXPECT_EXIT(&r, 0);
    run_free(&r);
    VKFX_OPTS(&r, &o, "-f", "sobel", "--outdir", "edges/", "a.png", "b.png");
    EXPECT_EXIT(&r, 0);
    run_free(&r);
    VKFX_OPTS(&r, &o, "a.png", "-f", "sobel", "-o", "deep/er/still/{stem}.png");
    EXPECT_EXIT(&r, 0);
    run_free(&r);
    char names[256];
    tc_list_dir(tc_tpath("out"), true, names, sizeof(names));
    cr_assert_str_eq(names, "p1.png p2.png");
    tc_list_dir(tc_tpath("edges"), true, names, sizeof(names));
    cr_assert_str_eq(names, "a.png b.png");
    tc_list_dir(tc_tpath("deep/er/still"), true, names, sizeof(names));
    cr_assert_str_eq(names, "a.png");
}

Test(files, directory_scans_take_regular_files_only)
{
    write_png(tc_tpath("in/a.png"), 24, 16, 17);
    cr_assert_eq(mkfifo(tc_tpath("in/fifo.png"), 0600), 0);
    cr_assert_eq(mkdir(tc_tpath("in/dir.png"), 0777), 0);
    cli_run r;
    VKFX(&r, "-f", "box3", "-o", tc_tpath("out/{stem}.png"), tc_tpath("in"));
    EXPECT_EXIT(&r, 0);
    expect_in_err(&r, "fifo.png: not a regular file; skipped");
    expect_in_err(&r, "dir.png: not a regular file; skipped");
    run_free(&r);
    char names[256];
    tc_list_dir(tc_tpath("out"), true, names, sizeof(names));
    cr_assert_str_eq(names, "a.png");
}

/* A FIFO nobody writes to, named as the input: the read blocks, and a
 * signal still ends the run, with 128 + the signal and nothing written. */
Test(files, a_fifo_input_gives_way_to_signals)
{
    cr_assert_eq(mkfifo(tc_tpath("in/f.png"), 0600), 0);
    const int sigs[] = {SIGTERM, SIGINT};
    for (int i = 0; i < 2; i++) {
        run_opts o = {.signal = sigs[i], .signal_after_ms = 1500};
        cli_run r;
        double t0 = tc_seconds();
        VKFX_OPTS(&r, &o, tc_tpath("in/f.png"), "-f", "box3", "-o", tc_tpath("o.png"));
        EXPECT_EXIT(&r, 128 + sigs[i]);
        cr_assert(tc_seconds() - t0 < 15, "took %.1f s", tc_seconds() - t0);
        run_free(&r);
    }
    char names[256];
    tc_list_dir(tc_tmpdir, true, names, sizeof(names));
    cr_assert(strcmp(names, "in") == 0 || strcmp(names, "cache in") == 0, "written: %s", names);
}

/* As another user (nobody) in a folder that user may write: root's 0644 file as the output is
 * refused before any work and kept as it was, as a shell's '>' would refuse to open it (a
 * rename needs only the folder's permission, and once took the file over); the user's own
 * output is written. */
Test(files, another_users_file_is_not_replaced)
{
    if (geteuid() != 0)
        cr_skip_test("running vkfx as another user needs root");
    struct passwd *pw = getpwnam("nobody");
    cr_assert(pw && pw->pw_uid != 0);
    cr_assert_eq(chmod(tc_tmpdir, 0755), 0);
    cr_assert_eq(mkdir(tc_tpath("shared"), 0777), 0);
    cr_assert_eq(chmod(tc_tpath("shared"), 0777), 0);
    write_png(tc_tpath("in/a.png"), 24, 16, 21);
    write_png(tc_tpath("shared/root.png"), 5, 5, 22);
    write_png(tc_tpath("keep.png"), 5, 5, 22);
    cr_assert_eq(chmod(tc_tpath("shared/root.png"), 0644), 0);
    run_opts o = {.uid = pw->pw_uid};
    cli_run r;
    VKFX_OPTS(&r, &o, tc_tpath("in/a.png"), "-f", "box3", "-o", tc_tpath("shared/root.png"));
    EXPECT_EXIT(&r, 2);
    expect_in_err(&r, "Permission denied");
    run_free(&r);
    struct stat st;
    cr_assert_eq(stat(tc_tpath("shared/root.png"), &st), 0);
    cr_assert(st.st_uid == 0 && same_bytes(tc_tpath("shared/root.png"), tc_tpath("keep.png")),
              "root's file was replaced (owner %u)", (unsigned)st.st_uid);
    VKFX_OPTS(&r, &o, tc_tpath("in/a.png"), "-f", "box3", "-o", tc_tpath("shared/mine.png"));
    EXPECT_EXIT(&r, 0);
    run_free(&r);
    cr_assert_eq(stat(tc_tpath("shared/mine.png"), &st), 0);
    cr_assert_eq(st.st_uid, pw->pw_uid);
}

/* SIGHUP, SIGINT, SIGTERM, SIGQUIT and SIGPIPE as soon as a batch's first
 * output is in place: exit 128 + the signal, no temporary, every file
 * written complete. */
Test(files, every_stop_signal_leaves_no_temporary, .timeout = 400)
{
    enum { N = 12 };
    write_inputs(N, 160, 120, 100);
    const int sigs[] = {SIGHUP, SIGINT, SIGTERM, SIGQUIT, SIGPIPE};
    for (int s = 0; s < 5; s++) {
        tc_remove_tree(tc_tpath("out"));
        cr_assert_eq(mkdir(tc_tpath("out"), 0777), 0);
        run_opts o = {.interrupt_dir = tc_tpath("out"), .signal = sigs[s]};
        cli_run r;
        VKFX_OPTS(&r, &o, "-f", "gauss:sigma=6,bilateral:sigma_s=2:sigma_r=0.1", "-o",
                  tc_tpath("out/{stem}.png"), "-j", "1", tc_tpath("in"));
        EXPECT_EXIT(&r, 128 + sigs[s]);
        run_free(&r);
        DIR *d = opendir(tc_tpath("out"));
        cr_assert(d);
        struct dirent *e;
        int written = 0;
        while ((e = readdir(d))) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            cr_assert(e->d_name[0] != '.', "signal %d left %s", sigs[s], e->d_name);
            char path[1024];
            snprintf(path, sizeof(path), "%s/%s", tc_tpath("out"), e->d_name);
            vkfx_pixels px;
            cr_assert_eq(vkfx_file_load(path, &px), VKFX_OK, "%s", vkfx_error_message());
            vkfx_pixels_free(&px);
            written++;
        }
        closedir(d);
        cr_assert(written >= 1 && written < N, "signal %d: %d of %d written", sigs[s], written, N);
    }
}

/* Every other signal whose default action ends the process, sent as a batch's first output is
 * in place while its JSON report (whose temporary lives as long as the run) is being written:
 * exit 128 + the signal and no temporary. Those a fault raises are sent from outside, as
 * kill(1) sends them. */
Test(files, every_ending_signal_leaves_no_temporary, .timeout = 400)
{
    write_inputs(24, 64, 48, 200);
    const int sigs[] = {SIGUSR1, SIGUSR2, SIGALRM,  SIGXFSZ, SIGVTALRM, SIGPROF, SIGXCPU,
                        SIGIO,   SIGPWR,  SIGSTKFLT, SIGABRT, SIGSEGV,  SIGBUS,  SIGILL,
                        SIGFPE,  SIGTRAP, SIGSYS,   SIGRTMIN, SIGRTMAX};
    char json[1100];
    snprintf(json, sizeof(json), "--json=%s", tc_tpath("out/report.json"));
    for (size_t s = 0; s < sizeof(sigs) / sizeof(sigs[0]); s++) {
        tc_remove_tree(tc_tpath("out"));
        cr_assert_eq(mkdir(tc_tpath("out"), 0777), 0);
        run_opts o = {.interrupt_dir = tc_tpath("out"), .signal = sigs[s]};
        cli_run r;
        VKFX_OPTS(&r, &o, "-f", "box3", "-o", tc_tpath("out/{stem}.png"), json, "-j", "1",
                  tc_tpath("in"));
        EXPECT_EXIT(&r, 128 + sigs[s]);
        run_free(&r);
        char names[4096];
        tc_list_dir(tc_tpath("out"), true, names, sizeof(names));
        cr_assert(!strstr(names, ".vkfx-"), "signal %d left: %s", sigs[s], names);
    }
}

/* vkfx in.png -f box3 -o - | head -c 10: exit 141 as SIGPIPE, and nothing
 * in $TMPDIR; a full standard output (image or report) is exit 1. */
Test(files, standard_output_closed_or_full)
{
    /* Random pixels: a PNG larger than a pipe holds. */
    write_png(tc_tpath("in/a.png"), 512, 512, 18);
    cr_assert_eq(mkdir(tc_tpath("tmp"), 0777), 0);
    setenv("TMPDIR", tc_tpath("tmp"), 1);
    run_opts o = {.stdout_close_after = 10};
    cli_run r;
    VKFX_OPTS(&r, &o, tc_tpath("in/a.png"), "-f", "box3", "-o", "-");
    EXPECT_EXIT(&r, 141);
    run_free(&r);
    unsetenv("TMPDIR");
    char names[256];
    tc_list_dir(tc_tpath("tmp"), true, names, sizeof(names));
    cr_assert_str_eq(names, "", "left in $TMPDIR: %s", names);
    run_opts full = {.stdout_path = "/dev/full"};
    VKFX_OPTS(&r, &full, tc_tpath("in/a.png"), "-f", "box3", "-o", "-");
    EXPECT_EXIT(&r, 1);
    expect_in_err(&r, "No space left on device");
    run_free(&r);
    VKFX_OPTS(&r, &full, tc_tpath("in/a.png"), "-f", "box3", "-o", tc_tpath("o.png"), "--json");
    EXPECT_EXIT(&r, 1);
    expect_in_err(&r, "--json");
    run_free(&r);
}

/* A path as long as an argument may be (60 kB, far beyond PATH_MAX) named as the input or the
 * output: the message keeps the start of the path and its end, and the reason. */
Test(files, a_long_path_keeps_its_reason)
{
    enum { LONG = 60000 };
    char *path = malloc(LONG + 64);
    cr_assert(path);
    int n = snprintf(path, LONG + 64, "%s/", tc_tmpdir);
    memset(path + n, 'x', LONG);
    strcpy(path + n + LONG, "-end.png");
    write_png(tc_tpath("in/a.png"), 8, 8, 23);
    for (int as_output = 0; as_output < 2; as_output++) {
        cli_run r;
        if (as_output)
            VKFX(&r, tc_tpath("in/a.png"), "-f", "box3", "-o", path);
        else
            VKFX(&r, path, "-f", "box3", "-o", tc_tpath("o.png"));
        cr_assert(r.status == 1 || r.status == 2, "exit %d", r.status);
        expect_in_err(&r, tc_tmpdir);
        expect_in_err(&r, "x-end.png");
        expect_in_err(&r, "File name too long");
        cr_assert(strlen(r.err) < 4200, "a message of %zu bytes", strlen(r.err));
        run_free(&r);
    }
    free(path);
}

/* A file that cannot be written whole (a file size limit here; a full disk fails the same
 * writes) is an error that names the reason, from every encoder and for the JSON report, and
 * leaves nothing behind. */
Test(files, a_failed_write_names_its_reason)
{
    write_png(tc_tpath("in/small.png"), 2, 2, 24);
    cr_assert_eq(mkdir(tc_tpath("out"), 0777), 0);
    run_opts o = {.fsize = 200};
    cli_run r;
    static const char *const outs[][2] = {
        {"o.png", "writing the PNG failed: File too large"},
        {"o.jpg", "writing the JPEG failed: File too large"},
        {"o.exr", ": File too large"},
        {"o.tif", ": File too large"},
        {"o.webp", ": File too large"},
    };
    char out[1100], json[1100];
    for (size_t i = 0; i < sizeof(outs) / sizeof(outs[0]); i++) {
        snprintf(out, sizeof(out), "%s/%s", tc_tpath("out"), outs[i][0]);
        /* A photo with a profile and text: the PNG and JPEG writers add them to the encoder's
         * bytes themselves. */
        VKFX_OPTS(&r, &o, VKFX_TEST_IMAGES "/astronaut.png", "-f", "box3", "-o", out);
        EXPECT_EXIT(&r, 1);
        expect_in_err(&r, outs[i][1]);
        run_free(&r);
    }
    /* The image fits, its report does not. */
    snprintf(out, sizeof(out), "%s/small.png", tc_tpath("out"));
    snprintf(json, sizeof(json), "--json=%s/report.json", tc_tpath("out"));
    VKFX_OPTS(&r, &o, tc_tpath("in/small.png"), "-f", "box3", "-o", out, json);
    EXPECT_EXIT(&r, 1);
    expect_in_err(&r, "--json");
    expect_in_err(&r, "File too large");
    run_free(&r);
    char names[1024];
    tc_list_dir(tc_tpath("out"), true, names, sizeof(names));
    cr_assert_str_eq(names, "small.png", "written: %s", names);
}

/* An output its format cannot store is refused from the input's header, before a decode it
 * would waste: this Radiance header declares 16384x16384 (too large for BMP) and no pixels
 * follow it, so a decode would fail otherwise (after allocating 3 GiB). */
Test(files, too_large_for_the_output_format_from_the_header)
{
    FILE *f = fopen(tc_tpath("in/big.hdr"), "wb");
    cr_assert(f);
    cr_assert(fputs("#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 16384 +X 16384\n", f) >= 0);
    cr_assert_eq(fclose(f), 0);
    cli_run r;
    VKFX(&r, tc_tpath("in/big.hdr"), "-f", "box3", "-o", tc_tpath("o.bmp"));
    EXPECT_EXIT(&r, 1);
    expect_in_err(&r, "a 16384x16384 image is too large for BMP");
    run_free(&r);
}

Test(files, control_bytes_are_escaped_in_messages)
{
    char name[256];
    snprintf(name, sizeof(name), "%s/\033[31mred\a\x9b.png", tc_tmpdir);
    cli_run r;
    VKFX(&r, name, "-f", "box3", "-o", tc_tpath("o.png"));
    EXPECT_EXIT(&r, 1);
    expect_in_err(&r, "\\x1b[31mred\\x07\\x9b.png");
    for (const char *c = r.err; *c; c++)
        cr_assert((unsigned char)*c >= 0x20 || *c == '\n', "a raw control byte 0x%02x in: %s",
                  (unsigned char)*c, r.err);
    run_free(&r);
    VKFX(&r, tc_tpath("in/a.png"), "-f", "gauss:sigma=\033]0;x\a", "-o", tc_tpath("o.png"));
    EXPECT_EXIT(&r, 2);
    expect_in_err(&r, "\\x1b]0;x\\x07");
    run_free(&r);
}

/* The pipeline cache's file replaced by a FIFO or a folder: ignored with a
 * warning, left as it is, and the run completes. */
Test(files, a_pipeline_cache_that_is_not_a_file_is_ignored)
{
    write_png(tc_tpath("in/a.png"), 24, 16, 19);
    cli_run r;
    VKFX(&r, tc_tpath("in/a.png"), "-f", "box3", "-o", tc_tpath("o.png"));
    EXPECT_EXIT(&r, 0);
    run_free(&r);
    char names[512], path[1024];
    tc_list_dir(tc_tpath("cache/vkfx"), true, names, sizeof(names));
    cr_assert(strncmp(names, "pipelines-", 10) == 0 && !strchr(names, ' '), "%s", names);
    snprintf(path, sizeof(path), "%s/%s", tc_tpath("cache/vkfx"), names);
    for (int kind = 0; kind < 2; kind++) {
        cr_assert_eq(unlink(path), 0);
        cr_assert_eq(kind ? mkdir(path, 0777) : mkfifo(path, 0600), 0);
        VKFX(&r, tc_tpath("in/a.png"), "-f", "box3", "-o", tc_tpath("o.png"));
        EXPECT_EXIT(&r, 0);
        expect_in_err(&r, "not a regular file");
        run_free(&r);
        struct stat st;
        cr_assert(stat(path, &st) == 0 && (kind ? S_ISDIR(st.st_mode) : S_ISFIFO(st.st_mode)),
                  "the cache path was replaced");
    }
}

/* Every cache file (the pipeline cache, the half-rounding answer a Gaussian looks up) replaced
 * by a FIFO, a link to a FIFO that has a writer, or a link to a file elsewhere: the run does not
 * wait on it, and it is left as it is, nothing written through it. */
Test(files, cache_files_are_regular_files_only, .timeout = 300)
{
    write_png(tc_tpath("in/a.png"), 24, 16, 20);
    const char *chain = "gauss:sigma=2";
    cli_run r;
    VKFX(&r, tc_tpath("in/a.png"), "-f", chain, "-o", tc_tpath("o.png"));
    EXPECT_EXIT(&r, 0);
    run_free(&r);
    char names[1024];
    tc_list_dir(tc_tpath("cache/vkfx"), true, names, sizeof(names));
    cr_assert(strstr(names, "halfpack-") && strstr(names, "pipelines-"), "%s", names);
    cr_assert_eq(mkfifo(tc_tpath("fifo"), 0600), 0);
    /* A writer that never writes: a reader of the FIFO would wait for bytes forever. */
    int writer = open(tc_tpath("fifo"), O_RDWR | O_NONBLOCK);
    cr_assert(writer >= 0);
    static const char victim[] = "someone else's file\n";
    for (char *name = strtok(names, " "); name; name = strtok(NULL, " ")) {
        char path[1024];
        snprintf(path, sizeof(path), "%s/%s", tc_tpath("cache/vkfx"), name);
        for (int kind = 0; kind < 3; kind++) {
            cr_assert_eq(unlink(path), 0);
            FILE *f = fopen(tc_tpath("victim"), "wb");
            cr_assert(f && fputs(victim, f) >= 0 && fclose(f) == 0);
            cr_assert_eq(kind == 0   ? mkfifo(path, 0600)
                         : kind == 1 ? symlink(tc_tpath("fifo"), path)
                                     : symlink(tc_tpath("victim"), path),
                         0);
            VKFX(&r, tc_tpath("in/a.png"), "-f", chain, "-o", tc_tpath("o.png"));
            EXPECT_EXIT(&r, 0);
            run_free(&r);
            struct stat st;
            cr_assert_eq(lstat(path, &st), 0);
            cr_assert(kind == 0 ? S_ISFIFO(st.st_mode) : S_ISLNK(st.st_mode),
                      "%s (case %d) was replaced", name, kind);
            char got[64];
            cr_assert(read(writer, got, sizeof(got)) < 0 && errno == EAGAIN,
                      "%s (case %d): bytes written to the FIFO", name, kind);
            size_t n;
            char *left = tc_slurp(tc_tpath("victim"), &n);
            cr_assert(left && n == strlen(victim) && memcmp(left, victim, n) == 0,
                      "%s (case %d): the file linked to was written", name, kind);
            free(left);
        }
        cr_assert_eq(unlink(path), 0);
    }
    close(writer);
}

Test(files, an_endless_input_is_cut_off)
{
    /* an endless stream that starts as a PNG, on standard input through a FIFO */
    const char *fifo = tc_tpath("endless");
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    pid_t writer = fork();
    cr_assert(writer >= 0);
    if (writer == 0) {
        signal(SIGPIPE, SIG_IGN);
        FILE *f = fopen(fifo, "wb");
        static const char zeros[65536];
        if (f && fwrite("\x89PNG\r\n\x1a\n", 1, 8, f) == 8)
            while (fwrite(zeros, 1, sizeof(zeros), f) == sizeof(zeros))
                ;
        _exit(0);
    }
    cli_run r;
    double t0 = tc_seconds();
    run_opts o = {.stdin_path = fifo};
    VKFX_OPTS(&r, &o, "-", "--max-pixels", "1000", "-f", "box3", "-o", tc_tpath("o.png"));
    EXPECT_EXIT(&r, 1);
    expect_in_err(&r, "not read further");
    run_free(&r);
    cr_assert(tc_seconds() - t0 < 20, "took %.1f s", tc_seconds() - t0);
    cr_assert_eq(waitpid(writer, NULL, 0), writer);
    /* an endless stream that is no image ends after its first bytes */
    VKFX(&r, "/dev/zero", "-f", "box3", "-o", tc_tpath("o.png"));
    EXPECT_EXIT(&r, 1);
    expect_in_err(&r, "/dev/zero: not a format vkfx reads");
    run_free(&r);
}
