/* Job files (vkfx run), shards and resume through the vkfx binary on
 * lavapipe (validation on). The job-file grammar is read back from the
 * --json report of a run whose outputs all exist already (--skip-existing
 * plans and reports every job without a GPU); runs that write compare
 * every output byte for byte with the same job run on its own. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"
#include "error.h"
#include "fileio.h"
#include "run_binary.h"

static void setup(void)
{
    cr_assert_eq(tc_tmpdir_make("jobs"), 0);
    cr_assert_eq(mkdir(tc_tpath("in"), 0777), 0);
    cr_assert_eq(mkdir(tc_tpath("out"), 0777), 0);
    cr_assert_eq(mkdir(tc_tpath("one"), 0777), 0);
    setenv("XDG_CACHE_HOME", tc_tpath("cache"), 1);
}

static void teardown(void)
{
    tc_tmpdir_remove();
}

TestSuite(jobs, .init = setup, .fini = teardown);
TestSuite(shards, .init = setup, .fini = teardown);

/* Runs in the test's directory, so that job files use relative names. */
static void vkfx_here(cli_run *r, const char *const *args)
{
    run_opts o = {.cwd = tc_tmpdir};
    run_with(r, &o, args);
}
#define HERE(r, ...) vkfx_here((r), (const char *const[]){__VA_ARGS__, NULL})

static void write_text(const char *name, const char *text)
{
    FILE *f = fopen(tc_tpath(name), "wb");
    cr_assert(f, "cannot write %s", name);
    fputs(text, f);
    cr_assert_eq(fclose(f), 0);
}

/* A random w x h RGB PNG at name (relative to the test's directory). */
static void make_png(const char *name, uint32_t w, uint32_t h, uint64_t seed)
{
    vkfx_pixels px;
    tc_random_pixels(&px, w, h, 3, VKFX_SAMPLE_U8, seed);
    cr_assert_eq(vkfx_file_save(tc_tpath(name), VKFX_FILE_PNG, &px, NULL), VKFX_OK, "%s",
                 vkfx_error_message());
    vkfx_pixels_free(&px);
}

static bool exists(const char *name)
{
    struct stat st;
    return stat(tc_tpath(name), &st) == 0;
}

/* The text of a JSON string value for key in line, unescaped (\" and \\). */
static void json_str(const char *line, const char *key, char *out, size_t n)
{
    char pat[64];
    snprintf(pat, sizeof(pat), "\"%s\": \"", key);
    const char *p = strstr(line, pat);
    cr_assert(p, "no %s in %s", key, line);
    p += strlen(pat);
    size_t k = 0;
    for (; *p && *p != '"' && k + 1 < n; p++)
        out[k++] = *p == '\\' ? *++p : *p;
    out[k] = 0;
}

/* The JSON line whose "output" is output, or NULL. */
static const char *line_for(const char *report, const char *output)
{
    for (const char *l = report; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        char got[512];
        json_str(l, "output", got, sizeof(got));
        if (strcmp(got, output) == 0)
            return l;
    }
    return NULL;
}

static size_t count_lines(const char *text)
{
    size_t n = 0;
    for (const char *c = text; *c; c++)
        n += *c == '\n';
    return n;
}

/* ---- the grammar ---- */

Test(jobs, words_quotes_escapes_comments)
{
    static const char *const outputs[] = {
        "out/d q\"x.png", "out/b\\s.png", "out/$x.png", "out/h.png", "out/t.png", "out/c.png",
    };
    for (size_t i = 0; i < 6; i++)
        write_text(outputs[i], "");
    write_text("jobs.txt",
               "# a comment line, then a blank one\n"
               "\n"
               "'in/sp ace.png' -f sobel -o \"out/d q\\\"x.png\"\n"
               "in/back\\ slash.png -f sobel -o out/b\\\\s.png   # a comment after a job\n"
               "\"in/dollar\\$ \\n.png\" -f sobel -o 'out/$x.png'\n"
               "  in/a#b.png -f sobel -o out/h.png\n"
               "\tin/tab.png\t-f\tsobel\t-o\tout/t.png\r\n"
               "in/c'on'\"ca\"t.png -f sobel \\\n"
               "    -o out/c.png\n");
    cli_run r;
    HERE(&r, "run", "jobs.txt", "--skip-existing", "--json");
    cr_assert_eq(r.status, 0, "%s: exit %d: %s", r.cmd, r.status, r.err);
    cr_assert_eq(count_lines(r.out), 6, "%s", r.out);
    static const char *const want[][3] = {
        {"out/d q\"x.png", "in/sp ace.png", "3"},  {"out/b\\s.png", "in/back slash.png", "4"},
        {"out/$x.png", "in/dollar$ \\n.png", "5"}, {"out/h.png", "in/a#b.png", "6"},
        {"out/t.png", "in/tab.png", "7"},          {"out/c.png", "in/concat.png", "8"},
    };
    for (size_t i = 0; i < 6; i++) {
        const char *l = line_for(r.out, want[i][0]);
        cr_assert(l, "no job writes %s: %s", want[i][0], r.out);
        char input[512], line[32];
        json_str(l, "input", input, sizeof(input));
        cr_assert_str_eq(input, want[i][1], "the job writing %s", want[i][0]);
        snprintf(line, sizeof(line), "\"line\": %s,", want[i][2]);
        cr_assert(strstr(l, line), "%s should say %s", l, line);
        cr_assert(strstr(l, "\"status\": \"exists\""), "%s", l);
    }
    run_free(&r);
}

