/* The GPU JPEG decoder against libjpeg-turbo as vkfx calls it: JPEGs written here through
 * libjpeg's encoder in every sampling layout, size, quality, restart spacing, Huffman choice
 * and scan layout the GPU path covers, plus files of other writers kept in tests/data/jpeg,
 * decoded both ways and compared byte for byte; damaged streams go back to libjpeg-turbo. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>

#include "codec.h"
#include "fileio.h"
#include "gpu_harness.h"
#include "jpeg_gpu.h"

typedef struct enc_case {
    uint32_t w, h;
    int ncomp;
    int samp[3][2]; /* h, v of each component; zero: 1x1 */
    int quality;
    int restart;      /* MCUs between restart markers; negative: rows of MCUs */
    bool optimize;    /* the image's own Huffman tables */
    int scans;        /* 0: one interleaved scan; 1: one per component; 2: Y+Cb, then Cr */
    const char *what; /* content: "photo", "noise" or "flat" */
    int mode;         /* 0 sequential Huffman, 1 progressive, 2 arithmetic coding */
} enc_case;

static void describe(const enc_case *c, char *out, size_t size)
{
    snprintf(out, size, "%ux%u %s %d comp %dx%d,%dx%d,%dx%d q%d restart %d%s scans %d", c->w, c->h,
             c->what, c->ncomp, c->samp[0][0], c->samp[0][1], c->samp[1][0], c->samp[1][1],
             c->samp[2][0], c->samp[2][1], c->quality, c->restart, c->optimize ? " optimised" : "",
             c->scans);
}

/* The case's source pixels: a crop of a photo (tiled where the photo is smaller), noise, or
 * one colour. */
static void source(const enc_case *c, vkfx_pixels *out)
{
    if (!strcmp(c->what, "noise") || c->ncomp == 4) {
        tc_random_pixels(out, c->w, c->h, (uint32_t)c->ncomp, VKFX_SAMPLE_U8, c->w * 31u + c->h);
        return;
    }
    vkfx_pixels photo = {0}, rgb = {0};
    cr_assert_eq(tc_load_photo(c->ncomp == 1 ? "camera.png" : "chelsea.png", &photo), 0);
    cr_assert_eq(tc_crop(&photo, 37, 11, c->w, c->h, &rgb), 0);
    if (!strcmp(c->what, "flat"))
        memset(rgb.data, 200, vkfx_pixels_bytes(&rgb));
    cr_assert_eq(rgb.channels, (uint32_t)c->ncomp);
    vkfx_pixels_free(&photo);
    *out = rgb;
}

/* The JPEG of case c, through libjpeg's encoder; free() it. */
static unsigned char *encode(const enc_case *c, unsigned long *size)
{
    vkfx_pixels px;
    source(c, &px);
    struct jpeg_compress_struct j;
    struct jpeg_error_mgr err;
    j.err = jpeg_std_error(&err);
    jpeg_create_compress(&j);
    unsigned char *buf = NULL;
    *size = 0;
    jpeg_mem_dest(&j, &buf, size);
    j.image_width = c->w;
    j.image_height = c->h;
    j.input_components = c->ncomp;
    j.in_color_space = c->ncomp == 1 ? JCS_GRAYSCALE : c->ncomp == 4 ? JCS_CMYK : JCS_RGB;
    jpeg_set_defaults(&j);
    jpeg_set_quality(&j, c->quality, TRUE);
    j.optimize_coding = c->optimize;
    j.dct_method = JDCT_ISLOW;
    for (int i = 0; i < c->ncomp && i < 3; i++) {
        j.comp_info[i].h_samp_factor = c->samp[i][0] ? c->samp[i][0] : 1;
        j.comp_info[i].v_samp_factor = c->samp[i][1] ? c->samp[i][1] : 1;
    }
    if (c->restart > 0)
        j.restart_interval = (unsigned)c->restart;
    else if (c->restart < 0)
        j.restart_in_rows = -c->restart;
    jpeg_scan_info script[3];
    if (c->scans && c->ncomp == 3) {
        int n = 0;
        for (int i = 0; i < 3; i++) {
            if (c->scans == 2 && i == 1) {
                script[n - 1].comps_in_scan = 2;
                script[n - 1].component_index[1] = 1;
                continue;
            }
            script[n] = (jpeg_scan_info){
                .comps_in_scan = 1, .component_index = {i}, .Ss = 0, .Se = 63, .Ah = 0, .Al = 0};
            n++;
        }
        j.scan_info = script;
        j.num_scans = n;
    }
    if (c->mode == 1)
        jpeg_simple_progression(&j);
    j.arith_code = c->mode == 2;
    jpeg_start_compress(&j, TRUE);
    while (j.next_scanline < j.image_height) {
        JSAMPROW row = (unsigned char *)px.data + (size_t)j.next_scanline * c->w * c->ncomp;
        jpeg_write_scanlines(&j, &row, 1);
    }
    jpeg_finish_compress(&j);
    jpeg_destroy_compress(&j);
    vkfx_pixels_free(&px);
    return buf;
}

