/* The one writer of files (core/include/safefile.h) and the bounded reader: a
 * replaced file keeps its mode, owner and group; read-only files, folders
 * and (with no-clobber) existing files are refused; devices and FIFOs are
 * written straight through, never replaced; a long name still gets its
 * temporary; planted links are never followed; standard output needs no
 * file; a signal's clean-up removes every temporary. Reading stops past the
 * limit (an endless pipe), or after the first bytes of what is no image
 * (/dev/zero). And the chain lists the files its
 * options read and write. */
#include <criterion/criterion.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "chain.h"
#include "common.h"
#include "error.h"
#include "fileio.h"
#include "safefile.h"

static void setup(void)
{
    cr_assert_eq(tc_tmpdir_make("safefile"), 0);
}

static void teardown(void)
{
    tc_tmpdir_remove();
}

TestSuite(safefile, .init = setup, .fini = teardown);

static void spit(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    cr_assert(f && fputs(text, f) >= 0 && fclose(f) == 0, "%s", path);
}

static void expect_content(const char *path, const char *want)
{
    size_t n;
    char *got = tc_slurp(path, &n);
    cr_assert(got, "cannot read %s", path);
    cr_assert(n == strlen(want) && memcmp(got, want, n) == 0, "%s holds '%s', not '%s'", path, got,
              want);
    free(got);
}

Test(safefile, replacing_keeps_mode_owner_and_group)
{
    const char *p = tc_tpath("kept.txt");
    spit(p, "old");
    cr_assert_eq(chmod(p, 0640), 0);
    bool root = geteuid() == 0;
    if (root)
        cr_assert_eq(chown(p, 1234, 4321), 0);
    struct stat before, after;
    cr_assert_eq(stat(p, &before), 0);
    cr_assert_eq(vkfx_safefile_write(p, "new", 3), VKFX_OK, "%s", vkfx_error_message());
    cr_assert_eq(stat(p, &after), 0);
    expect_content(p, "new");
    cr_assert_neq(before.st_ino, after.st_ino, "written in place, not renamed");
    cr_assert_eq(after.st_mode & 07777, 0640, "mode %04o", (unsigned)(after.st_mode & 07777));
    cr_assert_eq(after.st_uid, before.st_uid);
    cr_assert_eq(after.st_gid, before.st_gid);
    char names[512];
    tc_list_dir(tc_tmpdir, true, names, sizeof(names));
    cr_assert_str_eq(names, "kept.txt");
}

Test(safefile, read_only_file_folder_and_no_clobber_refused)
{
    const char *p = tc_tpath("ro.txt");
    spit(p, "old");
    cr_assert_eq(chmod(p, 0444), 0);
    cr_assert_eq(vkfx_safefile_write(p, "new", 3), VKFX_E_USAGE);
    cr_assert(strstr(vkfx_error_message(), "read-only"), "%s", vkfx_error_message());
    expect_content(p, "old");

    cr_assert_eq(mkdir(tc_tpath("dir.png"), 0777), 0);
    cr_assert_eq(vkfx_safefile_write(tc_tpath("dir.png"), "x", 1), VKFX_E_USAGE);
    cr_assert(strstr(vkfx_error_message(), "directory"), "%s", vkfx_error_message());
    cr_assert_eq(vkfx_safefile_write(tc_tpath("nowhere/x.png"), "x", 1), VKFX_E_IO);

    spit(tc_tpath("rw.txt"), "old");
    vkfx_safefile_set_no_clobber(true);
    cr_assert_eq(vkfx_safefile_write(tc_tpath("rw.txt"), "new", 3), VKFX_E_USAGE);
    cr_assert(strstr(vkfx_error_message(), "--no-clobber"), "%s", vkfx_error_message());
    expect_content(tc_tpath("rw.txt"), "old");
    cr_assert_eq(vkfx_safefile_write(tc_tpath("fresh.txt"), "new", 3), VKFX_OK);
    vkfx_safefile_set_no_clobber(false);
    expect_content(tc_tpath("fresh.txt"), "new");
    char names[512];
    tc_list_dir(tc_tmpdir, true, names, sizeof(names));
    cr_assert_str_eq(names, "dir.png fresh.txt ro.txt rw.txt");
}

typedef struct reader {
    const char *path;
    char got[64];
} reader;