/* Each mistake is refused before any work, with the line it is on. */
Test(jobs, errors_name_the_line)
{
    make_png("in/a.png", 6, 5, 1);
    static const char *const bad[][3] = {
        {"in/a.png -f sobel -o 'out/x.png\n", "jobs.txt:2:", "quote left open"},
        {"in/a.png -f sobel -o \"out/x.png\n", "jobs.txt:2:", "quote left open"},
        {"in/a.png -f sobel -o $HOME/x.png\n", "jobs.txt:2:", "'$'"},
        {"in/a.png -f sobel -o \"out/`x`.png\"\n", "jobs.txt:2:", "'`'"},
        {"in/*.png -f sobel -o out/{stem}.png\n", "jobs.txt:2:", "'*'"},
        {"in/a.png -f sobel -o out/x.png; rm x\n", "jobs.txt:2:", "';'"},
        {"in/a.png -f sobel -o ~/x.png\n", "jobs.txt:2:", "'~'"},
        {"in/a.png -f sobel -o out/x.png \\", "jobs.txt:2:", "backslash at the end"},
        {"in/a.png -f sobel \\\n  -o out/x.png -q 101\n", "jobs.txt:2:", "--quality '101'"},
        {"in/a.png -f sobel -o out/x.png --json\n", "jobs.txt:2:", "whole run"},
        {"in/a.png -f sobel\n", "jobs.txt:2:", "no output given"},
        {"in/a.png -f sobl -o out/x.png\n", "jobs.txt:2:", "did you mean 'sobel'"},
        {"in/a.png -f sobel -o out/x.gif\n", "jobs.txt:2:", ".gif"},
        {"in/a.png -f sobel -o out/x.png --frobnicate\n", "jobs.txt:2:", "--frobnicate"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char text[512];
        /* A good job first: nothing runs, not even the lines before the mistake. */
        snprintf(text, sizeof(text), "in/a.png -f box:radius=1 -o out/good.png\n%s", bad[i][0]);
        write_text("jobs.txt", text);
        cli_run r;
        HERE(&r, "run", "jobs.txt");
        cr_assert_eq(r.status, 2, "%s: exit %d for %s: %s", r.cmd, r.status, bad[i][0], r.err);
        cr_assert(strstr(r.err, bad[i][1]) && strstr(r.err, bad[i][2]),
                  "for %s stderr should hold '%s' and '%s': %s", bad[i][0], bad[i][1], bad[i][2],
                  r.err);
        cr_assert(!strchr(r.err, '\n') || strchr(r.err, '\n')[1] == 0, "one line: %s", r.err);
        run_free(&r);
        cr_assert(!exists("out/good.png"), "a job ran before the mistake on line 2 was found");
    }
    cli_run r;
    /* A folder that cannot be made (a file stands in its place) is found
     * before any work, with its line. */
    write_text("blocker", "x");
    write_text("jobs.txt", "in/a.png -f sobel -o out/good.png\nin/a.png -f sobel -o blocker/x.png\n");
    HERE(&r, "run", "jobs.txt");
    cr_assert(r.status == 1 && strstr(r.err, "jobs.txt:2: ") && strstr(r.err, "blocker"),
              "%s: exit %d: %s", r.cmd, r.status, r.err);
    run_free(&r);
    cr_assert(!exists("out/good.png"), "a job ran before the folder that cannot be made was found");
    static const char nul[] =
        "in/a.png -f sobel -o out/good.png\nin/a.png -f 'so\0bel' -o out/y.png\n";
    FILE *f = fopen(tc_tpath("jobs.txt"), "wb");
    cr_assert(f && fwrite(nul, 1, sizeof(nul) - 1, f) == sizeof(nul) - 1 && fclose(f) == 0);
    HERE(&r, "run", "jobs.txt");
    cr_assert(r.status == 2 && strstr(r.err, "jobs.txt:2: a NUL byte"), "%s: exit %d: %s", r.cmd,
              r.status, r.err);
    run_free(&r);
    write_text("jobs.txt", "# only a comment\n\n   \n");
    HERE(&r, "run", "jobs.txt");
    cr_assert(r.status == 2 && strstr(r.err, "no jobs"), "%s: exit %d: %s", r.cmd, r.status, r.err);
    run_free(&r);
    HERE(&r, "run", "missing.txt");
    cr_assert(r.status == 1 && strstr(r.err, "missing.txt"), "%s: exit %d: %s", r.cmd, r.status,
              r.err);
    run_free(&r);
    HERE(&r, "run", "-f", "sobel", "jobs.txt");
    cr_assert(r.status == 2 && strstr(r.err, "'-f' belongs to a job"), "%s: exit %d: %s", r.cmd,
              r.status, r.err);
    run_free(&r);
}

/* Every mistake of a job file in one run, in line order, each with its line (a line a
 * backslash continues counted from where its job starts), before any job: the words, the options,
 * the chain and the templates of each line; the good lines around them are not run. */
Test(jobs, every_mistake_is_reported_in_one_run)
{
    make_png("in/a.png", 6, 5, 1);
    write_text("jobs.txt", "in/a.png -f box:radius=1 -o out/good.png\n"      /* 1 */
                           "in/a.png -f sobl -o out/b.png\n"                 /* 2 */
                           "in/a.png -f sobel -o $HOME/x.png\n"              /* 3 */
                           "# a comment\n"                                   /* 4 */
                           "in/a.png -f sobel \\\n"                          /* 5 */
                           "  -o out/c.png -q 101\n"                         /* 6 */
                           "in/a.png -f sobel -o \"out/open.png\n"           /* 7 */
                           "in/a.png -f sobel -o 'out/{nope}.png'\n"         /* 8 */
                           "in/a.png -o out/good2.png\n"                     /* 9 */
                           "in/a.png -f sobel -o out/d.png --frobnicate\n"); /* 10 */
    cli_run r;
    HERE(&r, "run", "jobs.txt");
    static const char *const want[] = {
        "jobs.txt:2: unknown filter 'sobl'",     "jobs.txt:3: '$'",
        "jobs.txt:5: --quality '101'",           "jobs.txt:7: \" quote left open",
        "jobs.txt:8: -o 'out/{nope}.png'",       "jobs.txt:10:",
        "6 lines have mistakes; no job was run",
    };
    cr_expect_eq(r.status, 2, "%s: exit %d: %s", r.cmd, r.status, r.err);
    /* In the order of the lines, the summary last. */
    const char *at = r.err;
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        const char *found = strstr(r.err, want[i]);
        cr_expect(found && found >= at, "stderr lacks '%s' after the lines before: %s", want[i],
                  r.err);
        at = found ? found : at;
    }
    cr_expect(!strstr(r.err, "jobs.txt:1:") && !strstr(r.err, "jobs.txt:9:") &&
                  !strstr(r.err, "jobs.txt:6:"),
              "a good line was reported: %s", r.err);
    run_free(&r);
    cr_expect(!exists("out/good.png") && !exists("out/good2.png"), "a job ran");
}

