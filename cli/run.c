/* vkfx run FILE|-: a job file, one job per line written as on the command
 * line, split into words with the shell's quoting (and nothing else of the
 * shell), each line's options read by the command line's parser, then the
 * whole file planned and run as one batch (cli/batch.c). */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static const char run_usage[] =
    "usage: vkfx run [options] FILE|-\n"
    "\n"
    "Runs the jobs of FILE ('-': standard input) under one GPU context: one job\n"
    "per line, written as on the command line without 'vkfx':\n"
    "\n"
    "  INPUT... [-f CHAIN] (-o OUTPUT | --outdir DIR) [job options]\n"
    "\n"
    "Job options: -f, -o, --outdir, --format, --precision, --fast, --no-linearize\n"
    "(--linear), --strip, --to-srgb, --no-shrink-on-load, --background, and the\n"
    "encoders' -q, --jpeg-subsampling, --jpeg-progressive, --jpeg-optimize,\n"
    "--png-level, --depth, --tiff-compression, --lossless, --exr-float (as for a\n"
    "single run; templates and {index} count within the line); each input's\n"
    "metadata goes to its output.\n"
    "Words are split as a POSIX shell splits them: spaces and tabs separate\n"
    "words; '...' keeps everything literally; \"...\" keeps everything but \\\\,\n"
    "\\\", \\$ and \\` (a backslash before any other character stays); outside\n"
    "quotes a backslash keeps the next character; a backslash at the end of a line\n"
    "joins the next line to it. '#' at the start of a word begins a comment to the\n"
    "end of the line; blank lines are ignored. Nothing is expanded: an unquoted\n"
    "$ ` * ? [ ~ or shell operator (| & ; < > ( )) is an error, as is a quote\n"
    "left open at the end of a line. A job, with the lines joined to it, is at most\n"
    "128 KiB: split a long list of inputs over several lines.\n"
    "\n"
    "Relative paths in FILE (inputs, -o, --outdir, files the chain names) are\n"
    "taken from FILE's folder, wherever the run starts; from the current folder\n"
    "when the jobs come on standard input. --json=FILE is the command line's, from\n"
    "where the run starts.\n"
    "\n"
    "Every line is read and every job planned before any work, and all their\n"
    "mistakes are reported in one run, each with its line; nothing runs then.\n"
    "Once every line is right, the jobs are checked against each other (outputs\n"
    "that two jobs would write, or that are another job's input, are refused).\n"
    "\n"
    "A job that fails is reported with its line and the others complete; the exit\n"
    "status is then 1. With --json each object also has the job's \"line\".\n"
    "\n"
    "Options for the whole run: -j N, --progress, --quiet, --json[=FILE], --timings,\n"
    "--device D, --max-pixels N, --no-subgroup-ops, --shard K/N, --skip-existing\n"
    "(see vkfx --help).\n";

/* The word being read: bytes, and whether anything (even '') began it. */
typedef struct word {
    char *p;
    size_t len, cap;
    bool started;
} word;

static int word_put(word *w, char c)
{
    if (w->len + 2 > w->cap) {
        size_t cap = w->cap ? 2 * w->cap : 64;
        char *p = realloc(w->p, cap);
        if (!p)
            return vkfx_fail(VKFX_E_NOMEM, "out of host memory");
        w->p = p;
        w->cap = cap;
    }
    w->p[w->len++] = c;
    w->p[w->len] = 0;
    w->started = true;
    return VKFX_OK;
}

/* Ends the current word, if one began, as the next word of the job. */
static int word_end(word *w, cli_strv *job)
{
    if (!w->started)
        return VKFX_OK;
    char *s = w->len ? strndup(w->p, w->len) : strdup("");
    w->len = 0;
    w->started = false;
    return cli_strv_add(job, s);
}

static int not_expanded(char c)
{
    return vkfx_fail(VKFX_E_USAGE,
                     "'%c' would be expanded or interpreted by a shell, and vkfx does neither: "
                     "quote it ('...') or put a backslash before it",
                     c);
}

/* Parsed job lines and the words they point into. */
typedef struct job_file {
    cli_job_line *lines;
    size_t n, cap;
    cli_strv *argvs; /* one per line: "vkfx" then its words */
    cli_line_error *errors; /* the lines refused, in order */
    size_t nerrors, errors_cap;
} job_file;

static void job_file_free(job_file *f)
{
    for (size_t i = 0; i < f->n; i++) {
        for (size_t k = 0; k < f->argvs[i].n; k++)
            free(f->argvs[i].v[k]);
        free(f->argvs[i].v);
    }
    free(f->argvs);
    free(f->lines);
    for (size_t i = 0; i < f->nerrors; i++)
        free(f->errors[i].message);
    free(f->errors);
}

