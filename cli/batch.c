/* Running one chain over many inputs: the inputs and output names are
 * planned and checked before any work, then a pool of codec threads decodes
 * and encodes files while this thread feeds the GPU, one Vulkan context and
 * one set of pipelines for the whole batch. A file that fails is reported
 * and skipped; Ctrl-C stops after the files in hand, leaving only complete
 * outputs. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

/* Calls that return a status: on failure, keep it and go to the cleanup. */
#define CHECK(call)                                                                                \
    do {                                                                                           \
        if ((ret = (call)) < 0)                                                                    \
            goto fail;                                                                             \
    } while (0)

typedef enum job_state {
    JOB_WAITING,  /* not decoded yet */
    JOB_DECODING, /* a codec thread is reading it */
    JOB_DECODED,  /* waiting for the GPU */
    JOB_GPU,      /* this thread is running its chain */
    JOB_ENCODED,  /* waiting for a codec thread to write it */
    JOB_ENCODING, /* a codec thread is writing it */
    JOB_DONE,
    JOB_FAILED,
    JOB_SKIPPED, /* interrupted before it ran */
} job_state;

typedef struct job {
    const char *input; /* a path, or "-" for standard input */
    char *output;      /* a path, or "-" for standard output */
    char *chain_text;  /* the chain with this input's fields filled in */
    vkfx_chain *chain;
    vkfx_file_format fmt;
    vkfx_pixels in, out;
    vkfx_run_result result;
    job_state state;
    int status; /* the library's code when the job failed */
    char error[1024];
    double t_start, t_end; /* seconds, for wall time */
} job;

typedef struct batch {
    const cli_batch_opts *o;
    job *jobs;
    size_t n;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    size_t next_decode; /* the next job a codec thread decodes */
    size_t in_flight;   /* jobs between the start of decoding and done */
    size_t limit;       /* at most this many in flight (memory) */
    size_t done, failed;
    double t0;
    double last_progress;
    size_t progress_done; /* files done at the last progress line */
    FILE *json;
    bool show_progress, progress_tty;
    bool lost; /* the GPU was lost: nothing more can run */
} batch;

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
    (void)sig;
    interrupted = 1;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* ---- planning: inputs, templates, output names ---- */

static const char *const image_exts[] = {"png", "jpg", "jpeg", "bmp", "tga",
                                         "gif", "psd", "hdr",  "exr", NULL};

static const char *extension(const char *name)
{
    const char *dot = strrchr(name, '.');
    return dot && dot != name ? dot + 1 : "";
}

static bool is_image_name(const char *name)
{
    const char *ext = extension(name);
    for (const char *const *e = image_exts; *e; e++)
        if (strcasecmp(ext, *e) == 0)
            return true;
    return false;
}

typedef struct strv {
    char **v;
    size_t n, cap;
} strv;

static int strv_add(strv *s, char *str)
{
    if (!str)
        return vkfx_fail(VKFX_E_NOMEM, "out of host memory");
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 16;
        char **v = realloc(s->v, cap * sizeof(*v));
        if (!v) {
            free(str);
            return vkfx_fail(VKFX_E_NOMEM, "out of host memory");
        }
        s->v = v;
        s->cap = cap;
    }
    s->v[s->n++] = str;
    return VKFX_OK;
}

static void strv_free(strv *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->v[i]);
    free(s->v);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A directory stands for the image files directly in it, sorted by name. */
static int expand_dir(const char *dir, strv *out)
{
    DIR *d = opendir(dir);
    if (!d)
        return vkfx_fail(VKFX_E_IO, "%s: %s", dir, strerror(errno));
    strv names = {0};
    int ret = VKFX_OK;
    struct dirent *e;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.' && is_image_name(e->d_name) &&
            (ret = strv_add(&names, strdup(e->d_name))) < 0)
            break;
    closedir(d);
    if (ret < 0)
        goto done;
    if (names.n == 0) {
        ret = vkfx_fail(VKFX_E_USAGE, "%s: no image files in this directory (looked for .%s)", dir,
                        "png, .jpg, .jpeg, .bmp, .tga, .gif, .psd, .hdr, .exr");
        goto done;
    }
    qsort(names.v, names.n, sizeof(*names.v), cmp_str);
    size_t dl = strlen(dir);
    bool slash = dl && dir[dl - 1] == '/';
    for (size_t i = 0; i < names.n && ret == VKFX_OK; i++) {
        size_t len = dl + 1 + strlen(names.v[i]) + 1;
        char *p = malloc(len);
        if (p)
            snprintf(p, len, "%s%s%s", dir, slash ? "" : "/", names.v[i]);
        ret = strv_add(out, p);
    }
