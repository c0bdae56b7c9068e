/* JPEG inputs decoded on the device through the command line (--jpeg-codec gpu): the same
 * output bytes as libjpeg-turbo's path (--jpeg-codec cpu) for every JPEG in the repository,
 * with their metadata and profiles; the files the device does not cover (progressive,
 * arithmetic, CMYK, an orientation to turn, damaged streams) go to libjpeg-turbo without a
 * word; a thumbnail is the full decode resized. */
#include <criterion/criterion.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "run_binary.h"

static void setup(void)
{
    cr_assert_eq(tc_tmpdir_make("jpegread"), 0);
}

TestSuite(jpegread, .init = setup, .fini = tc_tmpdir_remove);

static void same_files(const char *a, const char *b)
{
    char why[600];
    cr_assert(tc_same_files(a, b, why, sizeof(why)), "%s", why);
}

/* vkfx INPUT -f chain -o NAME.gpu.EXT / NAME.cpu.EXT with each codec (and extra, NULL-ended):
 * the same exit status, messages and bytes; device (1 or 0; -1: either) says whether the
 * device decoded the input under gpu (its passes in --timings), and libjpeg-turbo's path never
 * does. */
static void both(const char *input, const char *chain, const char *ext, int device,
                 const char *const *extra)
{
    const char *codecs[] = {"gpu", "cpu"};
    char outs[2][256], in[256];
    int status[2];
    snprintf(in, sizeof(in), "%s", input); /* input may be tc_tpath's, which the next call reuses */
    input = in;
    static char errs[2][8192];
    for (int k = 0; k < 2; k++) {
        snprintf(outs[k], sizeof(outs[k]), "%s.%s.%s", tc_tpath("out"), codecs[k], ext);
        const char *args[24] = {input,   "-f",           chain,     "-o",
                                outs[k], "--jpeg-codec", codecs[k], "--timings"};
        size_t n = 8;
        for (size_t i = 0; extra && extra[i]; i++)
            args[n++] = extra[i];
        args[n] = NULL;
        cli_run r;
        run_with(&r, NULL, args);
        bool decoded = strstr(r.err, "jpeg.entropy") != NULL;
        cr_assert(device < 0 ? !decoded || k == 0 : decoded == (k == 0 && device),
                  "%s: the device %s the input: %s", r.cmd, decoded ? "decoded" : "did not decode",
                  r.err);
        status[k] = r.status;
        /* the messages but for --timings' lines */
        errs[k][0] = 0;
        for (char *line = strtok(r.err, "\n"); line; line = strtok(NULL, "\n"))
            if (!strstr(line, " ms") && strncmp(line, "vkfx:   ", 8) != 0 &&
                strlen(errs[k]) + strlen(line) + 2 < sizeof(errs[k])) {
                strcat(errs[k], line);
                strcat(errs[k], "\n");
            }
        run_free(&r);
    }
    cr_assert_eq(status[0], status[1], "%s: exit %d with the device, %d without", input, status[0],
                 status[1]);
    cr_assert_str_eq(errs[0], errs[1], "%s: the messages differ", input);
    if (status[0] == 0)
        same_files(outs[0], outs[1]);
    for (int k = 0; k < 2; k++)
        remove(outs[k]);
}

static void run_tool(const char *cmd)
{
    cr_assert_eq(system(cmd), 0, "%s", cmd);
}

/* Every JPEG of the repository, to PNG and to JPEG (metadata kept), through a filter. */
Test(jpegread, repository_jpegs, .timeout = 600)
{
    const char *dirs[] = {VKFX_TEST_IMAGES, VKFX_SOURCE_ROOT "/tests/data/jpeg"};
    size_t count = 0;
    for (int d = 0; d < 2; d++) {
        DIR *dir = opendir(dirs[d]);
        cr_assert(dir, "%s", dirs[d]);
        struct dirent *e;
        while ((e = readdir(dir))) {
            size_t len = strlen(e->d_name);
            if (len < 5 || strcmp(e->d_name + len - 4, ".jpg") != 0)
                continue;
            char path[512];
            snprintf(path, sizeof(path), "%s/%s", dirs[d], e->d_name);
            both(path, "gauss:sigma=2", "png", true, NULL);
            both(path, "unsharp", "jpg", true, NULL);
            count++;
        }
        closedir(dir);
    }
    cr_assert_geq(count, 12, "only %zu JPEGs found", count);
}