static void *read_fifo(void *arg)
{
    reader *r = arg;
    int fd = open(r->path, O_RDONLY);
    if (fd >= 0) {
        ssize_t n = read(fd, r->got, sizeof(r->got) - 1);
        r->got[n > 0 ? n : 0] = 0;
        close(fd);
    }
    return NULL;
}

Test(safefile, devices_and_fifos_written_through)
{
    const char *p = tc_tpath("pipe.json");
    cr_assert_eq(mkfifo(p, 0600), 0);
    reader r = {.path = p};
    pthread_t t;
    cr_assert_eq(pthread_create(&t, NULL, read_fifo, &r), 0);
    cr_assert_eq(vkfx_safefile_write(p, "through", 7), VKFX_OK, "%s", vkfx_error_message());
    pthread_join(t, NULL);
    cr_assert_str_eq(r.got, "through");
    struct stat st;
    cr_assert(stat(p, &st) == 0 && S_ISFIFO(st.st_mode), "the FIFO was replaced");
    char names[512];
    tc_list_dir(tc_tmpdir, true, names, sizeof(names));
    cr_assert_str_eq(names, "pipe.json");

    struct stat before, after;
    cr_assert_eq(stat("/dev/null", &before), 0);
    cr_assert_eq(vkfx_safefile_write("/dev/null", "gone", 4), VKFX_OK, "%s",
                 vkfx_error_message());
    cr_assert_eq(stat("/dev/null", &after), 0);
    cr_assert(S_ISCHR(after.st_mode) && after.st_rdev == before.st_rdev &&
                  after.st_ino == before.st_ino,
              "/dev/null was replaced");
}

Test(safefile, a_name_at_the_limit_gets_its_temporary)
{
    char name[256];
    memset(name, 'n', 246);
    strcpy(name + 246, ".json");
    const char *p = tc_tpath(name);
    cr_assert_eq(vkfx_safefile_write(p, "long", 4), VKFX_OK, "%s", vkfx_error_message());
    expect_content(p, "long");
    char names[1024];
    tc_list_dir(tc_tmpdir, true, names, sizeof(names));
    cr_assert_str_eq(names, name);
}

/* The old writers used FILE.<pid>.tmp: a link planted there (or anywhere a
 * name could be guessed) must never be written through. */
Test(safefile, planted_links_are_not_followed)
{
    const char *victim = tc_tpath("victim");
    spit(victim, "precious");
    char link[600];
    snprintf(link, sizeof(link), "%s.%ld.tmp", tc_tpath("h.json"), (long)getpid());
    cr_assert_eq(symlink(victim, link), 0);
    cr_assert_eq(vkfx_safefile_write(tc_tpath("h.json"), "{}", 2), VKFX_OK);
    expect_content(victim, "precious");
    expect_content(tc_tpath("h.json"), "{}");
}

Test(safefile, standard_output_needs_no_file)
{
    setenv("TMPDIR", tc_tmpdir, 1);
    int fds[2];
    cr_assert_eq(pipe(fds), 0);
    vkfx_safefile *s;
    cr_assert_eq(vkfx_safefile_open_fd(fds[1], "standard output", &s), VKFX_OK);
    fputs("bytes", vkfx_safefile_stream(s));
    char names[512];
    tc_list_dir(tc_tmpdir, true, names, sizeof(names));
    cr_assert_str_eq(names, "", "a file while writing: %s", names);
    cr_assert_eq(vkfx_safefile_commit(s), VKFX_OK, "%s", vkfx_error_message());
    char got[16] = {0};
    cr_assert_eq(read(fds[0], got, sizeof(got) - 1), 5);
    cr_assert_str_eq(got, "bytes");
    /* A reader that went away: an error with errno EPIPE, not a signal. */
    close(fds[0]);
    signal(SIGPIPE, SIG_IGN);
    cr_assert_eq(vkfx_safefile_open_fd(fds[1], "standard output", &s), VKFX_OK);
    fputs("more", vkfx_safefile_stream(s));
    cr_assert_eq(vkfx_safefile_commit(s), VKFX_E_IO);
    cr_assert_eq(errno, EPIPE);
    close(fds[1]);
    unsetenv("TMPDIR");
}

