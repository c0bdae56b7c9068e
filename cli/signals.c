/* Ending a run on SIGHUP, SIGINT, SIGTERM, SIGPIPE or SIGQUIT, all alike:
 * the signals are blocked in every thread and taken by one thread of their
 * own, so no handler runs in the middle of a write. A batch asks for a
 * graceful stop: it stops starting work and ends with the files in hand.
 * Whatever does not end by itself within GRACE_S (a read from a FIFO with
 * no writer, a write to a device that does not drain), or any run after a
 * second signal, is ended here: every temporary is removed, then the
 * process exits with 128 + the signal. A write to a closed pipe fails with
 * EPIPE instead of killing the process, and the caller exits the same way. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

/* Long enough for the files in hand of an ordinary batch to be finished. */
#define GRACE_S 3

static const int stop_signals[] = {SIGHUP, SIGINT, SIGTERM, SIGPIPE, SIGQUIT};

static volatile sig_atomic_t received;
static volatile sig_atomic_t graceful;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t arrived = PTHREAD_COND_INITIALIZER;

static const char *signal_name(int sig)
{
    switch (sig) {
    case SIGHUP:
        return "SIGHUP";
    case SIGINT:
        return "SIGINT";
    case SIGTERM:
        return "SIGTERM";
    case SIGPIPE:
        return "SIGPIPE";
    case SIGQUIT:
        return "SIGQUIT";
    }
    return "a signal";
}

static _Noreturn void end_now(int sig)
{
    vkfx_safefile_remove_all();
    char msg[96];
    int n = snprintf(msg, sizeof(msg), "vkfx: interrupted by %s: stopped, temporaries removed\n",
                     signal_name(sig));
    if (n > 0 && sig != SIGPIPE && write(STDERR_FILENO, msg, (size_t)n) < 0)
        n = 0;
    _exit(128 + sig);
}

static void *watch(void *arg)
{
    sigset_t *set = arg;
    int sig = 0;
    while (sigwait(set, &sig) != 0)
        ;
    pthread_mutex_lock(&lock);
    received = sig;
    pthread_cond_broadcast(&arrived);
    pthread_mutex_unlock(&lock);
    if (!graceful)
        end_now(sig);
    struct timespec grace = {GRACE_S, 0};
    while (sigtimedwait(set, NULL, &grace) < 0 && errno == EINTR)
        ;
    end_now(sig);
}

int cli_signals_start(void)
{
    static sigset_t set;
    sigemptyset(&set);
    for (size_t i = 0; i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++) {
        /* A signal ignored on entry stays ignored (nohup, a background job
         * of a shell without job control): on Linux a blocked signal is
         * never discarded, so it must stay out of the set. SIGPIPE is taken
         * either way, so that a closed pipe is EPIPE. */
        struct sigaction old;
        if (stop_signals[i] != SIGPIPE && sigaction(stop_signals[i], NULL, &old) == 0 &&
            old.sa_handler == SIG_IGN)
            continue;
        sigaddset(&set, stop_signals[i]);
    }
    /* Threads started later (codec threads, the Vulkan driver's) inherit
     * the mask, so only the watcher takes these signals. */
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    pthread_t t;
    if (pthread_create(&t, NULL, watch, &set) != 0)
        return -1;
    pthread_detach(t);
    return 0;
}

void cli_signals_graceful(bool on)
{
    graceful = on;
}

int cli_signal_received(void)
{
    return received;
}

int cli_signals_wait(void)
{
    pthread_mutex_lock(&lock);
    while (!received)
        pthread_cond_wait(&arrived, &lock);
    int sig = received;
    pthread_mutex_unlock(&lock);
    return sig;
}