done:
    strv_free(&names);
    return ret;
}

/* The template fields of one input. */
typedef struct fields {
    char stem[NAME_MAX + 1], name[NAME_MAX + 1], ext[NAME_MAX + 1], dir[PATH_MAX];
    size_t index;
} fields;

/* The first n bytes of src in dst (cap bytes), cut to fit. */
static void copy_str(char *dst, size_t cap, const char *src, size_t n)
{
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, src, n);
    dst[n] = 0;
}

static void fields_of(const char *input, size_t index, fields *f)
{
    f->index = index;
    if (strcmp(input, "-") == 0) {
        snprintf(f->name, sizeof(f->name), "stdin");
        snprintf(f->stem, sizeof(f->stem), "stdin");
        f->ext[0] = 0;
        snprintf(f->dir, sizeof(f->dir), ".");
        return;
    }
    const char *slash = strrchr(input, '/');
    const char *base = slash ? slash + 1 : input;
    const char *ext = extension(base);
    copy_str(f->name, sizeof(f->name), base, strlen(base));
    copy_str(f->ext, sizeof(f->ext), ext, strlen(ext));
    copy_str(f->stem, sizeof(f->stem), base, strlen(base) - (*ext ? strlen(ext) + 1 : 0));
    if (!slash)
        copy_str(f->dir, sizeof(f->dir), ".", 1);
    else if (slash == input)
        copy_str(f->dir, sizeof(f->dir), "/", 1);
    else
        copy_str(f->dir, sizeof(f->dir), input, (size_t)(slash - input));
}

typedef struct sbuf {
    char *p;
    size_t len, cap;
} sbuf;

static bool sbuf_put(sbuf *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (b->len + n + 1 > cap)
            cap *= 2;
        char *p = realloc(b->p, cap);
        if (!p)
            return false;
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = 0;
    return true;
}

/* Fills {stem} {name} {ext} {dir} {index} into text; {{ and }} are literal
 * braces. In a chain (escape true) the values get a backslash before each
 * character the chain syntax uses, so a file name with , : = or \ stays one
 * option value. what names the text in messages. */
static int expand(const char *text, const fields *f, bool escape, const char *what, char **out)
{
    static const char *const names[] = {"stem", "name", "ext", "dir", "index", NULL};
    sbuf b = {0};
    bool ok = sbuf_put(&b, "", 0);
    for (const char *s = text; *s && ok;) {
        if ((s[0] == '{' && s[1] == '{') || (s[0] == '}' && s[1] == '}')) {
            ok = sbuf_put(&b, s, 1);
            s += 2;
            continue;
        }
        if (*s == '}') {
            free(b.p);
            return vkfx_fail(VKFX_E_USAGE, "%s '%s': a lone '}' (write '}}' for a literal brace)",
                             what, text);
        }
        if (*s != '{') {
            ok = sbuf_put(&b, s++, 1);
            continue;
        }
        const char *end = strchr(s, '}');
        size_t len = end ? (size_t)(end - s - 1) : 0;
        int which = -1;
        for (int i = 0; end && names[i]; i++)
            if (strlen(names[i]) == len && strncmp(s + 1, names[i], len) == 0)
                which = i;
        if (which < 0) {
            free(b.p);
            if (!end)
                return vkfx_fail(VKFX_E_USAGE,
                                 "%s '%s': '{' without '}' (write '{{' for a literal brace)", what,
                                 text);
            return vkfx_fail(VKFX_E_USAGE,
                             "%s '%s': unknown field {%.*s}; the fields are {stem}, {name}, "
                             "{ext}, {dir} and {index}",
                             what, text, (int)len, s + 1);
        }
        char num[32];
        snprintf(num, sizeof(num), "%zu", f->index);
        const char *value = which == 0   ? f->stem
                            : which == 1 ? f->name
                            : which == 2 ? f->ext
                            : which == 3 ? f->dir
                                         : num;
        for (const char *v = value; *v && ok; v++) {
            if (escape && strchr(",:=\\", *v))
                ok = sbuf_put(&b, "\\", 1);
            ok = ok && sbuf_put(&b, v, 1);
        }
        s = end + 1;
    }
    if (!ok) {
        free(b.p);
        return vkfx_fail(VKFX_E_NOMEM, "out of host memory");
    }
    *out = b.p;
    return VKFX_OK;
}

