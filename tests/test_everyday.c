/* The command line as a shell user meets it day to day (issue "The everyday command line"):
 * conversion without a chain, quiet runs, flattening alpha, vkfx info, help and version as
 * words, completions; the real binary run with argument vectors. */
#include <criterion/criterion.h>

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pty.h>
#include <pwd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

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
    'I',  'I',  42, 0, 8, 0, 0, 0,             /* header, IFD0 at 8 */
    1,    0,                                   /* one entry */
    0x12, 0x01, 3,  0, 1, 0, 0, 0, 6, 0, 0, 0, /* Orientation, SHORT, 1, 6 */
    0,    0,    0,  0,                         /* no next IFD */
};

/* m's EXIF block: a copy of the size bytes at exif. */
static void put_exif(vkfx_meta *m, const uint8_t *exif, size_t size)
{
    m->exif.data = malloc(size + 1);
    cr_assert(m->exif.data);
    memcpy(m->exif.data, exif, size);
    m->exif.size = size;
}

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
    put_exif(&m, exif_orientation_6, sizeof(exif_orientation_6));
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

/* ------------------------------------------------------------------------ */
/* Notes: each kind once a run, how often it came again at the end; none under --quiet. */

/* A PNG with a text chunk, which JPEG cannot hold. */
static void make_png_with_text(const char *name, uint64_t seed)
{
    vkfx_meta m = {0};
    m.texts[0] = (vkfx_text){strdup("date:create"), strdup("2026-01-01")};
    m.ntexts = 1;
    make_image(name, VKFX_FILE_PNG, 8, 6, 3, &m, seed, NULL);
    vkfx_meta_free(&m);
}

/* A TIFF of two pages, of which vkfx reads the first and says so. */
static void make_two_page_tiff(const char *name)
{
    vkfx_pixels px;
    tc_random_pixels(&px, 6, 4, 3, VKFX_SAMPLE_U8, 45);
    cr_assert_eq(tc_write_pages_tiff(tc_tpath(name), &px, 2), 0, "cannot write %s", name);
    vkfx_pixels_free(&px);
}

static size_t count(const char *text, const char *what)
{
    size_t n = 0;
    for (const char *p = text; (p = strstr(p, what)); p += strlen(what))
        n++;
    return n;
}

Test(everyday, a_note_is_shown_once_a_run_with_its_count_at_the_end)
{
    make_png_with_text("a.png", 1);
    make_png_with_text("b.png", 2);
    make_png_with_text("c.png", 3);
    make_two_page_tiff("p.tif");
    make_two_page_tiff("q.tif");
    cli_run r;
    HERE(&r, "-j", "1", "a.png", "b.png", "c.png", "p.tif", "q.tif", "-o", "out/{stem}.jpg");
    cr_assert_eq(r.status, 0, "%s: %s", r.cmd, r.err);
    cr_expect_eq(count(r.err, "JPEG cannot hold text chunks of"), 1, "stderr:\n%s", r.err);
    cr_expect(strstr(r.err, "vkfx: note: 2 more times: metadata left out of an output\n"),
              "no count of the notes left out: %s", r.err);
    cr_expect_eq(count(r.err, "a TIFF of 2 pages; only the first is read"), 2,
                 "the first TIFF's note and the count: %s", r.err);
    cr_expect(strstr(r.err, "vkfx: note: 1 more time: a TIFF of 2 pages"), "stderr:\n%s", r.err);
    run_free(&r);
}