/* The lines refused as the file was read, on stderr. */
static void print_line_errors(const job_file *f)
{
    for (size_t i = 0; i < f->nerrors; i++)
        cli_message("vkfx: %s", f->errors[i].message);
}

/* Reads one job's options (job is "vkfx" and its words) into a line. */
static int add_job(job_file *f, cli_strv *job, size_t line, bool stdin_taken)
{
    if (f->n == f->cap) {
        size_t cap = f->cap ? 2 * f->cap : 16;
        cli_job_line *lines = realloc(f->lines, cap * sizeof(*lines));
        if (!lines)
            return vkfx_fail(VKFX_E_NOMEM, "out of host memory");
        f->lines = lines;
        cli_strv *argvs = realloc(f->argvs, cap * sizeof(*argvs));
        if (!argvs)
            return vkfx_fail(VKFX_E_NOMEM, "out of host memory");
        f->argvs = argvs;
        f->cap = cap;
    }
    /* The line owns its words from here, also when its options are wrong. */
    f->argvs[f->n] = *job;
    *job = (cli_strv){0};
    cli_job_line *l = &f->lines[f->n++];
    cli_strv *w = &f->argvs[f->n - 1];
    /* -1: no --precision on the line, which means rgba16f, or rgba32f where the line asks
     * for 16-bit output (half floats are a few 16-bit codes off). */
    cli_batch_opts o = {.job = {.precision = -1}};
    cli_info info;
    const char *info_arg = NULL;
    int first = (int)w->n;
    int ret = cli_parse_options((int)w->n, w->v, CLI_SCOPE_JOB, &o, &first, &info, &info_arg);
    if (o.job.precision < 0)
        o.job.precision = o.job.save.depth == 16 ? 32 : 16;
    if (ret == VKFX_OK)
        ret = cli_check_job(&o.job, (int)w->n - first);
    for (int i = first; ret == VKFX_OK && stdin_taken && i < (int)w->n; i++)
        if (strcmp(w->v[i], "-") == 0)
            ret = vkfx_fail(VKFX_E_USAGE, "the job file is standard input; no job can read it");
    *l = (cli_job_line){
        .o = o.job, .inputs = w->v + first, .ninputs = (int)w->n - first, .line = line};
    if (ret < 0) {
        /* Reported by the caller; the lines after it are still read for their own mistakes. */
        cli_strv_free(w);
        f->n--;
    }
    return ret;
}

/* A mistake on a line of the job file: kept in f with its line, to be reported among the
 * others in line order; the job being read is dropped. Out of memory ends the reading
 * (returned). */
static int line_error(int ret, const char *source, size_t line, job_file *f, cli_strv *job, word *w)
{
    if (ret == VKFX_E_NOMEM)
        return ret;
    vkfx_fail_context(ret, "%s:%zu", source, line);
    if (f->nerrors == f->errors_cap) {
        size_t cap = f->errors_cap ? 2 * f->errors_cap : 8;
        cli_line_error *e = realloc(f->errors, cap * sizeof(*e));
        if (!e)
            return vkfx_fail(VKFX_E_NOMEM, "out of host memory");
        f->errors = e;
        f->errors_cap = cap;
    }
    char *message = strdup(vkfx_error_message());
    if (!message)
        return vkfx_fail(VKFX_E_NOMEM, "out of host memory");
    f->errors[f->nerrors++] = (cli_line_error){line, message};
    cli_strv_free(job);
    *job = (cli_strv){0};
    w->len = 0;
    w->started = false;
    return cli_strv_add(job, strdup("vkfx"));
}

/* Splits text (len bytes, no NUL: read_all refuses one) into jobs. Each
 * line's mistake is kept in f, naming the line; the lines after it are read
 * on. */