/* The output's directory and file name, with the directory resolved, so
 * that out/a.png and ./out/../out/a.png compare equal. */
static char *canonical_output(const char *path)
{
    char *copy = strdup(path), *copy2 = strdup(path);
    char *result = NULL;
    if (copy && copy2) {
        char *real = realpath(dirname(copy), NULL);
        const char *base = basename(copy2);
        if (real) {
            size_t len = strlen(real) + strlen(base) + 2;
            result = malloc(len);
            if (result)
                snprintf(result, len, "%s/%s", real, base);
            free(real);
        }
    }
    free(copy);
    free(copy2);
    return result;
}

static int check_output_dir(const char *path)
{
    char *copy = strdup(path);
    if (!copy)
        return vkfx_fail(VKFX_E_NOMEM, "out of host memory");
    const char *dir = dirname(copy);
    struct stat st;
    int ret = VKFX_OK;
    if (stat(dir, &st) != 0)
        ret = vkfx_fail(VKFX_E_IO, "%s: output directory '%s' does not exist", path, dir);
    else if (!S_ISDIR(st.st_mode))
        ret = vkfx_fail(VKFX_E_IO, "%s: '%s' is not a directory", path, dir);
    free(copy);
    return ret;
}

/* With --outdir, an output keeps its input's name, or takes .png where the
 * input's format cannot be written (GIF, PSD) or the input is stdin. */
static int outdir_name(const char *outdir, const fields *f, char **out)
{
    vkfx_file_format fmt;
    bool keep = f->ext[0] && vkfx_file_format_for_output(f->name, &fmt) == VKFX_OK;
    vkfx_error_clear();
    size_t len = strlen(outdir) + strlen(f->name) + strlen(f->stem) + 8;
    *out = malloc(len);
    if (!*out)
        return vkfx_fail(VKFX_E_NOMEM, "out of host memory");
    bool slash = outdir[0] && outdir[strlen(outdir) - 1] == '/';
    if (keep)
        snprintf(*out, len, "%s%s%s", outdir, slash ? "" : "/", f->name);
    else
        snprintf(*out, len, "%s%s%s.png", outdir, slash ? "" : "/", f->stem);
    return VKFX_OK;
}

static int cmp_canon(const void *a, const void *b)
{
    return strcmp(**(char *const *const *)a, **(char *const *const *)b);
}

/* Plans every job and checks all that can be checked before any work:
 * chains, output names and formats, directories, outputs that would
 * overwrite an input or each other. Usage errors come back as
 * VKFX_E_USAGE. */