Test(everyday, quiet_silences_notes_but_not_errors)
{
    make_png_with_text("a.png", 1);
    make_two_page_tiff("p.tif");
    cli_run r;
    HERE(&r, "--quiet", "a.png", "p.tif", "--progress", "-o", "out/{stem}.jpg");
    cr_expect_eq(r.status, 0, "%s: %s", r.cmd, r.err);
    cr_expect(!strstr(r.err, "note"), "--quiet still noted: %s", r.err);
    run_free(&r);
    HERE(&r, "--quiet", "a.png", "missing.png", "-o", "out/{stem}.webp");
    cr_expect(r.status == 1 && strstr(r.err, "missing.png") && !strstr(r.err, "note"),
              "%s: exit %d: %s", r.cmd, r.status, r.err);
    run_free(&r);
    write_text("jobs.txt", "a.png -o j.jpg\np.tif -o k.png\n");
    HERE(&r, "run", "--quiet", "jobs.txt");
    cr_expect(r.status == 0 && r.err[0] == 0, "%s: exit %d: %s", r.cmd, r.status, r.err);
    run_free(&r);
    HERE(&r, "run", "jobs.txt");
    cr_expect(r.status == 0 && strstr(r.err, "note"), "%s: exit %d: %s", r.cmd, r.status, r.err);
    run_free(&r);
}

/* bokeh says how many hot spots it found only when it left some out, --timings or not. */
Test(everyday, bokeh_is_silent_when_every_spot_was_splatted)
{
    char input[512];
    snprintf(input, sizeof(input), "%s/hubble_deep_field.jpg", VKFX_TEST_IMAGES);
    cli_run r;
    HERE(&r, input, "--timings", "-f", "crop:width=120:height=90,gauss:sigma=1", "-o", "g.png");
    cr_assert_eq(r.status, 0, "%s: %s", r.cmd, r.err);
    run_free(&r);
    const char *chain = "bokeh:depth=g.png:threshold=0.3:maxcoc=6:focus=0:range=1";
    HERE(&r, "g.png", "--timings", "-f", chain, "-o", "b.png");
    cr_assert_eq(r.status, 0, "%s: %s", r.cmd, r.err);
    cr_expect(!strstr(r.err, "hot spots"), "bokeh reported with nothing left out: %s", r.err);
    run_free(&r);
    HERE(&r, "g.png", "-f", "bokeh:depth=g.png:threshold=0.3:maxcoc=6:focus=0:range=1:max=1", "-o",
         "b.png", "--json");
    cr_assert_eq(r.status, 0, "%s: %s", r.cmd, r.err);
    cr_expect(strstr(r.err, "hot spots") && strstr(r.err, "beyond max=1"), "stderr: %s", r.err);
    cr_expect(strstr(r.out, "\"bokeh.hot_spots\": "), "no counts in --json: %s", r.out);
    run_free(&r);
}

/* ------------------------------------------------------------------------ */
/* Alpha into a format without it: flattened over --background, white by default. */

/* A flat w x h RGBA PNG of one straight colour. */
static void make_flat_rgba(const char *name, const uint8_t rgba[4])
{
    vkfx_pixels px;
    cr_assert_eq(vkfx_pixels_alloc(&px, 16, 16, 4, VKFX_SAMPLE_U8), VKFX_OK);
    for (size_t i = 0; i < 16 * 16; i++)
        memcpy((uint8_t *)px.data + 4 * i, rgba, 4);
    cr_assert_eq(vkfx_file_save(tc_tpath(name), VKFX_FILE_PNG, &px, NULL), VKFX_OK);
    vkfx_pixels_free(&px);
}

/* The middle pixel of a JPEG written at quality 100 without subsampling. */
static void middle_of(const char *name, int rgb[3])
{
    vkfx_pixels px;
    cr_assert_eq(vkfx_file_load(tc_tpath(name), &px), VKFX_OK, "%s: %s", name,
                 vkfx_error_message());
    cr_assert_eq(px.channels, 3);
    for (int c = 0; c < 3; c++)
        rgb[c] = ((const uint8_t *)px.data)[(8 * 16 + 8) * 3 + c];
    vkfx_pixels_free(&px);
}

static int srgb_code(double linear)
{
    double v = linear <= 0.0031308 ? 12.92 * linear : 1.055 * pow(linear, 1 / 2.4) - 0.055;
    return (int)floor(v * 255 + 0.5);
}