/* An ICC profile and EXIF, carried to the output and used for the colour, as without the
 * device; --to-srgb's conversion on the host stays with libjpeg-turbo's pixels. */
Test(jpegread, profile_and_exif)
{
    char cmd[1024];
    const char *in = tc_tpath("profiled.jpg");
    snprintf(cmd, sizeof(cmd),
             "convert '%s/tests/data/jpeg/pillow_420_q75.jpg' -set comment hello "
             "-profile '%s/tests/data/compatibleWithAdobeRGB1998.icc' '%s'",
             VKFX_SOURCE_ROOT, VKFX_SOURCE_ROOT, in);
    run_tool(cmd);
    both(in, "gauss:sigma=1", "png", true, NULL);
    both(in, "gauss:sigma=1", "jpg", true, NULL);
    both(in, "gauss:sigma=1", "tif", true, (const char *const[]){"--no-linearize", NULL});
    both(in, "gauss:sigma=1", "png", false, (const char *const[]){"--to-srgb", NULL});
}

/* What the device does not decode goes to libjpeg-turbo, without a word. */
Test(jpegread, fallbacks)
{
    const char *src = VKFX_SOURCE_ROOT "/tests/data/jpeg/pillow_444_q95.jpg";
    const struct {
        const char *name, *make;
    } files[] = {
        {"progressive.jpg", "jpegtran -progressive '%s' > '%s'"},
        {"arithmetic.jpg", "jpegtran -arithmetic '%s' > '%s'"},
        {"cmyk.jpg", "convert '%s' -colorspace CMYK '%s'"},
    };
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        char make[512];
        snprintf(make, sizeof(make), files[i].make, src, tc_tpath(files[i].name));
        run_tool(make);
        both(tc_tpath(files[i].name), "gauss:sigma=1", "png", false, NULL);
    }
    /* EXIF orientation 6: the pixels are turned on the host */
    const char *turned = tc_tpath("turned.jpg");
    size_t n = 0;
    unsigned char *data = (unsigned char *)tc_slurp(src, &n);
    cr_assert(data && n > 2);
    /* APP1 "Exif\0\0", a big-endian TIFF header and one IFD entry: Orientation (0x112),
     * SHORT, 1, 6 */
    static const unsigned char app1[] = {0xFF, 0xE1, 0x00, 0x22, 'E',  'x',  'i',  'f',  0,
                                         0,    'M',  'M',  0x00, 0x2A, 0x00, 0x00, 0x00, 0x08,
                                         0x00, 0x01, 0x01, 0x12, 0x00, 0x03, 0x00, 0x00, 0x00,
                                         0x01, 0x00, 0x06, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
    FILE *f = fopen(turned, "wb");
    cr_assert(f && fwrite(data, 1, 2, f) == 2 && fwrite(app1, 1, sizeof(app1), f) == sizeof(app1) &&
              fwrite(data + 2, 1, n - 2, f) == n - 2 && fclose(f) == 0);
    free(data);
    both(turned, "gauss:sigma=1", "png", false, NULL);
    /* --jpeg-codec cpu with the device's default */
    both(src, "gauss:sigma=1", "png", true, (const char *const[]){"-q", "80", NULL});
}

/* Damaged entropy-coded data: whatever the device makes of it, the file ends as libjpeg-turbo
 * has it (its error and warnings, or its pixels). */