static int parse_jobs(const char *text, size_t len, const char *source, bool stdin_taken,
                      job_file *f)
{
    int ret = VKFX_OK;
    cli_strv job = {0};
    word w = {0};
    size_t line = 1, job_line = 0, err_line = 0;
    size_t i = 0;
    ret = cli_strv_add(&job, strdup("vkfx"));
    while (i <= len) {
        if (ret < 0) {
            if ((ret = line_error(ret, source, err_line ? err_line : line, f, &job, &w)) < 0)
                break;
            err_line = 0;
            /* The rest of the line, and of the lines a backslash joins to it. */
            while (i < len && text[i] != '\n') {
                if (text[i] == '\\' && i + 1 < len && text[i + 1] == '\n')
                    line++, i++;
                i++;
            }
            if (i == len)
                break;
            continue;
        }
        char c = i < len ? text[i] : '\n'; /* the last line may lack its newline */
        bool at_end = i == len;
        i++;
        if (c == '\n' || c == ' ' || c == '\t' || c == '\r') {
            ret = word_end(&w, &job);
            if (ret == VKFX_OK && c == '\n') {
                if (job.n > 1 && (ret = add_job(f, &job, job_line, stdin_taken)) < 0) {
                    /* A job's options: the line it starts on, reported before the next. */
                    ret = line_error(ret, source, job_line, f, &job, &w);
                } else if (ret == VKFX_OK && !job.v) {
                    ret = cli_strv_add(&job, strdup("vkfx"));
                }
                line++;
            }
            if (at_end)
                break;
            continue;
        }
        if (job.n == 1 && !w.started)
            job_line = line;
        if (c == '#' && !w.started) {
            while (i < len && text[i] != '\n')
                i++;
            continue;
        }
        if (c == '\\') {
            if (i < len && text[i] == '\n') {
                i++; /* the line goes on */
                line++;
            } else if (i < len) {
                ret = word_put(&w, text[i++]);
            } else {
                ret = vkfx_fail(VKFX_E_USAGE, "a backslash at the end of the file");
            }
            continue;
        }
        if (c == '\'' || c == '"') {
            w.started = true;
            for (;;) {
                if (i >= len || text[i] == '\n') {
                    ret = vkfx_fail(VKFX_E_USAGE,
                                    "%c quote left open at the end of the line (a quoted "
                                    "word ends on its own line)",
                                    c);
                    break;
                }
                char q = text[i++];
                if (q == c)
                    break;
                if (c == '"' && (q == '$' || q == '`')) {
                    ret = not_expanded(q);
                    break;
                }
                if (c == '"' && q == '\\' && i < len && strchr("\\\"$`\n", text[i])) {
                    q = text[i++];
                    if (q == '\n') {
                        line++;
                        continue;
                    }
                }
                if ((ret = word_put(&w, q)) < 0)
                    break;
            }
            continue;
        }
        if (strchr("$`*?[|&;<>()", c) || (c == '~' && !w.started)) {
            ret = not_expanded(c);
            continue;
        }
        ret = word_put(&w, c);
    }
    cli_strv_free(&job);
    free(w.p);
    return ret;
}

/* The longest job (a line with the lines a backslash joins to it). Each
 * input of a job costs a few KiB to plan, and a job of one-letter inputs
 * has one every two bytes: 128 KiB of text (as much as the kernel lets one
 * argument be) keeps a job's planning to some hundreds of MB. */
#define JOB_MAX_BYTES (128u << 10)

/* Where the text read so far stands: the line, and the bytes of the job. */
struct job_scan {
    size_t line, job_bytes;
    bool escaped; /* the byte before was a backslash */
};

/* Checks the bytes p[from..to) as read: a NUL or a job longer than
 * JOB_MAX_BYTES ends the reading with an error naming the line, so that
 * /dev/zero or a file of one endless line fails at once. */
static int scan_job_text(struct job_scan *js, const char *p, size_t from, size_t to,
                         const char *name)
{
    for (size_t i = from; i < to; i++) {
        if (!p[i])
            return vkfx_fail(VKFX_E_USAGE, "%s:%zu: a NUL byte: a job file is text", name,
                             js->line);
        if (p[i] == '\\' && !js->escaped) {
            js->escaped = true;
            js->job_bytes++;
            continue;
        }
        if (p[i] == '\n') {
            js->line++;
            if (!js->escaped)
                js->job_bytes = 0;
        } else if (++js->job_bytes > JOB_MAX_BYTES) {
            return vkfx_fail(VKFX_E_USAGE,
                             "%s:%zu: a job longer than %u KiB; split its inputs over several "
                             "lines",
                             name, js->line, JOB_MAX_BYTES >> 10);
        }
        js->escaped = false;
    }
    return VKFX_OK;
}