Test(everyday, alpha_is_flattened_onto_the_background_in_linear_light)
{
    make_flat_rgba("clear.png", (const uint8_t[4]){0, 0, 0, 0});
    make_flat_rgba("half.png", (const uint8_t[4]){255, 0, 0, 128});
    make_flat_rgba("opaque.png", (const uint8_t[4]){10, 20, 30, 255});
    double a = 128 / 255.0;
    static const struct {
        const char *background;
        int rgb[3]; /* 0 or 255 */
    } cases[] = {
        {NULL, {255, 255, 255}},
        {"black", {0, 0, 0}},
        {"#00f", {0, 0, 255}},
        {"0,255,0", {0, 255, 0}},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cli_run r;
        const char *bg = cases[i].background;
        if (bg)
            HERE(&r, "clear.png", "half.png", "opaque.png", "-q", "100", "-o", "{stem}.jpg",
                 "--background", bg);
        else
            HERE(&r, "clear.png", "half.png", "opaque.png", "-q", "100", "-o", "{stem}.jpg");
        cr_assert_eq(r.status, 0, "%s: %s", r.cmd, r.err);
        /* One note, without --background only, naming the default. */
        cr_expect_eq(count(r.err, "JPEG has no alpha"), bg ? 0 : 1, "%s: stderr: %s", r.cmd, r.err);
        cr_expect(!strstr(r.err, "opaque.png"), "an opaque image was noted: %s", r.err);
        int clear[3], half[3];
        middle_of("clear.jpg", clear);
        middle_of("half.jpg", half);
        for (int c = 0; c < 3; c++) {
            double under = cases[i].rgb[c] / 255.0 * (1 - a);
            int want = srgb_code((c == 0 ? a : 0) + under);
            cr_expect(abs(clear[c] - cases[i].rgb[c]) <= 1, "%s: clear channel %d is %d, not %d",
                      r.cmd, c, clear[c], cases[i].rgb[c]);
            cr_expect(abs(half[c] - want) <= 1, "%s: half channel %d is %d, not %d", r.cmd, c,
                      half[c], want);
        }
        run_free(&r);
    }
}

Test(everyday, background_must_be_a_colour)
{
    cli_run r;
    HERE(&r, "a.png", "-o", "a.jpg", "--background", "#12345");
    cr_expect(r.status == 2 && strstr(r.err, "--background '#12345' must be a colour"), "%s: %s",
              r.cmd, r.err);
    run_free(&r);
}

/* ------------------------------------------------------------------------ */
/* vkfx info: what a file holds, one line a file or JSON. */

