/* Notes on stderr: what a run did that is no error but worth knowing (metadata a format
 * drops, pages left unread, a filter's counts). --quiet silences them with the progress line;
 * otherwise each note is shown once a run, and how often it came up again at the end, so a
 * batch of a thousand photos does not repeat one line a thousand times. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* Notes of a run are few kinds; past this many kinds a new one is shown every time. */
enum { KINDS = 64 };

static struct {
    pthread_mutex_t mu;
    bool quiet;
    size_t n;
    struct {
        char text[512];
        size_t again;
    } kind[KINDS];
} notes = {.mu = PTHREAD_MUTEX_INITIALIZER};

void cli_notes_set_quiet(bool quiet)
{
    notes.quiet = quiet;
}

bool cli_notes_quiet(void)
{
    return notes.quiet;
}

void cli_note(const char *kind, const char *fmt, ...)
{
    if (notes.quiet)
        return;
    pthread_mutex_lock(&notes.mu);
    bool seen = false;
    for (size_t i = 0; i < notes.n && !seen; i++)
        if (strcmp(notes.kind[i].text, kind) == 0) {
            notes.kind[i].again++;
            seen = true;
        }
    if (!seen && notes.n < KINDS)
        snprintf(notes.kind[notes.n++].text, sizeof(notes.kind[0].text), "%s", kind);
    pthread_mutex_unlock(&notes.mu);
    if (seen)
        return;
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    cli_message("vkfx: note: %s", text);
}

void cli_notes_end(void)
{
    pthread_mutex_lock(&notes.mu);
    for (size_t i = 0; i < notes.n; i++)
        if (notes.kind[i].again)
            cli_message("vkfx: note: %zu more time%s: %s", notes.kind[i].again,
                        notes.kind[i].again == 1 ? "" : "s", notes.kind[i].text);
    notes.n = 0;
    pthread_mutex_unlock(&notes.mu);
}
