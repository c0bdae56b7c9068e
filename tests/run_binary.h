/* Running the built vkfx binary from a test: argument vector, no shell,
 * stdout and stderr captured, a deadline against hangs. */
#ifndef VKFX_TESTS_RUN_BINARY_H
#define VKFX_TESTS_RUN_BINARY_H

#include <stddef.h>
#include <sys/resource.h>
#include <sys/types.h>

typedef struct cli_run {
    int status; /* exit code; 128 + the signal if one killed it; -1 if hung */
    char *out, *err;
    size_t out_len; /* stdout may be binary (-o -) */
    char cmd[2048]; /* the argument vector, for messages */
} cli_run;

typedef struct run_opts {
    const char *cwd;           /* NULL: the test's own */
    rlim_t fsize;              /* RLIMIT_FSIZE in bytes, with SIGXFSZ ignored; 0: unlimited */
    const char *stdin_path;    /* standard input from this file; NULL: /dev/null */
    const char *interrupt_dir; /* SIGINT once this directory holds a name not starting '.' */
    int signal;                /* sent instead of SIGINT (interrupt_dir, signal_after_ms) */
    int signal_after_ms;       /* send it this long after the start; 0: not by time */
    const char *stdout_path;   /* standard output to this file (opened for writing) */
    /* Close the reading end of standard output after this many bytes, as
     * 'head -c N' does; 0: read it all. */
    size_t stdout_close_after;
    uid_t uid; /* run as this user and its group (the test runs as root); 0: as the test */
} run_opts;

/* Runs VKFX_BINARY with args (NULL-terminated, argv[1] on), capturing stdout
 * and stderr; the environment (VKFX_VALIDATE=1 under meson) is inherited. */
void run_with(cli_run *r, const run_opts *o, const char *const *args);
void run_free(cli_run *r);

#define VKFX(r, ...)         run_with((r), NULL, (const char *const[]){__VA_ARGS__, NULL})
#define VKFX_OPTS(r, o, ...) run_with((r), (o), (const char *const[]){__VA_ARGS__, NULL})

#endif