Test(everyday, info_tells_format_size_depth_orientation_profile_and_metadata)
{
    vkfx_meta m = {0};
    put_exif(&m, exif_orientation_6, sizeof(exif_orientation_6));
    m.texts[0] = (vkfx_text){strdup("Title"), strdup("abc")};
    m.ntexts = 1;
    m.icc.data = (uint8_t *)tc_slurp(VKFX_SOURCE_ROOT "/tests/data/compatibleWithAdobeRGB1998.icc",
                                     &m.icc.size);
    cr_assert(m.icc.data, "the test profile is missing");
    make_image("a.png", VKFX_FILE_PNG, 37, 23, 4, &m, 1, NULL);
    vkfx_meta_free(&m);
    vkfx_pixels px;
    tc_random_pixels(&px, 5, 3, 1, VKFX_SAMPLE_U16, 2);
    cr_assert_eq(vkfx_file_save(tc_tpath("g.tif"), VKFX_FILE_TIFF, &px, NULL), VKFX_OK);
    vkfx_pixels_free(&px);
    write_text("not.png", "hello");

    cli_run r;
    HERE(&r, "info", "a.png", "g.tif");
    cr_assert_eq(r.status, 0, "%s: %s", r.cmd, r.err);
    char want[256];
    snprintf(want, sizeof(want),
             "a.png: PNG 37x23, 4 channels, 8-bit, orientation 6 (upright 23x37), profile '");
    cr_expect(strstr(r.out, want), "no '%s' in:\n%s", want, r.out);
    cr_expect(strstr(r.out, "Adobe") && strstr(r.out, "EXIF 26 B") && strstr(r.out, "1 text 8 B"),
              "profile or blocks missing:\n%s", r.out);
    cr_expect(strstr(r.out, "g.tif: TIFF 5x3, 1 channel, 16-bit"), "%s", r.out);
    cr_expect_eq(count(r.out, "\n"), 2, "one line a file:\n%s", r.out);
    run_free(&r);

    HERE(&r, "info", "--json", "a.png", "not.png", "g.tif");
    cr_expect_eq(r.status, 1, "%s: a file that is no image fails the run: %s", r.cmd, r.err);
    cr_expect(strstr(r.err, "not.png"), "the bad file is not named: %s", r.err);
    cr_expect(strstr(r.out, "{\"file\": \"a.png\", \"format\": \"PNG\", \"width\": 37, "
                            "\"height\": 23, \"channels\": 4, \"bits\": 8, \"float\": false, "
                            "\"orientation\": 6, \"profile\": \""),
              "%s", r.out);
    cr_expect(strstr(r.out, "\"exif_bytes\": 26, \"xmp_bytes\": 0, \"texts\": 1, "
                            "\"text_bytes\": 8"),
              "%s", r.out);
    cr_expect(strstr(r.out, "\"file\": \"g.tif\""), "the file after the bad one: %s", r.out);
    run_free(&r);

    HERE(&r, "info");
    cr_expect(r.status == 2 && strstr(r.err, "no file given"), "%s: %s", r.cmd, r.err);
    run_free(&r);
}

/* ------------------------------------------------------------------------ */
/* Discovery: help and version as words, the names other tools use suggested. */

Test(everyday, help_and_version_as_users_type_them)
{
    cli_run r, h;
    HERE(&r, "help");
    HERE(&h, "--help");
    cr_expect(r.status == 0 && h.status == 0 && strcmp(r.out, h.out) == 0,
              "'vkfx help' differs from 'vkfx --help': %s", r.err);
    cr_expect(!strstr(h.out, "VKFX_VARIANT") && !strstr(h.out, "VKFX_VALIDATE"),
              "--help still lists the development variables");
    run_free(&r);
    run_free(&h);
    HERE(&r, "version");
    HERE(&h, "--version");
    cr_expect(r.status == 0 && strncmp(r.out, "vkfx ", 5) == 0 && strcmp(r.out, h.out) == 0,
              "'vkfx version': %s%s", r.out, r.err);
    run_free(&r);
    run_free(&h);
    HERE(&r, "help", "resize");
    HERE(&h, "--help-filter", "resize");
    cr_expect(r.status == 0 && strcmp(r.out, h.out) == 0, "'vkfx help resize': %s", r.err);
    run_free(&r);
    run_free(&h);
    HERE(&r, "help", "run");
    cr_expect(r.status == 0 && strstr(r.out, "usage: vkfx run"), "'vkfx help run': %s", r.err);
    run_free(&r);
}

Test(everyday, blur_and_sharpen_suggest_gauss_and_unsharp)
{
    static const char *const asked[][2] = {
        {"blur", "gauss"}, {"sharpen", "unsharp"}, {"gaussian", "gauss"}};
    for (size_t i = 0; i < sizeof(asked) / sizeof(asked[0]); i++) {
        char want[64];
        snprintf(want, sizeof(want), "did you mean '%s'?", asked[i][1]);
        cli_run r;
        HERE(&r, "a.png", "-f", asked[i][0], "-o", "b.png");
        cr_expect(r.status == 2 && strstr(r.err, want), "%s: exit %d: %s", r.cmd, r.status, r.err);
        run_free(&r);
        HERE(&r, "--help-filter", asked[i][0]);
        cr_expect(r.status == 2 && strstr(r.err, want), "%s: exit %d: %s", r.cmd, r.status, r.err);
        run_free(&r);
    }
}

