#include "copy.h"

#include <pthread.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

/* Pieces below this go on the calling thread alone: starting a thread costs
 * about what copying this much does. */
#define PIECE_MIN   ((size_t)1 << 20)
#define THREADS_MAX 8

static int most_threads; /* 0: THREADS_MAX */

typedef struct piece {
    void *dst;
    const void *src;
    size_t n;
} piece;

static void *copy_piece(void *arg)
{
    piece *p = arg;
    memcpy(p->dst, p->src, p->n);
    return NULL;
}

void vkfx_copy_set_threads(int n)
{
    most_threads = n > 0 && n < THREADS_MAX ? n : 0;
}

void vkfx_copy(void *dst, const void *src, size_t n)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    size_t most = most_threads ? (size_t)most_threads : THREADS_MAX;
    size_t k = n / PIECE_MIN;
    k = k > most ? most : k;
    k = cores > 0 && k > (size_t)cores ? (size_t)cores : k;
    if (k < 2) {
        memcpy(dst, src, n);
        return;
    }
    piece pieces[THREADS_MAX];
    pthread_t threads[THREADS_MAX];
    bool started[THREADS_MAX] = {false};
    pthread_attr_t attr;
    bool attr_ok = pthread_attr_init(&attr) == 0;
    if (attr_ok)
        pthread_attr_setstacksize(&attr, 64 << 10);
    /* Pieces of whole cache lines; the last takes the rest. */
    size_t step = n / k & ~(size_t)63;
    for (size_t i = 0; i < k; i++) {
        size_t at = i * step;
        pieces[i] = (piece){(char *)dst + at, (const char *)src + at, i + 1 < k ? step : n - at};
        if (i > 0)
            started[i] =
                pthread_create(&threads[i], attr_ok ? &attr : NULL, copy_piece, &pieces[i]) == 0;
    }
    copy_piece(&pieces[0]);
    for (size_t i = 1; i < k; i++) {
        if (started[i])
            pthread_join(threads[i], NULL);
        else
            copy_piece(&pieces[i]);
    }
    if (attr_ok)
        pthread_attr_destroy(&attr);
}
