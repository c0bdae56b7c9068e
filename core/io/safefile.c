/* memfd_create and renameat2 are Linux's; glibc declares them for _GNU_SOURCE. */
#define _GNU_SOURCE
#include "safefile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"

struct vkfx_safefile {
    char *path;    /* the target, for messages and the rename */
    char *tmp;     /* the temporary beside it, NULL when there is none */
    FILE *f;       /* what the caller writes to */
    int out_fd;    /* standard output's descriptor, or -1 */
    bool through;  /* a device or FIFO: the bytes are copied to it at commit */
    bool direct;   /* a seekable character device (/dev/null): f writes to it itself */
    bool existed;  /* a regular file is replaced: keep its mode, owner, group */
    struct stat old;
    vkfx_safefile *prev, *next; /* the temporaries in flight */
};

const char VKFX_CACHE_NOT_REGULAR[] = "not a regular file";

static bool sync_files = true;
static bool no_clobber;

/* Every temporary being written, so that a signal can remove them all. The
 * lock is held while one is created or renamed, so that none escapes
 * vkfx_safefile_remove_all, which keeps it for good. */
static pthread_mutex_t registry_mu = PTHREAD_MUTEX_INITIALIZER;
static vkfx_safefile *registry;

void vkfx_safefile_set_fsync(bool on)
{
    sync_files = on;
}

void vkfx_safefile_set_no_clobber(bool on)
{
    no_clobber = on;
}

static void registry_remove(vkfx_safefile *s)
{
    if (s->prev)
        s->prev->next = s->next;
    else if (registry == s)
        registry = s->next;
    if (s->next)
        s->next->prev = s->prev;
    s->prev = s->next = NULL;
}

void vkfx_safefile_remove_all(void)
{
    pthread_mutex_lock(&registry_mu);
    for (vkfx_safefile *s = registry; s; s = s->next)
        unlink(s->tmp);
    registry = NULL;
}

static mode_t current_umask(void)
{
    FILE *f = fopen("/proc/self/status", "re");
    if (f) {
        char line[256];
        unsigned int mask;
        while (fgets(line, sizeof(line), f)) {
            if (sscanf(line, "Umask: %o", &mask) == 1) {
                fclose(f);
                return (mode_t)mask;
            }
        }
        fclose(f);
    }
    mode_t mask = umask(022);
    umask(mask);
    return mask;
}

/* The folder part of path ("." or "/" when it has none), malloc'd. */
static char *folder_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return strdup(".");
    if (slash == path)
        return strdup("/");
    return strndup(path, (size_t)(slash - path));
}

/* A file is replaced (or written through) only where this user could open it for writing, as
 * a shell's '>' could: a rename needs only the folder's permission, and would take another
 * user's file. */
static int writable(const char *path, const struct stat *st)
{
    if (faccessat(AT_FDCWD, path, W_OK, AT_EACCESS) == 0)
        return VKFX_OK;
    int e = errno;
    return vkfx_fail(VKFX_E_USAGE, "%s: %s (owner uid %u, mode %04o); not written", path,
                     strerror(e), (unsigned)st->st_uid, (unsigned)(st->st_mode & 07777));
}

