/* The one way vkfx writes a file (images, side outputs, reports, the
 * pipeline cache): a regular file is written to a temporary created
 * exclusively beside it, flushed to disk and renamed over it, keeping the
 * permissions (and, where allowed, owner and group) of the file it replaces;
 * a character device or FIFO is written straight through, as a shell's '>'
 * would (a seekable device such as /dev/null as the encoder goes, others
 * whole at commit); standard output gets the bytes without any file on disk. */
#ifndef VKFX_SAFEFILE_H
#define VKFX_SAFEFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef struct vkfx_safefile vkfx_safefile;

/* What vkfx_safefile_open will do with a path, without writing anything. */
typedef enum vkfx_target_kind {
    VKFX_TARGET_NEW,     /* no file yet: a temporary renamed into place */
    VKFX_TARGET_REPLACE, /* a regular file: replaced the same way */
    VKFX_TARGET_THROUGH, /* a character device or FIFO: written straight through */
} vkfx_target_kind;

/* Process-wide, set before writing starts. fsync: flush each file to disk
 * before its rename (default on). no_clobber: never replace an existing
 * file (default off). */
void vkfx_safefile_set_fsync(bool on);
void vkfx_safefile_set_no_clobber(bool on);

/* Classifies path: a directory, a block device or a socket is VKFX_E_USAGE,
 * and so is an existing regular file under no_clobber or one nobody may
 * write (no write bit), and an existing file this user could not open for
 * writing (another user's), and a file whose folder this user cannot write in; a folder that
 * does not exist is VKFX_E_IO. */
int vkfx_safefile_target(const char *path, vkfx_target_kind *kind);

/* VKFX_E_USAGE naming the folder unless this user may create a file in path's folder or,
 * where that is still to be made, in the nearest folder above it that exists: a read-only or
 * another user's folder is found before any work, not when the first output is written. */
int vkfx_safefile_check_folder(const char *path);

/* Starts writing path (see vkfx_safefile_target for what is refused). */
int vkfx_safefile_open(const char *path, vkfx_safefile **out);
/* Starts writing to an open descriptor (standard output): the bytes go to
 * memory and reach fd in vkfx_safefile_commit; name is for messages. */
int vkfx_safefile_open_fd(int fd, const char *name, vkfx_safefile **out);
/* The stream to write to; its descriptor is seekable (encoders that write
 * at offsets may use fileno()). */
FILE *vkfx_safefile_stream(vkfx_safefile *s);
/* Flushes, syncs and puts the file in place; frees s, also on failure
 * (then nothing is left behind). On VKFX_E_IO errno holds the cause
 * (EPIPE: the reader of a pipe went away). */
int vkfx_safefile_commit(vkfx_safefile *s);
/* Drops what was written and the temporary; NULL is ignored. */
void vkfx_safefile_abort(vkfx_safefile *s);

/* size bytes of data written to path through the steps above. */
int vkfx_safefile_write(const char *path, const void *data, size_t size);

/* Caches (the pipeline cache, the half-rounding answer) are vkfx's own files, only ever regular
 * files: anything else at their path (a symbolic link, FIFO, device or folder someone put
 * there) is neither followed, read, waited on nor written. */
/* The bytes of the cache file at path, at most max, in *data (malloc'd); NULL, or why it was
 * not read (then *data is NULL). No file at all is no reason (*data NULL: a first run); a
 * path that is not a regular file is VKFX_CACHE_NOT_REGULAR. */
extern const char VKFX_CACHE_NOT_REGULAR[];
const char *vkfx_safefile_read_cache(const char *path, size_t max, unsigned char **data,
                                     size_t *size);
/* vkfx_safefile_write for a cache: a path that holds anything but a regular file is refused
 * (VKFX_E_USAGE) and left as it is. */
int vkfx_safefile_write_cache(const char *path, const void *data, size_t size);

/* Creates dir and the folders above it that are missing (mkdir -p). */
int vkfx_safefile_make_dirs(const char *dir);

/* Removes every temporary being written and keeps any other from being
 * created or renamed from now on: for a process about to end on a signal. */
void vkfx_safefile_remove_all(void);

#endif