/* ------------------------------------------------------------------------ */
/* Metadata that tells the truth about the pixels written. */

/* A little-endian EXIF block of a 4000x3000 camera image: IFD0 with ImageWidth (SHORT), an
 * upright orientation and the Exif directory, which has PixelXDimension (LONG) and
 * PixelYDimension (SHORT); IFD1 a 4-byte thumbnail. */
static const uint8_t camera_exif[] = {
    'I', 'I', 42, 0, 8, 0, 0, 0,                     /* header, IFD0 at 8 */
    3, 0,                                            /* IFD0: three entries */
    0x00, 0x01, 3, 0, 1, 0, 0, 0, 0xa0, 0x0f, 0, 0,  /* ImageWidth SHORT 4000 (at 18) */
    0x12, 0x01, 3, 0, 1, 0, 0, 0, 1, 0, 0, 0,        /* Orientation 1 */
    0x69, 0x87, 4, 0, 1, 0, 0, 0, 50, 0, 0, 0,       /* Exif IFD at 50 */
    80, 0, 0, 0,                                     /* IFD1 at 80 (link at 46) */
    2, 0,                                            /* Exif IFD: two entries */
    0x02, 0xa0, 4, 0, 1, 0, 0, 0, 0xa0, 0x0f, 0, 0,  /* PixelXDimension LONG 4000 (at 60) */
    0x03, 0xa0, 3, 0, 1, 0, 0, 0, 0xb8, 0x0b, 0, 0,  /* PixelYDimension SHORT 3000 (at 72) */
    0, 0, 0, 0,                                      /* no next */
    2, 0,                                            /* IFD1: the thumbnail */
    0x01, 0x02, 4, 0, 1, 0, 0, 0, 110, 0, 0, 0,      /* JPEGInterchangeFormat at 110 */
    0x02, 0x02, 4, 0, 1, 0, 0, 0, 4, 0, 0, 0,        /* its 4 bytes */
    0, 0, 0, 0,                                      /* no next */
    0xff, 0xd8, 0xff, 0xd9,                          /* the thumbnail */
};

static uint32_t le(const uint8_t *p, int bytes)
{
    return bytes == 2 ? (uint32_t)(p[0] | p[1] << 8)
                      : (uint32_t)(p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24);
}

