/* Shared by the command-line front ends: exit codes, message printing and
 * the log callback that puts library messages on stderr. */
#ifndef VKFX_CLI_H
#define VKFX_CLI_H

#include <stdio.h>

#include "../core/vkfx.h"

enum { EXIT_OK = 0, EXIT_PROCESSING = 1, EXIT_USAGE = 2, EXIT_INTERRUPTED = 130 };

/* Exit code for a library status: usage mistakes are 2, the rest 1. */
int cli_exit_code(int status);
/* Prints "vkfx: MESSAGE" for the calling thread's last library error. */
void cli_print_error(void);
void cli_log(void *user, const char *message);
/* True when the environment variable is set to something other than 0. */
bool cli_env_flag(const char *name);
int cli_bench_main(int argc, char **argv);

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
/* Whether a and b name one existing file (the same device and inode). */
bool cli_same_file(const char *a, const char *b);

#endif
