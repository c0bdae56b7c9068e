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
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

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
    JOB_EXISTS,  /* --skip-existing: its output is there already */
} job_state;

typedef struct job {
    const cli_job_opts *opts; /* its line's */
    size_t line;              /* in the job file; 0 on the command line */
    size_t index;             /* its place in the whole plan, from 1 */
    const char *input;        /* a path, or "-" for standard input */
    char *output;             /* a path, or "-" for standard output */
    char *chain_text;         /* the chain with this input's fields filled in */
    vkfx_chain *chain;
    vkfx_file_format fmt;
    vkfx_pixels in, out;
    /* A JPEG the device decodes: its bytes and layout (in has its shape, no pixels). */
    vkfx_jpeg_input jpeg;
    uint32_t source_w, source_h; /* the file's size where it was decoded smaller */
    vkfx_run_result result;
    job_state state;
    int status; /* the library's code when the job failed */
    char error[1024];
    char note[256];  /* what the decoder left unread, or "" */
    vkfx_meta meta;  /* what the input carries besides pixels, for its output */
    vkfx_tone *tone; /* its profile's curves, or NULL (sRGB, or not linearised) */
    /* Its output comes back as linear floats (a run in tiles excepted), encoded through the
     * profile's curves to tone_sample by a codec thread, not by the thread that feeds the
     * GPU. */
    bool tone_here;
    vkfx_sample tone_sample;
    const char *colour;    /* how its colour was read, for the report */
    unsigned dropped;      /* kinds of meta its output format could not hold */
    int precision;         /* the internal format's, --precision auto resolved */
    double t_start, t_end; /* seconds, for wall time */
    uint64_t held;         /* its bytes counted in the batch's held */
    double decode_ms, encode_ms;
} job;

typedef struct batch {
    const cli_batch_opts *o;
    const char *source; /* the job file, or NULL */
    job *jobs;
    size_t n;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    size_t next_decode; /* the next job a codec thread decodes */
    size_t in_flight;   /* jobs between the start of decoding and done */
    size_t limit;       /* at most this many in flight (memory) */
    /* Bytes of pixels the jobs in flight hold (decoded, or read back); no decode starts
     * past budget while another job is in flight. */
    uint64_t held, budget;
    size_t done, failed;
    size_t existing; /* jobs not run: --skip-existing found their outputs */
    double t0;
    double last_progress;
    size_t progress_done; /* files done at the last progress line */
    FILE *json;
    bool show_progress, progress_tty;
    bool lost;      /* the GPU was lost: nothing more can run */
    bool no_device; /* the device could not be opened: decoding stops */
    /* Where JPEG inputs are decoded (--jpeg-codec): a vkfx_jpeg_decode_where, or -1 before
     * the device is open (auto: libjpeg-turbo meanwhile). */
    atomic_int jpeg_decode;
    bool broken_pipe; /* standard output's reader went away */
    int json_errno;   /* the first failure to write the report */
} batch;

/* A stop signal arrived (cli/signals.c): no new work starts. */
#define interrupted (cli_signal_received() != 0)

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* ---- planning: inputs, templates, output names ---- */