Test(safefile, remove_all_leaves_no_temporary)
{
    vkfx_safefile *a, *b;
    cr_assert_eq(vkfx_safefile_open(tc_tpath("a.png"), &a), VKFX_OK);
    cr_assert_eq(vkfx_safefile_open(tc_tpath("b.png"), &b), VKFX_OK);
    fputs("partial", vkfx_safefile_stream(a));
    fflush(vkfx_safefile_stream(a));
    char names[512];
    tc_list_dir(tc_tmpdir, true, names, sizeof(names));
    cr_assert(strstr(names, ".a.png.vkfx-") && strstr(names, ".b.png.vkfx-"), "%s", names);
    vkfx_safefile_remove_all();
    tc_list_dir(tc_tmpdir, true, names, sizeof(names));
    cr_assert_str_eq(names, "");
    /* The process is about to exit: nothing else may be written (the lock
     * is kept), so the test ends here without committing. */
}

Test(safefile, reading_stops_past_the_limit)
{
    vkfx_file_set_max_pixels(1000);
    vkfx_pixels px;
    double t0 = tc_seconds();
    /* An endless stream that is no image fails on its first bytes. */
    cr_assert_eq(vkfx_file_load("/dev/zero", &px), VKFX_E_FORMAT, "%s", vkfx_error_message());
    cr_assert(strstr(vkfx_error_message(), "/dev/zero: not a format vkfx reads"), "%s",
              vkfx_error_message());
    /* A regular file longer than the bound is refused from its size. */
    FILE *f = fopen(tc_tpath("big.png"), "wb");
    cr_assert(f);
    cr_assert_eq(ftruncate(fileno(f), (off_t)vkfx_file_max_bytes() + 1), 0);
    fclose(f);
    cr_assert_eq(vkfx_file_load(tc_tpath("big.png"), &px), VKFX_E_LIMIT);
    cr_assert(tc_seconds() - t0 < 2.0, "took %.2f s", tc_seconds() - t0);
    vkfx_file_set_max_pixels(0);
}

static void *write_forever(void *arg)
{
    int fd = *(int *)arg;
    char zeros[4096] = {0};
    /* a PNG's signature, so that it is read on past its first bytes */
    if (write(fd, "\x89PNG\r\n\x1a\n", 8) == 8)
        while (write(fd, zeros, sizeof(zeros)) > 0)
            ;
    close(fd);
    return NULL;
}

Test(safefile, an_endless_pipe_is_cut_off)
{
    signal(SIGPIPE, SIG_IGN);
    vkfx_file_set_max_pixels(4096);
    int fds[2];
    cr_assert_eq(pipe(fds), 0);
    pthread_t t;
    cr_assert_eq(pthread_create(&t, NULL, write_forever, &fds[1]), 0);
    vkfx_pixels px;
    cr_assert_eq(vkfx_file_load_fd(fds[0], "standard input", &px), VKFX_E_LIMIT, "%s",
                 vkfx_error_message());
    cr_assert(strstr(vkfx_error_message(), "not read further"), "%s", vkfx_error_message());
    close(fds[0]);
    pthread_join(t, NULL);
    vkfx_file_set_max_pixels(0);
}

typedef struct listed {
    char text[512];
} listed;

static int list_path(void *user, const vkfx_filter *f, const vkfx_option *o, const char *value)
{
    listed *l = user;
    snprintf(l->text + strlen(l->text), sizeof(l->text) - strlen(l->text), "%s:%s=%s(%s) ",
             f->name, o->name, value, o->writes ? "w" : "r");
    return VKFX_OK;
}

/* The files a chain names, with whether it writes them, from the filters'
 * option tables. */
Test(safefile, chain_lists_the_files_it_reads_and_writes)
{
    vkfx_chain *c;
    cr_assert_eq(vkfx_chain_parse("histogram:out=h.json:plot=p.png,satdof:depth=d.exr#Z,"
                                  "satblur:map=m.png",
                                  &c),
                 VKFX_OK, "%s", vkfx_error_message());
    listed l = {""};
    cr_assert_eq(vkfx_chain_paths(c, list_path, &l), VKFX_OK);
    cr_assert_str_eq(l.text, "histogram:out=h.json(w) histogram:plot=p.png(w) "
                             "satdof:depth=d.exr#Z(r) satblur:map=m.png(r) ");
    vkfx_chain_free(c);
    char *file;
    const char *channel;
    cr_assert_eq(vkfx_file_map_split("d.exr#Z", &file, &channel), VKFX_OK);
    cr_assert(!strcmp(file, "d.exr") && !strcmp(channel, "Z"));
    free(file);
    cr_assert_eq(vkfx_file_map_split("a#b.png", &file, &channel), VKFX_OK);
    cr_assert(!strcmp(file, "a#b.png") && !channel);
    free(file);
}