/* Decodes data both ways; returns 0 when the GPU took it and gave libjpeg-turbo's bytes, 1
 * when it left the file to libjpeg-turbo, -1 (after a report) when the bytes differ. want
 * (when not NULL) receives libjpeg-turbo's decode, or its error code. */
static int both_ways_with(th_gpu *g, const unsigned char *data, size_t size, const char *what,
                          const vkfx_jpeg_gpu_opts *o, int *cpu_ret)
{
    vkfx_pixels cpu = {0}, gpu = {0};
    vkfx_decode_note note = {{0}};
    int cret = vkfx_codec_jpeg.decode(data, size, what, &cpu, &note);
    /* libjpeg-turbo's warning (a damaged scan it decodes, with a note) counts as damage */
    if (cpu_ret)
        *cpu_ret = cret != 0 ? cret : note.text[0] ? 1 : 0;
    vkfx_error_clear();
    int gret = vkfx_jpeg_gpu_decode(g->ctx, g->staging, data, size, o, &gpu);
    cr_assert_geq(gret, 0, "%s: the GPU decode failed: %s", what, vkfx_error_message());
    int result = gret;
    if (gret == 0) {
        cr_assert_eq(cret, 0, "%s: the GPU decoded what libjpeg-turbo refuses", what);
        cr_assert(!note.text[0], "%s: the GPU decoded what libjpeg-turbo warns about (%s)", what,
                  note.text);
        cr_assert(gpu.width == cpu.width && gpu.height == cpu.height &&
                  gpu.channels == cpu.channels && gpu.sample == cpu.sample);
        const unsigned char *a = gpu.data, *b = cpu.data;
        size_t n = vkfx_pixels_bytes(&cpu), bad = 0, first = 0;
        for (size_t i = 0; i < n; i++)
            if (a[i] != b[i] && bad++ == 0)
                first = i;
        if (bad) {
            size_t p = first / cpu.channels;
            cr_log_error("%s: %zu of %zu bytes differ, first at (%zu, %zu) channel %zu: GPU %u, "
                         "libjpeg-turbo %u",
                         what, bad, n, p % cpu.width, p / cpu.width, first % cpu.channels, a[first],
                         b[first]);
            result = -1;
        }
    }
    vkfx_pixels_free(&cpu);
    vkfx_pixels_free(&gpu);
    return result;
}

/* The ways the entropy-coded data is shared out: one invocation per restart segment;
 * subsequences of the default length and sequences (every round where the default ones do not
 * settle); subsequences so short that blocks span several, in sequences of three, so that many
 * link to the next, in as many rounds as it takes. */
static const vkfx_jpeg_gpu_opts ways[] = {
    {.sub_bits = VKFX_JPEG_GPU_SEGMENTS},
    {0},
    {.sub_bits = 61, .lanes = 3, .rounds = VKFX_JPEG_GPU_ALL_ROUNDS, .no_retry = true},
};
#define NWAYS (sizeof(ways) / sizeof(ways[0]))