static int plan(const cli_batch_opts *o, char **args, int nargs, strv *inputs, job **jobs_out,
                size_t *n_out)
{
    int ret = VKFX_OK;
    job *jobs = NULL;
    char **canon = NULL;
    char ***order = NULL;
    size_t stdin_count = 0;
    for (int i = 0; i < nargs; i++) {
        struct stat st;
        if (strcmp(args[i], "-") == 0) {
            stdin_count++;
            CHECK(strv_add(inputs, strdup(args[i])));
        } else if (stat(args[i], &st) == 0 && S_ISDIR(st.st_mode)) {
            CHECK(expand_dir(args[i], inputs));
        } else {
            CHECK(strv_add(inputs, strdup(args[i])));
        }
    }
    size_t n = inputs->n;
    if (stdin_count > 1) {
        ret = vkfx_fail(VKFX_E_USAGE, "standard input ('-') can be read only once");
        goto fail;
    }
    if (o->output && strcmp(o->output, "-") == 0 && n > 1) {
        ret =
            vkfx_fail(VKFX_E_USAGE, "-o - writes one image to standard output; got %zu inputs", n);
        goto fail;
    }
    if (o->output && strcmp(o->output, "-") == 0 && o->json && strcmp(o->json, "-") == 0) {
        ret =
            vkfx_fail(VKFX_E_USAGE, "-o - and --json both want standard output; give --json=FILE");
        goto fail;
    }
    if (o->output && n > 1 && !strchr(o->output, '{')) {
        ret = vkfx_fail(VKFX_E_USAGE,
                        "%zu inputs would all be written to '%s': use a template such as "
                        "'out/{stem}.png', or --outdir DIR",
                        n, o->output);
        goto fail;
    }
    jobs = calloc(n, sizeof(*jobs));
    canon = calloc(n, sizeof(*canon));
    order = calloc(n, sizeof(*order));
    if (!jobs || !canon || !order) {
        ret = vkfx_fail(VKFX_E_NOMEM, "out of host memory");
        goto fail;
    }
    for (size_t i = 0; i < n; i++) {
        job *j = &jobs[i];
        fields f;
        j->input = inputs->v[i];
        fields_of(j->input, i + 1, &f);
        if (o->outdir)
            CHECK(outdir_name(o->outdir, &f, &j->output));
        else
            CHECK(expand(o->output, &f, false, "-o", &j->output));
        CHECK(expand(o->chain_text, &f, true, "-f", &j->chain_text));
        if ((ret = vkfx_chain_parse(j->chain_text, &j->chain)) < 0) {
            if (n > 1)
                vkfx_fail_context(ret, "%s", j->input);
            goto fail;
        }
        if (strcmp(j->output, "-") == 0) {
            const char *fmt = o->format ? o->format : "png";
            char name[64];
            snprintf(name, sizeof(name), "stdout.%s", fmt);
            if ((ret = vkfx_file_format_for_output(name, &j->fmt)) < 0) {
                ret = vkfx_fail(VKFX_E_USAGE,
                                "--format '%s': the formats written are png, jpg, bmp, tga, "
                                "hdr, exr",
                                fmt);
                goto fail;
            }
            continue;
        }
        CHECK(vkfx_file_format_for_output(j->output, &j->fmt));
        CHECK(check_output_dir(j->output));
        for (size_t k = 0; k < n; k++)
            if (strcmp(inputs->v[k], "-") != 0 && cli_same_file(inputs->v[k], j->output)) {
                ret = vkfx_fail(VKFX_E_USAGE, "%s: the output would overwrite the input%s%s",
                                j->output, k == i ? "" : " ", k == i ? "" : inputs->v[k]);
                goto fail;
            }
        canon[i] = canonical_output(j->output);
        if (!canon[i]) {
            ret = vkfx_fail(VKFX_E_IO, "%s: %s", j->output, strerror(errno));
            goto fail;
        }
        order[i] = &canon[i];
    }
    /* Two inputs writing one file: sort the names and compare neighbours. */
    size_t nc = 0;
    for (size_t i = 0; i < n; i++)
        if (order[i])
            order[nc++] = order[i];
    qsort(order, nc, sizeof(*order), cmp_canon);
    for (size_t i = 1; i < nc; i++)
        if (strcmp(*order[i - 1], *order[i]) == 0) {
            size_t a = (size_t)(order[i - 1] - canon), b = (size_t)(order[i] - canon);
            ret = vkfx_fail(VKFX_E_USAGE, "'%s' and '%s' would both be written to %s",
                            jobs[a < b ? a : b].input, jobs[a < b ? b : a].input, jobs[a].output);
            goto fail;
        }
    *jobs_out = jobs;
    *n_out = n;
    jobs = NULL;
fail:
    for (size_t i = 0; canon && i < n; i++)
        free(canon[i]);
    free(canon);
    free(order);
    if (jobs) {
        for (size_t i = 0; i < n; i++) {
            free(jobs[i].output);
            free(jobs[i].chain_text);
            vkfx_chain_free(jobs[i].chain);
        }
        free(jobs);
    }
    return ret;
}