static const char *extension(const char *name)
{
    const char *dot = strrchr(name, '.');
    return dot && dot != name ? dot + 1 : "";
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Names that say "image" although no codec reads them: such a file in a
 * folder is reported as unreadable rather than passed over. */
static const char *const other_image_exts[] = {"heic", "heif", "avif", "jxl", "jp2", "j2k",
                                               "ico",  "dng",  "cr2",  "nef", NULL};

static bool looks_like_image(const char *name)
{
    const char *ext = extension(name);
    if (!*ext)
        return false;
    if (vkfx_codec_for_extension(ext))
        return true;
    for (const char *const *e = other_image_exts; *e; e++)
        if (strcasecmp(ext, *e) == 0)
            return true;
    return false;
}

/* Whether the start of the regular file name in dir is in a format vkfx
 * reads. */
static bool reads_as_image(DIR *dir, const char *name)
{
    unsigned char head[4096];
    int fd = openat(dirfd(dir), name, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return false;
    struct stat st;
    ssize_t n = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? read(fd, head, sizeof(head)) : -1;
    close(fd);
    return n > 0 && vkfx_file_is_image(head, (size_t)n);
}

/* A directory stands for the image files directly in it, sorted by name:
 * regular files only (a FIFO would block, a device never ends; others with
 * an image's name are reported and skipped), each whose content is in a
 * format vkfx reads, whatever its name, and each named as an image that is
 * not, so that the run reports it instead of passing over it. */
static int expand_dir(const char *dir, cli_strv *out)
{
    DIR *d = opendir(dir);
    if (!d)
        return vkfx_fail(VKFX_E_IO, "%s: %s", dir, strerror(errno));
    cli_strv names = {0};
    int ret = VKFX_OK;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        bool named = looks_like_image(e->d_name);
        struct stat st;
        if (fstatat(dirfd(d), e->d_name, &st, 0) != 0 || !S_ISREG(st.st_mode)) {
            if (named)
                cli_message("vkfx: %s/%s: not a regular file; skipped", dir, e->d_name);
            continue;
        }
        if (!named && !reads_as_image(d, e->d_name))
            continue;
        if ((ret = cli_strv_add(&names, strdup(e->d_name))) < 0)
            break;
    }
    closedir(d);
    if (ret < 0)
        goto done;
    if (names.n == 0) {
        char formats[160];
        vkfx_codec_names(false, formats, sizeof(formats));
        ret = vkfx_fail(VKFX_E_USAGE, "%s: no image files in this directory (formats read: %s)",
                        dir, formats);
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
        ret = cli_strv_add(out, p);
    }
done:
    cli_strv_free(&names);
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

/* Fills {stem} {name} {ext} {dir} {index} ({index:0N}: N digits at least)
 * into text; {{ and }} are literal braces. In a chain (escape true) the values get a backslash
 * before each character the chain syntax uses, so a file name with , : = or \ stays one option
 * value. what names the text in messages. */
static int expand(const char *text, const fields *f, bool escape, const char *what, char **out)
{
    static const char *const names[] = {"stem", "name", "ext", "dir", "index", NULL};
    cli_sbuf b = {0};
    bool ok = cli_sbuf_put(&b, "", 0);
    for (const char *s = text; *s && ok;) {
        if ((s[0] == '{' && s[1] == '{') || (s[0] == '}' && s[1] == '}')) {
            ok = cli_sbuf_put(&b, s, 1);
            s += 2;
            continue;
        }
        if (*s == '}') {
            free(b.p);
            return vkfx_fail(VKFX_E_USAGE, "%s '%s': a lone '}' (write '}}' for a literal brace)",
                             what, text);
        }
        if (*s != '{') {
            ok = cli_sbuf_put(&b, s++, 1);
            continue;
        }
        const char *end = strchr(s, '}');
        size_t len = end ? (size_t)(end - s - 1) : 0;
        int which = -1, width = 0;
        for (int i = 0; end && names[i]; i++)
            if (strlen(names[i]) == len && strncmp(s + 1, names[i], len) == 0)
                which = i;
        /* {index:04}, as Python's format writes it: zeros up to that many digits. */
        if (end && which < 0 && len >= 8 && len <= 9 && strncmp(s + 1, "index:0", 7) == 0 &&
            strspn(s + 8, "0123456789") == len - 7) {
            width = atoi(s + 8);
            which = width >= 1 && width <= 20 ? 4 : -1;
        }
        if (which < 0) {
            free(b.p);
            if (!end)
                return vkfx_fail(VKFX_E_USAGE,
                                 "%s '%s': '{' without '}' (write '{{' for a literal brace)", what,
                                 text);
            return vkfx_fail(VKFX_E_USAGE,
                             "%s '%s': unknown field {%.*s}; the fields are {stem}, {name}, "
                             "{ext}, {dir} and {index} ({index:04}: zeros up to 4 digits)",
                             what, text, (int)len, s + 1);
        }
        char num[32];
        snprintf(num, sizeof(num), "%0*zu", width, f->index);
        const char *value = which == 0   ? f->stem
                            : which == 1 ? f->name
                            : which == 2 ? f->ext
                            : which == 3 ? f->dir
                                         : num;
        for (const char *v = value; *v && ok; v++) {
            if (escape && strchr(",:=\\", *v))
                ok = cli_sbuf_put(&b, "\\", 1);
            ok = ok && cli_sbuf_put(&b, v, 1);
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

/* The files a chain writes (its options' values), in order. */
static int add_written(void *user, const vkfx_filter *f, const vkfx_option *o, const char *value)
{
    (void)f;
    return o->writes ? cli_strv_add(user, strdup(value)) : VKFX_OK;
}

/* A side output whose name takes nothing from the input would be written
 * once per input, each over the last: compare the first two jobs'. */
static int check_side_outputs(const job *jobs, size_t n)
{
    cli_strv a = {0}, b = {0};
    int ret = VKFX_OK;
    if (n < 2)
        return VKFX_OK;
    TRY(vkfx_chain_paths(jobs[0].chain, add_written, &a));
    TRY(vkfx_chain_paths(jobs[1].chain, add_written, &b));
    for (size_t i = 0; i < a.n && i < b.n; i++)
        if (strcmp(a.v[i], b.v[i]) == 0) {
            ret = vkfx_fail(VKFX_E_USAGE,
                            "-f: '%s' would be written once for each of the %zu inputs, each "
                            "time over the last: put a template field in it, such as "
                            "'{stem}.json'",
                            a.v[i], n);
            break;
        }
fail:
    cli_strv_free(&a);
    cli_strv_free(&b);
    return ret;
}

/* Whether path's folder exists (a path without one is in ".", which does). */
static bool folder_exists(const char *path)
{
    char *copy = strdup(path);
    struct stat st;
    bool ok = copy && stat(dirname(copy), &st) == 0 && S_ISDIR(st.st_mode);
    free(copy);
    return ok;
}

/* Whether path is a character device (char_only) or also a FIFO: written straight through,
 * in the format --format names unless its name has an extension. */
static bool is_device(const char *path, bool char_only)
{
    struct stat st;
    return stat(path, &st) == 0 && (S_ISCHR(st.st_mode) || (!char_only && S_ISFIFO(st.st_mode)));
}

/* Whether path is a terminal, which an image's bytes would garble. */
static bool is_terminal(const char *path)
{
    int fd = open(path, O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
    bool tty = fd >= 0 && isatty(fd);
    if (fd >= 0)
        close(fd);
    return tty;
}

/* Whether -o names a folder: one that exists, or a name ending in '/' (made as needed). */
static bool names_folder(const char *output)
{
    struct stat st;
    size_t len = strlen(output);
    if (len && output[len - 1] == '/')
        return !strchr(output, '{');
    /* '-' is standard output, even beside a folder of that name. */
    return strcmp(output, "-") != 0 && stat(output, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Every file written, as it stands: never a directory, a read-only file or
 * (--no-clobber) an existing file; every one of those is named at once.
 * Outputs of -o and --outdir may be in folders still to be created. */
static int check_targets(const cli_paths *paths)
{
    int ret = VKFX_OK;
    size_t kept = 0;
    char names[512] = "";
    for (size_t i = 0; i < paths->n; i++) {
        const cli_path *p = &paths->v[i];
        vkfx_target_kind kind;
        if (!p->writes || p->stream)
            continue;
        /* Its folders are made before the work, in one this user must be able to write. */
        if (strncmp(p->label, "output", 6) == 0 && !folder_exists(p->resolved)) {
            if ((ret = vkfx_safefile_check_folder(p->path)) < 0)
                return ret;
            continue;
        }
        /* "new/../out.png" reaches out.png only once new is made. */
        int r = vkfx_safefile_target(folder_exists(p->path) ? p->path : p->resolved, &kind);
        if (r < 0 && strstr(vkfx_error_message(), "--no-clobber")) {
            size_t len = strlen(names);
            snprintf(names + len, sizeof(names) - len, "%s%s", kept ? ", " : "", p->path);
            kept++;
        } else if (r < 0) {
            return r;
        }
    }
    if (kept)
        ret = vkfx_fail(VKFX_E_USAGE, "--no-clobber: %zu output(s) exist and are kept: %s", kept,
                        names);
    return ret;
}

/* The folders of -o and --outdir outputs, created with their parents; a
 * failure names the job file's line. */
static int make_output_folders(const job *jobs, size_t n, const char *source)
{
    int ret = VKFX_OK;
    for (size_t i = 0; i < n && ret == VKFX_OK; i++) {
        if (strcmp(jobs[i].output, "-") == 0 || folder_exists(jobs[i].output))
            continue;
        char *copy = strdup(jobs[i].output);
        ret = copy ? vkfx_safefile_make_dirs(dirname(copy))
                   : vkfx_fail(VKFX_E_NOMEM, "out of host memory");
        free(copy);
        if (ret < 0 && source && jobs[i].line)
            vkfx_fail_context(ret, "%s:%zu", source, jobs[i].line);
    }
    return ret;
}

/* Where a job comes from, for messages, in a job file: "jobs.txt:3: " as
 * a prefix, else " (jobs.txt:3)"; nothing on the command line. */
static void job_where(const char *source, const job *j, bool prefix, char *buf, size_t len)
{
    if (source && j->line)
        snprintf(buf, len, prefix ? "%s:%zu: " : " (%s:%zu)", source, j->line);
    else
        buf[0] = 0;
}

/* Every file the jobs read and write, and --json's; in a job file each
 * named with its line. */
static int list_paths(const cli_batch_opts *o, const char *source, const job *jobs, size_t n,
                      cli_paths *paths)
{
    int ret = VKFX_OK;
    char role[PATH_MAX + 64], of[2 * PATH_MAX + 64];
    for (size_t i = 0; i < n; i++) {
        const job *j = &jobs[i];
        if (source && j->line) {
            snprintf(role, sizeof(role), "input, %s:%zu", source, j->line);
            snprintf(of, sizeof(of), "%s, %s:%zu", j->input, source, j->line);
        } else {
            snprintf(role, sizeof(role), "input");
            snprintf(of, sizeof(of), "%s", j->input);
        }
        if (strcmp(j->input, "-") != 0)
            TRY(cli_paths_add(paths, j->input, false, role, NULL));
        else
            TRY(cli_paths_add_stream(paths, STDIN_FILENO, "standard input", false, role));
        if (strcmp(j->output, "-") != 0)
            TRY(cli_paths_add(paths, j->output, true, "output", of));
        else
            TRY(cli_paths_add_stream(paths, STDOUT_FILENO, "standard output", true, "-o -"));
        TRY(cli_paths_add_chain(paths, j->chain, of));
    }
    if (o->json && strcmp(o->json, "-") != 0)
        TRY(cli_paths_add(paths, o->json, true, "--json", NULL));
    else if (o->json)
        TRY(cli_paths_add_stream(paths, STDOUT_FILENO, "standard output", true, "--json"));
    if (o->job_file && strcmp(o->job_file, "-") != 0)
        TRY(cli_paths_add(paths, o->job_file, false, "the job file", NULL));
    else if (o->job_file)
        TRY(cli_paths_add_stream(paths, STDIN_FILENO, "standard input", false, "the job file"));
fail:
    return ret;
}

typedef struct plan {
    cli_strv inputs; /* every input path; the jobs point into it */
    job *jobs;
    size_t n, cap;
    const char *source; /* the job file, or NULL */
} plan;

static void jobs_free(job *jobs, size_t n)
{
    for (size_t i = 0; jobs && i < n; i++) {
        free(jobs[i].output);
        free(jobs[i].chain_text);
        vkfx_chain_free(jobs[i].chain);
        free(jobs[i].result.times);
        free(jobs[i].result.jpeg);
        vkfx_pixels_free(&jobs[i].in);
        vkfx_pixels_free(&jobs[i].out);
        vkfx_meta_free(&jobs[i].meta);
        vkfx_tone_free(jobs[i].tone);
    }
    free(jobs);
}

static void plan_free(plan *p)
{
    jobs_free(p->jobs, p->n);
    cli_strv_free(&p->inputs);
}

/* Plans the jobs of one line: its inputs (directories expanded), each
 * job's output name, chain and format; what depends on one job alone is
 * checked here, what depends on several in check_plan. */
static int plan_line(plan *p, const cli_job_line *l)
{
    const cli_job_opts *o = &l->o;
    int ret = VKFX_OK;
    size_t first = p->inputs.n;
    for (int i = 0; i < l->ninputs; i++) {
        struct stat st;
        if (strcmp(l->inputs[i], "-") != 0 && stat(l->inputs[i], &st) == 0 && S_ISDIR(st.st_mode))
            TRY(expand_dir(l->inputs[i], &p->inputs));
        else
            TRY(cli_strv_add(&p->inputs, strdup(l->inputs[i])));
    }
    size_t n = p->inputs.n - first;
    /* -o DIR/ and -o naming an existing folder are --outdir DIR. */
    const char *outdir = o->outdir, *output = o->output;
    if (output && names_folder(output)) {
        outdir = output;
        output = NULL;
    }
    bool device = output && is_device(output, false);
    if (device && is_device(output, true) && is_terminal(output)) {
        ret = vkfx_fail(VKFX_E_USAGE,
                        "-o %s: a terminal, which would show the image's bytes; name a file "
                        "(-o out.png) or a pipe (-o - | display)",
                        output);
        goto fail;
    }
    if (o->format && !device && !(output && strcmp(output, "-") == 0)) {
        ret = vkfx_fail(VKFX_E_USAGE, "--format is for -o - (standard output) and -o naming a "
                                      "device or FIFO; files take the format of their extension");
        goto fail;
    }
    if (output && strcmp(output, "-") == 0 && n > 1) {
        ret =
            vkfx_fail(VKFX_E_USAGE, "-o - writes one image to standard output; got %zu inputs", n);
        goto fail;
    }
    /* A character device takes them all: -o /dev/null times a batch without its writes. */
    if (output && n > 1 && !strchr(output, '{') && !is_device(output, true)) {
        ret = vkfx_fail(VKFX_E_USAGE,
                        "%zu inputs would all be written to '%s': use a template such as "
                        "'out/{stem}.png', or --outdir DIR",
                        n, output);
        goto fail;
    }
    if (p->n + n > p->cap) {
        size_t cap = p->cap ? p->cap : 16;
        while (cap < p->n + n)
            cap *= 2;
        job *jobs = realloc(p->jobs, cap * sizeof(*jobs));
        if (!jobs) {
            ret = vkfx_fail(VKFX_E_NOMEM, "out of host memory");
            goto fail;
        }
        p->jobs = jobs;
        p->cap = cap;
    }
    for (size_t i = 0; i < n; i++) {
        job *j = &p->jobs[p->n++];
        *j = (job){.input = p->inputs.v[first + i], .opts = o, .line = l->line, .index = p->n};
        fields f;
        fields_of(j->input, i + 1, &f);
        if (outdir)
            TRY(outdir_name(outdir, &f, &j->output));
        else
            TRY(expand(output, &f, false, "-o", &j->output));
        if (o->chain_text)
            TRY(expand(o->chain_text, &f, true, "-f", &j->chain_text));
        if ((ret = vkfx_chain_parse(j->chain_text, &j->chain)) < 0) {
            if (n > 1)
                vkfx_fail_context(ret, "%s", j->input);
            goto fail;
        }
        /* Standard output, or a device or FIFO without an extension (/dev/null). */
        const char *base = strrchr(j->output, '/') ? strrchr(j->output, '/') + 1 : j->output;
        if (strcmp(j->output, "-") == 0 || (device && !*extension(base))) {
            const char *fmt = o->format ? o->format : "png";
            char name[64];
            snprintf(name, sizeof(name), "stdout.%s", fmt);
            if ((ret = vkfx_file_format_for_output(name, &j->fmt)) < 0) {
                char list[160];
                vkfx_codec_extensions(true, list, sizeof(list));
                ret =
                    vkfx_fail(VKFX_E_USAGE, "--format '%s': the formats written are %s", fmt, list);
                goto fail;
            }
            TRY(vkfx_file_check_depth(j->output, j->fmt, o->save.depth));
            continue;
        }
        TRY(vkfx_file_format_for_output(j->output, &j->fmt));
        TRY(vkfx_file_check_depth(j->output, j->fmt, o->save.depth));
    }
    TRY(check_side_outputs(&p->jobs[p->n - n], n));
fail:
    if (ret < 0 && p->source)
        vkfx_fail_context(ret, "%s:%zu", p->source, l->line);
    return ret;
}

/* The checks over the whole plan, before any work: standard input read
 * once, standard output written once, then every file written against
 * every file read and against each other, by identity (cli/paths.c), and
 * what stands where a file will be written; then the outputs' folders are
 * created. */
static int check_plan(const plan *p, const cli_batch_opts *o)
{
    int ret = VKFX_OK;
    size_t stdin_count = 0, stdout_count = 0;
    char where[PATH_MAX + 32];
    cli_paths paths = {0};
    for (size_t i = 0; i < p->inputs.n; i++)
        stdin_count += strcmp(p->inputs.v[i], "-") == 0;
    if (stdin_count > 1) {
        ret = vkfx_fail(VKFX_E_USAGE, "standard input ('-') can be read only once");
        goto fail;
    }
    for (size_t i = 0; i < p->n; i++) {
        const job *j = &p->jobs[i];
        if (strcmp(j->output, "-") != 0)
            continue;
        job_where(p->source, j, true, where, sizeof(where));
        if (++stdout_count > 1) {
            ret =
                vkfx_fail(VKFX_E_USAGE, "%sa second job writes to standard output ('-o -')", where);
            goto fail;
        }
        if (o->json && strcmp(o->json, "-") == 0) {
            ret = vkfx_fail(VKFX_E_USAGE,
                            "%s-o - and --json both want standard output; give --json=FILE", where);
            goto fail;
        }
        if (isatty(STDOUT_FILENO)) {
            ret = vkfx_fail(VKFX_E_USAGE,
                            "%s-o -: standard output is a terminal, which would show the "
                            "image's bytes; redirect it (-o - > out.png, -o - | display) or "
                            "name a file (-o out.png)",
                            where);
            goto fail;
        }
    }
    TRY(list_paths(o, p->source, p->jobs, p->n, &paths));
    TRY(cli_paths_check(&paths));
    TRY(check_targets(&paths));
    TRY(make_output_folders(p->jobs, p->n, p->source));
fail:
    cli_paths_free(&paths);
    return ret;
}

/* ---- the work ---- */

static void job_fail(const batch *b, job *j, int status)
{
    char where[PATH_MAX + 32];
    job_where(b->source, j, true, where, sizeof(where));
    j->status = status;
    snprintf(j->error, sizeof(j->error), "%s%s", where, vkfx_error_message());
    j->state = JOB_FAILED;
}

/* An output its format cannot store is refused before the GPU makes it, from the input's
 * header where it says the size (a chain that cannot make its size says so when it runs). */
static int output_fits(void *arg, const char *name, uint32_t width, uint32_t height)
{
    (void)name;
    const job *j = arg;
    uint32_t out_w, out_h;
    if (!j->fmt || vkfx_chain_size(j->chain, width, height, &out_w, &out_h) != VKFX_OK) {
        vkfx_error_clear();
        return VKFX_OK;
    }
    return vkfx_file_check_size(strcmp(j->output, "-") == 0 ? "standard output" : j->output, j->fmt,
                                out_w, out_h);
}

static void decode(batch *b, job *j)
{
    double t = vkfx_now_ms();
    const char *name = strcmp(j->input, "-") == 0 ? "standard input" : j->input;
    vkfx_file_set_gate(output_fits, j);
    /* Only the header and the metadata are read for a JPEG the device decodes, at full size:
     * a chain that shrinks it resizes it there. Pixels that --to-srgb converts on the host
     * are libjpeg-turbo's, at full size too but with --jpeg-codec cpu (shrink-on-load), so
     * that every device gives the same bytes. */
    int ret = 1;
    int where = atomic_load(&b->jpeg_decode);
    if (strcmp(j->input, "-") != 0 && !j->opts->to_srgb &&
        (where == VKFX_JPEG_DECODE_DEVICE || where == VKFX_JPEG_DECODE_LARGE)) {
        ret = vkfx_file_load_jpeg_input(
            j->input, where == VKFX_JPEG_DECODE_LARGE ? VKFX_JPEG_DEVICE_PIXELS : 0, &j->in,
            &j->meta, &j->jpeg);
    }
    bool shrink = b->o->jpeg_codec == VKFX_JPEG_CODEC_CPU && !j->opts->no_shrink_on_load;
    if (ret == 1)
        ret = strcmp(j->input, "-") == 0
                  ? vkfx_file_load_fd_meta(STDIN_FILENO, name, &j->in, &j->meta)
              : shrink ? vkfx_file_load_for_chain(j->input, j->chain, &j->in, &j->meta,
                                                  &j->source_w, &j->source_h)
                       : vkfx_file_load_meta(j->input, &j->in, &j->meta);
    if (ret == VKFX_OK)
        ret = vkfx_icc_prepare(&j->meta, &j->in, j->opts->linear, j->opts->to_srgb, name, &j->tone,
                               &j->colour);
    vkfx_file_set_gate(NULL, NULL);
    /* Formats whose header alone does not say the size are checked once decoded. */
    if (ret == VKFX_OK)
        ret = output_fits(j, name, j->source_w ? j->source_w : j->in.width,
                          j->source_h ? j->source_h : j->in.height);
    j->decode_ms = vkfx_now_ms() - t;
    if (ret < 0) {
        job_fail(b, j, ret);
        return;
    }
    const char *note = vkfx_file_note();
    snprintf(j->note, sizeof(j->note), "%s", note ? note : j->meta.note);
    /* 16-bit samples written from 8-bit ones need float precision: half floats are a few
     * 16-bit codes off. */
    j->precision = j->opts->precision          ? j->opts->precision
                   : j->opts->save.depth == 16 ? 32
                                               : vkfx_auto_precision(j->chain, &j->in);
}

static void encode(batch *b, job *j)
{
    vkfx_save_opts save_meta = j->opts->save;
    save_meta.meta = j->opts->strip ? NULL : &j->meta;
    /* EXIF tells the output's truth: its size, and no thumbnail of other pixels once the
     * image was turned upright or reshaped. */
    if (j->meta.exif.data) {
        vkfx_exif_set_size(j->meta.exif.data, j->meta.exif.size, j->out.width, j->out.height);
        if (j->meta.applied_orientation > 1 || vkfx_chain_reshapes(j->chain))
            vkfx_exif_drop_thumbnail(j->meta.exif.data, j->meta.exif.size);
    }
    const vkfx_save_opts *save = &save_meta;
    j->dropped = vkfx_file_meta_dropped(j->fmt, save->meta);
    double t = vkfx_now_ms();
    bool out = strcmp(j->output, "-") == 0;
    int ret = VKFX_OK;
    if (j->tone_here && j->out.sample == VKFX_SAMPLE_F32) {
        vkfx_pixels coded;
        ret = vkfx_tone_encode_pixels(j->tone, &j->out, j->tone_sample, &coded);
        if (ret == VKFX_OK) {
            vkfx_pixels_free(&j->out);
            j->out = coded;
        }
    }
    if (ret == VKFX_OK && j->result.jpeg)
        ret = vkfx_file_save_encoded(out ? "standard output" : j->output, out ? STDOUT_FILENO : -1,
                                     j->fmt, j->result.jpeg, j->result.jpeg_size, j->out.width,
                                     j->out.height, save);
    else if (ret == VKFX_OK)
        ret = out ? vkfx_file_save_fd(STDOUT_FILENO, "standard output", j->fmt, &j->out, save)
                  : vkfx_file_save(j->output, j->fmt, &j->out, save);
    j->encode_ms = vkfx_now_ms() - t;
    if (out && ret < 0 && errno == EPIPE)
        b->broken_pipe = true;
    if (ret < 0)
        job_fail(b, j, ret);
    else
        j->state = JOB_DONE;
}

/* One JSON object on a line for a finished job (called with the lock held). */
static void report_json(batch *b, const job *j)
{
    FILE *f = b->json;
    fprintf(f, "{\"index\": %zu, ", j->index);
    if (b->source)
        fprintf(f, "\"line\": %zu, ", j->line);
    if (b->o->shard_n)
        fprintf(f, "\"shard\": \"%u/%u\", ", b->o->shard_k, b->o->shard_n);
    fprintf(f, "\"input\": ");
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
    fprintf(f,
            "}, \"gpu_ms_total\": %.4f, \"orientation\": {\"stored\": %d, \"applied\": %d}, "
            "\"colour\": \"%s\", \"notes\": {",
            total, j->meta.stored_orientation, j->meta.applied_orientation,
            j->colour ? j->colour : "");
    for (uint32_t t = 0; t < j->result.nnotes; t++) {
        fprintf(f, "%s", t ? ", " : "");
        cli_json_string(f, j->result.notes[t].key);
        fprintf(f, ": %llu", (unsigned long long)j->result.notes[t].value);
    }
    double wall = j->t_end > j->t_start ? (j->t_end - j->t_start) * 1e3 : 0;
    const char *status = j->state == JOB_DONE     ? "ok"
                         : j->state == JOB_FAILED ? "error"
                         : j->state == JOB_EXISTS ? "exists"
                                                  : "skipped";
    fprintf(f, "}, \"wall_ms\": %.1f, \"status\": \"%s\", \"error\": ", wall, status);
    if (j->state == JOB_FAILED)
        cli_json_string(f, j->error);
    else
        fprintf(f, "null");
    fprintf(f, "}\n");
    if ((fflush(f) != 0 || ferror(f)) && !b->json_errno)
        b->json_errno = errno ? errno : EIO;
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

/* Whether px has an alpha channel with any sample below opaque. */
static bool translucent(const vkfx_pixels *px)
{
    if (px->channels != 2 && px->channels != 4)
        return false;
    size_t n = (size_t)px->width * px->height, a = px->channels - 1;
    for (size_t i = 0; i < n; i++) {
        size_t k = i * px->channels + a;
        bool below = px->sample == VKFX_SAMPLE_U8    ? ((const uint8_t *)px->data)[k] < 255
                     : px->sample == VKFX_SAMPLE_U16 ? ((const uint16_t *)px->data)[k] < 65535
                                                     : ((const float *)px->data)[k] < 1.0f;
        if (below)
            return true;
    }
    return false;
}

/* Counts job j's pixels as they are now in the batch's held bytes (lock held). */
static void hold(batch *b, job *j)
{
    b->held -= j->held;
    j->held = (uint64_t)vkfx_pixels_bytes(&j->in) + vkfx_pixels_bytes(&j->out);
    b->held += j->held;
}

/* A job has ended (done, failed or skipped): report it. Lock held. */
static void finish_job(batch *b, size_t i)
{
    job *j = &b->jobs[i];
    j->t_end = now_s();
    b->in_flight--;
    b->done++;
    if (j->note[0]) {
        /* The decoder's note starts with the file's name; the kind is the rest. */
        size_t len = strlen(j->input);
        bool named = strncmp(j->note, j->input, len) == 0 && strncmp(j->note + len, ": ", 2) == 0;
        if (b->progress_tty)
            fputs("\r\033[K", stderr);
        cli_note(named ? j->note + len + 2 : j->note, "%s", j->note);
    }
    if (j->state == JOB_DONE && j->dropped) {
        char kinds[128];
        vkfx_meta_kind_names(j->dropped, kinds, sizeof(kinds));
        if (b->progress_tty)
            fputs("\r\033[K", stderr);
        /* One kind for every format and piece: the first says what happens. */
        cli_note("metadata left out of an output",
                 "%s cannot hold %s of %s; dropped (noted once a run)",
                 vkfx_file_format_name(j->fmt), kinds, j->input);
    }
    if (j->state == JOB_FAILED) {
        b->failed++;
        if (b->progress_tty)
            fputs("\r\033[K", stderr);
        /* A reader that went away is the usual end of '-o - | head'. */
        if (!b->broken_pipe)
            cli_message("vkfx: %s", j->error);
    }
    if (b->json && j->state != JOB_SKIPPED)
        report_json(b, j);
    vkfx_pixels_free(&j->in);
    vkfx_jpeg_input_free(&j->jpeg);
    free(j->result.jpeg);
    j->result.jpeg = NULL;
    vkfx_pixels_free(&j->out);
    hold(b, j);
    vkfx_meta_free(&j->meta);
    vkfx_tone_free(j->tone);
    j->tone = NULL;
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
        if (!interrupted && !b->lost && !b->no_device && b->next_decode < b->n &&
            b->in_flight < b->limit && (b->held < b->budget || b->in_flight == 0)) {
            size_t i = b->next_decode++;
            job *j = &b->jobs[i];
            j->state = JOB_DECODING;
            j->t_start = now_s();
            b->in_flight++;
            pthread_mutex_unlock(&b->mu);
            decode(b, j);
            pthread_mutex_lock(&b->mu);
            if (j->state == JOB_FAILED) {
                finish_job(b, i);
            } else {
                j->state = JOB_DECODED;
                hold(b, j);
            }
            pthread_cond_broadcast(&b->cv);
            continue;
        }
        if (b->in_flight == 0 && (interrupted || b->lost || b->no_device || b->next_decode == b->n))
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
        cli_message("vkfx: %s%s%-16s %9.3f ms", name ? j->input : "", name ? ": " : "",
                    j->result.times[i].label, j->result.times[i].ms);
        total += j->result.times[i].ms;
    }
    cli_message("vkfx: %s%s%-16s %9.3f ms (GPU)", name ? j->input : "", name ? ": " : "", "total",
                total);
}

/* After a job's GPU run (lock held): a failure is reported; a success goes
 * to the codec threads. */
static void gpu_done(batch *b, size_t i, int ret)
{
    job *j = &b->jobs[i];
    if (ret < 0) {
        b->lost |= ret == VKFX_E_LOST;
        job_fail(b, j, ret);
        finish_job(b, i);
        return;
    }
    if (b->o->timings && !b->json)
        print_timings(j, b->n > 1 || b->source);
    /* Its input went with the upload; its output is here. */
    hold(b, j);
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
    if (ret == VKFX_OK && !j->note[0])
        snprintf(j->note, sizeof(j->note), "%s", j->result.decode_note);
    vkfx_jpeg_input_free(&j->jpeg);
    unsigned now = vkfx_context_validation_messages(ctx);
    if (ret == VKFX_OK && now != *messages)
        ret = vkfx_fail(VKFX_E_VULKAN, "the validation layer reported %u message(s)",
                        now - *messages);
    *messages = now;
    if (ret < 0 && (b->n > 1 || b->source))
        vkfx_fail_context(ret, "%s", j->input);
    return ret;
}

/* Whether no job can come to the GPU any more (lock held): none is decoded or
 * being decoded, and no decode will start; outputs may still be being written. */
static bool gpu_work_over(const batch *b)
{
    if (!interrupted && !b->lost && !b->no_device && b->next_decode < b->n)
        return false;
    for (size_t i = 0; i < b->n; i++)
        if (b->jobs[i].state == JOB_DECODING || b->jobs[i].state == JOB_DECODED ||
            b->jobs[i].state == JOB_GPU)
            return false;
    return true;
}

/* This thread feeds the GPU, lowest decoded index first, with up to two runs
 * in flight: the next file is uploaded and its work recorded while the GPU
 * runs the one before, whose read-back comes first; then the next is
 * submitted. Submitted before that read-back, the next file's work would
 * run ahead of the read-back's copies on the queue, and the thread would
 * wait for it with nothing recorded for the GPU to do after it. */
static void gpu_loop(batch *b, vkfx_context *ctx, vkfx_staging *staging)
{
    vkfx_pending *flying = NULL;
    size_t flying_job = 0;
    unsigned messages = ctx ? vkfx_context_validation_messages(ctx) : 0;
    pthread_mutex_lock(&b->mu);
    for (;;) {
        size_t next = b->n;
        for (size_t i = 0; i < b->n && next == b->n; i++)
            if (b->jobs[i].state == JOB_DECODED)
                next = i;
        if (next < b->n && (interrupted || b->lost || b->no_device)) {
            b->jobs[next].state = JOB_SKIPPED;
            finish_job(b, next);
            continue;
        }
        if (next == b->n && !flying) {
            if (gpu_work_over(b))
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
            vkfx_run_opts run = {
                .precision = j->precision,
                .fast = j->opts->fast,
                .linear = j->opts->linear,
                /* GPU times per pass are measured for --timings and for --json. */
                .timings = b->o->timings || b->json,
            };
            run.premultiplied_out = j->fmt == VKFX_FILE_EXR;
            run.input_path = strcmp(j->input, "-") == 0 ? NULL : j->input;
            run.source_width = j->source_w;
            run.source_height = j->source_h;
            vkfx_file_output_layout_depth(j->fmt, j->in.channels, j->in.sample, j->opts->save.depth,
                                          &j->out.channels, &j->out.sample);
            /* Transparency into a format without alpha: flattened over --background, white
             * by default. Opaque images keep their bytes. */
            run.flatten = (j->out.channels == 1 || j->out.channels == 3) && translucent(&j->in);
            for (int c = 0; c < 3; c++)
                run.background[c] = j->opts->background_set ? j->opts->background[c] : 1.0f;
            if (run.flatten && !j->opts->background_set)
                cli_note("alpha flattened onto white",
                         "%s has no alpha: %s flattened onto white (--background COLOR picks "
                         "another)",
                         vkfx_file_format_name(j->fmt), j->input);
            /* The curves' encoding is left to a codec thread: linear floats come back. */
            j->tone_here = j->tone && !j->opts->linear && j->in.sample != VKFX_SAMPLE_F32 &&
                           j->out.sample != VKFX_SAMPLE_F32;
            j->tone_sample = j->out.sample;
            run.tone = j->tone;
            if (j->fmt == VKFX_FILE_JPEG) {
                run.jpeg = &j->opts->save;
                run.jpeg_codec = b->o->jpeg_codec;
            }
            run.tone_later = true;
            run.jpeg_in = j->jpeg.bytes ? &j->jpeg : NULL;
            start_ret =
                vkfx_run_start_held(ctx, staging, j->chain, &j->in, &j->out, &run, &started);
            if (start_ret < 0 && (b->n > 1 || b->source))
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
        /* The next run's work goes to the device once the one in flight is read back (a
         * failure is its finish's to report). */
        if (started)
            vkfx_run_submit(started);
        pthread_mutex_lock(&b->mu);
        if (flying)
            gpu_done(b, flying_job, finish_ret);
        flying = started;
        flying_job = next;
    }
    pthread_mutex_unlock(&b->mu);
}

/* The device could not be opened: the codec threads stop decoding, and
 * what they decoded ahead is dropped unreported. */
static void drop_decoded(batch *b)
{
    pthread_mutex_lock(&b->mu);
    b->no_device = true;
    while (b->in_flight) {
        for (size_t i = 0; i < b->n; i++)
            if (b->jobs[i].state == JOB_DECODED) {
                vkfx_pixels_free(&b->jobs[i].in);
                vkfx_jpeg_input_free(&b->jobs[i].jpeg);
                hold(b, &b->jobs[i]);
                b->jobs[i].state = JOB_SKIPPED;
                b->in_flight--;
            }
        pthread_cond_broadcast(&b->cv);
        if (b->in_flight)
            wait_a_little(b);
    }
    pthread_cond_broadcast(&b->cv);
    pthread_mutex_unlock(&b->mu);
}

/* A batch allocates and frees a few image-sized buffers for every file
 * (the decoded pixels, the pixels read back, libjpeg's coefficients). Above
 * its mapping threshold glibc maps each one afresh and unmaps it on free,
 * so every page is faulted in and zeroed again, file after file: in the
 * heap instead, and not trimmed, the next file reuses the same pages. */
static void reuse_freed_memory(void)
{
#ifdef __GLIBC__
    mallopt(M_MMAP_THRESHOLD, 32 << 20); /* glibc's largest */
    mallopt(M_TRIM_THRESHOLD, 512 << 20);
#endif
}

/* The pixels a batch's jobs in flight may hold before no more decodes start: a quarter of
 * the machine's memory, at least 256 MiB, or VKFX_BATCH_BYTES (tests set a few bytes, which
 * leaves one job in flight at a time). */
static uint64_t held_budget(void)
{
    const char *env = getenv("VKFX_BATCH_BYTES");
    if (env && *env)
        return strtoull(env, NULL, 0);
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    uint64_t quarter = pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size / 4 : 0;
    return quarter > (256ull << 20) ? quarter : 256ull << 20;
}

static int cpu_count(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 256 ? 256 : (int)n;
}

/* A job's place in the order shards are cut from: by output, then input,
 * then line, so that every node that plans the same jobs agrees whatever
 * order the shell expanded the arguments in. */
static int cmp_shard_order(const void *pa, const void *pb)
{
    const job *a = *(const job *const *)pa, *b = *(const job *const *)pb;
    int c = strcmp(a->output, b->output);
    if (c == 0)
        c = strcmp(a->input, b->input);
    return c ? c : (a->line > b->line) - (a->line < b->line);
}

/* Keeps, in plan order, this shard's jobs whose output is not there yet
 * (with --skip-existing); the others are freed, those skipped for their
 * output reported in the JSON. */
static int select_jobs(batch *b, plan *p)
{
    const cli_batch_opts *o = b->o;
    bool *keep = calloc(p->n ? p->n : 1, sizeof(*keep));
    const job **sorted = calloc(p->n ? p->n : 1, sizeof(*sorted));
    if (!keep || !sorted) {
        free(keep);
        free(sorted);
        return vkfx_fail(VKFX_E_NOMEM, "out of host memory");
    }
    for (size_t i = 0; i < p->n; i++)
        sorted[i] = &p->jobs[i];
    qsort(sorted, p->n, sizeof(*sorted), cmp_shard_order);
    for (size_t r = 0; r < p->n; r++)
        keep[sorted[r] - p->jobs] = o->shard_n == 0 || r % o->shard_n == o->shard_k;
    size_t n = 0;
    for (size_t i = 0; i < p->n; i++) {
        job *j = &p->jobs[i];
        struct stat st;
        if (keep[i] && o->skip_existing && strcmp(j->output, "-") != 0 &&
            stat(j->output, &st) == 0) {
            j->state = JOB_EXISTS;
            b->existing++;
            if (b->json)
                report_json(b, j);
            keep[i] = false;
        }
        if (keep[i]) {
            /* A move: the slot left behind owns nothing. */
            if (n != i) {
                p->jobs[n] = *j;
                *j = (job){0};
            }
            n++;
            continue;
        }
        free(j->output);
        free(j->chain_text);
        vkfx_chain_free(j->chain);
        *j = (job){0};
    }
    p->n = n;
    free(keep);
    free(sorted);
    return VKFX_OK;
}

int cli_batch(const cli_batch_opts *o, char **inputs, int ninputs)
{
    cli_job_line line = {.o = o->job, .inputs = inputs, .ninputs = ninputs};
    return cli_batch_lines(o, &line, 1, NULL);
}

int cli_batch_lines(const cli_batch_opts *o, const cli_job_line *lines, size_t nlines,
                    const char *source)
{
    int status = VKFX_OK;
    plan p = {.source = source};
    batch b = {.o = o, .source = source};
    /* auto's choice waits for the device: until it is open, libjpeg-turbo decodes (-1). */
    atomic_init(&b.jpeg_decode, o->jpeg_codec == VKFX_JPEG_CODEC_GPU   ? VKFX_JPEG_DECODE_DEVICE
                                : o->jpeg_codec == VKFX_JPEG_CODEC_CPU ? VKFX_JPEG_DECODE_HOST
                                                                       : -1);
    vkfx_context *ctx = NULL;
    vkfx_staging *staging = NULL;
    pthread_t *threads = NULL;
    int nthreads = 0;
    vkfx_safefile *json_file = NULL;
    cli_wall wall = {0};
    bool printed = false; /* status's message */
    cli_signals_graceful(true);
    /* Every line of a job file is planned, each mistake reported with its line, before the
     * checks across jobs: one run names them all. */
    size_t errors = 0, e = 0;
    for (size_t i = 0; i < nlines; i++) {
        for (; e < o->nline_errors && o->line_errors[e].line < lines[i].line; e++, errors++)
            cli_message("vkfx: %s", o->line_errors[e].message);
        int ret = plan_line(&p, &lines[i]);
        if (ret < 0 && (!source || ret == VKFX_E_NOMEM)) {
            status = ret;
            break;
        }
        if (ret < 0) {
            cli_print_error();
            status = errors++ ? status : ret;
        }
    }
    for (; status != VKFX_E_NOMEM && e < o->nline_errors; e++, errors++)
        cli_message("vkfx: %s", o->line_errors[e].message);
    if (errors && status == VKFX_OK)
        status = VKFX_E_USAGE;
    if (errors) {
        printed = true;
        if (errors > 1)
            cli_message("vkfx: %s: %zu lines have mistakes; no job was run", source, errors);
        goto done;
    }
    if (status < 0 || (status = check_plan(&p, o)) < 0)
        goto done;
    if (o->json && strcmp(o->json, "-") != 0) {
        if ((status = vkfx_safefile_open(o->json, &json_file)) < 0) {
            vkfx_fail_context(status, "--json");
            goto done;
        }
        b.json = vkfx_safefile_stream(json_file);
    } else if (o->json) {
        b.json = stdout;
    }
    if ((status = select_jobs(&b, &p)) < 0)
        goto done;
    b.jobs = p.jobs;
    b.n = p.n;
    if (b.n == 0)
        goto done; /* another shard's jobs, or all written already: no GPU needed */

    /* One core is left to the thread that feeds the GPU, which otherwise waits for one
     * behind the codec threads: a thumbnail batch on the GPU machine's 16 cores ran fastest
     * with 15 (tests/bench/RESULTS.md, codec threads). */
    int cores = cpu_count();
    int want = o->threads > 0 ? o->threads : cores >= 4 ? cores - 1 : cores;
    nthreads = (size_t)want < b.n ? want : (int)b.n;
    /* Three files a thread: a batch of 48 on 16 cores is decoded whole while
     * the device opens. */
    b.limit = (size_t)nthreads * 3 + 2;
    b.budget = held_budget();
    reuse_freed_memory();
    /* Fewer files than threads: each encoder spreads one image over the rest. */
    vkfx_file_set_encode_threads(want / nthreads);
    /* The thread feeding the GPU copies each image into staging memory on the cores the codec
     * threads leave: with them on every other core, alone (a thumbnail batch on the GPU
     * machine ran 12% faster than with helper threads: tests/bench/RESULTS.md). */
    vkfx_copy_set_threads(cores > nthreads + 1 ? cores - nthreads - 1 : 1);
    /* One file needs no progress line unless asked for. */
    b.show_progress = o->progress || (isatty(STDERR_FILENO) && b.n > 1 && !cli_notes_quiet());
    b.progress_tty = isatty(STDERR_FILENO);
    b.t0 = now_s();
    pthread_mutex_init(&b.mu, NULL);
    pthread_cond_init(&b.cv, NULL);
    threads = calloc((size_t)nthreads, sizeof(*threads));
    int started = 0;
    /* The codec threads decode while the device is opened. */
    for (; threads && started < nthreads; started++)
        if (pthread_create(&threads[started], NULL, codec_thread, &b) != 0)
            break;
    if (started == 0)
        status = vkfx_fail(VKFX_E_NOMEM, "no codec thread could be started");
    if (status == VKFX_OK && (status = vkfx_context_create(&o->ctx, &ctx)) == VKFX_OK) {
        atomic_store(&b.jpeg_decode, (int)vkfx_jpeg_decode_here(ctx, o->jpeg_codec));
        wall.staging_ms = vkfx_now_ms();
        status = vkfx_staging_create(ctx, 0, &staging);
        wall.staging_ms = vkfx_now_ms() - wall.staging_ms;
        wall.ready_ms = cli_since_start_ms();
    }
    if (status < 0 && started) {
        /* Printed now: a file that failed to decode meanwhile must not hide it. */
        cli_print_error();
        printed = true;
        drop_decoded(&b);
        for (int i = 0; i < started; i++)
            pthread_join(threads[i], NULL);
    } else if (started) {
        gpu_loop(&b, ctx, staging);
        /* The GPU's part is over: its context closes (slow on some drivers) while
         * the codec threads write the last outputs. */
        if (ctx)
            vkfx_context_times_get(ctx, &wall.ctx);
        double t = vkfx_now_ms();
        vkfx_staging_destroy(staging);
        staging = NULL;
        vkfx_context_close_device(ctx);
        wall.exit_ms = vkfx_now_ms() - t;
        for (int i = 0; i < started; i++)
            pthread_join(threads[i], NULL);
        report_progress(&b, true);
    }
    pthread_cond_destroy(&b.cv);
    pthread_mutex_destroy(&b.mu);
    /* Each failure was reported as it happened. One input keeps its own
     * code (a usage error found while running is still exit 2); in a batch
     * any failure is exit 1. */
    if (status == VKFX_OK && b.failed)
        status = b.n == 1 && !source ? b.jobs[0].status : VKFX_E_IO;
done:
    if (status < 0 && !printed && !(b.failed && b.n))
        cli_print_error();
    int code = cli_exit_code(status);
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
    if (b.existing)
        fprintf(stderr, "vkfx: --skip-existing: %zu output%s there already, not run again\n",
                b.existing, b.existing == 1 ? " was" : "s were");
    /* The report is the result too: losing it is a failure (exit 1), for the reason its first
     * failed write met (the stream keeps only that one failed). */
    if (json_file && b.json_errno) {
        vkfx_safefile_abort(json_file);
        b.broken_pipe |= b.json_errno == EPIPE;
        cli_message("vkfx: --json: %s: %s", o->json, strerror(b.json_errno));
        code = code == EXIT_OK ? EXIT_PROCESSING : code;
    } else if (json_file && vkfx_safefile_commit(json_file) < 0) {
        b.broken_pipe |= errno == EPIPE;
        cli_message("vkfx: --json: %s", vkfx_error_message());
        code = code == EXIT_OK ? EXIT_PROCESSING : code;
    } else if (b.json == stdout && (b.json_errno || fflush(stdout) != 0)) {
        int e = b.json_errno ? b.json_errno : errno;
        b.broken_pipe |= e == EPIPE;
        if (e != EPIPE)
            fprintf(stderr, "vkfx: --json: standard output: %s\n", strerror(e));
        code = code == EXIT_OK ? EXIT_PROCESSING : code;
    }
    /* A reader that went away ends the run as SIGPIPE would have. */
    if (b.broken_pipe)
        code = 128 + SIGPIPE;
    if (interrupted)
        code = 128 + cli_signal_received();
    cli_signals_graceful(false);
    free(threads);
    if (ctx)
        vkfx_context_times_get(ctx, &wall.ctx);
    bool gpu_used = ctx != NULL;
    for (size_t i = 0; i < b.n; i++) {
        const job *j = &b.jobs[i];
        wall.decode_ms += j->decode_ms;
        wall.upload_ms += j->result.upload_ms;
        wall.record_ms += j->result.record_ms;
        wall.wait_ms += j->result.wait_ms;
        wall.readback_ms += j->result.readback_ms;
        wall.encode_ms += j->encode_ms;
    }
    wall.jobs = b.n;
    plan_free(&p);
    double t = vkfx_now_ms();
    vkfx_staging_destroy(staging);
    if (code == EXIT_OK)
        vkfx_context_destroy(ctx);
    else
        vkfx_context_destroy_after_failure(ctx);
    wall.exit_ms += vkfx_now_ms() - t;
    if (o->timings && gpu_used)
        cli_wall_print(&wall);
    cli_notes_end();
    return code;
}