/* both_ways_with in every way; the worst result. */
static int both_ways(th_gpu *g, const unsigned char *data, size_t size, const char *what,
                     int *cpu_ret)
{
    int worst = 0;
    for (size_t w = 0; w < NWAYS; w++) {
        char way[200];
        snprintf(way, sizeof(way), "%s, subsequences of %u bits", what, ways[w].sub_bits);
        int r = both_ways_with(g, data, size, way, &ways[w], cpu_ret);
        if (r == 1)
            cr_log_info("%s: left to libjpeg-turbo", way);
        if (r == -1 || (r == 1 && worst == 0))
            worst = r;
    }
    return worst;
}

/* Every case must be the GPU's and give libjpeg-turbo's bytes, in every way or in only (when
 * not NULL). */
static void check_cases_in(const enc_case *cases, size_t n, const vkfx_jpeg_gpu_opts *only)
{
    th_gpu g;
    th_gpu_open(&g);
    int failed = 0;
    for (size_t i = 0; i < n; i++) {
        char what[160];
        describe(&cases[i], what, sizeof(what));
        unsigned long size;
        unsigned char *jpg = encode(&cases[i], &size);
        int r = only ? both_ways_with(&g, jpg, size, what, only, NULL)
                     : both_ways(&g, jpg, size, what, NULL);
        if (r == 1)
            cr_log_error("%s (%lu bytes): left to libjpeg-turbo", what, size);
        failed += r != 0;
        free(jpg);
    }
    th_gpu_close(&g);
    cr_assert_eq(failed, 0, "%d of %zu JPEGs not decoded as libjpeg-turbo does", failed, n);
}

static void check_cases(const enc_case *cases, size_t n)
{
    check_cases_in(cases, n, NULL);
}

// clang-format off
#define S444 {{1, 1}, {1, 1}, {1, 1}}
#define S422 {{2, 1}, {1, 1}, {1, 1}}
#define S420 {{2, 2}, {1, 1}, {1, 1}}
#define S440 {{1, 2}, {1, 1}, {1, 1}}
#define S411 {{4, 1}, {1, 1}, {1, 1}}
// clang-format on

Test(jpegdec, sampling_layouts, .timeout = 600)
{
    static const enc_case cases[] = {
        {64, 48, 3, S444, 90, 0, false, 0, "photo", 0},
        {64, 48, 3, S422, 90, 0, false, 0, "photo", 0},
        {64, 48, 3, S420, 75, 0, false, 0, "photo", 0},
        {64, 48, 3, S440, 75, 0, false, 0, "photo", 0},
        {64, 48, 3, S411, 75, 0, false, 0, "photo", 0},
        {61, 45, 3, S420, 80, 0, false, 0, "photo", 0},
        {61, 45, 3, S422, 80, 0, false, 0, "photo", 0},
        {61, 45, 3, S440, 80, 0, false, 0, "photo", 0},
        {61, 45, 3, S411, 80, 0, false, 0, "photo", 0},
        /* 4:1:0, 3:1 (whole factors upsampled by copies), chroma finer than luma */
        {50, 37, 3, {{4, 2}, {1, 1}, {1, 1}}, 85, 0, false, 0, "photo", 0},
        {50, 37, 3, {{3, 1}, {1, 1}, {1, 1}}, 85, 0, false, 0, "photo", 0},
        {50, 37, 3, {{1, 1}, {2, 2}, {1, 1}}, 85, 0, false, 0, "photo", 0},
        {50, 37, 3, {{2, 2}, {2, 1}, {1, 2}}, 85, 0, false, 0, "photo", 0},
        {50, 37, 3, {{2, 1}, {1, 2}, {1, 1}}, 85, 0, false, 0, "photo", 0},
        {57, 33, 1, S444, 90, 0, false, 0, "photo", 0},
        {57, 33, 1, {{2, 2}, {1, 1}, {1, 1}}, 90, 0, false, 0, "photo", 0},
    };
    check_cases(cases, sizeof(cases) / sizeof(cases[0]));
}

