/* Images larger than a tile (VKFX_TILE forces a small one here; the device
 * limits it otherwise) run in overlapping tiles: for every filter that can,
 * and for a chain, the tiled output is the untiled one byte for byte, for
 * 8-bit RGBA, 16-bit gray+alpha and float RGB (Radiance HDR) inputs at an
 * odd size. Filters whose output depends on the whole image are refused
 * with a message naming them, and so is a chain that reaches too far for
 * the tile. Validation is on for every run. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "error.h"
#include "fileio.h"
#include "run_binary.h"

static char *slurp(const char *path, size_t *size)
{
    char *data = tc_slurp(path, size);
    cr_assert(data, "cannot read %s", path);
    return data;
}

static void run_tile(const char *tile, const char *in, const char *chain, const char *out,
                     cli_run *r)
{
    if (tile)
        setenv("VKFX_TILE", tile, 1);
    else
        unsetenv("VKFX_TILE");
    VKFX(r, in, "-f", chain, "-o", out);
    unsetenv("VKFX_TILE");
}

/* Runs chain on in_path whole and in tiles of `tile` pixels a side; returns 1 (and says so)
 * if the two files differ. histogram must be refused in tiles instead. */
static int tiled_differs(const char *in_path, const char *name, const char *ext, const char *chain,
                         const char *tile)
{
    char whole[1024], tiled[1024];
    snprintf(whole, sizeof(whole), "%s/whole.%s", tc_tpath("."), ext);
    snprintf(tiled, sizeof(tiled), "%s/tiled.%s", tc_tpath("."), ext);
    cli_run r;
    run_tile(NULL, in_path, chain, whole, &r);
    cr_assert_eq(r.status, 0, "%s: %s", r.cmd, r.err);
    run_free(&r);
    run_tile(tile, in_path, chain, tiled, &r);
    if (strstr(chain, "histogram")) {
        cr_assert(r.status == 1 && strstr(r.err, "histogram cannot run in tiles"),
                  "%s: exit %d: %s", r.cmd, r.status, r.err);
        run_free(&r);
        return 0;
    }
    cr_assert_eq(r.status, 0, "%s: %s", r.cmd, r.err);
    run_free(&r);
    size_t na, nb;
    char *a = slurp(whole, &na), *b = slurp(tiled, &nb);
    int differs = na != nb || memcmp(a, b, na) != 0;
    if (differs)
        fprintf(stderr, "%s on %s, tiles of %s: tiled output differs from untiled\n", chain, name,
                tile);
    free(a);
    free(b);
    return differs;
}

Test(tiles, tiled_equals_untiled, .timeout = 600)
{
    cr_assert_eq(tc_tmpdir_make("tiles"), 0);
    static const struct {
        const char *name, *ext;
        uint32_t channels;
        vkfx_sample sample;
        vkfx_file_format fmt;
    } inputs[] = {
        {"rgba8.png", "png", 4, VKFX_SAMPLE_U8, VKFX_FILE_PNG},
        {"ga16.png", "png", 2, VKFX_SAMPLE_U16, VKFX_FILE_PNG},
        {"rgbf.hdr", "hdr", 3, VKFX_SAMPLE_F32, VKFX_FILE_HDR},
    };
    static const char *const chains[] = {
        "gauss:sigma=2",
        "gauss:sigma=6",
        "box:radius=1",
        "box:radius=8",
        "box:radius=15",
        "box:radius=20",
        "box3:order=zorder",
        "sobel:invert=1",
        "cartoon",
        "bilateral:sigma_s=2:sigma_r=0.1",
        "satblur:radius=7:shape=smooth",
        "gauss:sigma=1,sobel,box:radius=2,histogram",
    };
    int failures = 0;
    for (size_t i = 0; i < sizeof(inputs) / sizeof(inputs[0]); i++) {
        vkfx_pixels px;
        tc_random_pixels(&px, 333, 217, inputs[i].channels, inputs[i].sample, 40 + i);
        const char *in = tc_tpath(inputs[i].name);
        char in_path[1024];
        snprintf(in_path, sizeof(in_path), "%s", in);
        cr_assert_eq(vkfx_file_save(in_path, inputs[i].fmt, &px, NULL), VKFX_OK, "%s",
                     vkfx_error_message());
        vkfx_pixels_free(&px);
        for (size_t c = 0; c < sizeof(chains) / sizeof(chains[0]); c++) {
            if (strstr(chains[c], "histogram") && i > 0)
                continue; /* histogram passes through: once is enough */
            /* Tiles of 320: several across and down at 333x217 for every chain. */
            failures += tiled_differs(in_path, inputs[i].name, inputs[i].ext, chains[c], "320");
        }
        /* Tiles start on multiples of 112 across at radius 1, where the rolling box sums
         * (runs of 16 in the one-pass kernel, 7 in the row pass) start their runs as in the
         * whole image. Tiles of 300 would start one at 168, not a multiple of 16, were that
         * alignment 56, and this 16-bit input then shows it. */
        if (inputs[i].sample == VKFX_SAMPLE_U16)
            failures +=
                tiled_differs(in_path, inputs[i].name, inputs[i].ext, "box:radius=1", "300");
    }
    /* And on multiples of 80 down at radius 15, where the one-pass box's runs down a column
     * start (every 10 rows) and the column pass's (every 16): half-float output of a photo,
     * whose rolling sums round, shows a tile started anywhere else (tiles of 400 started on
     * multiples of 48 rows, one at 96, and it did). */
    failures += tiled_differs(VKFX_TEST_IMAGES "/astronaut.png", "astronaut.png", "exr",
                              "box:radius=15", "400");
    tc_tmpdir_remove();
    cr_assert_eq(failures, 0, "%d tiled runs differ (above)", failures);
}