Test(jpegread, damaged_streams)
{
    const char *src = VKFX_SOURCE_ROOT "/tests/data/jpeg/pillow_444_q95.jpg";
    size_t n = 0;
    unsigned char *data = (unsigned char *)tc_slurp(src, &n);
    cr_assert(data && n > 2000);
    /* where the scan starts: after the SOS marker's header */
    size_t sos = 0;
    for (size_t i = 0; i + 1 < n && !sos; i++)
        if (data[i] == 0xFF && data[i + 1] == 0xDA)
            sos = i + 2 + ((size_t)data[i + 2] << 8 | data[i + 3]);
    cr_assert(sos && sos + 600 < n);
    const size_t at[] = {sos + 5, sos + 300, n - 200};
    const unsigned char with[] = {0x00, 0xFF, 0x5A};
    for (size_t k = 0; k < 3; k++) {
        unsigned char *bad = malloc(n);
        memcpy(bad, data, n);
        for (size_t i = 0; i < 40; i++)
            if (bad[at[k] + i] != 0xFF && (at[k] + i == 0 || bad[at[k] + i - 1] != 0xFF))
                bad[at[k] + i] = (unsigned char)(with[k] ^ (i * 37));
        char name[32];
        snprintf(name, sizeof(name), "damaged%zu.jpg", k);
        FILE *f = fopen(tc_tpath(name), "wb");
        cr_assert(f && fwrite(bad, 1, n, f) == n && fclose(f) == 0);
        free(bad);
        char path[256];
        snprintf(path, sizeof(path), "%s", tc_tpath(name));
        both(path, "gauss:sigma=1", "png", -1, NULL);
    }
    free(data);
}

/* A thumbnail from the device's full decode is the full decode resized: libjpeg-turbo's
 * without shrink-on-load, not its scaled decode; so is auto's (libjpeg-turbo's full decode on a
 * software device), the same bytes on every device. */
Test(jpegread, thumbnails)
{
    const char *src = VKFX_TEST_IMAGES "/rocket.jpg";
    char gpu[256], full[256], scaled[256], autop[256];
    snprintf(autop, sizeof(autop), "%s", tc_tpath("thumb-auto.png"));
    snprintf(gpu, sizeof(gpu), "%s", tc_tpath("thumb-gpu.png"));
    snprintf(full, sizeof(full), "%s", tc_tpath("thumb-full.png"));
    snprintf(scaled, sizeof(scaled), "%s", tc_tpath("thumb-scaled.png"));
    cli_run r;
    VKFX(&r, src, "-f", "resize:width=96", "-o", gpu, "--jpeg-codec", "gpu", "--timings");
    cr_assert_eq(r.status, 0, "%s: %s", r.cmd, r.err);
    cr_assert(strstr(r.err, "jpeg.entropy"), "%s: the device did not decode", r.cmd);
    run_free(&r);
    VKFX(&r, src, "-f", "resize:width=96", "-o", full, "--jpeg-codec", "cpu",
         "--no-shrink-on-load");
    cr_assert_eq(r.status, 0, "%s: %s", r.cmd, r.err);
    run_free(&r);
    same_files(gpu, full);
    VKFX(&r, src, "-f", "resize:width=96", "-o", autop, "--jpeg-codec", "auto");
    cr_assert_eq(r.status, 0, "%s: %s", r.cmd, r.err);
    run_free(&r);
    same_files(autop, full);
    /* the CPU's scaled decode stays for --jpeg-codec cpu, and differs */
    VKFX(&r, src, "-f", "resize:width=96", "-o", scaled, "--jpeg-codec", "cpu");
    cr_assert_eq(r.status, 0, "%s: %s", r.cmd, r.err);
    run_free(&r);
    size_t na = 0, nb = 0;
    char *x = tc_slurp(gpu, &na), *y = tc_slurp(scaled, &nb);
    cr_assert(x && y && (na != nb || memcmp(x, y, na) != 0),
              "the scaled decode gave the full decode's thumbnail: shrink-on-load not taken");
    free(x);
    free(y);
}

/* vkfx bench --decode: the device's passes and libjpeg-turbo's time, what the synchronisation
 * took in the sizes asked for, and the bytes unlike libjpeg-turbo's (none); a file the device
 * does not decode, and sizes out of range, are usage errors naming them. */