/* Relative paths in a job file are taken from its folder, wherever the run starts: inputs,
 * outputs, --outdir, a depth map in the chain; --json's relative FILE is the command line's,
 * from where the run starts. */
Test(jobs, relative_paths_are_taken_from_the_job_files_folder)
{
    cr_assert_eq(mkdir(tc_tpath("proj"), 0777), 0);
    cr_assert_eq(mkdir(tc_tpath("proj/in"), 0777), 0);
    make_png("proj/in/a.png", 9, 7, 1);
    make_png("proj/in/depth.png", 9, 7, 2);
    write_text("proj/jobs.txt", "in/a.png -f box:radius=1 -o out/a.png\n"
                                "in/a.png -f 'satdof:depth=in/depth.png' -o out/dof.png\n"
                                "in/ --outdir copies\n");
    cli_run r;
    HERE(&r, "run", "proj/jobs.txt", "--json=report.json");
    cr_expect_eq(r.status, 0, "%s: exit %d: %s", r.cmd, r.status, r.err);
    run_free(&r);
    static const char *const written[] = {"proj/out/a.png", "proj/out/dof.png", "proj/copies/a.png",
                                          "proj/copies/depth.png", "report.json"};
    for (size_t i = 0; i < sizeof(written) / sizeof(written[0]); i++)
        cr_expect(exists(written[i]), "%s was not written", written[i]);
    cr_expect(!exists("out/a.png") && !exists("copies"), "written from where the run started");
    /* The job file is still never written, named from its folder. */
    write_text("proj/more.png", "in/a.png -o more.png\n");
    HERE(&r, "run", "proj/more.png");
    cr_expect(r.status == 2 && strstr(r.err, "(the job file)"), "%s: exit %d: %s", r.cmd, r.status,
              r.err);
    run_free(&r);
}