Test(jpegdec, sizes_not_whole_mcus, .timeout = 600)
{
    static const enc_case cases[] = {
        {1, 1, 3, S420, 90, 0, false, 0, "photo", 0},
        {1, 1, 3, S444, 90, 0, false, 0, "photo", 0},
        {1, 1, 1, S444, 90, 0, false, 0, "photo", 0},
        {2, 2, 3, S420, 90, 0, false, 0, "photo", 0},
        {3, 2, 3, S422, 90, 0, false, 0, "photo", 0},
        {5, 5, 3, S420, 90, 0, false, 0, "photo", 0},
        {17, 9, 3, S420, 90, 0, false, 0, "photo", 0},
        {17, 9, 3, S422, 90, 0, false, 0, "photo", 0},
        {17, 9, 3, S440, 90, 0, false, 0, "photo", 0},
        {17, 9, 1, S444, 90, 0, false, 0, "photo", 0},
        {4097, 3, 3, S420, 90, 0, false, 0, "photo", 0},
        {3, 300, 3, S420, 60, 0, false, 0, "photo", 0},
        {4097, 3, 1, S444, 70, 0, false, 0, "photo", 0},
    };
    check_cases(cases, sizeof(cases) / sizeof(cases[0]));
}

Test(jpegdec, qualities_and_tables, .timeout = 600)
{
    static const int qualities[] = {1, 2, 5, 10, 25, 50, 75, 90, 95, 98, 100};
    enum { NQ = sizeof(qualities) / sizeof(qualities[0]) };
    enc_case cases[NQ * 4];
    size_t n = 0;
    for (int i = 0; i < NQ; i++) {
        cases[n++] = (enc_case){40, 24, 3, S420, qualities[i], 0, false, 0, "photo", 0};
        cases[n++] = (enc_case){40, 24, 3, S444, qualities[i], 0, true, 0, "noise", 0};
        cases[n++] = (enc_case){40, 24, 1, S444, qualities[i], 0, i % 2 == 0, 0, "noise", 0};
        cases[n++] = (enc_case){24, 16, 3, S422, qualities[i], 0, true, 0, "flat", 0};
    }
    check_cases(cases, n);
}

Test(jpegdec, restarts_and_scans, .timeout = 600)
{
    static const enc_case cases[] = {
        {70, 40, 3, S420, 85, 1, false, 0, "photo", 0},
        {70, 40, 3, S420, 85, 3, true, 0, "photo", 0},
        {70, 40, 3, S444, 85, -1, false, 0, "photo", 0},
        {70, 40, 1, S444, 85, 1, false, 0, "photo", 0},
        {70, 40, 1, S444, 85, 7, true, 0, "noise", 0},
        {4097, 3, 3, S420, 90, 2, false, 0, "photo", 0},
        {70, 40, 3, S420, 85, 0, false, 1, "photo", 0},
        {70, 40, 3, S422, 85, 0, true, 1, "photo", 0},
        {70, 40, 3, S420, 85, 0, false, 2, "photo", 0},
        {70, 40, 3, S420, 85, 5, false, 1, "photo", 0},
        {70, 40, 3, S411, 85, 9, true, 2, "photo", 0},
    };
    check_cases(cases, sizeof(cases) / sizeof(cases[0]));
}

/* Files of other writers (tests/data/jpeg/README.md). */
Test(jpegdec, other_writers, .timeout = 600)
{
    static const char *const names[] = {
        "pillow_420_q75.jpg", "pillow_422_q50_optimized.jpg", "pillow_444_q95.jpg",
        "pillow_web_low.jpg", "pillow_gray_q30.jpg",          "pillow_33x17_q100.jpg",
        "magick_440_q80.jpg", "magick_411_q65.jpg",           "magick_gray_q85.jpg",
        "magick_420_q40.jpg",
    };
    th_gpu g;
    th_gpu_open(&g);
    int failed = 0;
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        char path[512];
        snprintf(path, sizeof(path), "%s/tests/data/jpeg/%s", VKFX_SOURCE_ROOT, names[i]);
        size_t size;
        char *data = tc_slurp(path, &size);
        cr_assert(data, "cannot read %s", path);
        int r = both_ways(&g, (unsigned char *)data, size, names[i], NULL);
        if (r == 1)
            cr_log_error("%s: left to libjpeg-turbo", names[i]);
        failed += r != 0;
        free(data);
    }
    th_gpu_close(&g);
    cr_assert_eq(failed, 0);
}