Test(jpegread, bench_decode)
{
    cli_run r;
    VKFX(&r, "bench", "--decode", VKFX_SOURCE_ROOT "/tests/data/jpeg/pillow_444_q95.jpg", "--reps",
         "2", "--json");
    cr_assert_eq(r.status, 0, "%s: %s", r.cmd, r.err);
    cr_assert(strstr(r.out, "\"jpeg.entropy\": ") && strstr(r.out, "\"jpeg.color\": ") &&
                  strstr(r.out, "\"host_ms\": ") && strstr(r.out, "\"jpeg.settle_turns\": ") &&
                  strstr(r.out, "\"bytes_unlike_libjpeg_turbo\": 0}"),
              "%s", r.out);
    run_free(&r);
    /* 3987 bytes in subsequences of 100 bits, three to a sequence. */
    VKFX(&r, "bench", "--decode", VKFX_SOURCE_ROOT "/tests/data/jpeg/pillow_444_q95.jpg", "--reps",
         "1", "--sub-bits", "100", "--lanes", "3");
    cr_assert_eq(r.status, 0, "%s: %s", r.cmd, r.err);
    cr_assert(strstr(r.out, "jpeg.sequences") && strstr(r.out, "bytes_unlike_libjpeg_turbo "), "%s",
              r.out);
    run_free(&r);
    VKFX(&r, "bench", "--decode", VKFX_SOURCE_ROOT "/tests/data/jpeg/pillow_444_q95.jpg", "--lanes",
         "257");
    cr_assert_eq(r.status, 2, "%s: %s", r.cmd, r.err);
    cr_assert(strstr(r.err, "--lanes '257' must be 1..256"), "%s", r.err);
    run_free(&r);
    VKFX(&r, "bench", "--decode", VKFX_TEST_IMAGES "/chelsea.png");
    cr_assert_eq(r.status, 2, "%s: %s", r.cmd, r.err);
    cr_assert(strstr(r.err, "chelsea.png: not a JPEG the device decodes"), "%s", r.err);
    run_free(&r);
    VKFX(&r, "bench", "--decode", VKFX_TEST_IMAGES "/rocket.jpg", "sobel");
    cr_assert_eq(r.status, 2, "%s: %s", r.cmd, r.err);
    run_free(&r);
}

/* vkfx run: --jpeg-codec, given to the run, sends its jobs' JPEG inputs to the device. */
Test(jpegread, job_file)
{
    const char *codecs[] = {"gpu", "cpu"};
    char outs[2][256];
    for (int k = 0; k < 2; k++) {
        snprintf(outs[k], sizeof(outs[k]), "%s.%s.png", tc_tpath("job"), codecs[k]);
        char jobs[256];
        snprintf(jobs, sizeof(jobs), "%s", tc_tpath("jobs.txt"));
        FILE *f = fopen(jobs, "w");
        cr_assert(f);
        fprintf(f, "'%s/tests/data/jpeg/magick_420_q40.jpg' -f 'gauss:sigma=1' -o '%s'\n",
                VKFX_SOURCE_ROOT, outs[k]);
        cr_assert_eq(fclose(f), 0);
        cli_run r;
        VKFX(&r, "run", "--jpeg-codec", codecs[k], "--timings", jobs);
        cr_assert_eq(r.status, 0, "%s: %s", r.cmd, r.err);
        cr_assert_eq(strstr(r.err, "jpeg.entropy") != NULL, k == 0, "%s: %s", r.cmd, r.err);
        run_free(&r);
    }
    same_files(outs[0], outs[1]);
}

/* A run in tiles takes libjpeg-turbo's pixels: the device decodes whole images only. */
Test(jpegread, tiles)
{
    cr_assert_eq(setenv("VKFX_TILE", "200", 1), 0);
    both(VKFX_TEST_IMAGES "/rocket.jpg", "gauss:sigma=2", "png", false, NULL);
}