/* The batches' checks across all jobs of the file, before any work. */
Test(jobs, clashes_across_jobs)
{
    make_png("in/a.png", 6, 5, 2);
    make_png("in/b.png", 5, 6, 3);
    static const char *const bad[][2] = {
        {"in/a.png -f sobel -o out/x.png\nin/b.png -f box:radius=1 -o out/./x.png\n",
         "jobs.txt:2) would both be written"},
        {"in/a.png -f sobel -o out/{stem}.png\nin/b.png in/a.png -f sobel -o out/{stem}.png\n",
         "(output of in/a.png, jobs.txt:1) and out/a.png (output of in/a.png, jobs.txt:2) would "
         "both be written"},
        {"in/a.png -f sobel -o out/x.png\nin/b.png -f sobel -o in/a.png\n",
         "in/a.png (output of in/b.png, jobs.txt:2) would overwrite in/a.png (input, jobs.txt:1)"},
        {"in/a.png -f sobel -o out/x.png\nout/x.png -f sobel -o out/y.png\n",
         "out/x.png (output of in/a.png, jobs.txt:1) would overwrite out/x.png (input, "
         "jobs.txt:2)"},
        {"in/a.png -f sobel -o -\nin/b.png -f sobel -o -\n", "jobs.txt:2: a second job writes"},
        {"- -f sobel -o out/x.png\n- -f sobel -o out/y.png\n", "read only once"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        write_text("jobs.txt", bad[i][0]);
        cli_run r;
        HERE(&r, "run", "jobs.txt");
        cr_assert(r.status == 2 && strstr(r.err, bad[i][1]), "%s: exit %d for %s: %s", r.cmd,
                  r.status, bad[i][0], r.err);
        run_free(&r);
        cr_assert(!exists("out/x.png") && !exists("out/a.png"), "written before the check");
    }
    /* A clash is found whatever the shard: the check covers the whole plan. */
    write_text("jobs.txt", "in/a.png -f sobel -o out/x.png\nin/b.png -f sobel -o out/x.png\n");
    for (int k = 0; k < 2; k++) {
        cli_run r;
        HERE(&r, "run", "jobs.txt", "--shard", k ? "1/2" : "0/2");
        cr_assert(r.status == 2 && strstr(r.err, "would both be written"), "%s: exit %d: %s", r.cmd,
                  r.status, r.err);
        run_free(&r);
    }
}

/* The job file is read by the run: no output, --json or standard output
 * may replace it, however spelled. */
Test(jobs, job_file_is_never_written)
{
    make_png("in/a.png", 6, 5, 2);
    static const char *const jobs = "in/a.png -f sobel -o new/../jobs.png\n";
    write_text("jobs.png", jobs);
    cli_run r;
    HERE(&r, "run", "jobs.png");
    cr_assert(r.status == 2 && strstr(r.err, "would overwrite jobs.png (the job file)"),
              "%s: exit %d: %s", r.cmd, r.status, r.err);
    run_free(&r);
    cr_assert(!exists("new"), "a folder made before the check");
    write_text("jobs.txt", "in/a.png -f sobel -o out/a.png\n");
    HERE(&r, "run", "--json=new/../jobs.txt", "jobs.txt");
    cr_assert(r.status == 2 && strstr(r.err, "(--json) would overwrite jobs.txt (the job file)"),
              "%s: exit %d: %s", r.cmd, r.status, r.err);
    run_free(&r);
    /* On standard input, the job file is that file. */
    write_text("jobs.png", "in/a.png -f sobel -o jobs.png\n");
    run_opts o = {.cwd = tc_tmpdir, .stdin_path = tc_tpath("jobs.png")};
    VKFX_OPTS(&r, &o, "run", "-");
    cr_assert(r.status == 2 && strstr(r.err, "would overwrite standard input (the job file)"),
              "%s: exit %d: %s", r.cmd, r.status, r.err);
    run_free(&r);
    cr_assert(!exists("out/a.png"), "a job ran before the check");
    size_t size = 0;
    char *text = tc_slurp(tc_tpath("jobs.png"), &size);
    cr_assert(text && strcmp(text, "in/a.png -f sobel -o jobs.png\n") == 0, "the job file changed");
    free(text);
}

/* The job file on standard input; a job cannot read standard input then. */
Test(jobs, job_file_on_standard_input)
{
    make_png("in/a.png", 7, 4, 4);
    write_text("jobs.txt", "in/a.png -f box:radius=1 -o out/a.png\n");
    run_opts o = {.cwd = tc_tmpdir, .stdin_path = tc_tpath("jobs.txt")};
    cli_run r;
    VKFX_OPTS(&r, &o, "run", "-");
    cr_assert_eq(r.status, 0, "%s: %s", r.cmd, r.err);
    run_free(&r);
    cr_assert(exists("out/a.png"));
    write_text("jobs.txt", "- -f box:radius=1 -o out/b.png\n");
    VKFX_OPTS(&r, &o, "run", "-");
    cr_assert(r.status == 2 && strstr(r.err, "standard input:1:") &&
                  strstr(r.err, "no job can read it"),
              "%s: exit %d: %s", r.cmd, r.status, r.err);
    run_free(&r);
}

/* The whole file of one byte, compared with another. */
static void expect_same_file(const char *a, const char *b)
{
    size_t na, nb;
    char *pa = tc_slurp(tc_tpath(a), &na), *pb = tc_slurp(tc_tpath(b), &nb);
    cr_assert(pa && pb, "cannot read %s or %s", a, b);
    cr_assert(na == nb && memcmp(pa, pb, na) == 0, "%s differs from %s", a, b);
    free(pa);
    free(pb);
}

/* Jobs with different chains and options, a directory and a template on a
 * line, a corrupt input in the middle: the good outputs are the bytes each
 * job gives on its own, the bad one is reported with its line, exit 1. */
Test(jobs, same_bytes_as_one_by_one, .timeout = 300)
{
    make_png("in/a.png", 33, 21, 5);
    make_png("in/b.png", 20, 31, 6);
    cr_assert_eq(mkdir(tc_tpath("in/dir"), 0777), 0);
    make_png("in/dir/c.png", 17, 9, 7);
    write_text("in/bad.png", "\x89PNG\r\n\x1a\n not really");
    write_text("jobs.txt", "in/a.png -f 'gauss:sigma=1.5' -o out/a-gauss.png\n"
                           "in/a.png -f sobel:invert=1 -o out/a-sobel.jpg -q 70\n"
                           "in/bad.png -f sobel -o out/bad.png\n"
                           "in/b.png -f box:radius=2 -o out/b-box.png --precision 32\n"
                           "in/b.png -f cartoon -o out/b-cartoon.tga --linear\n"
                           "in/dir in/b.png -f 'box:radius=1' -o 'out/{index}-{stem}.png'\n"
                           "in/a.png -f 'gauss:sigma=2' --outdir out/\n");
    cli_run r;
    HERE(&r, "run", "jobs.txt", "--json=report.json", "-j", "2");
    cr_assert_eq(r.status, 1, "%s: exit %d: %s", r.cmd, r.status, r.err);
    cr_assert(strstr(r.err, "jobs.txt:3: ") && strstr(r.err, "bad.png") &&
                  !strstr(r.err, "a.png") && !strstr(r.err, "b.png"),
              "stderr should name line 3 alone: %s", r.err);
    run_free(&r);
    size_t n;
    char *report = tc_slurp(tc_tpath("report.json"), &n);
    cr_assert(report);
    cr_assert_eq(count_lines(report), 8, "%s", report);
    const char *bad = line_for(report, "out/bad.png");
    cr_assert(bad && strstr(bad, "\"line\": 3,") && strstr(bad, "\"status\": \"error\"") &&
                  strstr(bad, "jobs.txt:3: "),
              "%s", report);
    free(report);
    cr_assert(!exists("out/bad.png"));
    static const char *const single[][8] = {
        {"in/a.png", "-f", "gauss:sigma=1.5", "-o", "a-gauss.png", NULL},
        {"in/a.png", "-f", "sobel:invert=1", "-o", "a-sobel.jpg", "-q", "70", NULL},
        {"in/b.png", "-f", "box:radius=2", "-o", "b-box.png", "--precision", "32", NULL},
        {"in/b.png", "-f", "cartoon", "-o", "b-cartoon.tga", "--linear", NULL},
        {"in/dir/c.png", "-f", "box:radius=1", "-o", "1-c.png", NULL},
        {"in/b.png", "-f", "box:radius=1", "-o", "2-b.png", NULL},
        {"in/a.png", "-f", "gauss:sigma=2", "-o", "a.png", NULL},
    };
    for (size_t i = 0; i < sizeof(single) / sizeof(single[0]); i++) {
        const char *args[10] = {0};
        char one[64], out[64];
        size_t k = 0;
        for (; single[i][k]; k++)
            args[k] = single[i][k];
        snprintf(one, sizeof(one), "one/%s", single[i][4]);
        snprintf(out, sizeof(out), "out/%s", single[i][4]);
        args[4] = one;
        run_with(&r, &(run_opts){.cwd = tc_tmpdir}, args);
        cr_assert_eq(r.status, 0, "%s: %s", r.cmd, r.err);
        run_free(&r);
        expect_same_file(out, one);
    }
}

/* ---- shards and resume ---- */

#define NJOBS 7

/* NJOBS inputs in.png files named so that the order of the arguments is
 * not the order of the outputs. */
static const char *const shard_inputs[NJOBS] = {"in/g.png", "in/c.png", "in/a.png", "in/f.png",
                                                "in/b.png", "in/e.png", "in/d.png"};

/* Which outputs a shard runs, read from the report of a run whose outputs
 * all exist (--skip-existing plans, selects and reports without a GPU):
 * adds one to seen[i] for each job i it has, and checks the shard field. */
static void shard_members(bool job_file, bool reversed, unsigned k, unsigned n, int *seen)
{
    char shard[32];
    snprintf(shard, sizeof(shard), "%u/%u", k, n);
    const char *args[NJOBS + 12];
    size_t a = 0;
    if (job_file) {
        args[a++] = "run";
        args[a++] = "jobs.txt";
    } else {
        for (size_t i = 0; i < NJOBS; i++)
            args[a++] = shard_inputs[reversed ? NJOBS - 1 - i : i];
        args[a++] = "-f";
        args[a++] = "sobel";
        args[a++] = "-o";
        args[a++] = "out/{stem}.png";
    }
    args[a++] = "--shard";
    args[a++] = shard;
    args[a++] = "--skip-existing";
    args[a++] = "--json";
    args[a] = NULL;
    cli_run r;
    run_with(&r, &(run_opts){.cwd = tc_tmpdir}, args);
    cr_assert_eq(r.status, 0, "%s: %s", r.cmd, r.err);
    char want[48];
    snprintf(want, sizeof(want), "\"shard\": \"%s\"", shard);
    for (const char *l = r.out; *l; l = strchr(l, '\n') + 1) {
        char out[64];
        json_str(l, "output", out, sizeof(out));
        cr_assert(strstr(l, want), "%s: %s", r.cmd, l);
        size_t i = 0;
        while (i < NJOBS && !(strncmp(out, "out/", 4) == 0 && out[4] == 'a' + (char)i))
            i++;
        cr_assert(i < NJOBS, "%s: unexpected output %s", r.cmd, out);
        seen[i]++;
    }
    run_free(&r);
}

/* For N from 1 to more than the number of jobs, the N shards together run
 * every job exactly once: for a batch whatever the order of its arguments,
 * and for a job file. */
Test(shards, every_job_exactly_once)
{
    char text[1024] = "";
    for (size_t i = 0; i < NJOBS; i++) {
        char name[32];
        snprintf(name, sizeof(name), "out/%c.png", 'a' + (char)i);
        write_text(name, "");
        snprintf(text + strlen(text), sizeof(text) - strlen(text), "%s -f sobel -o out/%c.png\n",
                 shard_inputs[i], shard_inputs[i][3]);
    }
    write_text("jobs.txt", text);
    for (unsigned n = 1; n <= NJOBS + 2; n++) {
        int seen[3][NJOBS] = {{0}};
        int which[3][NJOBS]; /* the shard of each job */
        for (unsigned k = 0; k < n; k++)
            for (int form = 0; form < 3; form++) {
                int before[NJOBS];
                memcpy(before, seen[form], sizeof(before));
                shard_members(form == 2, form == 1, k, n, seen[form]);
                for (size_t i = 0; i < NJOBS; i++)
                    if (seen[form][i] != before[i])
                        which[form][i] = (int)k;
            }
        for (size_t i = 0; i < NJOBS; i++) {
            for (int form = 0; form < 3; form++)
                cr_assert_eq(seen[form][i], 1, "N=%u: job %zu ran %d times (form %d)", n, i,
                             seen[form][i], form);
            cr_assert(which[0][i] == which[1][i] && which[0][i] == which[2][i],
                      "N=%u: job %zu is in shards %d, %d and %d", n, i, which[0][i], which[1][i],
                      which[2][i]);
        }
    }
    static const char *const bad[] = {"4/4", "-1/4", "1/0", "1", "a/b", "1/2x"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        cli_run r;
        HERE(&r, "in/a.png", "-f", "sobel", "-o", "out/z.png", "--shard", bad[i]);
        cr_assert(r.status == 2 && strstr(r.err, "--shard"), "%s: exit %d: %s", r.cmd, r.status,
                  r.err);
        run_free(&r);
    }
}

static double mtime_of(const char *name)
{
    struct stat st;
    cr_assert_eq(stat(tc_tpath(name), &st), 0, "%s is missing", name);
    return (double)st.st_mtim.tv_sec + (double)st.st_mtim.tv_nsec * 1e-9;
}

/* Three shards write the set with the bytes of one run; with some outputs
 * removed, --skip-existing writes those alone and leaves the others as
 * they were. */
Test(shards, shards_then_resume, .timeout = 300)
{
    for (size_t i = 0; i < NJOBS; i++)
        make_png(shard_inputs[i], 9 + (uint32_t)i, 7, 10 + i);
    cli_run r;
    HERE(&r, "in", "-f", "box:radius=1", "-o", "one/{stem}.png");
    cr_assert_eq(r.status, 0, "%s: %s", r.cmd, r.err);
    run_free(&r);
    for (unsigned k = 0; k < 3; k++) {
        char shard[8];
        snprintf(shard, sizeof(shard), "%u/3", k);
        HERE(&r, "in", "-f", "box:radius=1", "-o", "out/{stem}.png", "--shard", shard);
        cr_assert_eq(r.status, 0, "%s: %s", r.cmd, r.err);
        run_free(&r);
    }
    for (size_t i = 0; i < NJOBS; i++) {
        char out[32], one[32];
        snprintf(out, sizeof(out), "out/%c.png", 'a' + (char)i);
        snprintf(one, sizeof(one), "one/%c.png", 'a' + (char)i);
        expect_same_file(out, one);
    }
    double before[NJOBS];
    for (size_t i = 0; i < NJOBS; i++) {
        char out[32];
        snprintf(out, sizeof(out), "out/%c.png", 'a' + (char)i);
        if (i % 3 == 1)
            cr_assert_eq(unlink(tc_tpath(out)), 0);
        else
            before[i] = mtime_of(out);
    }
    usleep(20000); /* a rewritten file would get a later time */
    HERE(&r, "in", "-f", "box:radius=1", "-o", "out/{stem}.png", "--skip-existing", "--json");
    cr_assert_eq(r.status, 0, "%s: %s", r.cmd, r.err);
    cr_assert_eq(count_lines(r.out), NJOBS, "%s", r.out);
    for (size_t i = 0; i < NJOBS; i++) {
        char out[32], one[32];
        snprintf(out, sizeof(out), "out/%c.png", 'a' + (char)i);
        snprintf(one, sizeof(one), "one/%c.png", 'a' + (char)i);
        const char *l = line_for(r.out, out);
        cr_assert(l, "%s not reported: %s", out, r.out);
        cr_assert(strstr(l, i % 3 == 1 ? "\"status\": \"ok\"" : "\"status\": \"exists\""), "%s", l);
        expect_same_file(out, one);
        if (i % 3 != 1)
            cr_assert(mtime_of(out) == before[i], "%s was written again", out);
    }
    run_free(&r);
}

/* ---- start-up ---- */

/* The value of one --timings line ("vkfx: NAME   12.345 ms (wall...") or -1. */
static double wall_line(const char *err, const char *name)
{
    char pat[64];
    snprintf(pat, sizeof(pat), "vkfx: %s ", name);
    for (const char *l = err; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        char line[256];
        double ms;
        size_t len = strcspn(l, "\n");
        snprintf(line, sizeof(line), "%.*s", (int)len, l);
        if (strncmp(line, pat, strlen(pat)) == 0 && strstr(line, "ms (wall") &&
            sscanf(line + strlen(pat), "%lf", &ms) == 1)
            return ms;
    }
    return -1;
}

TestSuite(startup, .init = setup, .fini = teardown);

/* --init-only creates the GPU context and stops: no input needed, nothing
 * written; --timings breaks a run's wall clock down by phase. */
Test(startup, init_only_and_wall_timings, .timeout = 120)
{
    cli_run r;
    HERE(&r, "--init-only", "--timings");
    cr_assert_eq(r.status, 0, "%s: %s", r.cmd, r.err);
    double ready = wall_line(r.err, "start to ready"), total = wall_line(r.err, "total");
    double instance = wall_line(r.err, "  instance"), device = wall_line(r.err, "  device");
    cr_assert(instance > 0 && device > 0 && ready >= instance + device && total >= ready, "%s",
              r.err);
    cr_assert_eq(wall_line(r.err, "decode"), 0, "%s", r.err);
    run_free(&r);
    HERE(&r, "--init-only");
    cr_assert(r.status == 0 && r.err[0] == 0 && r.out[0] == 0, "%s: %s", r.cmd, r.err);
    run_free(&r);

    make_png("in/a.png", 40, 30, 9);
    HERE(&r, "in/a.png", "-f", "gauss:sigma=1", "-o", "out/a.png", "--timings");
    cr_assert_eq(r.status, 0, "%s: %s", r.cmd, r.err);
    static const char *const phases[] = {"pipelines", "decode", "upload", "GPU",
                                         "read-back", "encode", "exit"};
    double sum = wall_line(r.err, "start to ready");
    for (size_t i = 0; i < sizeof(phases) / sizeof(phases[0]); i++) {
        double ms = wall_line(r.err, phases[i]);
        cr_assert(ms > 0, "no time for %s: %s", phases[i], r.err);
        sum += ms;
    }
    cr_assert(wall_line(r.err, "total") >= sum - 1, "the phases add up to more than the total: %s",
              r.err);
    cr_assert(strstr(r.err, "ms (GPU)"), "the GPU passes are still there: %s", r.err);
    /* Each kernel the run needed, with its own build time. */
    cr_assert(strstr(r.err, "vkfx:   kernel gauss_"), "no build time for the Gaussian: %s", r.err);
    cr_assert(wall_line(r.err, "  kernel decode") >= 0 && wall_line(r.err, "  kernel encode") >= 0,
              "no build time for the decode and encode kernels: %s", r.err);
    run_free(&r);
}

/* The half probe's answer (core/gpu/halfprobe.c) is kept beside the pipeline
 * cache for the next run: written after the first Gaussian, a damaged copy
 * replaced, none kept with VKFX_PIPELINE_CACHE=0; the bytes never change. */
Test(startup, half_probe_answer_kept, .timeout = 120)
{
    make_png("in/a.png", 30, 20, 11);
    cli_run r;
    char name[512] = "";
    for (int round = 0; round < 3; round++) {
        if (round == 2) {
            FILE *f = fopen(tc_tpath(name), "w");
            cr_assert(f);
            fputs("rne 7 damaged\n", f);
            fclose(f);
        }
        char out[32];
        snprintf(out, sizeof(out), "out/%d.png", round);
        HERE(&r, "in/a.png", "-f", "gauss:sigma=1", "-o", out);
        cr_assert_eq(r.status, 0, "%s: %s", r.cmd, r.err);
        run_free(&r);
        if (round == 0) {
            DIR *d = opendir(tc_tpath("cache/vkfx"));
            cr_assert(d, "no cache directory");
            struct dirent *e;
            while ((e = readdir(d)))
                if (strncmp(e->d_name, "halfpack-", 9) == 0)
                    snprintf(name, sizeof(name), "cache/vkfx/%s", e->d_name);
            closedir(d);
            cr_assert(name[0], "no halfpack-*.txt beside the pipeline cache");
        }
        size_t n;
        char *text = tc_slurp(tc_tpath(name), &n);
        cr_assert(text && n > 7 &&
                      (strncmp(text, "rne 0 ", 6) == 0 || strncmp(text, "rne 1 ", 6) == 0) &&
                      text[n - 1] == '\n',
                  "round %d: %s holds '%s'", round, name, text ? text : "(nothing)");
        free(text);
        if (round)
            expect_same_file("out/0.png", out);
    }
    tc_remove_tree(tc_tpath("cache"));
    setenv("VKFX_PIPELINE_CACHE", "0", 1);
    HERE(&r, "in/a.png", "-f", "gauss:sigma=1", "-o", "out/3.png");
    unsetenv("VKFX_PIPELINE_CACHE");
    cr_assert_eq(r.status, 0, "%s: %s", r.cmd, r.err);
    run_free(&r);
    cr_assert(!exists("cache/vkfx"), "VKFX_PIPELINE_CACHE=0 kept something");
    expect_same_file("out/0.png", "out/3.png");
}
