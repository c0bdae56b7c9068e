/* Images larger than a tile (VKFX_TILE forces a small one here; the device
 * limits it otherwise) run in overlapping tiles: for every filter that can,
 * and for a chain, the tiled output is the untiled one byte for byte, for
 * 8-bit RGBA, 16-bit gray+alpha and float RGB (Radiance HDR) inputs at an
 * odd size. Filters whose output depends on the whole image are refused
 * with a message naming them, and so is a chain that reaches too far for
 * the tile. Validation is on for every run. Every tile size here is derived
 * from the chain's own declarations (vkfx_chain_tiling: the filters' reach
 * and alignment), none is written down. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "chain.h"
#include "common.h"
#include "error.h"
#include "fileio.h"
#include "gpu_harness.h"
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

/* The tiler's numbers for chain, from its filters' declarations; the filter that cannot run in
 * tiles, or NULL. */
static const vkfx_filter *tiling_of(const char *chain, uint64_t *reach, vkfx_align *align)
{
    vkfx_chain *parsed = NULL;
    cr_assert_eq(vkfx_chain_parse(chain, &parsed), VKFX_OK, "%s: %s", chain, vkfx_error_message());
    const vkfx_filter *whole = vkfx_chain_tiling(parsed, reach, align);
    vkfx_chain_free(parsed);
    return whole;
}

/* Whether tiles of side pixels split an axis of n pixels awkwardly: into several tiles, the
 * last share cut short, and a tile after the first starting on an odd multiple of the
 * alignment (a filter whose runs started every two alignment steps, or anywhere else than on
 * its declared stride, then gives other bytes there). */
static bool awkward_axis(uint32_t n, uint32_t side, uint64_t reach, uint32_t align)
{
    uint32_t share = vkfx_tile_share(side, reach, align);
    if (share >= n || n % share == 0)
        return false;
    for (uint32_t c = share; c < n; c += share) {
        uint32_t start = vkfx_tile_start(c, reach, align);
        if (start > 0 && start / align % 2 == 1)
            return true;
    }
    return false;
}

/* The largest tile side (fewest tiles) that splits a w x h image awkwardly on both axes for
 * chain, written into tile; for a chain that cannot run in tiles, any side that asks for
 * tiles. */
static void awkward_side(const char *chain, uint32_t w, uint32_t h, char *tile, size_t size)
{
    uint64_t reach;
    vkfx_align align;
    uint32_t most = (w > h ? w : h) - 1, side = most;
    if (!tiling_of(chain, &reach, &align)) {
        uint32_t least = (uint32_t)vkfx_tile_side_least(reach, align);
        while (side >= least &&
               !(awkward_axis(w, side, reach, align.x) && awkward_axis(h, side, reach, align.y)))
            side--;
        cr_assert_geq(side, least,
                      "%s (reach %llu, alignment %ux%u): no tile side splits %ux%u awkwardly",
                      chain, (unsigned long long)reach, align.x, align.y, w, h);
    }
    snprintf(tile, size, "%u", side);
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
        "unsharp:sigma=2",
        "grayscale",
        "gauss:sigma=1,sobel,box:radius=2,histogram",
    };
    /* Odd sides: no stride divides them. */
    const uint32_t w = 333, h = 217;
    int failures = 0;
    for (size_t i = 0; i < sizeof(inputs) / sizeof(inputs[0]); i++) {
        vkfx_pixels px;
        tc_random_pixels(&px, w, h, inputs[i].channels, inputs[i].sample, 40 + i);
        const char *in = tc_tpath(inputs[i].name);
        char in_path[1024];
        snprintf(in_path, sizeof(in_path), "%s", in);
        cr_assert_eq(vkfx_file_save(in_path, inputs[i].fmt, &px, NULL), VKFX_OK, "%s",
                     vkfx_error_message());
        vkfx_pixels_free(&px);
        for (size_t c = 0; c < sizeof(chains) / sizeof(chains[0]); c++) {
            if (strstr(chains[c], "histogram") && i > 0)
                continue; /* histogram passes through: once is enough */
            char tile[16];
            awkward_side(chains[c], w, h, tile, sizeof(tile));
            failures += tiled_differs(in_path, inputs[i].name, inputs[i].ext, chains[c], tile);
        }
    }
    /* Half-float output of a photo, whose rolling sums round, shows a run of the box's started
     * anywhere but on its declared strides down a column (its random inputs may not). */
    vkfx_pixels photo;
    cr_assert_eq(vkfx_file_load(VKFX_TEST_IMAGES "/astronaut.png", &photo), VKFX_OK);
    char tile[16];
    awkward_side("box:radius=15", photo.width, photo.height, tile, sizeof(tile));
    vkfx_pixels_free(&photo);
    failures += tiled_differs(VKFX_TEST_IMAGES "/astronaut.png", "astronaut.png", "exr",
                              "box:radius=15", tile);
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
    /* Chains that reach too far for the tile, at the largest side refused (a chain of two, and
     * one Gaussian too wide for its one-pass kernel). */
    static const char *const far[] = {"gauss:sigma=25,box:radius=15", "gauss:sigma=40"};
    for (size_t i = 0; i < sizeof(far) / sizeof(far[0]); i++) {
        uint64_t reach;
        vkfx_align align;
        cr_assert_null(tiling_of(far[i], &reach, &align), "%s", far[i]);
        uint32_t side = (uint32_t)vkfx_tile_side_least(reach, align) - 1;
        char tile[32], want[64];
        snprintf(tile, sizeof(tile), "%u", side);
        snprintf(want, sizeof(want), "reaches %llu pixels", (unsigned long long)reach);
        /* Wider than the tile, so that it must run in tiles. */
        tc_random_pixels(&px, side + 1, 31, 3, VKFX_SAMPLE_U8, 52);
        cr_assert_eq(vkfx_file_save(in, VKFX_FILE_PNG, &px, NULL), VKFX_OK);
        vkfx_pixels_free(&px);
        cli_run r;
        run_tile(tile, in, far[i], tc_tpath("out.png"), &r);
        cr_assert(r.status == 1 && strstr(r.err, want), "%s, tiles of %s: exit %d: %s", r.cmd, tile,
                  r.status, r.err);
        run_free(&r);
    }
    FILE *f = fopen(tc_tpath("out.png"), "rb");
    cr_assert_null(f, "a refused run wrote its output");
    tc_tmpdir_remove();
}

