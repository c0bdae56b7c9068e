/* Loaded into vkfx with LD_PRELOAD by tests/test_files.c: appends a line to
 * the file $VKFX_SYNC_TRACE for every fsync ("fsync PATH", the path of the
 * file synced), every rename ("rename FROM") and every memory file
 * ("memfd NAME"), then does the call, so the test sees whether each file was
 * on disk before it was renamed into place, and what was written through
 * memory first. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int fsync(int fd);
int rename(const char *from, const char *to);
int renameat2(int fromdir, const char *from, int todir, const char *to, unsigned int flags);
int memfd_create(const char *name, unsigned int flags);

static void trace(const char *what, const char *path)
{
    const char *log = getenv("VKFX_SYNC_TRACE");
    int fd = log ? open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600) : -1;
    if (fd >= 0) {
        dprintf(fd, "%s %s\n", what, path);
        close(fd);
    }
}

static void *next(const char *name)
{
    void *f = dlsym(RTLD_NEXT, name);
    if (!f)
        abort();
    return f;
}

int fsync(int fd)
{
    char link[64], path[PATH_MAX];
    snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, path, sizeof(path) - 1);
    path[n > 0 ? n : 0] = 0;
    trace("fsync", path);
    return ((int (*)(int))next("fsync"))(fd);
}

int rename(const char *from, const char *to)
{
    trace("rename", from);
    return ((int (*)(const char *, const char *))next("rename"))(from, to);
}

int renameat2(int fromdir, const char *from, int todir, const char *to, unsigned int flags)
{
    trace("rename", from);
    return ((int (*)(int, const char *, int, const char *, unsigned int))next("renameat2"))(
        fromdir, from, todir, to, flags);
}

int memfd_create(const char *name, unsigned int flags)
{
    trace("memfd", name);
    return ((int (*)(const char *, unsigned int))next("memfd_create"))(name, flags);
}
