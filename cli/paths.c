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

/* Drops the last name of an absolute path ("/a/b" to "/a", "/a" to "/"). */
static void up(cli_sbuf *b)
{
    while (b->len > 1 && b->p[b->len - 1] != '/')
        b->len--;
    if (b->len > 1)
        b->len--;
    b->p[b->len] = 0;
}

/* path as the kernel will find it once the outputs' folders exist: the
 * existing part with its links and ".." resolved (realpath), the rest
 * applied by name, since a folder still to be made is a plain folder whose
 * ".." is the folder it is made in. *known is the length of the prefix of
 * *out that exists; the names after it are still to be made. */
static int resolve(const char *path, char **out, size_t *known)
{
    cli_sbuf b = {0};
    size_t exist = 0;
    bool ok = true;
    if (path[0] == '/') {
        ok = cli_sbuf_put(&b, "/", 1);
    } else {
        char *cwd = realpath(".", NULL);
        if (!cwd)
            return vkfx_fail(VKFX_E_IO, "%s: the current folder: %s", path, strerror(errno));
        ok = cli_sbuf_put(&b, cwd, strlen(cwd));
        free(cwd);
    }
    exist = b.len;
    for (const char *s = path; ok && *s;) {
        while (*s == '/')
            s++;
        size_t n = strcspn(s, "/");
        const char *name = s;
        s += n;
        if (n == 0 || (n == 1 && name[0] == '.'))
            continue;
        if (n == 2 && name[0] == '.' && name[1] == '.') {
            up(&b);
            if (b.len < exist)
                exist = b.len;
            continue;
        }
        size_t before = b.len;
        ok = (b.len == 1 || cli_sbuf_put(&b, "/", 1)) && cli_sbuf_put(&b, name, n);
        if (!ok || exist != before)
            continue; /* below a folder still to be made */
        struct stat st;
        if (lstat(b.p, &st) != 0) {
            continue;
        } else if (S_ISLNK(st.st_mode)) {
            char *real = realpath(b.p, NULL);
            if (!real)
                continue; /* a dangling link is replaced, not followed */
            b.len = 0;
            ok = cli_sbuf_put(&b, real, strlen(real));
            free(real);
        }
        exist = b.len;
    }
    if (!ok) {
        free(b.p);
        return vkfx_fail(VKFX_E_NOMEM, "out of host memory");
    }
    *out = b.p;
    *known = exist;
    return VKFX_OK;
}

/* The identity of path: an existing file's device and inode with an empty
 * rest, else its nearest existing folder's with the names below it, both
 * from the path resolved as above, so that "new/../in.png" is in.png. */
static int identity(cli_path *e)
{
    size_t known = 0;
    int ret = resolve(e->path, &e->resolved, &known);
    if (ret < 0)
        return ret;
    char *full = e->resolved;
    size_t len = strlen(full);
    char keep = full[known];
    if (known < len)
        full[known > 1 ? known : 1] = 0;
    struct stat st;
    int r = stat(full, &st);
    int err = errno;
    if (known < len)
        full[known > 1 ? known : 1] = keep;
    if (r != 0)
        return vkfx_fail(VKFX_E_IO, "%s: %s", e->path, strerror(err));
    e->device = known == len && S_ISCHR(st.st_mode);
    e->dev = st.st_dev;
    e->ino = st.st_ino;
    e->rest = strdup(known < len ? full + known + (known > 1) : "");
    return e->rest ? VKFX_OK : vkfx_fail(VKFX_E_NOMEM, "out of host memory");
}

/* The identity of an open stream (fd): its file's, or none (*listed
 * false) when it is not a regular file, a pipe or terminal that no path
 * of the run can name. */
static int stream_identity(cli_path *e, int fd, bool *listed)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return vkfx_fail(VKFX_E_IO, "%s: %s", e->path, strerror(errno));
    *listed = S_ISREG(st.st_mode);
    e->stream = true;
    e->dev = st.st_dev;
    e->ino = st.st_ino;
    e->rest = strdup("");
    e->resolved = strdup("");
    return e->rest && e->resolved ? VKFX_OK : vkfx_fail(VKFX_E_NOMEM, "out of host memory");
}

/* Lists path, or with fd >= 0 the file open there under the name path. */
static int add(cli_paths *p, const char *path, int fd, bool writes, const char *role,
               const char *of)
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
    bool listed = true;
    int ret = !e->path || !e->label ? vkfx_fail(VKFX_E_NOMEM, "out of host memory")
              : fd >= 0             ? stream_identity(e, fd, &listed)
                                    : identity(e);
    if (ret < 0 || !listed) {
        free(e->path);
        free(e->label);
        free(e->resolved);
        free(e->rest);
        return ret;
    }
    p->n++;
    return VKFX_OK;
}

int cli_paths_add(cli_paths *p, const char *path, bool writes, const char *role, const char *of)
{
    return add(p, path, -1, writes, role, of);
}

int cli_paths_add_stream(cli_paths *p, int fd, const char *name, bool writes, const char *role)
{
    return add(p, name, fd, writes, role, NULL);
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
        free(p->v[i].resolved);
    }
    free(p->v);
    *p = (cli_paths){0};
}
