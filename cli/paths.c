/* Every file a run will read or write, checked against each other before
 * any work: by identity (device and inode, so that links and different
 * spellings of one file are one file), a file that does not exist yet by
 * the identity of its nearest existing folder and the rest of its name. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

/* The identity of path: an existing file's device and inode with an empty
 * rest, else its nearest existing folder's with the names below it. */
static int identity(const char *path, dev_t *dev, ino_t *ino, char **rest, bool *device)
{
    struct stat st;
    if (stat(path, &st) == 0) {
        if (device)
            *device = S_ISCHR(st.st_mode);
        *dev = st.st_dev;
        *ino = st.st_ino;
        *rest = strdup("");
        return *rest ? VKFX_OK : vkfx_fail(VKFX_E_NOMEM, "out of host memory");
    }
    size_t len = strlen(path);
    while (len > 1 && path[len - 1] == '/')
        len--;
    size_t cut = len;
    while (cut > 0 && path[cut - 1] != '/')
        cut--;
    const char *base = path + cut;
    size_t blen = len - cut;
    char *dir = cut == 0 ? strdup(".") : strndup(path, cut > 1 ? cut - 1 : 1);
    if (!dir)
        return vkfx_fail(VKFX_E_NOMEM, "out of host memory");
    char *above = NULL;
    int ret = identity(dir, dev, ino, &above, NULL);
    free(dir);
    if (ret < 0)
        return ret;
    bool dot = blen == 1 && base[0] == '.';
    size_t size = strlen(above) + blen + 2;
    *rest = malloc(size);
    if (*rest)
        snprintf(*rest, size, "%s%s%.*s", above, *above && !dot ? "/" : "", dot ? 0 : (int)blen,
                 base);
    free(above);
    return *rest ? VKFX_OK : vkfx_fail(VKFX_E_NOMEM, "out of host memory");
}

int cli_paths_add(cli_paths *p, const char *path, bool writes, const char *role, const char *of)
{
    if (p->n == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 16;
        cli_path *v = realloc(p->v, cap * sizeof(*v));
        if (!v)
            return vkfx_fail(VKFX_E_NOMEM, "out of host memory");
        p->v = v;
        p->cap = cap;
    }
    cli_path *e = &p->v[p->n];
    *e = (cli_path){.writes = writes};
    e->path = strdup(path);
    size_t len = strlen(role) + (of ? strlen(of) + 8 : 0) + 1;
    e->label = malloc(len);
    if (e->label)
        snprintf(e->label, len, "%s%s%s", role, of ? " of " : "", of ? of : "");
    int ret = e->path && e->label ? identity(path, &e->dev, &e->ino, &e->rest, &e->device)
                                  : vkfx_fail(VKFX_E_NOMEM, "out of host memory");
    if (ret < 0) {
        free(e->path);
        free(e->label);
        return ret;
    }
    p->n++;
    return VKFX_OK;
}

typedef struct chain_walk {
    cli_paths *paths;
    const char *of;
} chain_walk;

static int add_option(void *user, const vkfx_filter *f, const vkfx_option *o, const char *value)
{
    chain_walk *w = user;
    char role[128];
    snprintf(role, sizeof(role), "%s:%s", f->name, o->name);
    if (o->writes)
        return cli_paths_add(w->paths, value, true, role, w->of);
    /* depth=self reads the input itself, which is listed already. */
    if (strcmp(value, "self") == 0)
        return VKFX_OK;
    char *file = NULL;
    const char *channel;
    int ret = vkfx_file_map_split(value, &file, &channel);
    if (ret == VKFX_OK)
        ret = cli_paths_add(w->paths, file, false, role, w->of);
    free(file);
    return ret;
}

int cli_paths_add_chain(cli_paths *p, const vkfx_chain *chain, const char *of)
{
    chain_walk w = {p, of};
    return vkfx_chain_paths(chain, add_option, &w);
}

static int cmp_identity(const void *a, const void *b)
{
    const cli_path *x = *(const cli_path *const *)a, *y = *(const cli_path *const *)b;
    if (x->dev != y->dev)
        return x->dev < y->dev ? -1 : 1;
    if (x->ino != y->ino)
        return x->ino < y->ino ? -1 : 1;
    int c = strcmp(x->rest, y->rest);
    /* Within one file, writes first, then in the order added. */
    if (c == 0 && x->writes != y->writes)
        return x->writes ? -1 : 1;
    return c ? c : x < y ? -1 : x > y;
}

static bool same_identity(const cli_path *x, const cli_path *y)
{
    return x->dev == y->dev && x->ino == y->ino && strcmp(x->rest, y->rest) == 0;
}

int cli_paths_check(const cli_paths *p)
{
    int ret = VKFX_OK;
    const cli_path **order = malloc((p->n ? p->n : 1) * sizeof(*order));
    if (!order)
        return vkfx_fail(VKFX_E_NOMEM, "out of host memory");
    for (size_t i = 0; i < p->n; i++)
        order[i] = &p->v[i];
    qsort(order, p->n, sizeof(*order), cmp_identity);
    for (size_t i = 0; i + 1 < p->n && ret == VKFX_OK; i++) {
        const cli_path *w = order[i], *o = order[i + 1];
        if (!w->writes || !same_identity(w, o))
            continue;
        /* A device takes what is written to it, as often as it is asked
         * (out=/dev/null:plot=/dev/null). */
        if (o->writes && w->device)
            continue;
        if (o->writes)
            ret = vkfx_fail(VKFX_E_USAGE,
                            "%s (%s) and %s (%s) would both be written: they are one file",
                            w->path, w->label, o->path, o->label);
        else
            ret = vkfx_fail(VKFX_E_USAGE,
                            "%s (%s) would overwrite %s (%s), which this run reads: they are one "
                            "file",
                            w->path, w->label, o->path, o->label);
    }
    free(order);
    return ret;
}

void cli_paths_free(cli_paths *p)
{
    for (size_t i = 0; i < p->n; i++) {
        free(p->v[i].path);
        free(p->v[i].label);
        free(p->v[i].rest);
    }
    free(p->v);
    *p = (cli_paths){0};
}