/* Files the GPU does not cover go to libjpeg-turbo without a word. */
Test(jpegdec, other_files_left_to_libjpeg, .timeout = 600)
{
    static const enc_case cases[] = {
        {40, 24, 3, S420, 90, 0, false, 0, "photo", 1},
        {40, 24, 3, S420, 90, 0, false, 0, "photo", 2},
        {40, 24, 1, S444, 90, 0, false, 0, "photo", 1},
        {40, 24, 4, {{1, 1}, {1, 1}, {1, 1}}, 90, 0, false, 0, "noise", 0},
    };
    th_gpu g;
    th_gpu_open(&g);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char what[160];
        describe(&cases[i], what, sizeof(what));
        unsigned long size;
        unsigned char *jpg = encode(&cases[i], &size);
        int cpu = -1;
        cr_expect_eq(both_ways(&g, jpg, size, what, &cpu), 1, "%s: taken by the GPU", what);
        cr_expect_eq(cpu, 0, "%s: libjpeg-turbo refused it", what);
        free(jpg);
    }
    th_gpu_close(&g);
}

static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* Where the first scan's entropy-coded data starts. */
static size_t scan_start(const unsigned char *d, size_t size)
{
    for (size_t i = 2; i + 3 < size;) {
        size_t len = (size_t)d[i + 2] << 8 | d[i + 3];
        if (d[i + 1] == 0xDA)
            return i + 2 + len;
        i += 2 + len;
    }
    cr_assert_fail("no scan");
    return 0;
}

/* Damaged entropy-coded data (bytes changed, or the data cut short before the end-of-image
 * marker): the GPU either gives libjpeg-turbo's bytes for a stream libjpeg-turbo takes without
 * a word, or leaves the file to it; it never takes one libjpeg-turbo refuses or decodes with a
 * warning. */
Test(jpegdec, damaged_streams, .timeout = 600)
{
    static const enc_case cases[] = {
        {48, 40, 3, S420, 80, 0, false, 0, "photo", 0},
        {48, 40, 3, S444, 80, 2, true, 0, "photo", 0},
        {48, 40, 1, S444, 50, 0, false, 1, "photo", 0},
    };
    th_gpu g;
    th_gpu_open(&g);
    uint64_t rng = 42;
    int flagged = 0, damaged = 0, runs = 0;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        unsigned long size;
        unsigned char *jpg = encode(&cases[i], &size);
        size_t start = scan_start(jpg, size), span = size - 2 - start;
        unsigned char *bad = malloc(size + 2);
        for (int k = 0; k < 40; k++) {
            memcpy(bad, jpg, size);
            size_t n = size;
            char what[200];
            if (k % 4 == 3) {
                /* cut short, the end-of-image marker after what is left */
                size_t cut = start + 1 + next_random(&rng) % (span - 1);
                bad[cut] = 0xFF;
                bad[cut + 1] = 0xD9;
                n = cut + 2;
                snprintf(what, sizeof(what), "case %zu cut at %zu of %lu", i, cut, size);
            } else {
                size_t at = start + next_random(&rng) % span;
                bad[at] = (unsigned char)next_random(&rng);
                snprintf(what, sizeof(what), "case %zu byte %zu set to %u", i, at, bad[at]);
            }
            int cpu = 0;
            int r = both_ways(&g, bad, n, what, &cpu);
            cr_expect_neq(r, -1, "%s: bytes differ", what);
            flagged += r == 1;
            damaged += cpu != 0;
            runs++;
        }
        free(bad);
        free(jpg);
    }
    th_gpu_close(&g);
    cr_log_info("%d damaged streams: %d left to libjpeg-turbo, %d refused or warned about by it",
                runs, flagged, damaged);
    /* Both paths taken: the checks above saw the GPU decline as well as decode. */
    cr_expect_gt(damaged, 0);
    cr_expect_lt(flagged, runs);
}