/* ---- the work ---- */

static void job_fail(job *j, int status)
{
    j->status = status;
    snprintf(j->error, sizeof(j->error), "%s", vkfx_error_message());
    j->state = JOB_FAILED;
}

/* Encodes to a temporary file, then copies it to standard output. */
static int write_stdout(const job *j, const vkfx_save_opts *save)
{
    const char *tmpdir = getenv("TMPDIR");
    char dir[PATH_MAX], path[PATH_MAX + 32];
    snprintf(dir, sizeof(dir), "%s/vkfx-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
    if (!mkdtemp(dir))
        return vkfx_fail(VKFX_E_IO, "a temporary directory for standard output: %s",
                         strerror(errno));
    snprintf(path, sizeof(path), "%s/out.%s", dir, vkfx_file_format_name(j->fmt));
    int ret = vkfx_file_save(path, j->fmt, &j->out, save);
    if (ret == VKFX_OK) {
        FILE *f = fopen(path, "rb");
        char buf[65536];
        size_t got;
        if (!f)
            ret = vkfx_fail(VKFX_E_IO, "%s: %s", path, strerror(errno));
        while (f && (got = fread(buf, 1, sizeof(buf), f)) > 0)
            if (fwrite(buf, 1, got, stdout) != got) {
                ret = vkfx_fail(VKFX_E_IO, "standard output: %s", strerror(errno));
                break;
            }
        if (f)
            fclose(f);
        if (ret == VKFX_OK && fflush(stdout) != 0)
            ret = vkfx_fail(VKFX_E_IO, "standard output: %s", strerror(errno));
    }
    unlink(path);
    rmdir(dir);
    return ret;
}

static void decode(batch *b, job *j)
{
    int ret = strcmp(j->input, "-") == 0 ? vkfx_file_load_fd(STDIN_FILENO, "standard input", &j->in)
                                         : vkfx_file_load(j->input, &j->in);
    (void)b;
    if (ret < 0)
        job_fail(j, ret);
}

static void encode(batch *b, job *j)
{
    int ret = strcmp(j->output, "-") == 0 ? write_stdout(j, &b->o->save)
                                          : vkfx_file_save(j->output, j->fmt, &j->out, &b->o->save);
    if (ret < 0)
        job_fail(j, ret);
    else
        j->state = JOB_DONE;
}

/* One JSON object on a line for a finished job (called with the lock held). */
static void report_json(batch *b, size_t i)
{
    const job *j = &b->jobs[i];
    FILE *f = b->json;
    fprintf(f, "{\"index\": %zu, \"input\": ", i + 1);
    cli_json_string(f, j->input);
    fprintf(f, ", \"output\": ");
    cli_json_string(f, j->output);
    fprintf(f, ", \"width\": %u, \"height\": %u, \"gpu_ms\": {", j->in.width, j->in.height);
    double total = 0;
    for (uint32_t t = 0; t < j->result.ntimes; t++) {
        fprintf(f, "%s", t ? ", " : "");
        cli_json_string(f, j->result.times[t].label);
        fprintf(f, ": %.4f", j->result.times[t].ms);
        total += j->result.times[t].ms;
    }
    fprintf(f, "}, \"gpu_ms_total\": %.4f, \"notes\": {", total);
    for (uint32_t t = 0; t < j->result.nnotes; t++) {
        fprintf(f, "%s", t ? ", " : "");
        cli_json_string(f, j->result.notes[t].key);
        fprintf(f, ": %llu", (unsigned long long)j->result.notes[t].value);
    }
    double wall = j->t_end > j->t_start ? (j->t_end - j->t_start) * 1e3 : 0;
    const char *status = j->state == JOB_DONE ? "ok" : j->state == JOB_FAILED ? "error" : "skipped";
    fprintf(f, "}, \"wall_ms\": %.1f, \"status\": \"%s\", \"error\": ", wall, status);
    if (j->state == JOB_FAILED)
        cli_json_string(f, j->error);
    else
        fprintf(f, "null");
    fprintf(f, "}\n");
    fflush(f);
}

/* "12/48 files, 5.3 files/s, 7 s left" on stderr: rewritten in place at
 * most ten times a second on a terminal; with --progress elsewhere, a line
 * at most once a second. last: the batch has ended. */
static void report_progress(batch *b, bool last)
{
    double t = now_s();
    if (!b->show_progress)
        return;
    bool due = last || t - b->last_progress >= (b->progress_tty ? 0.1 : 1.0);
    if (due && b->done != b->progress_done) {
        b->last_progress = t;
        b->progress_done = b->done;
        double rate = t > b->t0 ? (double)b->done / (t - b->t0) : 0;
        double left = rate > 0 ? (double)(b->n - b->done) / rate : 0;
        fprintf(stderr, "%svkfx: %zu/%zu files, %.1f files/s, %.0f s left%s%s",
                b->progress_tty ? "\r" : "", b->done, b->n, rate, left,
                b->failed ? ", some failed" : "", b->progress_tty ? "\033[K" : "\n");
    }
    if (last && b->progress_tty && b->progress_done)
        fputc('\n', stderr);
}

/* A job has ended (done, failed or skipped): report it. Lock held. */
static void finish_job(batch *b, size_t i)
{
    job *j = &b->jobs[i];
    j->t_end = now_s();
    b->in_flight--;
    b->done++;
    if (j->state == JOB_FAILED) {
        b->failed++;
        if (b->progress_tty)
            fputs("\r\033[K", stderr);
        fprintf(stderr, "vkfx: %s\n", j->error);
    }
    if (b->json && j->state != JOB_SKIPPED)
        report_json(b, i);
    vkfx_pixels_free(&j->in);
    vkfx_pixels_free(&j->out);
    report_progress(b, false);
    pthread_cond_broadcast(&b->cv);
}

/* Waits for a change of state, or 0.1 s (lock held). */
static void wait_a_little(batch *b)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_nsec += 100000000;
    if (until.tv_nsec >= 1000000000) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000;
    }
    pthread_cond_timedwait(&b->cv, &b->mu, &until);
}