Test(everyday, exif_says_the_size_written_and_drops_a_stale_thumbnail)
{
    vkfx_meta m = {0};
    put_exif(&m, camera_exif, sizeof(camera_exif));
    make_image("cam.png", VKFX_FILE_PNG, 40, 30, 3, &m, 5, NULL);
    vkfx_meta_free(&m);
    static const struct {
        const char *chain; /* NULL: a conversion */
        uint32_t w, h;
        bool thumbnail;
    } cases[] = {
        {NULL, 40, 30, true},
        {"resize:width=20", 20, 15, false},
        {"rotate:angle=90", 30, 40, false},
        {"crop:width=7:height=5", 7, 5, false},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cli_run r;
        if (cases[i].chain)
            HERE(&r, "cam.png", "-f", cases[i].chain, "-o", "out.png");
        else
            HERE(&r, "cam.png", "-o", "out.png");
        cr_assert_eq(r.status, 0, "%s: %s", r.cmd, r.err);
        vkfx_pixels px;
        vkfx_meta got = {0};
        cr_assert_eq(vkfx_file_load_meta(tc_tpath("out.png"), &px, &got), VKFX_OK);
        cr_assert(got.exif.data && got.exif.size == sizeof(camera_exif), "%s: EXIF of %zu bytes",
                  r.cmd, got.exif.size);
        const uint8_t *e = got.exif.data;
        cr_expect(le(e + 18, 2) == cases[i].w && le(e + 60, 4) == cases[i].w &&
                      le(e + 72, 2) == cases[i].h,
                  "%s: EXIF says %u (ImageWidth), %ux%u (PixelX/YDimension), not %ux%u", r.cmd,
                  le(e + 18, 2), le(e + 60, 4), le(e + 72, 2), cases[i].w, cases[i].h);
        cr_expect_eq(le(e + 46, 4) != 0, cases[i].thumbnail, "%s: thumbnail link %u", r.cmd,
                     le(e + 46, 4));
        vkfx_meta_free(&got);
        vkfx_pixels_free(&px);
        run_free(&r);
    }
    /* Stored turned (orientation 6): written upright, orientation 1, no thumbnail. */
    m = (vkfx_meta){0};
    put_exif(&m, camera_exif, sizeof(camera_exif));
    m.exif.data[30] = 6;
    make_image("turned.png", VKFX_FILE_PNG, 40, 30, 3, &m, 6, NULL);
    vkfx_meta_free(&m);
    cli_run r;
    HERE(&r, "turned.png", "-o", "upright.png");
    cr_assert_eq(r.status, 0, "%s: %s", r.cmd, r.err);
    vkfx_pixels px;
    vkfx_meta got = {0};
    cr_assert_eq(vkfx_file_load_meta(tc_tpath("upright.png"), &px, &got), VKFX_OK);
    const uint8_t *e = got.exif.data;
    cr_assert(e && got.exif.size == sizeof(camera_exif));
    cr_expect(e[30] == 1 && le(e + 60, 4) == 30 && le(e + 72, 2) == 40 && le(e + 46, 4) == 0,
              "orientation %u, %ux%u, thumbnail link %u", e[30], le(e + 60, 4), le(e + 72, 2),
              le(e + 46, 4));
    vkfx_meta_free(&got);
    vkfx_pixels_free(&px);
    run_free(&r);
}

/* ------------------------------------------------------------------------ */
/* Fail before the work: what a run cannot do is found before any file is decoded. */

/* As another user (nobody), outputs in a read-only folder, in root's folder, or in folders to be
 * made in either, are a usage error naming the folder before any decoding: the damaged input
 * among the good ones is never read (its message would say so), nothing is written. */
Test(everyday, an_output_folder_this_user_cannot_write_is_refused_before_decoding)
{
    if (geteuid() != 0)
        cr_skip_test("running vkfx as another user needs root");
    struct passwd *pw = getpwnam("nobody");
    cr_assert(pw && pw->pw_uid != 0);
    cr_assert_eq(chmod(tc_tmpdir, 0755), 0);
    make_image("a.png", VKFX_FILE_PNG, 9, 7, 3, NULL, 1, NULL);
    make_image("c.png", VKFX_FILE_PNG, 9, 7, 3, NULL, 2, NULL);
    write_text("b.png", "\x89PNG\r\n\x1a\n damaged");
    cr_assert_eq(mkdir(tc_tpath("ro"), 0555), 0);
    cr_assert_eq(mkdir(tc_tpath("roots"), 0755), 0);
    static const char *const outs[][3] = {
        {"-o", "ro/{stem}.png", "folder ro:"},
        {"-o", "roots/{stem}.jpg", "folder roots:"},
        {"--outdir", "ro", "folder ro:"},
        {"--outdir", "roots/new/deeper", "folder roots:"},
        {"-o", "ro/new/{stem}.png", "folder ro:"},
    };
    run_opts o = {.cwd = tc_tmpdir, .uid = pw->pw_uid};
    for (size_t i = 0; i < sizeof(outs) / sizeof(outs[0]); i++) {
        cli_run r;
        VKFX_OPTS(&r, &o, "a.png", "b.png", "c.png", "-f", "box3", outs[i][0], outs[i][1]);
        cr_expect(r.status == 2 && strstr(r.err, outs[i][2]) &&
                      strstr(r.err, "Permission denied") && !strstr(r.err, "b.png"),
                  "%s: exit %d: %s", r.cmd, r.status, r.err);
        run_free(&r);
    }
    char names[256];
    cr_expect_eq(tc_list_dir(tc_tpath("ro"), true, names, sizeof(names)), 0, "in ro: %s", names);
    cr_expect_eq(tc_list_dir(tc_tpath("roots"), true, names, sizeof(names)), 0, "in roots: %s",
                 names);
}