/* The bytes of address space this process has mapped now. */
static uint64_t mapped_bytes(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    cr_assert(f);
    char line[256];
    unsigned long long kb = 0;
    while (fgets(line, sizeof(line), f))
        if (sscanf(line, "VmSize: %llu kB", &kb) == 1)
            break;
    fclose(f);
    cr_assert(kb);
    return (uint64_t)kb * 1024;
}

/* A run in tiles whose output the host cannot allocate fails with that reason and leaves the
 * caller's input as it was: the tiles' copies of it are the run's own, the input is not (its
 * error path once freed the input, and the caller's own free of it was a double free). The
 * address space is capped at what is mapped plus 32 MiB, half of the output's 64 MiB. */
Test(tiles, output_out_of_memory_leaves_input, .timeout = 120)
{
    th_gpu g;
    setenv("VKFX_TILE", "256", 1);
    th_gpu_open(&g);
    unsetenv("VKFX_TILE");
    static const char *const chains[] = {"box:radius=1", "box:radius=1,resize:width=1024"};
    for (size_t i = 0; i < sizeof(chains) / sizeof(chains[0]); i++) {
        vkfx_pixels in = {.straight = true};
        cr_assert_eq(vkfx_pixels_alloc(&in, 2048, 2048, 1, VKFX_SAMPLE_U8), VKFX_OK);
        memset(in.data, 7, vkfx_pixels_bytes(&in));
        vkfx_chain *chain = NULL;
        cr_assert_eq(vkfx_chain_parse(chains[i], &chain), VKFX_OK);
        vkfx_pixels out = {.channels = 4, .sample = VKFX_SAMPLE_F32};
        vkfx_run_opts opts = {.precision = 16};
        vkfx_run_result result;
        struct rlimit was, cap;
        cr_assert_eq(getrlimit(RLIMIT_AS, &was), 0);
        cap = was;
        cap.rlim_cur = mapped_bytes() + (32u << 20);
        cr_assert_eq(setrlimit(RLIMIT_AS, &cap), 0);
        int ret = vkfx_run(g.ctx, g.staging, chain, &in, &out, &opts, &result);
        cr_assert_eq(setrlimit(RLIMIT_AS, &was), 0);
        cr_assert_eq(ret, VKFX_E_NOMEM, "%s: %d %s", chains[i], ret, vkfx_error_message());
        cr_assert(strstr(vkfx_error_message(), "out of host memory"), "%s: %s", chains[i],
                  vkfx_error_message());
        cr_assert_null(out.data);
        const unsigned char *p = in.data;
        for (size_t k = 0; k < vkfx_pixels_bytes(&in); k++)
            cr_assert_eq(p[k], 7, "%s: the input changed at byte %zu", chains[i], k);
        vkfx_pixels_free(&in);
        vkfx_chain_free(chain);
    }
    th_gpu_close(&g);
}
