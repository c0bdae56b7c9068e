/* Shared by the command-line front ends: exit codes, message printing and
 * the log callback that puts library messages on stderr. */
#ifndef VKFX_CLI_H
#define VKFX_CLI_H

#include <getopt.h>
#include <stdio.h>
#include <sys/types.h>

#include "vkfx.h"

enum { EXIT_OK = 0, EXIT_PROCESSING = 1, EXIT_USAGE = 2 };

/* cli/signals.c: blocks SIGHUP, SIGINT, SIGTERM, SIGPIPE and SIGQUIT in
 * every thread and starts the thread that ends the run on them (call first,
 * before any other thread starts); -1 if it cannot start. */
int cli_signals_start(void);
/* While on, a signal asks for a graceful stop (cli_signal_received) before
 * the run is ended for it; while off, it ends the run at once. */
void cli_signals_graceful(bool on);
/* The first stop signal received, or 0. */
int cli_signal_received(void);
/* Blocks until a stop signal arrives and returns it (graceful mode: the
 * caller then has GRACE_S seconds to end by itself). */
int cli_signals_wait(void);

/* Exit code for a library status: usage mistakes are 2, the rest 1. */
int cli_exit_code(int status);
/* Prints "vkfx: MESSAGE" for the calling thread's last library error. */
void cli_print_error(void);
void cli_log(void *user, const char *message);
/* A usage mistake: "vkfx[ COMMAND]: MESSAGE" and the line that points to its --help on
 * stderr; returns EXIT_USAGE. command is NULL for vkfx itself. */