/* A codec thread: writes finished images first (they hold memory), then
 * decodes the next input while fewer than limit are in flight. */
static void *codec_thread(void *arg)
{
    batch *b = arg;
    pthread_mutex_lock(&b->mu);
    for (;;) {
        size_t enc = b->n;
        for (size_t i = 0; i < b->n && enc == b->n; i++)
            if (b->jobs[i].state == JOB_ENCODED)
                enc = i;
        if (enc < b->n) {
            job *j = &b->jobs[enc];
            j->state = JOB_ENCODING;
            pthread_mutex_unlock(&b->mu);
            encode(b, j);
            pthread_mutex_lock(&b->mu);
            finish_job(b, enc);
            continue;
        }
        if (!interrupted && !b->lost && b->next_decode < b->n && b->in_flight < b->limit) {
            size_t i = b->next_decode++;
            job *j = &b->jobs[i];
            j->state = JOB_DECODING;
            j->t_start = now_s();
            b->in_flight++;
            pthread_mutex_unlock(&b->mu);
            decode(b, j);
            pthread_mutex_lock(&b->mu);
            if (j->state == JOB_FAILED)
                finish_job(b, i);
            else
                j->state = JOB_DECODED;
            pthread_cond_broadcast(&b->cv);
            continue;
        }
        if (b->in_flight == 0 && (interrupted || b->lost || b->next_decode == b->n))
            break;
        wait_a_little(b); /* wakes to notice Ctrl-C too */
    }
    pthread_cond_broadcast(&b->cv);
    pthread_mutex_unlock(&b->mu);
    return NULL;
}

static void print_timings(const job *j, bool name)
{
    double total = 0;
    for (uint32_t i = 0; i < j->result.ntimes; i++) {
        fprintf(stderr, "vkfx: %s%s%-16s %9.3f ms\n", name ? j->input : "", name ? ": " : "",
                j->result.times[i].label, j->result.times[i].ms);
        total += j->result.times[i].ms;
    }
    fprintf(stderr, "vkfx: %s%s%-16s %9.3f ms (GPU)\n", name ? j->input : "", name ? ": " : "",
            "total", total);
}