int vkfx_safefile_check_folder(const char *path)
{
    char *dir = folder_of(path);
    struct stat st;
    /* The folders still to be made are made in the nearest one that exists. */
    while (dir && stat(dir, &st) != 0 && errno == ENOENT && strcmp(dir, ".") != 0 &&
           strcmp(dir, "/") != 0) {
        char *up = folder_of(dir);
        free(dir);
        dir = up;
    }
    if (!dir)
        return vkfx_fail(VKFX_E_NOMEM, "%s: out of host memory", path);
    int ret = VKFX_OK;
    /* Anything else in the way (a file where a folder goes) is reported where the folder is
     * made. */
    if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode) &&
        faccessat(AT_FDCWD, dir, W_OK | X_OK, AT_EACCESS) != 0)
        ret = vkfx_fail(VKFX_E_USAGE,
                        "%s: cannot write in the folder %s: %s (owner uid %u, mode %04o)", path,
                        dir, strerror(errno), (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
    free(dir);
    return ret;
}

/* cache: path is one of vkfx's caches, only ever a regular file (the name itself, not what a
 * link there points to). */
static int classify(const char *path, bool cache, vkfx_target_kind *kind, struct stat *st)
{
    const char *slash = strrchr(path, '/');
    if (!*path || (slash && !slash[1]))
        return vkfx_fail(VKFX_E_USAGE, "%s: names a directory, not a file", path);
    if ((cache ? lstat(path, st) : stat(path, st)) == 0) {
        if (cache && !S_ISREG(st->st_mode))
            return vkfx_fail(VKFX_E_USAGE, "%s: %s; not written", path, VKFX_CACHE_NOT_REGULAR);
        if (S_ISDIR(st->st_mode))
            return vkfx_fail(VKFX_E_USAGE, "%s: is a directory, not a file", path);
        if (S_ISCHR(st->st_mode) || S_ISFIFO(st->st_mode)) {
            *kind = VKFX_TARGET_THROUGH;
            return writable(path, st);
        }
        if (!S_ISREG(st->st_mode))
            return vkfx_fail(VKFX_E_USAGE,
                             "%s: not a regular file, character device or FIFO; not written",
                             path);
        if (no_clobber)
            return vkfx_fail(VKFX_E_USAGE, "%s: exists, and --no-clobber keeps it", path);
        if (!(st->st_mode & 0222))
            return vkfx_fail(VKFX_E_USAGE, "%s: is read-only (mode %04o); not replaced", path,
                             (unsigned)(st->st_mode & 07777));
        *kind = VKFX_TARGET_REPLACE;
        int ret = writable(path, st);
        return ret < 0 ? ret : vkfx_safefile_check_folder(path);
    }
    if (errno != ENOENT)
        return vkfx_fail(VKFX_E_IO, "%s: %s", path, strerror(errno));
    char *dir = folder_of(path);
    if (!dir)
        return vkfx_fail(VKFX_E_NOMEM, "%s: out of host memory", path);
    struct stat ds;
    int ret = VKFX_OK;
    if (stat(dir, &ds) != 0 || !S_ISDIR(ds.st_mode))
        ret = vkfx_fail(VKFX_E_IO, "%s: output directory does not exist", path);
    free(dir);
    if (ret == VKFX_OK)
        ret = vkfx_safefile_check_folder(path);
    *kind = VKFX_TARGET_NEW;
    return ret;
}

int vkfx_safefile_target(const char *path, vkfx_target_kind *kind)
{
    struct stat st;
    return classify(path, false, kind, &st);
}

/* A name for the temporary of path: ".BASE.vkfx-XXXXXX" in its folder, the
 * base cut so that the name fits the file system's limit. */
static char *temp_template(const char *path)
{
    static const char suffix[] = ".vkfx-XXXXXX";
    char *dir = folder_of(path);
    if (!dir)
        return NULL;
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    long max = pathconf(dir, _PC_NAME_MAX);
    if (max <= 0)
        max = NAME_MAX;
    size_t room = (size_t)max - 1 - (sizeof(suffix) - 1);
    size_t blen = strlen(base) < room ? strlen(base) : room;
    size_t len = strlen(dir) + 2 + blen + sizeof(suffix);
    char *tmp = malloc(len);
    if (tmp)
        snprintf(tmp, len, "%s/.%.*s%s", dir, (int)blen, base, suffix);
    free(dir);
    return tmp;
}

static void safefile_free(vkfx_safefile *s)
{
    if (s->f)
        fclose(s->f);
    free(s->path);
    free(s->tmp);
    free(s);
}

/* Memory for a target that is not replaced by a rename: a device, a FIFO,
 * standard output. memfd is seekable and has no name on disk. */
static int open_memory(vkfx_safefile *s)
{
    int fd = memfd_create("vkfx-output", MFD_CLOEXEC);
    if (fd < 0)
        return vkfx_fail(VKFX_E_IO, "%s: no memory file for the output: %s", s->path,
                         strerror(errno));
    s->f = fdopen(fd, "w+b");
    if (!s->f) {
        int e = errno;
        close(fd);
        return vkfx_fail(VKFX_E_IO, "%s: %s", s->path, strerror(e));
    }
    return VKFX_OK;
}

/* A character device that can seek (/dev/null, as runs timed without their write use) is
 * written as the encoder goes, with no copy in memory: a reader of a FIFO or terminal gets the
 * whole file or nothing instead, and encoders that write at offsets need a seekable descriptor.
 * s->direct says which. */
static int open_device(vkfx_safefile *s)
{
    if (!S_ISCHR(s->old.st_mode))
        return VKFX_OK;
    int fd = open(s->path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return vkfx_fail(VKFX_E_IO, "%s: %s", s->path, strerror(errno));
    if (lseek(fd, 0, SEEK_CUR) < 0) {
        close(fd);
        return VKFX_OK;
    }
    s->f = fdopen(fd, "wb");
    if (!s->f) {
        int e = errno;
        close(fd);
        return vkfx_fail(VKFX_E_IO, "%s: %s", s->path, strerror(e));
    }
    s->direct = true;
    return VKFX_OK;
}

static int open_target(const char *path, bool cache, vkfx_safefile **out)
{
    int ret;
    vkfx_target_kind kind;
    *out = NULL;
    vkfx_safefile *s = calloc(1, sizeof(*s));
    if (!s)
        return vkfx_fail(VKFX_E_NOMEM, "%s: out of host memory", path);
    s->out_fd = -1;
    s->path = strdup(path);
    if (!s->path) {
        ret = vkfx_fail(VKFX_E_NOMEM, "%s: out of host memory", path);
        goto fail;
    }
    if ((ret = classify(path, cache, &kind, &s->old)) < 0)
        goto fail;
    if (kind == VKFX_TARGET_THROUGH) {
        s->through = true;
        if ((ret = open_device(s)) < 0 || (!s->direct && (ret = open_memory(s)) < 0))
            goto fail;
        *out = s;
        return VKFX_OK;
    }
    s->existed = kind == VKFX_TARGET_REPLACE;
    s->tmp = temp_template(path);
    if (!s->tmp) {
        ret = vkfx_fail(VKFX_E_NOMEM, "%s: out of host memory", path);
        goto fail;
    }
    pthread_mutex_lock(&registry_mu);
    /* mkostemp: O_CREAT|O_EXCL with a random name, mode 0600, so a planted
     * file or symbolic link is never followed. */
    int fd = mkostemp(s->tmp, O_CLOEXEC);
    int e = errno;
    if (fd >= 0) {
        s->next = registry;
        if (registry)
            registry->prev = s;
        registry = s;
    }
    pthread_mutex_unlock(&registry_mu);
    if (fd < 0) {
        free(s->tmp);
        s->tmp = NULL;
        ret = vkfx_fail(VKFX_E_IO, "%s: cannot create a temporary file beside it: %s", path,
                        strerror(e));
        goto fail;
    }
    /* The new file looks like the one it replaces, or like any other file
     * this user creates; owner and group only where the user may set them. */
    mode_t mode = s->existed ? s->old.st_mode & 07777 : 0666 & ~current_umask();
    if (s->existed && fchown(fd, s->old.st_uid, s->old.st_gid) != 0 &&
        fchown(fd, (uid_t)-1, s->old.st_gid) != 0)
        mode &= ~(mode_t)(S_ISUID | S_ISGID);
    if (fchmod(fd, mode) != 0 || !(s->f = fdopen(fd, "wb"))) {
        e = errno;
        close(fd);
        ret = vkfx_fail(VKFX_E_IO, "%s: %s", s->tmp, strerror(e));
        goto fail;
    }
    *out = s;
    return VKFX_OK;
fail:
    vkfx_safefile_abort(s);
    return ret;
}

int vkfx_safefile_open(const char *path, vkfx_safefile **out)
{
    return open_target(path, false, out);
}

int vkfx_safefile_open_fd(int fd, const char *name, vkfx_safefile **out)
{
    int ret;
    *out = NULL;
    vkfx_safefile *s = calloc(1, sizeof(*s));
    if (!s)
        return vkfx_fail(VKFX_E_NOMEM, "%s: out of host memory", name);
    s->out_fd = fd;
    s->through = true;
    s->path = strdup(name);
    if (!s->path) {
        ret = vkfx_fail(VKFX_E_NOMEM, "%s: out of host memory", name);
        goto fail;
    }
    if ((ret = open_memory(s)) < 0)
        goto fail;
    *out = s;
    return VKFX_OK;
fail:
    vkfx_safefile_abort(s);
    return ret;
}

FILE *vkfx_safefile_stream(vkfx_safefile *s)
{
    return s->f;
}

void vkfx_safefile_abort(vkfx_safefile *s)
{
    if (!s)
        return;
    if (s->tmp) {
        pthread_mutex_lock(&registry_mu);
        registry_remove(s);
        unlink(s->tmp);
        pthread_mutex_unlock(&registry_mu);
    }
    safefile_free(s);
}

/* All of the memory file in to fd. */
static int copy_out(int in, int fd)
{
    char buf[65536];
    off_t at = 0;
    for (;;) {
        ssize_t got = pread(in, buf, sizeof(buf), at);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return (int)got;
        at += got;
        for (ssize_t done = 0; done < got;) {
            ssize_t n = write(fd, buf + done, (size_t)(got - done));
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0)
                return -1;
            done += n;
        }
    }
}

static int commit_through(vkfx_safefile *s)
{
    int fd = s->out_fd;
    if (fd < 0)
        fd = open(s->path, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return vkfx_fail(VKFX_E_IO, "%s: %s", s->path, strerror(errno));
    int rc = copy_out(fileno(s->f), fd);
    int e = errno;
    if (s->out_fd < 0 && close(fd) != 0 && rc == 0) {
        rc = -1;
        e = errno;
    }
    if (rc < 0) {
        errno = e;
        return vkfx_fail(VKFX_E_IO, "%s: %s", s->path, strerror(e));
    }
    return VKFX_OK;
}

int vkfx_safefile_commit(vkfx_safefile *s)
{
    int ret = VKFX_OK, e = 0;
    /* Buffered data reaches the file only here; a full disk shows up now. An earlier failed
     * write leaves no reason behind (errno has moved on since): EIO then. */
    int flushed = fflush(s->f);
    if (flushed != 0 || ferror(s->f)) {
        e = flushed != 0 && errno ? errno : EIO;
        ret = vkfx_fail(VKFX_E_IO, "%s: %s", s->path, strerror(e));
        goto done;
    }
    if (s->direct) {
        int rc = fclose(s->f);
        s->f = NULL;
        e = errno;
        if (rc != 0)
            ret = vkfx_fail(VKFX_E_IO, "%s: %s", s->path, strerror(e));
        goto done;
    }
    if (s->through) {
        ret = commit_through(s);
        e = errno;
        goto done;
    }
    /* On disk before the rename: after a crash the name holds the old file
     * or the whole new one, never an empty one. */
    if (sync_files && fsync(fileno(s->f)) != 0) {
        e = errno;
        ret = vkfx_fail(VKFX_E_IO, "%s: %s", s->path, strerror(e));
        goto done;
    }
    int rc = fclose(s->f);
    s->f = NULL;
    if (rc != 0) {
        e = errno;
        ret = vkfx_fail(VKFX_E_IO, "%s: %s", s->path, strerror(e));
        goto done;
    }
    pthread_mutex_lock(&registry_mu);
    /* With --no-clobber a file that appeared since the check is kept too. */
    rc = s->existed || !no_clobber ? rename(s->tmp, s->path)
                                   : renameat2(AT_FDCWD, s->tmp, AT_FDCWD, s->path, RENAME_NOREPLACE);
    /* A file system without RENAME_NOREPLACE: link() refuses to replace too. */
    if (rc != 0 && errno == EINVAL && !s->existed && no_clobber) {
        rc = link(s->tmp, s->path);
        if (rc == 0)
            unlink(s->tmp);
    }
    e = errno;
    if (rc == 0) {
        registry_remove(s);
        free(s->tmp);
        s->tmp = NULL;
    }
    pthread_mutex_unlock(&registry_mu);
    if (rc != 0)
        ret = e == EEXIST ? vkfx_fail(VKFX_E_USAGE, "%s: exists, and --no-clobber keeps it",
                                      s->path)
                          : vkfx_fail(VKFX_E_IO, "%s: %s", s->path, strerror(e));
done:
    vkfx_safefile_abort(s);
    errno = e;
    return ret;
}

int vkfx_safefile_make_dirs(const char *dir)
{
    size_t len = strlen(dir);
    char *path = strdup(dir);
    if (!path)
        return vkfx_fail(VKFX_E_NOMEM, "out of host memory");
    int ret = VKFX_OK;
    /* Each prefix ending before a '/', then the whole: mkdir -p. */
    for (size_t i = 1; i <= len && ret == VKFX_OK; i++) {
        if (i < len && path[i] != '/')
            continue;
        char keep = path[i];
        path[i] = 0;
        struct stat st;
        if (mkdir(path, 0777) != 0 && errno != EEXIST)
            ret = vkfx_fail(VKFX_E_IO, "cannot create the folder %s: %s", path, strerror(errno));
        else if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
            ret = vkfx_fail(VKFX_E_IO, "cannot create the folder %s: a file of that name exists",
                            path);
        path[i] = keep;
    }
    free(path);
    return ret;
}

const char *vkfx_safefile_read_cache(const char *path, size_t max, unsigned char **data,
                                     size_t *size)
{
    *data = NULL;
    *size = 0;
    /* O_NONBLOCK: a FIFO would wait for a writer; O_NOFOLLOW: a link is not the cache. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return errno == ENOENT ? NULL : errno == ELOOP ? VKFX_CACHE_NOT_REGULAR : strerror(errno);
    struct stat st;
    const char *why = NULL;
    if (fstat(fd, &st) != 0)
        why = strerror(errno);
    else if (!S_ISREG(st.st_mode))
        why = VKFX_CACHE_NOT_REGULAR;
    else if ((uint64_t)st.st_size > max)
        why = "too large";
    else if (!(*data = malloc(st.st_size ? (size_t)st.st_size : 1)))
        why = "out of host memory";
    size_t got = 0;
    while (!why && got < (size_t)st.st_size) {
        ssize_t n = read(fd, *data + got, (size_t)st.st_size - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            why = n < 0 ? strerror(errno) : "shorter than its size";
        else
            got += (size_t)n;
    }
    close(fd);
    if (why) {
        free(*data);
        *data = NULL;
        got = 0;
    }
    *size = got;
    return why;
}

static int write_bytes(const char *path, bool cache, const void *data, size_t size)
{
    vkfx_safefile *s;
    int ret = open_target(path, cache, &s);
    if (ret < 0)
        return ret;
    if (size && fwrite(data, 1, size, vkfx_safefile_stream(s)) != size) {
        int e = errno;
        vkfx_safefile_abort(s);
        errno = e;
        return vkfx_fail(VKFX_E_IO, "%s: %s", path, strerror(e));
    }
    return vkfx_safefile_commit(s);
}

int vkfx_safefile_write(const char *path, const void *data, size_t size)
{
    return write_bytes(path, false, data, size);
}

/* The rename replaces whatever name is there by then, so a link or FIFO planted after the
 * check is replaced, never written through. */
int vkfx_safefile_write_cache(const char *path, const void *data, size_t size)
{
    return write_bytes(path, true, data, size);
}
