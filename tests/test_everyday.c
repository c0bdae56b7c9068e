/* The command line as a shell user meets it day to day (issue "The everyday command line"):
 * conversion without a chain, quiet runs, flattening alpha, vkfx info, help and version as
 * words, completions; the real binary run with argument vectors. */
#include <criterion/criterion.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common.h"
#include "error.h"
#include "fileio.h"
#include "meta.h"
#include "pixels.h"
#include "run_binary.h"

static void setup(void)
{
    cr_assert_eq(tc_tmpdir_make("everyday"), 0, "mkdtemp: %s", strerror(errno));
    setenv("XDG_CACHE_HOME", tc_tpath("cache"), 1);
}

TestSuite(everyday, .init = setup, .fini = tc_tmpdir_remove);

/* Runs in the test's directory, so that names are relative. */
#define HERE(r, ...)                                                                               \
    run_with((r), &(run_opts){.cwd = tc_tmpdir}, (const char *const[]){__VA_ARGS__, NULL})

static void write_text(const char *name, const char *text)
{
    cr_assert_eq(tc_spit_text(tc_tpath(name), text), 0, "write %s: %s", name, strerror(errno));
}

static bool exists(const char *name)
{
    struct stat st;
    return stat(tc_tpath(name), &st) == 0;
}

/* A little-endian EXIF block of one entry: Orientation = o. */
static const uint8_t exif_orientation_6[] = {
    'I', 'I', 42, 0, 8, 0, 0, 0, /* header, IFD0 at 8 */
    1, 0,                        /* one entry */
    0x12, 0x01, 3, 0, 1, 0, 0, 0, 6, 0, 0, 0, /* Orientation, SHORT, 1, 6 */
    0, 0, 0, 0,                               /* no next IFD */
};

/* A random w x h image of channels 8-bit samples saved at name with meta; px keeps the pixels. */
static void make_image(const char *name, vkfx_file_format fmt, uint32_t w, uint32_t h,
                       uint32_t channels, const vkfx_meta *meta, uint64_t seed, vkfx_pixels *px)
{
    vkfx_pixels tmp;
    tc_random_pixels(&tmp, w, h, channels, VKFX_SAMPLE_U8, seed);
    vkfx_save_opts o = {.meta = meta};
    cr_assert_eq(vkfx_file_save(tc_tpath(name), fmt, &tmp, &o), VKFX_OK, "%s",
                 vkfx_error_message());
    if (px)
        *px = tmp;
    else
        vkfx_pixels_free(&tmp);
}

/* ------------------------------------------------------------------------ */
/* Conversion: no -f decodes, turns upright and writes, keeping the metadata. */

Test(everyday, conversion_without_a_chain_turns_upright_and_keeps_metadata)
{
    vkfx_meta m = {0};
    m.exif.data = malloc(sizeof(exif_orientation_6) + 1);
    memcpy(m.exif.data, exif_orientation_6, sizeof(exif_orientation_6));
    m.exif.size = sizeof(exif_orientation_6);
    m.texts[0] = (vkfx_text){strdup("Title"), strdup("a test")};
    m.ntexts = 1;
    vkfx_pixels in;
    make_image("in.png", VKFX_FILE_PNG, 37, 23, 3, &m, 4501, &in);
    vkfx_meta_free(&m);

    cli_run r;
    HERE(&r, "in.png", "-o", "out.png");
    cr_assert_eq(r.status, 0, "%s: %s", r.cmd, r.err);
    vkfx_pixels out;
    vkfx_meta got = {0};
    cr_assert_eq(vkfx_file_load_meta(tc_tpath("out.png"), &out, &got), VKFX_OK, "%s",
                 vkfx_error_message());
    /* Orientation 6: the stored image turned a quarter clockwise. */
    cr_expect(out.width == 23 && out.height == 37, "%ux%u, not 23x37", out.width, out.height);
    const uint8_t *a = in.data, *b = out.data;
    int worst = 0;
    for (uint32_t y = 0; y < 37 && out.width == 23; y++)
        for (uint32_t x = 0; x < 23; x++)
            for (int c = 0; c < 3; c++) {
                int d = abs((int)b[(y * 23 + x) * 3 + c] - (int)a[((22 - x) * 37 + y) * 3 + c]);
                worst = d > worst ? d : worst;
            }
    cr_expect_eq(worst, 0, "the converted pixels differ from the input's by %d codes", worst);
    cr_expect(got.exif.data, "the EXIF block was dropped");
    cr_expect_eq(got.stored_orientation, 1, "the output says orientation %d",
                 got.stored_orientation);
    cr_expect(got.ntexts == 1 && strcmp(got.texts[0].text, "a test") == 0, "the text was dropped");
    vkfx_meta_free(&got);
    vkfx_pixels_free(&out);
    vkfx_pixels_free(&in);
    run_free(&r);

    HERE(&r, "in.png", "-o", "out.jpg");
    cr_expect_eq(r.status, 0, "%s: %s", r.cmd, r.err);
    vkfx_pixels jpg;
    cr_expect_eq(vkfx_file_load(tc_tpath("out.jpg"), &jpg), VKFX_OK, "%s", vkfx_error_message());
    cr_expect(jpg.width == 23 && jpg.height == 37, "JPEG %ux%u", jpg.width, jpg.height);
    vkfx_pixels_free(&jpg);
    run_free(&r);
}

Test(everyday, conversion_of_a_batch_and_of_a_job_file)
{
    make_image("a.png", VKFX_FILE_PNG, 9, 7, 4, NULL, 1, NULL);
    make_image("b.png", VKFX_FILE_PNG, 5, 11, 1, NULL, 2, NULL);
    cli_run r;
    HERE(&r, "a.png", "b.png", "-o", "conv/{stem}.tif");
    cr_expect_eq(r.status, 0, "%s: %s", r.cmd, r.err);
    cr_expect(exists("conv/a.tif") && exists("conv/b.tif"), "the batch wrote no TIFFs");
    run_free(&r);
    write_text("jobs.txt", "a.png -o a.webp --lossless\nb.png -o b.jpg\n");
    HERE(&r, "run", "jobs.txt");
    cr_expect_eq(r.status, 0, "%s: %s", r.cmd, r.err);
    cr_expect(exists("a.webp") && exists("b.jpg"), "the job file's conversions are missing");
    run_free(&r);
}