Test(tiles, whole_image_filters_are_refused)
{
    cr_assert_eq(tc_tmpdir_make("tiles2"), 0);
    vkfx_pixels px;
    tc_random_pixels(&px, 300, 200, 3, VKFX_SAMPLE_U8, 50);
    char in[1024], map[1024], chain[1200];
    snprintf(in, sizeof(in), "%s", tc_tpath("in.png"));
    snprintf(map, sizeof(map), "%s", tc_tpath("map.png"));
    cr_assert_eq(vkfx_file_save(in, VKFX_FILE_PNG, &px, NULL), VKFX_OK);
    vkfx_pixels_free(&px);
    tc_random_pixels(&px, 300, 200, 1, VKFX_SAMPLE_U8, 51);
    cr_assert_eq(vkfx_file_save(map, VKFX_FILE_PNG, &px, NULL), VKFX_OK);
    vkfx_pixels_free(&px);
    static const char *const refused[][2] = {
        {"tonemap", "tonemap"},        {"ripple:steps=5", "ripple"},  {"dof:depth=%s", "dof"},
        {"satdof:depth=%s", "satdof"}, {"satblur:map=%s", "satblur"}, {"bokeh:depth=%s", "bokeh"},
    };
    for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
        snprintf(chain, sizeof(chain), refused[i][0], map);
        cli_run r;
        run_tile("120", in, chain, tc_tpath("out.png"), &r);
        char want[64];
        snprintf(want, sizeof(want), "%s cannot run in tiles", refused[i][1]);
        cr_assert(r.status == 1 && strstr(r.err, want) && strstr(r.err, "300x200"),
                  "%s: exit %d: %s", r.cmd, r.status, r.err);
        run_free(&r);
    }
    cli_run r;
    /* Reach 75 + 15, and the box's tiles start on multiples of 112 across: 2 x 90 + 112 > 280. */
    run_tile("280", in, "gauss:sigma=25,box:radius=15", tc_tpath("out.png"), &r);
    cr_assert(r.status == 1 && strstr(r.err, "reaches 90 pixels"), "%s: exit %d: %s", r.cmd,
              r.status, r.err);
    run_free(&r);
    /* A Gaussian beyond the one-pass kernel starts tiles anywhere: 2 x 120 + 1 > 200. */
    run_tile("200", in, "gauss:sigma=40", tc_tpath("out.png"), &r);
    cr_assert(r.status == 1 && strstr(r.err, "reaches 120 pixels"), "%s: exit %d: %s", r.cmd,
              r.status, r.err);
    run_free(&r);
    FILE *f = fopen(tc_tpath("out.png"), "rb");
    cr_assert_null(f, "a refused run wrote its output");
    tc_tmpdir_remove();
}