/* Photos settle in the default rounds, with the sizes of subsequence and sequence of a software
 * device and of a GPU, for large files and small ones (core/gpu/jpeg_gpu.c): the subsequences
 * alone decode them. */
Test(jpegdec, photos_settle, .timeout = 600)
{
    static const enc_case cases[] = {
        {300, 200, 3, S420, 85, 0, false, 0, "photo", 0},
        {300, 200, 3, S444, 95, 0, true, 0, "photo", 0},
        {300, 200, 1, S444, 90, 0, false, 0, "photo", 0},
        {4097, 3, 3, S422, 90, 0, false, 0, "photo", 0},
    };
    static const vkfx_jpeg_gpu_opts settle = {.no_retry = true};
    static const vkfx_jpeg_gpu_opts gpu_sizes = {.sub_bits = 512, .lanes = 64, .no_retry = true};
    static const vkfx_jpeg_gpu_opts gpu_small_files = {
        .sub_bits = 256, .lanes = 64, .no_retry = true};
    check_cases_in(cases, sizeof(cases) / sizeof(cases[0]), &settle);
    check_cases_in(cases, sizeof(cases) / sizeof(cases[0]), &gpu_sizes);
    check_cases_in(cases, sizeof(cases) / sizeof(cases[0]), &gpu_small_files);
}

/* What the synchronisation of data in the way o took. */
static vkfx_jpeg_sync_stats sync_stats(th_gpu *g, const unsigned char *data, size_t size,
                                       const vkfx_jpeg_gpu_opts *o)
{
    vkfx_jpeg_layout l;
    cr_assert_eq(vkfx_jpeg_parse(data, size, &l), 0);
    vkfx_graph *graph = NULL;
    vkfx_buffer *dst = NULL, *status = NULL, *notes = NULL;
    vkfx_jpeg_sync_stats st;
    cr_assert_eq(
        vkfx_graph_begin(g->ctx, l.width, l.height, VK_FORMAT_R16G16B16A16_SFLOAT, false, &graph),
        0);
    vkfx_graph_set_staging(graph, g->staging);
    cr_assert_eq(vkfx_graph_buffer(graph, vkfx_jpeg_gpu_bytes(&l), 0, &dst), 0);
    cr_assert_eq(vkfx_graph_buffer(graph, 4, 0, &status), 0);
    cr_assert_eq(vkfx_jpeg_gpu_record_noted(graph, &l, o, dst, status, &notes, &st), 0);
    cr_assert_eq(vkfx_graph_run(graph), 0);
    cr_assert_eq(vkfx_jpeg_gpu_read_stats(g->staging, notes, &st), 0);
    vkfx_graph_destroy(graph);
    vkfx_jpeg_layout_free(&l);
    return st;
}

/* Noise at quality 100 in subsequences of 128 bits, two to a sequence: codes take many
 * sequences to resynchronise, so the rounds that link them move ends again and again. With
 * every round the bytes are libjpeg-turbo's; with one round the sequences have not settled,
 * which the device notices, so that nothing unsettled is ever written. */
