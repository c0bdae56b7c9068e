/* setresuid and setresgid are declared for _GNU_SOURCE. */
#define _GNU_SOURCE
#include "run_binary.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* A run that takes longer than this is hung: kill it and fail. */
#define RUN_DEADLINE_S 120

typedef struct buf {
    char *p;
    size_t len, cap;
} buf;

static void buf_add(buf *b, const char *data, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (b->len + n + 1 > cap)
            cap *= 2;
        b->p = realloc(b->p, cap);
        cr_assert(b->p, "out of memory capturing output");
        b->cap = cap;
    }
    memcpy(b->p + b->len, data, n);
    b->len += n;
    b->p[b->len] = 0;
}

/* Whether dir holds an entry whose name does not start with '.'. */
static bool holds_a_file(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return false;
    bool found = false;
    struct dirent *e;
    while (!found && (e = readdir(d)))
        found = e->d_name[0] != '.';
    closedir(d);
    return found;
}

void run_with(cli_run *r, const run_opts *o, const char *const *args)
{
    size_t nargs = 0;
    while (args[nargs])
        nargs++;
    const char **argv = calloc(nargs + 2, sizeof(*argv));
    cr_assert(argv);
    argv[0] = VKFX_BINARY;
    memcpy(argv + 1, args, nargs * sizeof(*argv));

    size_t len = (size_t)snprintf(r->cmd, sizeof(r->cmd), "vkfx");
    for (size_t i = 0; i < nargs && len < sizeof(r->cmd); i++)
        len += (size_t)snprintf(r->cmd + len, sizeof(r->cmd) - len, " '%s'", args[i]);

    int po[2], pe[2];
    cr_assert_eq(pipe(po), 0, "pipe: %s", strerror(errno));
    cr_assert_eq(pipe(pe), 0, "pipe: %s", strerror(errno));
    fflush(NULL);
    pid_t pid = fork();
    cr_assert(pid >= 0, "fork: %s", strerror(errno));
    if (pid == 0) {
        int out_fd = o && o->stdout_path ? open(o->stdout_path, O_WRONLY) : po[1];
        if (out_fd < 0) {
            dprintf(pe[1], "test: %s: %s\n", o->stdout_path, strerror(errno));
            _exit(126);
        }
        dup2(out_fd, STDOUT_FILENO);
        dup2(pe[1], STDERR_FILENO);
        close(po[0]);
        close(po[1]);
        close(pe[0]);
        close(pe[1]);
        int devnull = open(o && o->stdin_path ? o->stdin_path : "/dev/null", O_RDONLY);
        if (devnull >= 0) {
            dup2(devnull, STDIN_FILENO);
            close(devnull);
        }
        if (o && o->cwd && chdir(o->cwd) != 0) {
            dprintf(STDERR_FILENO, "test: chdir %s: %s\n", o->cwd, strerror(errno));
            _exit(126);
        }
        if (o && o->uid && (setgroups(0, NULL) != 0 || setresgid(o->uid, o->uid, o->uid) != 0 ||
                            setresuid(o->uid, o->uid, o->uid) != 0)) {
            dprintf(STDERR_FILENO, "test: cannot run as uid %u: %s\n", (unsigned)o->uid,
                    strerror(errno));
            _exit(126);
        }
        if (o && o->fsize) {
            struct rlimit rl = {o->fsize, o->fsize};
            signal(SIGXFSZ, SIG_IGN); /* write() then fails with EFBIG instead */
            if (setrlimit(RLIMIT_FSIZE, &rl) != 0) {
                dprintf(STDERR_FILENO, "test: setrlimit: %s\n", strerror(errno));
                _exit(126);
            }
        }
        /* A test that signals vkfx checks its handling, so the signals start
         * at their defaults: under nohup, or as a background job of a shell
         * without job control, they arrive ignored, and vkfx rightly keeps
         * them so. */
        if (o && (o->interrupt_dir || o->signal_after_ms > 0))
            for (int sig = 1; sig <= SIGRTMAX; sig++)
                if (sig != SIGKILL && sig != SIGSTOP && !(sig == SIGXFSZ && o->fsize))
                    signal(sig, SIG_DFL);
        execv(VKFX_BINARY, (char *const *)argv);
        dprintf(STDERR_FILENO, "test: exec %s: %s\n", VKFX_BINARY, strerror(errno));
        _exit(127);
    }
    close(po[1]);
    close(pe[1]);
    free(argv);

    buf out = {0}, err = {0};
    buf_add(&out, "", 0);
    buf_add(&err, "", 0);
    struct pollfd fds[2] = {{po[0], POLLIN, 0}, {pe[0], POLLIN, 0}};
    buf *bufs[2] = {&out, &err};
    int open_fds = 2;
    time_t deadline = time(NULL) + RUN_DEADLINE_S;
    bool hung = false;
    const char *watch = o ? o->interrupt_dir : NULL;
    int sig = o && o->signal ? o->signal : SIGINT;
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    bool timed = o && o->signal_after_ms > 0;
    while (open_fds > 0) {
        int left = (int)(deadline - time(NULL));
        if (left <= 0) {
            hung = true;
            kill(pid, SIGKILL);
            break;
        }
        int wait_ms = left * 1000;
        if (watch) {
            if (holds_a_file(watch)) {
                kill(pid, sig);
                watch = NULL;
            } else {
                wait_ms = 2; /* look again soon */
            }
        }
        if (timed) {
            struct timespec t;
            clock_gettime(CLOCK_MONOTONIC, &t);
            long ms = (t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000;
            if (ms >= o->signal_after_ms) {
                kill(pid, sig);
                timed = false;
            } else {
                wait_ms = (int)(o->signal_after_ms - ms);
            }
        }
        int n = poll(fds, 2, wait_ms);
        if (n < 0 && errno == EINTR)
            continue;
        cr_assert(n >= 0, "poll: %s", strerror(errno));
        for (int i = 0; i < 2; i++) {
            if (fds[i].fd < 0 || !fds[i].revents)
                continue;
            char chunk[4096];
            ssize_t got = read(fds[i].fd, chunk, sizeof(chunk));
            if (got > 0) {
                buf_add(bufs[i], chunk, (size_t)got);
                if (i == 0 && o && o->stdout_close_after && out.len >= o->stdout_close_after) {
                    close(fds[0].fd); /* the reader goes away, as head -c does */
                    fds[0].fd = -1;
                    open_fds--;
                }
            } else if (got == 0 || errno != EINTR) {
                close(fds[i].fd);
                fds[i].fd = -1;
                open_fds--;
            }
        }
    }
    for (int i = 0; i < 2; i++)
        if (fds[i].fd >= 0)
            close(fds[i].fd);
    int ws = 0;
    while (waitpid(pid, &ws, 0) < 0)
        cr_assert_eq(errno, EINTR, "waitpid: %s", strerror(errno));
    r->status = hung ? -1 : WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
    r->out = out.p;
    r->out_len = out.len;
    r->err = err.p;
}

void run_free(cli_run *r)
{
    free(r->out);
    free(r->err);
    r->out = r->err = NULL;
}