/* After a job's GPU run (lock held): a failure is reported; a success goes
 * to the codec threads. */
static void gpu_done(batch *b, size_t i, int ret)
{
    job *j = &b->jobs[i];
    if (ret < 0) {
        b->lost |= ret == VKFX_E_LOST;
        job_fail(j, ret);
        finish_job(b, i);
        return;
    }
    if (b->o->run.timings && !b->json)
        print_timings(j, b->n > 1);
    j->in.width = j->out.width; /* kept for the report */
    j->in.height = j->out.height;
    j->state = JOB_ENCODED;
    pthread_cond_broadcast(&b->cv);
}

/* Finishes the run in flight for job i (lock not held). */
static int gpu_finish(batch *b, vkfx_context *ctx, size_t i, vkfx_pending *p, unsigned *messages)
{
    job *j = &b->jobs[i];
    int ret = vkfx_run_finish(p, &j->out, &j->result);
    unsigned now = vkfx_context_validation_messages(ctx);
    if (ret == VKFX_OK && now != *messages)
        ret = vkfx_fail(VKFX_E_VULKAN, "the validation layer reported %u message(s)",
                        now - *messages);
    *messages = now;
    if (ret < 0 && b->n > 1)
        vkfx_fail_context(ret, "%s", j->input);
    return ret;
}

/* This thread feeds the GPU, lowest decoded index first, with up to two runs
 * in flight: the next file is uploaded and its work submitted before the
 * thread waits for the one the GPU is running, so the GPU is not left idle
 * while this thread copies. */
static void gpu_loop(batch *b, vkfx_context *ctx, vkfx_staging *staging)
{
    vkfx_pending *flying = NULL;
    size_t flying_job = 0;
    unsigned messages = vkfx_context_validation_messages(ctx);
    pthread_mutex_lock(&b->mu);
    for (;;) {
        size_t next = b->n;
        for (size_t i = 0; i < b->n && next == b->n; i++)
            if (b->jobs[i].state == JOB_DECODED)
                next = i;
        if (next < b->n && (interrupted || b->lost)) {
            b->jobs[next].state = JOB_SKIPPED;
            finish_job(b, next);
            continue;
        }
        if (next == b->n && !flying) {
            if (b->in_flight == 0 && (interrupted || b->lost || b->next_decode == b->n))
                break;
            wait_a_little(b);
            continue;
        }
        vkfx_pending *started = NULL;
        int start_ret = VKFX_OK;
        if (next < b->n)
            b->jobs[next].state = JOB_GPU;
        pthread_mutex_unlock(&b->mu);
        if (next < b->n) {
            job *j = &b->jobs[next];
            vkfx_run_opts run = b->o->run;
            run.premultiplied_out = j->fmt == VKFX_FILE_EXR;
            run.input_path = strcmp(j->input, "-") == 0 ? NULL : j->input;
            vkfx_file_output_layout(j->fmt, j->in.channels, j->in.sample, &j->out.channels,
                                    &j->out.sample);
            start_ret = vkfx_run_start(ctx, staging, j->chain, &j->in, &j->out, &run, &started);
            if (start_ret < 0 && b->n > 1)
                vkfx_fail_context(start_ret, "%s", j->input);
            if (start_ret == VKFX_OK)
                vkfx_pixels_free(&j->in);
        }
        /* The start's message is kept in its job before the finish may make another. */
        if (start_ret < 0) {
            pthread_mutex_lock(&b->mu);
            gpu_done(b, next, start_ret);
            pthread_mutex_unlock(&b->mu);
        }
        int finish_ret = VKFX_OK;
        if (flying)
            finish_ret = gpu_finish(b, ctx, flying_job, flying, &messages);
        pthread_mutex_lock(&b->mu);
        if (flying)
            gpu_done(b, flying_job, finish_ret);
        flying = started;
        flying_job = next;
    }
    pthread_mutex_unlock(&b->mu);
}

static int cpu_count(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 256 ? 256 : (int)n;
}