/* ------------------------------------------------------------------------ */
/* Output paths as shell users write them. */

/* vkfx run with args (NULL-terminated, argv[1] on; "TTY" stands for the terminal's own
 * name) in the test's directory, its standard output a terminal (a pseudo-terminal this test
 * reads) and its standard error captured; the exit code, with stderr in err and what reached
 * the terminal in out. */
static int run_on_a_terminal(const char *const *args, char *err, size_t err_size, char *out,
                             size_t out_size)
{
    int master, slave;
    char tty[256];
    cr_assert_eq(openpty(&master, &slave, tty, NULL, NULL), 0, "openpty: %s", strerror(errno));
    char log[1024];
    snprintf(log, sizeof(log), "%s", tc_tpath("stderr.txt"));
    const char *argv[32] = {VKFX_BINARY};
    for (size_t i = 0; args[i] && i + 2 < 32; i++)
        argv[i + 1] = strcmp(args[i], "TTY") == 0 ? tty : args[i];
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        int e = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (e < 0 || chdir(tc_tmpdir) != 0 || dup2(slave, STDOUT_FILENO) < 0 ||
            dup2(e, STDERR_FILENO) < 0)
            _exit(126);
        close(master);
        execv(VKFX_BINARY, (char *const *)argv);
        _exit(127);
    }
    close(slave);
    size_t got = 0;
    for (;;) {
        ssize_t n = read(master, out + got, out_size - 1 - got);
        if (n <= 0 || (got += (size_t)n) + 1 >= out_size)
            break; /* EIO once the child closed the terminal */
    }
    out[got] = 0;
    close(master);
    int status;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    size_t size;
    char *text = tc_slurp(log, &size);
    snprintf(err, err_size, "%s", text ? text : "");
    free(text);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* -o - onto a terminal, or -o naming one, is refused with a hint before any work (the bytes
 * of an image would garble it), in a job file with the job's line; the same run into a pipe writes
 * the PNG. */
Test(everyday, an_image_onto_a_terminal_is_refused_with_a_hint)
{
    make_image("a.png", VKFX_FILE_PNG, 9, 7, 3, NULL, 1, NULL);
    char err[4096], out[4096];
    int code = run_on_a_terminal((const char *const[]){"a.png", "-f", "box3", "-o", "-", NULL}, err,
                                 sizeof(err), out, sizeof(out));
    cr_expect(code == 2 && strstr(err, "standard output is a terminal") &&
                  strstr(err, "-o - > out.png") && !strstr(out, "PNG"),
              "exit %d: %s (the terminal got %zu bytes)", code, err, strlen(out));
    /* The terminal by its name: the same. */
    code = run_on_a_terminal((const char *const[]){"a.png", "-f", "box3", "-o", "TTY", NULL}, err,
                             sizeof(err), out, sizeof(out));
    cr_expect(code == 2 && strstr(err, "a terminal, which would show the image's bytes") &&
                  !strstr(out, "PNG"),
              "exit %d: %s (the terminal got %zu bytes)", code, err, strlen(out));
    write_text("jobs.txt", "a.png -f box3 -o x.png\na.png -f box3 -o -\n");
    code = run_on_a_terminal((const char *const[]){"run", "jobs.txt", NULL}, err, sizeof(err), out,
                             sizeof(out));
    cr_expect(code == 2 && strstr(err, "jobs.txt:2: -o -: standard output is a terminal") &&
                  !exists("x.png"),
              "exit %d: %s", code, err);
    cli_run r;
    HERE(&r, "a.png", "-f", "box3", "-o", "-");
    cr_expect(r.status == 0 && r.out_len > 8 && memcmp(r.out, "\x89PNG", 4) == 0, "%s: exit %d: %s",
              r.cmd, r.status, r.err);
    run_free(&r);
}