Test(jpegdec, noise_in_many_rounds, .timeout = 600)
{
    static const enc_case noise = {48, 32, 3, S444, 100, 0, false, 0, "noise", 0};
    const vkfx_jpeg_gpu_opts all = {
        .sub_bits = 64, .lanes = 2, .rounds = VKFX_JPEG_GPU_ALL_ROUNDS, .no_retry = true};
    const vkfx_jpeg_gpu_opts one = {.sub_bits = 128, .lanes = 2, .rounds = 1, .no_retry = true};
    th_gpu g;
    th_gpu_open(&g);
    unsigned long size;
    unsigned char *jpg = encode(&noise, &size);
    vkfx_jpeg_sync_stats st = sync_stats(&g, jpg, size, &all);
    cr_log_info("%u subsequences, %u sequences: %u turns, last moving round %u of %u, %u decodes",
                st.subsequences, st.sequences, st.turns, st.last_round, st.rounds, st.decodes);
    cr_expect_gt(st.last_round, 2, "the noise settled in %u rounds", st.last_round);
    cr_expect_eq(both_ways_with(&g, jpg, size, "noise, every round", &all, NULL), 0);
    cr_expect_eq(both_ways_with(&g, jpg, size, "noise, one round", &one, NULL), 1);
    free(jpg);
    th_gpu_close(&g);
}

/* The first marker with this code at or after from, or 0. */
static size_t find_marker(const unsigned char *d, size_t size, size_t from, unsigned code)
{
    for (size_t i = from; i + 1 < size; i++)
        if (d[i] == 0xFF && d[i + 1] == code)
            return i;
    return 0;
}

/* The JPEG of case c and where in its entropy-coded data the first marker with this code is. */
static unsigned char *encode_to_marker(const enc_case *c, unsigned code, unsigned long *size,
                                       size_t *at)
{
    unsigned char *jpg = encode(c, size);
    *at = find_marker(jpg, *size, scan_start(jpg, *size), code);
    cr_assert(*at);
    return jpg;
}

/* Markers that lie: restart markers out of order, a frame far larger than its data. The GPU
 * leaves both to libjpeg-turbo, which decodes the first with a warning (a note in a run). */
Test(jpegdec, lying_markers, .timeout = 600)
{
    static const enc_case c = {64, 40, 3, S420, 80, 1, false, 0, "photo", 0};
    th_gpu g;
    th_gpu_open(&g);
    unsigned long size;
    size_t rst;
    unsigned char *jpg = encode_to_marker(&c, 0xD1, &size, &rst);
    jpg[rst + 1] = 0xD3;
    int cpu = 0;
    cr_expect_eq(both_ways(&g, jpg, size, "restart markers out of order", &cpu), 1);
    cr_expect_neq(cpu, 0);
    free(jpg);
    jpg = encode(&c, &size);
    size_t sof = find_marker(jpg, size, 2, 0xC0);
    cr_assert(sof);
    /* 60000 x 60000 from a few kilobytes */
    jpg[sof + 5] = jpg[sof + 7] = 0xEA;
    jpg[sof + 6] = jpg[sof + 8] = 0x60;
    vkfx_pixels px = {0};
    cr_expect_eq(vkfx_jpeg_gpu_decode(g.ctx, g.staging, jpg, size, NULL, &px), 1);
    cr_expect_null(px.data);
    free(jpg);
    th_gpu_close(&g);
}

/* Fill bytes before a stuffed 0xFF in the entropy-coded data, which the standard does not allow:
 * libjpeg-turbo decodes them (as one data byte on its slow path, but with coefficients left over
 * from its fast path, which read them as a marker), so the device leaves them to it. */
Test(jpegdec, fill_bytes_in_data, .timeout = 600)
{
    static const enc_case c = {64, 48, 3, S444, 95, 0, false, 0, "noise", 0};
    enum { FILL = 40 };
    th_gpu g;
    th_gpu_open(&g);
    unsigned long size;
    size_t ff;
    unsigned char *jpg = encode_to_marker(&c, 0x00, &size, &ff);
    unsigned char *filled = malloc(size + FILL);
    cr_assert(filled);
    memcpy(filled, jpg, ff);
    memset(filled + ff, 0xFF, FILL);
    memcpy(filled + ff + FILL, jpg + ff, size - ff);
    int cpu = -1;
    cr_expect_eq(both_ways(&g, filled, size + FILL, "fill bytes before a stuffed 0xFF", &cpu), 1);
    cr_expect_eq(cpu, 0, "libjpeg-turbo refused the fill bytes");
    free(filled);
    free(jpg);
    th_gpu_close(&g);
}
