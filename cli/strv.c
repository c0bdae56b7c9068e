/* Growing arrays of strings and growing strings. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int cli_strv_add(cli_strv *s, char *str)
{
    if (!str)
        return vkfx_fail(VKFX_E_NOMEM, "out of host memory");
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 16;
        char **v = realloc(s->v, cap * sizeof(*v));
        if (!v) {
            free(str);
            return vkfx_fail(VKFX_E_NOMEM, "out of host memory");
        }
        s->v = v;
        s->cap = cap;
    }
    s->v[s->n++] = str;
    return VKFX_OK;
}

void cli_strv_free(cli_strv *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->v[i]);
    free(s->v);
}

bool cli_sbuf_put(cli_sbuf *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (b->len + n + 1 > cap)
            cap *= 2;
        char *p = realloc(b->p, cap);
        if (!p)
            return false;
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = 0;
    return true;
}