/* The whole of f, with a NUL after it. */
static int read_all(FILE *f, const char *name, char **out, size_t *len)
{
    size_t cap = 65536, n = 0;
    struct job_scan js = {.line = 1};
    char *p = malloc(cap);
    if (!p)
        return vkfx_fail(VKFX_E_NOMEM, "out of host memory");
    for (;;) {
        if (n + 1 >= cap) {
            char *q = realloc(p, cap * 2);
            if (!q) {
                free(p);
                return vkfx_fail(VKFX_E_NOMEM, "out of host memory");
            }
            p = q;
            cap *= 2;
        }
        size_t got = fread(p + n, 1, cap - n - 1, f);
        int ret = scan_job_text(&js, p, n, n + got, name);
        if (ret < 0) {
            free(p);
            return ret;
        }
        n += got;
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        free(p);
        return vkfx_fail(VKFX_E_IO, "%s: %s", name, strerror(errno));
    }
    p[n] = 0;
    *out = p;
    *len = n;
    return VKFX_OK;
}

/* Relative paths in a job file are taken from its folder, wherever the run starts: the run
 * works from there. --json's relative FILE, given on the command line, is made absolute
 * first (*json, the caller frees it). */
static int enter_folder_of(const char *path, cli_batch_opts *o, char **json)
{
    char *copy = strdup(path);
    if (!copy)
        return vkfx_fail(VKFX_E_NOMEM, "out of host memory");
    const char *dir = dirname(copy);
    int ret = VKFX_OK;
    if (strcmp(dir, ".") == 0)
        goto done;
    if (o->json && strcmp(o->json, "-") != 0 && o->json[0] != '/') {
        char *cwd = getcwd(NULL, 0);
        size_t n = (cwd ? strlen(cwd) : 0) + strlen(o->json) + 2;
        *json = cwd ? malloc(n) : NULL;
        if (!*json) {
            ret = vkfx_fail(cwd ? VKFX_E_NOMEM : VKFX_E_IO, "--json=%s: %s", o->json,
                            cwd ? "out of host memory" : strerror(errno));
            free(cwd);
            goto done;
        }
        snprintf(*json, n, "%s/%s", cwd, o->json);
        o->json = *json;
        free(cwd);
    }
    if (chdir(dir) != 0)
        ret = vkfx_fail(VKFX_E_IO,
                        "%s: cannot enter its folder %s, which relative paths in it "
                        "start from: %s",
                        path, dir, strerror(errno));
done:
    free(copy);
    return ret;
}

int cli_run_main(int argc, char **argv)
{
    cli_batch_opts o = {0};
    cli_info info = CLI_INFO_NONE;
    const char *info_arg = NULL;
    int first = argc;
    if (cli_parse_options(argc, argv, CLI_SCOPE_RUN | CLI_SCOPE_INFO, &o, &first, &info,
                          &info_arg) < 0)
        return cli_usage_error("run", "%s", vkfx_error_message());
    if (info == CLI_INFO_HELP) {
        fputs(run_usage, stdout);
        return EXIT_OK;
    }
    if (info != CLI_INFO_NONE) {
        vkfx_fail(VKFX_E_USAGE, "--filters, --help-filter, --list-devices and --version are "
                                "options of vkfx itself, not of vkfx run");
        return cli_usage_error("run", "%s", vkfx_error_message());
    }
    if (argc - first != 1) {
        vkfx_fail(VKFX_E_USAGE, "one job file (or '-' for standard input) is needed; got %d",
                  argc - first);
        return cli_usage_error("run", "%s", vkfx_error_message());
    }
    const char *path = argv[first];
    bool from_stdin = strcmp(path, "-") == 0;
    const char *source = from_stdin ? "standard input" : path;
    FILE *f = from_stdin ? stdin : fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "vkfx: %s: %s\n", path, strerror(errno));
        return EXIT_PROCESSING;
    }
    char *text = NULL;
    size_t len = 0;
    int ret = read_all(f, source, &text, &len);
    if (!from_stdin)
        fclose(f);
    if (ret < 0) {
        cli_print_error();
        return cli_exit_code(ret);
    }
    job_file jobs = {0};
    char *json = NULL;
    ret = parse_jobs(text, len, source, from_stdin, &jobs);
    if (ret == VKFX_OK && jobs.n == 0 && !jobs.nerrors)
        ret = vkfx_fail(VKFX_E_USAGE, "%s: no jobs (every line is blank or a comment)", source);
    if (ret == VKFX_OK && !from_stdin)
        ret = enter_folder_of(path, &o, &json);
    int code;
    if (ret < 0) {
        print_line_errors(&jobs);
        cli_print_error();
        code = cli_exit_code(ret);
    } else {
        cli_context_env(&o.ctx);
        /* In its folder now. */
        o.job_file = from_stdin ? path : strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
        o.line_errors = jobs.errors;
        o.nline_errors = jobs.nerrors;
        code = cli_batch_lines(&o, jobs.lines, jobs.n, source);
    }
    job_file_free(&jobs);
    free(json);
    free(text);
    return code;
}
