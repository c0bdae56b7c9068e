/* Replays the fuzz harnesses' seed corpora and every input that ever made a
 * harness fail (tests/fuzz/corpus/<harness>/, tests/fuzz/regressions/<harness>/)
 * through the same target bodies (tests/fuzz/targets.c), in the normal suite
 * and so also under ASan+UBSan in CI. A target aborts on a broken contract;
 * the file being replayed is named on stderr when that happens. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "codec.h"
#include "fileio.h"
#include "fuzz/targets.h"

static char current[1024];

static void name_current(int sig)
{
    (void)sig;
    static const char what[] = "\nfuzz corpus: failed on ";
    if (write(2, what, sizeof(what) - 1) < 0 || write(2, current, strlen(current)) < 0 ||
        write(2, "\n", 1) < 0)
        _exit(1);
    signal(SIGABRT, SIG_DFL);
    raise(SIGABRT);
}

static uint8_t *read_all(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    cr_assert(f, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc(n > 0 ? (size_t)n : 1);
    cr_assert(buf && fread(buf, 1, (size_t)n, f) == (size_t)n, "cannot read %s", path);
    fclose(f);
    *size = (size_t)n;
    return buf;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Runs target on every file of dir (sorted); returns how many there were. */
static int replay(const char *dir, int (*target)(const uint8_t *, size_t))
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    char *names[4096];
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < 4096)
        if (e->d_name[0] != '.' && strcmp(e->d_name, "README.md") != 0)
            names[n++] = strdup(e->d_name);
    closedir(d);
    qsort(names, (size_t)n, sizeof(*names), cmp_names);
    signal(SIGABRT, name_current);
    for (int i = 0; i < n; i++) {
        snprintf(current, sizeof(current), "%s/%s", dir, names[i]);
        size_t size;
        uint8_t *buf = read_all(current, &size);
        cr_assert_eq(target(buf, size), 0, "%s", current);
        free(buf);
        free(names[i]);
    }
    signal(SIGABRT, SIG_DFL);
    return n;
}

static void replay_harness(const char *name, int (*target)(const uint8_t *, size_t))
{
    char dir[512];
    snprintf(dir, sizeof(dir), "%s/tests/fuzz/corpus/%s", VKFX_SOURCE_ROOT, name);
    int seeds = replay(dir, target);
    cr_assert_gt(seeds, 0, "no seed corpus at %s", dir);
    snprintf(dir, sizeof(dir), "%s/tests/fuzz/regressions/%s", VKFX_SOURCE_ROOT, name);
    replay(dir, target);
}

Test(fuzz_corpus, chain)
{
    replay_harness("chain", vkfx_fuzz_chain);
}

Test(fuzz_corpus, decode)
{
    replay_harness("decode", vkfx_fuzz_decode);
}

Test(fuzz_corpus, jpeg)
{
    replay_harness("jpeg", vkfx_fuzz_jpeg);
}

Test(fuzz_corpus, tiff)
{
    replay_harness("tiff", vkfx_fuzz_tiff);
}

Test(fuzz_corpus, webp)
{
    replay_harness("webp", vkfx_fuzz_webp);
}

Test(fuzz_corpus, exif)
{
    replay_harness("exif", vkfx_fuzz_exif);
}

Test(fuzz_corpus, icc)
{
    replay_harness("icc", vkfx_fuzz_icc);
}

/* Every codec of the table has seeds that fuzz_decode recognises as its
 * format and decodes, so the fuzzer starts inside every decoder. */
Test(fuzz_corpus, every_decoder_seeded)
{
    char dir[512], path[1024];
    snprintf(dir, sizeof(dir), "%s/tests/fuzz/corpus/decode", VKFX_SOURCE_ROOT);
    size_t ncodecs = 0;
    while (vkfx_codecs[ncodecs])
        ncodecs++;
    int decoded[16] = {0};
    cr_assert_leq(ncodecs, 16);
    DIR *d = opendir(dir);
    cr_assert(d, "no seed corpus at %s", dir);
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        size_t size;
        uint8_t *buf = read_all(path, &size);
        const vkfx_codec *c = vkfx_codec_sniff(buf, size);
        vkfx_pixels px = {0};
        if (c && vkfx_file_load_memory(buf, size, path, &px) == 0)
            for (size_t i = 0; i < ncodecs; i++)
                decoded[i] += vkfx_codecs[i] == c;
        vkfx_pixels_free(&px);
        free(buf);
    }
    closedir(d);
    for (size_t i = 0; i < ncodecs; i++)
        cr_expect_gt(decoded[i], 0, "no seed of %s decodes in %s", vkfx_codecs[i]->name, dir);
}