int cli_batch(const cli_batch_opts *o, char **args, int nargs)
{
    int status = VKFX_OK;
    strv inputs = {0};
    batch b = {.o = o};
    vkfx_context *ctx = NULL;
    vkfx_staging *staging = NULL;
    pthread_t *threads = NULL;
    int nthreads = 0;
    bool json_file = false;
    if ((status = plan(o, args, nargs, &inputs, &b.jobs, &b.n)) < 0)
        goto done;
    if (o->json) {
        json_file = strcmp(o->json, "-") != 0;
        b.json = json_file ? fopen(o->json, "w") : stdout;
        if (!b.json) {
            status = vkfx_fail(VKFX_E_IO, "--json=%s: %s", o->json, strerror(errno));
            goto done;
        }
    }
    if ((status = vkfx_context_create(&o->ctx, &ctx)) < 0 ||
        (status = vkfx_staging_create(ctx, 0, &staging)) < 0)
        goto done;

    struct sigaction sa = {.sa_handler = on_signal, .sa_flags = SA_RESTART};
    sigemptyset(&sa.sa_mask);
    struct sigaction old_int, old_term;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);

    int want = o->jobs > 0 ? o->jobs : cpu_count();
    nthreads = (size_t)want < b.n ? want : (int)b.n;
    b.limit = (size_t)nthreads * 2 + 2;
    /* One file needs no progress line unless asked for. */
    b.show_progress = o->progress || (isatty(STDERR_FILENO) && b.n > 1);
    b.progress_tty = isatty(STDERR_FILENO);
    b.t0 = now_s();
    pthread_mutex_init(&b.mu, NULL);
    pthread_cond_init(&b.cv, NULL);
    threads = calloc((size_t)nthreads, sizeof(*threads));
    int started = 0;
    for (; threads && started < nthreads; started++)
        if (pthread_create(&threads[started], NULL, codec_thread, &b) != 0)
            break;
    if (started == 0) {
        status = vkfx_fail(VKFX_E_NOMEM, "no codec thread could be started");
    } else {
        gpu_loop(&b, ctx, staging);
        for (int i = 0; i < started; i++)
            pthread_join(threads[i], NULL);
        report_progress(&b, true);
    }
    pthread_cond_destroy(&b.cv);
    pthread_mutex_destroy(&b.mu);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    /* Each failure was reported as it happened. One input keeps its own
     * code (a usage error found while running is still exit 2); in a batch
     * any failure is exit 1. */
    if (status == VKFX_OK && b.failed)
        status = b.n == 1 ? b.jobs[0].status : VKFX_E_IO;
done:
    if (status < 0 && !(b.failed && b.n))
        cli_print_error();
    int code = interrupted ? EXIT_INTERRUPTED : cli_exit_code(status);
    if (b.lost && b.n > 1) {
        size_t written = 0;
        for (size_t i = 0; i < b.n; i++)
            written += b.jobs[i].state == JOB_DONE;
        fprintf(stderr, "vkfx: stopped: %zu of %zu files written before the GPU was lost\n",
                written, b.n);
    }
    if (interrupted) {
        size_t written = 0;
        for (size_t i = 0; i < b.n; i++)
            written += b.jobs[i].state == JOB_DONE;
        fprintf(stderr, "vkfx: interrupted: %zu of %zu files written, no others\n", written, b.n);
    }
    if (json_file && b.json && fclose(b.json) != 0 && code == EXIT_OK) {
        fprintf(stderr, "vkfx: --json=%s: %s\n", o->json, strerror(errno));
        code = EXIT_PROCESSING;
    }
    for (size_t i = 0; b.jobs && i < b.n; i++) {
        free(b.jobs[i].output);
        free(b.jobs[i].chain_text);
        vkfx_chain_free(b.jobs[i].chain);
        free(b.jobs[i].result.times);
        vkfx_pixels_free(&b.jobs[i].in);
        vkfx_pixels_free(&b.jobs[i].out);
    }
    free(b.jobs);
    free(threads);
    strv_free(&inputs);
    vkfx_staging_destroy(staging);
    if (code == EXIT_OK)
        vkfx_context_destroy(ctx);
    else
        vkfx_context_destroy_after_failure(ctx);
    return code;
}