/* -o DIR/ and -o naming an existing folder act as --outdir DIR: each output under its input's
 * name (GIF as PNG), the folder made where it ends in '/'. */
Test(everyday, an_output_folder_acts_as_outdir)
{
    make_image("a.png", VKFX_FILE_PNG, 9, 7, 3, NULL, 1, NULL);
    make_image("b.jpg", VKFX_FILE_JPEG, 7, 9, 3, NULL, 2, NULL);
    cr_assert_eq(mkdir(tc_tpath("old"), 0777), 0);
    static const char *const dirs[][2] = {{"old/", "old"}, {"old", "old"}, {"new/sub/", "new/sub"}};
    for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
        cli_run r;
        HERE(&r, "a.png", "b.jpg", "-f", "box3", "-o", dirs[i][0], "--skip-existing");
        cr_expect_eq(r.status, 0, "%s: %s", r.cmd, r.err);
        run_free(&r);
        char names[256], want[256];
        tc_list_dir(tc_tpath(dirs[i][1]), true, names, sizeof(names));
        snprintf(want, sizeof(want), "a.png b.jpg");
        cr_expect_str_eq(names, want, "-o %s wrote", dirs[i][0]);
    }
    /* One input into a folder too. */
    cli_run r;
    HERE(&r, "a.png", "-o", "one/");
    cr_expect(r.status == 0 && exists("one/a.png"), "%s: exit %d: %s", r.cmd, r.status, r.err);
    run_free(&r);
    /* '-' stays standard output beside a folder of that name. */
    cr_assert_eq(mkdir(tc_tpath("-"), 0777), 0);
    HERE(&r, "a.png", "-o", "-");
    cr_expect(r.status == 0 && r.out_len > 8 && memcmp(r.out, "\x89PNG", 4) == 0 &&
                  !exists("-/a.png"),
              "%s: exit %d: %s", r.cmd, r.status, r.err);
    run_free(&r);
}

/* {index:04} pads the input's number with zeros, as Python's format does; other widths and
 * forms are refused naming the fields. */
Test(everyday, index_pads_with_zeros)
{
    make_image("a.png", VKFX_FILE_PNG, 9, 7, 3, NULL, 1, NULL);
    make_image("b.png", VKFX_FILE_PNG, 7, 9, 3, NULL, 2, NULL);
    cli_run r;
    HERE(&r, "a.png", "b.png", "-o", "out/{index:04}-{stem}.png");
    cr_expect_eq(r.status, 0, "%s: %s", r.cmd, r.err);
    run_free(&r);
    char names[256];
    tc_list_dir(tc_tpath("out"), true, names, sizeof(names));
    cr_expect_str_eq(names, "0001-a.png 0002-b.png");
    HERE(&r, "a.png", "b.png", "-o", "n/{index:2}.png");
    cr_expect(r.status == 2 && strstr(r.err, "{index:2}") && strstr(r.err, "{index:04}"),
              "%s: exit %d: %s", r.cmd, r.status, r.err);
    run_free(&r);
    HERE(&r, "a.png", "b.png", "-o", "n/{index:x4}.png");
    cr_expect_eq(r.status, 2, "%s: %s", r.cmd, r.err);
    run_free(&r);
    cr_expect(!exists("n"), "a refused template wrote");
}