int cli_usage_error(const char *command, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* True when the environment variable is set to something other than 0. */
bool cli_env_flag(const char *name);
/* The context's validation, log and knobs, from the environment (VKFX_VALIDATE and the
 * variables vkfx_context_opts names); other fields are left as they are. */
void cli_context_env(vkfx_context_opts *o);
int cli_bench_main(int argc, char **argv);

/* cli/message.c: every message on stderr goes through cli_message, a
 * printf format and its arguments on one line, with control bytes (C0, DEL,
 * C1) and bytes that are not UTF-8 shown as \xNN or \uNNNN. */
void cli_message(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* cli/notes.c: "vkfx: note: TEXT" on stderr the first time a run meets a note of this kind
 * (its text without the file it is about); cli_notes_end says how often each came again.
 * Nothing under --quiet. */
void cli_note(const char *kind, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cli_notes_end(void);
void cli_notes_set_quiet(bool quiet);
bool cli_notes_quiet(void);
/* text escaped that way into out (size bytes, cut to fit). */
void cli_escape(const char *text, char *out, size_t size);
/* Length of the valid UTF-8 sequence at s (1..4), 0 if it is not one. */
int cli_utf8_length(const unsigned char *s);
/* A growing array of strings that owns them. */
typedef struct cli_strv {
    char **v;
    size_t n, cap;
} cli_strv;
/* Appends str, which the array then owns (and frees on failure); str NULL
 * (a failed strdup) is out of memory. */
int cli_strv_add(cli_strv *s, char *str);
void cli_strv_free(cli_strv *s);
/* A growing string, NUL-terminated after each put; the caller frees p. */
typedef struct cli_sbuf {
    char *p;
    size_t len, cap;
} cli_sbuf;
/* Appends n bytes of s; false when out of memory (b keeps what it had). */
bool cli_sbuf_put(cli_sbuf *b, const char *s, size_t n);

/* text as a JSON string, escaped; bytes that are not UTF-8 become U+FFFD. */
void cli_json_string(FILE *f, const char *text);

/* What one job line (or the command line of a batch) says about its
 * inputs: chain, outputs, formats and pixel options. */
typedef struct cli_job_opts {
    const char *chain_text; /* -f, with template fields */
    const char *output;     /* -o template ("-": standard output), or NULL with outdir */
    const char *outdir;     /* --outdir, or NULL */
    const char *format;     /* --format: what -o - writes (default png) */
    int precision;          /* --precision: 16 or 32 */
    bool linear;            /* --no-linearize (--linear) */
    bool fast;              /* --fast: the filters' fast paths, bytes differing by device */
    bool strip;             /* --strip: no metadata in the outputs */
    bool to_srgb;           /* --to-srgb: profiled inputs converted to sRGB */
    bool no_shrink_on_load; /* --no-shrink-on-load: JPEGs decoded at full size */
    bool background_set;    /* --background given: no note when alpha is flattened */
    float background[3];    /* what a format without alpha is flattened onto (sRGB, 0..1) */
    vkfx_save_opts save;
} cli_job_opts;

/* A job-file line refused as it was read: its line and its message ("jobs.txt:3: ..."). */
typedef struct cli_line_error {
    size_t line;
    char *message;
} cli_line_error;

/* What applies to the whole run, whatever the jobs. */
typedef struct cli_batch_opts {
    cli_job_opts job;   /* the command line's job (a batch; unused by vkfx run) */
    int threads;        /* -j: codec threads; 0 for one per core */
    bool progress;      /* --progress: also when stderr is not a terminal */
    const char *json;   /* --json: NULL none, "-" standard output, else a file */
    bool timings;       /* --timings: GPU times per pass on stderr */
    unsigned shard_k;   /* --shard K/N: run the jobs whose place in the sorted */
    unsigned shard_n;   /* plan is K modulo N; shard_n 0: all of them */
    bool skip_existing; /* --skip-existing: a job whose output exists is not run */
    bool init_only;     /* --init-only: create the GPU context, then exit */
    vkfx_jpeg_codec jpeg_codec; /* --jpeg-codec: where JPEG files are decoded and encoded */
    const char *job_file; /* vkfx run's job file ("-": standard input), or NULL: never written */
    /* vkfx run: its lines refused as they were read, in line order, reported among the
     * planning's mistakes; then no job runs. */
    const cli_line_error *line_errors;
    size_t nline_errors;
    vkfx_context_opts ctx;
} cli_batch_opts;

/* The options a command line or a job line may hold, by where they apply. */
typedef enum cli_scope {
    CLI_SCOPE_JOB = 1,  /* -f -o --outdir --format --precision --no-linearize --strip --to-srgb, encoders' */
    CLI_SCOPE_RUN = 2,  /* -j --json --progress --timings --device --shard ... */
    CLI_SCOPE_INFO = 4, /* --filters --help-filter --list-devices --version --help */
} cli_scope;

/* An option that prints something and ends the program. */
typedef enum cli_info {
    CLI_INFO_NONE,
    CLI_INFO_FILTERS,
    CLI_INFO_HELP_FILTER,
    CLI_INFO_LIST_DEVICES,
    CLI_INFO_VERSION,
    CLI_INFO_HELP,
} cli_info;

/* The long options of the command line and job lines, for getopt_long and for the shell
 * completions the build generates (cli/docs/). */
extern const struct option cli_longopts[];
/* Parses argv[1..] with getopt_long into o, accepting only the options of
 * the scopes given (others are usage errors saying where they belong) and
 * leaving the operands from *first on. An information option ends the
 * parse at once: *info says which (and *info_arg its value). Returns 0 or
 * VKFX_E_USAGE with a one-line message. */
int cli_parse_options(int argc, char **argv, unsigned scopes, cli_batch_opts *o, int *first,
                      cli_info *info, const char **info_arg);
/* --jpeg-codec's word (what names it in the message); VKFX_E_USAGE for another. */
int cli_jpeg_codec(const char *word, const char *what, vkfx_jpeg_codec *out);
/* The default of --jpeg-codec: VKFX_JPEG_CODEC where set, else auto. */
int cli_jpeg_codec_default(vkfx_jpeg_codec *out);
/* The checks a job needs once its options are read: inputs, one
 * way to name outputs, --format only with -o. */
int cli_check_job(const cli_job_opts *j, int ninputs);

/* One job line: its options and operands (inputs, directories, "-"). */
typedef struct cli_job_line {
    cli_job_opts o;
    char **inputs;
    int ninputs;
    size_t line; /* in the job file, from 1; 0 on the command line */
} cli_job_line;

/* Plans every line's jobs, checks the whole plan (outputs that clash or
 * overwrite an input), keeps this shard's jobs, then runs them under one
 * GPU context; source names the job file in messages (NULL for a batch on
 * the command line). Returns the exit code. */
int cli_batch_lines(const cli_batch_opts *o, const cli_job_line *lines, size_t nlines,
                    const char *source);
/* Runs the chain over the inputs (files, directories, "-"); returns the
 * exit code. */
int cli_batch(const cli_batch_opts *o, char **inputs, int ninputs);
/* --timings' host wall-clock breakdown of a run (cli/timings.c). */
typedef struct cli_wall {
    vkfx_context_times ctx;
    double ready_ms;   /* from main to the device ready, staging memory included */
    double staging_ms; /* mapping the staging memory */
    double decode_ms, upload_ms, record_ms, wait_ms, readback_ms, encode_ms; /* all jobs' */
    double exit_ms; /* closing the GPU context */
    size_t jobs;
} cli_wall;
/* Milliseconds since the program's own code began (before main). */
double cli_since_start_ms(void);
/* The breakdown on stderr, one line a phase, ending with the total so far. */
void cli_wall_print(const cli_wall *w);

/* vkfx run FILE|-: the job file's lines under one GPU context. */
int cli_run_main(int argc, char **argv);
int cli_compare_main(int argc, char **argv);
/* vkfx info FILE...: format, size, channels, depth, orientation, profile, metadata. */
int cli_info_main(int argc, char **argv);
/* Whether a and b name one existing file (the same device and inode). */
bool cli_same_file(const char *a, const char *b);
int cli_preview_main(int argc, char **argv);

/* cli/paths.c: the files a run reads and writes, checked before any work.
 * A job-file runner lists its jobs' files the same way. */
typedef struct cli_path {
    char *path;  /* as given, for messages */
    char *label; /* its role: "input", "-o of a.png", "satdof:depth of a.png" */
    bool writes;
    dev_t dev; /* identity: of the file, or of its nearest existing folder */
    ino_t ino;
    char *rest;  /* "" for an existing file, else the names below that folder */
    char *resolved; /* absolute, its links and ".." resolved (cli/paths.c says how) */
    bool device; /* a character device: written more than once without harm */
    bool stream; /* standard input or output, by the file open there */
} cli_path;

typedef struct cli_paths {
    cli_path *v;
    size_t n, cap;
} cli_paths;

/* Lists path, read or written; role and of (the input it belongs to, or
 * NULL) name it in messages. */
int cli_paths_add(cli_paths *p, const char *path, bool writes, const char *role, const char *of);
/* Lists the file open at fd (standard input or output) under name, when it
 * is a regular file: "-o - >> in.png" writes the input. */
int cli_paths_add_stream(cli_paths *p, int fd, const char *name, bool writes, const char *role);
/* Lists every file the chain's options name (read or written, from the
 * filters' option tables); of: the input the chain runs on. */
int cli_paths_add_chain(cli_paths *p, const vkfx_chain *chain, const char *of);
/* VKFX_E_USAGE naming both paths when a file written is also read, or
 * written twice (but for a character device). */
int cli_paths_check(const cli_paths *p);
void cli_paths_free(cli_paths *p);

#endif
