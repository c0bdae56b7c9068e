/* sigabbrev_np is glibc's; it declares it for _GNU_SOURCE. */
#define _GNU_SOURCE
/* Ending a run on any signal whose default action ends the process, all
 * alike: those sent from outside (SIGHUP, SIGINT, SIGTERM, SIGPIPE, SIGQUIT,
 * SIGUSR1, SIGALRM, SIGXFSZ, the real-time ones...) are blocked in every
 * thread and taken by one thread of their own, so no handler runs in the
 * middle of a write. A batch asks for a graceful stop: it stops starting
 * work and ends with the files in hand. Whatever does not end by itself
 * within GRACE_S (a read from a FIFO with no writer, a write to a device
 * that does not drain), or any run after a second signal, is ended here:
 * every temporary is removed, then the process exits with 128 + the signal.
 * A write to a closed pipe fails with EPIPE instead of killing the process,
 * and the caller exits the same way; a write past RLIMIT_FSIZE fails with
 * EFBIG. SIGKILL and SIGSTOP cannot be caught. */
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

/* Every signal whose default action ends the process but the faults below (and the real-time
 * signals, added at start). */
static const int stop_signals[] = {SIGHUP,  SIGINT,    SIGTERM, SIGPIPE, SIGQUIT, SIGUSR1,
                                   SIGUSR2, SIGALRM,   SIGABRT, SIGXCPU, SIGXFSZ, SIGVTALRM,
                                   SIGPROF, SIGIO,     SIGPWR,  SIGSTKFLT};

/* The signals a fault raises in the thread that caused it. Blocked, a fault would end the
 * process at once, past any handler (a sanitizer's included): they are caught instead, and one
 * sent by another process is handed to the watching thread; a real fault is handled as before. */
static const int fault_signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGSYS};
static struct sigaction fault_before[sizeof(fault_signals) / sizeof(fault_signals[0])];
static pthread_t watcher;

static volatile sig_atomic_t received;
static volatile sig_atomic_t graceful;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t arrived = PTHREAD_COND_INITIALIZER;

/* "SIGUSR1", or "signal 40" (a real-time one) in buf. */
static const char *signal_name(int sig, char *buf, size_t size)
{
    const char *abbrev = sigabbrev_np(sig);
    if (abbrev)
        snprintf(buf, size, "SIG%s", abbrev);
    else
        snprintf(buf, size, "signal %d", sig);
    return buf;
}

static _Noreturn void end_now(int sig)
{
    vkfx_safefile_remove_all();
    char msg[96], name[32];
    int n = snprintf(msg, sizeof(msg), "vkfx: interrupted by %s: stopped, temporaries removed\n",
                     signal_name(sig, name, sizeof(name)));
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

static void on_fault(int sig, siginfo_t *info, void *context)
{
    (void)context;
    size_t i = 0;
    while (fault_signals[i] != sig)
        i++;
    /* SI_USER, SI_QUEUE, SI_TKILL: sent by a process, not a fault. */
    if (info->si_code <= 0) {
        pthread_kill(watcher, sig);
        return;
    }
    /* A faulting instruction runs again on return and meets the handling it had before; a trap
     * or a system call refused does not, so it is raised again. */
    sigaction(sig, &fault_before[i], NULL);
    if (sig == SIGTRAP || sig == SIGSYS)
        raise(sig);
}

/* A signal ignored on entry stays ignored (nohup, a background job of a shell without job
 * control): on Linux a blocked signal is never discarded, so it must stay out of the set.
 * SIGPIPE is taken either way, so that a closed pipe is EPIPE. */
static bool ignored(int sig)
{
    struct sigaction old;
    return sig != SIGPIPE && sigaction(sig, NULL, &old) == 0 && old.sa_handler == SIG_IGN;
}

int cli_signals_start(void)
{
    static sigset_t set, wait_set;
    sigemptyset(&set);
    for (size_t i = 0; i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++)
        if (!ignored(stop_signals[i]))
            sigaddset(&set, stop_signals[i]);
    for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++)
        if (!ignored(sig))
            sigaddset(&set, sig);
    wait_set = set;
    for (size_t i = 0; i < sizeof(fault_signals) / sizeof(fault_signals[0]); i++)
        sigaddset(&wait_set, fault_signals[i]);
    /* The watcher starts with the faults blocked too (it waits for them), every other thread
     * with the rest: threads started later (codec threads, the Vulkan driver's) inherit the
     * mask, so only the watcher takes these signals. */
    sigset_t before;
    pthread_sigmask(SIG_BLOCK, &wait_set, &before);
    int rc = pthread_create(&watcher, NULL, watch, &wait_set);
    pthread_sigmask(SIG_SETMASK, &before, NULL);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    if (rc != 0)
        return -1;
    pthread_detach(watcher);
    for (size_t i = 0; i < sizeof(fault_signals) / sizeof(fault_signals[0]); i++) {
        if (ignored(fault_signals[i]))
            continue;
        struct sigaction sa = {.sa_sigaction = on_fault, .sa_flags = SA_SIGINFO | SA_ONSTACK};
        sigemptyset(&sa.sa_mask);
        sigaction(fault_signals[i], &sa, &fault_before[i]);
    }
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
