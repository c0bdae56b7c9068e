/* Shared by the command-line front ends: exit codes, message printing and
 * the log callback that puts library messages on stderr. */
#ifndef VKFX_CLI_H
#define VKFX_CLI_H

#include <stdio.h>
#include <sys/types.h>

#include "../core/vkfx.h"

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
/* True when the environment variable is set to something other than 0. */
bool cli_env_flag(const char *name);
int cli_bench_main(int argc, char **argv);

/* cli/message.c: every message on stderr goes through cli_message, a
 * printf format and its arguments on one line, with control bytes (C0, DEL,
 * C1) and bytes that are not UTF-8 shown as \xNN or \uNNNN. */
void cli_message(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* text escaped that way into out (size bytes, cut to fit). */
void cli_escape(const char *text, char *out, size_t size);
/* Length of the valid UTF-8 sequence at s (1..4), 0 if it is not one. */
int cli_utf8_length(const unsigned char *s);

/* text as a JSON string, escaped; bytes that are not UTF-8 become U+FFFD. */
void cli_json_string(FILE *f, const char *text);

typedef struct cli_batch_opts {
    const char *chain_text; /* -f, with template fields */
    const char *output;     /* -o template ("-": standard output), or NULL with outdir */
    const char *outdir;     /* --outdir, or NULL */
    const char *format;     /* --format: what -o - writes (default png) */
    int jobs;               /* -j: codec threads; 0 for one per core */
    bool progress;          /* --progress: also when stderr is not a terminal */
    const char *json;       /* --json: NULL none, "-" standard output, else a file */
    vkfx_run_opts run;
    vkfx_save_opts save;
    vkfx_context_opts ctx;
} cli_batch_opts;

/* Runs the chain over the inputs (files, directories, "-"); returns the
 * exit code. */
int cli_batch(const cli_batch_opts *o, char **inputs, int ninputs);
int cli_compare_main(int argc, char **argv);
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
    bool device; /* a character device: written more than once without harm */
} cli_path;

typedef struct cli_paths {
    cli_path *v;
    size_t n, cap;
} cli_paths;

/* Lists path, read or written; role and of (the input it belongs to, or
 * NULL) name it in messages. */
int cli_paths_add(cli_paths *p, const char *path, bool writes, const char *role, const char *of);
/* Lists every file the chain's options name (read or written, from the
 * filters' option tables); of: the input the chain runs on. */
int cli_paths_add_chain(cli_paths *p, const vkfx_chain *chain, const char *of);
/* VKFX_E_USAGE naming both paths when a file written is also read, or
 * written twice (but for a character device). */
int cli_paths_check(const cli_paths *p);
void cli_paths_free(cli_paths *p);

#endif
