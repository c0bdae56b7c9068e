/* OpenEXR in and out. The files are made here with OpenEXRCore's own
 * writer (scanline and tiled, the lossless compressions, half, float and
 * uint channels, layer-prefixed names, data windows that differ from the
 * display window), so nothing large is committed:
 * - vkfx's half output reads back as the half rounding of what was written,
 *   float output exactly, premultiplied and unclamped (HDR values, negative
 *   values, alpha kept as it was);
 * - every storage and compression reads back exactly;
 * - colour and depth channels are found by name (R/G/B/A, Y, "layer.R";
 *   Z, "*.Z", "*depth*"; FILE.exr#NAME), a missing one is a usage error
 *   listing the channels the file has;
 * - the display window is the image, the data window placed in it;
 * - truncated and damaged files are rejected with a message, never a crash;
 * - on the GPU, satdof (within 1 code value) and dof (within 2) with a
 *   generated depth ramp in scene units (depth=FILE.exr, depth=FILE.exr#Z,
 *   depth=self) match the references computed from the same float depths, and an EXR chain keeps
 * HDR values and premultiplied colour end to end through the CLI. */
#include <criterion/criterion.h>
#include <math.h>
#include <openexr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "error.h"
#include "exr.h"
#include "fileio.h"
#include "gpu_harness.h"
#include "half.h"
#include "run_binary.h"

typedef struct test_channel {
    const char *name;
    exr_pixel_type_t type;
} test_channel;

typedef struct test_exr {
    exr_storage_t storage;
    exr_compression_t compression;
    int32_t w, h;          /* the display window, at (0, 0) */
    exr_attr_box2i_t data; /* the data window; w x h from (0, 0) when all zero */
    int nch;
    test_channel ch[6];
    /* Samples: data window size x nch floats, channel-interleaved (uint
     * channels take the float's value as an integer). */
    const float *samples;
} test_exr;

/* Sets more header attributes of the files write_test_exr writes; NULL: none. */
static void (*test_exr_attributes)(exr_context_t ctxt, int part);

static exr_attr_box2i_t box(int32_t x0, int32_t y0, int32_t x1, int32_t y1)
{
    exr_attr_box2i_t b;
    memset(&b, 0, sizeof(b));
    b.min.x = x0, b.min.y = y0, b.max.x = x1, b.max.y = y1;
    return b;
}

/* Writes t to path with the library's own writer. */
static void write_test_exr(const char *path, const test_exr *t)
{
    exr_context_t ctxt = NULL;
    exr_context_initializer_t init = EXR_DEFAULT_CONTEXT_INITIALIZER;
    cr_assert_eq(exr_start_write(&ctxt, path, EXR_WRITE_FILE_DIRECTLY, &init), EXR_ERR_SUCCESS);
    int part = 0;
    cr_assert_eq(exr_add_part(ctxt, "", t->storage, &part), EXR_ERR_SUCCESS);
    exr_attr_box2i_t display = box(0, 0, t->w - 1, t->h - 1);
    exr_attr_box2i_t data = t->data;
    if (!data.min.x && !data.min.y && !data.max.x && !data.max.y)
        data = display;
    exr_attr_v2f_t centre;
    memset(&centre, 0, sizeof(centre));
    cr_assert_eq(exr_initialize_required_attr(ctxt, part, &display, &data, 1.0f, &centre, 1.0f,
                                              EXR_LINEORDER_INCREASING_Y, t->compression),
                 EXR_ERR_SUCCESS);
    for (int c = 0; c < t->nch; c++)
        cr_assert_eq(exr_add_channel(ctxt, part, t->ch[c].name, t->ch[c].type,
                                     EXR_PERCEPTUALLY_LINEAR, 1, 1),
                     EXR_ERR_SUCCESS);
    int32_t tw = 16, th = 8;
    if (t->storage == EXR_STORAGE_TILED)
        cr_assert_eq(exr_set_tile_descriptor(ctxt, part, (uint32_t)tw, (uint32_t)th,
                                             EXR_TILE_ONE_LEVEL, EXR_TILE_ROUND_DOWN),
                     EXR_ERR_SUCCESS);
    if (test_exr_attributes)
        test_exr_attributes(ctxt, part);
    cr_assert_eq(exr_write_header(ctxt), EXR_ERR_SUCCESS);
    int32_t dw = data.max.x - data.min.x + 1, dh = data.max.y - data.min.y + 1;
    /* uint channels take integer copies of the samples. */
    uint32_t *ints = malloc((size_t)dw * dh * t->nch * sizeof(*ints));
    cr_assert(ints);
    float *planes = malloc((size_t)dw * dh * t->nch * sizeof(*planes));
    cr_assert(planes);
    for (size_t i = 0; i < (size_t)dw * dh; i++)
        for (int k = 0; k < t->nch; k++) {
            planes[(size_t)k * dw * dh + i] = t->samples[i * t->nch + k];
            ints[(size_t)k * dw * dh + i] = (uint32_t)t->samples[i * t->nch + k];
        }
    exr_encode_pipeline_t enc = EXR_ENCODE_PIPELINE_INITIALIZER;
    bool started = false;
    int32_t lines = 1, nx = 1, ny;
    if (t->storage == EXR_STORAGE_TILED) {
        nx = (dw + tw - 1) / tw;
        ny = (dh + th - 1) / th;
    } else {
        cr_assert_eq(exr_get_scanlines_per_chunk(ctxt, part, &lines), EXR_ERR_SUCCESS);
        ny = (dh + lines - 1) / lines;
    }
    for (int32_t ty = 0; ty < ny; ty++)
        for (int32_t tx = 0; tx < nx; tx++) {
            exr_chunk_info_t ci;
            int32_t x0 = 0, y0;
            if (t->storage == EXR_STORAGE_TILED) {
                cr_assert_eq(exr_write_tile_chunk_info(ctxt, part, tx, ty, 0, 0, &ci),
                             EXR_ERR_SUCCESS);
                x0 = tx * tw;
                y0 = ty * th;
            } else {
                cr_assert_eq(
                    exr_write_scanline_chunk_info(ctxt, part, data.min.y + ty * lines, &ci),
                    EXR_ERR_SUCCESS);
                y0 = ty * lines;
            }
            if (started)
                exr_encoding_destroy(ctxt, &enc);
            enc = (exr_encode_pipeline_t)EXR_ENCODE_PIPELINE_INITIALIZER;
            cr_assert_eq(exr_encoding_initialize(ctxt, part, &ci, &enc), EXR_ERR_SUCCESS);
            started = true;
            for (int c = 0; c < enc.channel_count; c++) {
                int k = 0;
                while (strcmp(enc.channels[c].channel_name, t->ch[k].name) != 0)
                    k++;
                bool u = t->ch[k].type == EXR_PIXEL_UINT;
                /* Planar: the library's interleaved fast paths assume file order. */
                size_t at = (size_t)k * dw * dh + (size_t)y0 * dw + x0;
                enc.channels[c].encode_from_ptr =
                    u ? (const uint8_t *)(ints + at) : (const uint8_t *)(planes + at);
                enc.channels[c].user_pixel_stride = 4;
                enc.channels[c].user_line_stride = dw * 4;
                enc.channels[c].user_bytes_per_element = 4;
                enc.channels[c].user_data_type = u ? EXR_PIXEL_UINT : EXR_PIXEL_FLOAT;
            }
            cr_assert_eq(exr_encoding_choose_default_routines(ctxt, part, &enc), EXR_ERR_SUCCESS);
            cr_assert_eq(exr_encoding_run(ctxt, part, &enc), EXR_ERR_SUCCESS);
        }
    if (started)
        exr_encoding_destroy(ctxt, &enc);
    cr_assert_eq(exr_finish(&ctxt), EXR_ERR_SUCCESS);
    free(ints);
    free(planes);
}

static float half_of(float v)
{
    return vkfx_half_round(v);
}

/* Samples with HDR values, negatives and tiny ones; alpha in [0,1]. */
static float *test_samples(size_t n, int nch, uint64_t seed)
{
    float *s = malloc(n * nch * sizeof(*s));
    cr_assert(s);
    uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1;
    for (size_t i = 0; i < n * nch; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        double u = (double)(x >> 11) / 9007199254740992.0;
        bool alpha = (nch == 2 || nch == 4) && (int)(i % nch) == nch - 1;
        s[i] = alpha ? (float)u : (float)(i % 7 == 0 ? u * 40.0 - 8.0 : u * u * 1e-3 + u);
    }
    return s;
}

Test(exr, round_trip_half_and_float)
{
    cr_assert_eq(tc_tmpdir_make("exr"), 0);
    static const uint32_t sizes[][2] = {{1, 1}, {37, 23}, {1, 65}};
    for (size_t si = 0; si < 3; si++)
        for (uint32_t nch = 1; nch <= 4; nch++)
            for (int fl = 0; fl <= 1; fl++) {
                uint32_t w = sizes[si][0], h = sizes[si][1];
                vkfx_pixels px = {.linear = true, .straight = false};
                cr_assert_eq(vkfx_pixels_alloc(&px, w, h, nch, VKFX_SAMPLE_F32), VKFX_OK);
                float *s = test_samples((size_t)w * h, (int)nch, si * 10 + nch);
                memcpy(px.data, s, (size_t)w * h * nch * sizeof(float));
                vkfx_save_opts o = {.exr_float = fl};
                cr_assert_eq(vkfx_file_save(tc_tpath("rt.exr"), VKFX_FILE_EXR, &px, &o), VKFX_OK,
                             "%s", vkfx_error_message());
                vkfx_pixels back;
                cr_assert_eq(vkfx_file_load(tc_tpath("rt.exr"), &back), VKFX_OK, "%s",
                             vkfx_error_message());
                cr_assert(back.width == w && back.height == h && back.channels == nch &&
                          back.sample == VKFX_SAMPLE_F32 && back.linear && !back.straight);
                const float *b = back.data;
                for (size_t i = 0; i < (size_t)w * h * nch; i++) {
                    float want = fl ? s[i] : half_of(s[i]);
                    cr_assert(b[i] == want, "%ux%u %uch %s: sample %zu got %.9g want %.9g", w, h,
                              nch, fl ? "float" : "half", i, b[i], want);
                }
                vkfx_pixels_free(&back);
                vkfx_pixels_free(&px);
                free(s);
            }
    tc_tmpdir_remove();
}

Test(exr, scanline_and_tiled_every_lossless_compression)
{
    cr_assert_eq(tc_tmpdir_make("exrc"), 0);
    static const exr_compression_t comps[] = {EXR_COMPRESSION_NONE, EXR_COMPRESSION_RLE,
                                              EXR_COMPRESSION_ZIPS, EXR_COMPRESSION_ZIP,
                                              EXR_COMPRESSION_PIZ};
    const int32_t w = 45, h = 31;
    float *s = test_samples((size_t)w * h, 4, 3);
    for (int tiled = 0; tiled <= 1; tiled++)
        for (size_t c = 0; c < sizeof(comps) / sizeof(comps[0]); c++)
            for (int type = 0; type < 2; type++) {
                /* OpenEXRCore 3.1.5's writer makes tiled ZIP/ZIPS blocks that
                 * no reader decodes (the C++ library's tiled ZIP files read
                 * here exactly), so tiles are made with NONE, RLE and PIZ. */
                if (tiled && (comps[c] == EXR_COMPRESSION_ZIP || comps[c] == EXR_COMPRESSION_ZIPS))
                    continue;
                exr_pixel_type_t pt = type ? EXR_PIXEL_FLOAT : EXR_PIXEL_HALF;
                test_exr t = {tiled ? EXR_STORAGE_TILED : EXR_STORAGE_SCANLINE,
                              comps[c],
                              w,
                              h,
                              box(0, 0, 0, 0),
                              4,
                              {{"R", pt}, {"G", pt}, {"B", pt}, {"A", pt}},
                              s};
                write_test_exr(tc_tpath("c.exr"), &t);
                vkfx_pixels back;
                cr_assert_eq(vkfx_file_load(tc_tpath("c.exr"), &back), VKFX_OK, "%s",
                             vkfx_error_message());
                cr_assert(back.width == (uint32_t)w && back.height == (uint32_t)h &&
                          back.channels == 4);
                const float *b = back.data;
                for (size_t i = 0; i < (size_t)w * h * 4; i++) {
                    float want = type ? s[i] : half_of(s[i]);
                    cr_assert(b[i] == want, "%s compression %d %s: sample %zu got %g want %g",
                              tiled ? "tiled" : "scanline", (int)comps[c], type ? "float" : "half",
                              i, b[i], want);
                }
                vkfx_pixels_free(&back);
            }
    free(s);
    tc_tmpdir_remove();
}

/* A 6x4 file with the given channels, channel k of pixel i holding
 * 100 k + i (integers, exact in half). */
static void write_named(const char *path, int nch, const test_channel *ch)
{
    float s[6 * 4 * 6];
    for (int i = 0; i < 24; i++)
        for (int k = 0; k < nch; k++)
            s[i * nch + k] = (float)(100 * k + i);
    test_exr t = {EXR_STORAGE_SCANLINE, EXR_COMPRESSION_ZIP, 6, 4, box(0, 0, 0, 0), nch, {{0}}, s};
    for (int k = 0; k < nch; k++)
        t.ch[k] = ch[k];
    write_test_exr(path, &t);
}

static void expect_map(const char *spec, float base)
{
    vkfx_pixels m;
    cr_assert_eq(vkfx_file_load_map(spec, &m), VKFX_OK, "%s: %s", spec, vkfx_error_message());
    cr_assert(m.channels == 1 && m.sample == VKFX_SAMPLE_F32 && m.width == 6 && m.height == 4);
    for (int i = 0; i < 24; i++)
        cr_assert_eq(((const float *)m.data)[i], base + (float)i, "%s pixel %d", spec, i);
    vkfx_pixels_free(&m);
}

Test(exr, channel_selection)
{
    cr_assert_eq(tc_tmpdir_make("exrch"), 0);
    const exr_pixel_type_t H = EXR_PIXEL_HALF, F = EXR_PIXEL_FLOAT, U = EXR_PIXEL_UINT;
    /* Plain names: Z is the depth; any channel by name. */
    write_named(tc_tpath("plain.exr"), 4, (test_channel[]){{"R", H}, {"G", H}, {"B", H}, {"Z", F}});
    char spec[512];
    expect_map(tc_tpath("plain.exr"), 300);
    snprintf(spec, sizeof(spec), "%s#G", tc_tpath("plain.exr"));
    expect_map(spec, 100);
    /* A render's layers: colour from the first layer with R, depth from *.Z. */
    write_named(tc_tpath("layers.exr"), 4,
                (test_channel[]){{"ViewLayer.Combined.R", F},
                                 {"ViewLayer.Combined.G", F},
                                 {"ViewLayer.Combined.B", F},
                                 {"ViewLayer.Depth.Z", F}});
    expect_map(tc_tpath("layers.exr"), 300);
    vkfx_pixels colour;
    cr_assert_eq(vkfx_file_load(tc_tpath("layers.exr"), &colour), VKFX_OK, "%s",
                 vkfx_error_message());
    cr_assert_eq(colour.channels, 3);
    cr_assert_eq(((const float *)colour.data)[3 * 5 + 1], 105.0f, "G of pixel 5");
    vkfx_pixels_free(&colour);
    /* A name containing "depth", in uint. */
    write_named(tc_tpath("named.exr"), 4,
                (test_channel[]){{"B", H}, {"G", H}, {"R", H}, {"camera_Depth", U}});
    expect_map(tc_tpath("named.exr"), 300);
    /* Gray with alpha. */
    write_named(tc_tpath("ya.exr"), 2, (test_channel[]){{"Y", H}, {"A", H}});
    cr_assert_eq(vkfx_file_load(tc_tpath("ya.exr"), &colour), VKFX_OK);
    cr_assert_eq(colour.channels, 2);
    vkfx_pixels_free(&colour);
    /* No depth: the error lists what there is. */
    write_named(tc_tpath("nodepth.exr"), 3, (test_channel[]){{"R", H}, {"G", H}, {"B", H}});
    vkfx_pixels m;
    cr_assert_eq(vkfx_file_load_map(tc_tpath("nodepth.exr"), &m), VKFX_E_USAGE);
    cr_assert(strstr(vkfx_error_message(), "has no depth channel") &&
                  strstr(vkfx_error_message(), "B, G, R"),
              "%s", vkfx_error_message());
    snprintf(spec, sizeof(spec), "%s#depth.Z", tc_tpath("plain.exr"));
    cr_assert_eq(vkfx_file_load_map(spec, &m), VKFX_E_USAGE);
    cr_assert(strstr(vkfx_error_message(), "no channel 'depth.Z'") &&
                  strstr(vkfx_error_message(), "B, G, R, Z"),
              "%s", vkfx_error_message());
    /* No colour at all. */
    write_named(tc_tpath("zonly.exr"), 1, (test_channel[]){{"Z", F}});
    cr_assert_eq(vkfx_file_load(tc_tpath("zonly.exr"), &m), VKFX_E_FORMAT);
    cr_assert(strstr(vkfx_error_message(), "no colour channels"), "%s", vkfx_error_message());
    tc_tmpdir_remove();
}

Test(exr, display_window_is_the_image)
{
    cr_assert_eq(tc_tmpdir_make("exrdw"), 0);
    /* Data window 4x3 at (2, 1) inside a 7x5 display window, and one that
     * sticks out of it at (-2, -1). */
    const exr_attr_box2i_t windows[] = {box(2, 1, 5, 3), box(-2, -1, 1, 1)};
    for (int k = 0; k < 2; k++) {
        exr_attr_box2i_t d = windows[k];
        int dw = d.max.x - d.min.x + 1, dh = d.max.y - d.min.y + 1;
        float s[4 * 3 * 3];
        for (int i = 0; i < dw * dh * 3; i++)
            s[i] = (float)(i + 1);
        test_exr t = {EXR_STORAGE_SCANLINE,
                      EXR_COMPRESSION_NONE,
                      7,
                      5,
                      d,
                      3,
                      {{"B", EXR_PIXEL_FLOAT}, {"G", EXR_PIXEL_FLOAT}, {"R", EXR_PIXEL_FLOAT}},
                      s};
        write_test_exr(tc_tpath("dw.exr"), &t);
        vkfx_pixels px;
        cr_assert_eq(vkfx_file_load(tc_tpath("dw.exr"), &px), VKFX_OK, "%s", vkfx_error_message());
        cr_assert(px.width == 7 && px.height == 5);
        const float *p = px.data;
        for (int y = 0; y < 5; y++)
            for (int x = 0; x < 7; x++) {
                int sx = x - d.min.x, sy = y - d.min.y;
                bool in = sx >= 0 && sx < dw && sy >= 0 && sy < dh;
                for (int c = 0; c < 3; c++) {
                    /* File channel order was B, G, R; the pixels are R, G, B. */
                    float want = in ? s[(sy * dw + sx) * 3 + (2 - c)] : 0.0f;
                    cr_assert_eq(p[(y * 7 + x) * 3 + c], want, "window %d (%d,%d) c%d", k, x, y, c);
                }
            }
        vkfx_pixels_free(&px);
    }
    tc_tmpdir_remove();
}

Test(exr, corrupt_files_rejected)
{
    cr_assert_eq(tc_tmpdir_make("exrbad"), 0);
    float s[45 * 31 * 4];
    for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++)
        s[i] = (float)(i % 97) / 7.0f;
    test_exr t = {EXR_STORAGE_SCANLINE,
                  EXR_COMPRESSION_ZIP,
                  45,
                  31,
                  box(0, 0, 0, 0),
                  4,
                  {{"R", EXR_PIXEL_HALF},
                   {"G", EXR_PIXEL_HALF},
                   {"B", EXR_PIXEL_HALF},
                   {"A", EXR_PIXEL_HALF}},
                  s};
    write_test_exr(tc_tpath("good.exr"), &t);
    FILE *f = fopen(tc_tpath("good.exr"), "rb");
    cr_assert(f);
    unsigned char buf[65536];
    size_t n = fread(buf, 1, sizeof(buf), f);
    fclose(f);
    cr_assert(n > 200 && n < sizeof(buf));
    vkfx_pixels px;
    /* Cut anywhere: in the header, in the offset table, in the pixels. */
    for (size_t cut = 4; cut < n; cut += cut < 400 ? 7 : 211) {
        int ret = vkfx_file_load_memory(buf, cut, "cut.exr", &px);
        cr_assert(ret == VKFX_E_FORMAT, "cut at %zu of %zu: got %d (%s)", cut, n, ret,
                  vkfx_error_message());
        cr_assert(strstr(vkfx_error_message(), "cut.exr"), "%s", vkfx_error_message());
    }
    /* Damaged bytes: never a crash; either an error or an image. */
    for (size_t at = 8; at < n; at += 13) {
        unsigned char copy[65536];
        memcpy(copy, buf, n);
        copy[at] ^= 0x5a;
        int ret = vkfx_file_load_memory(copy, n, "flip.exr", &px);
        if (ret == VKFX_OK)
            vkfx_pixels_free(&px);
        else
            cr_assert(ret == VKFX_E_FORMAT || ret == VKFX_E_NOMEM, "byte %zu: %d (%s)", at, ret,
                      vkfx_error_message());
    }
    tc_tmpdir_remove();
}

static int ref_sat_fn(const ref_image *in, ref_image *out, const void *arg, int precision)
{
    (void)precision;
    return ref_satblur(in, arg, out);
}

/* dof with the circle of confusion of the float depth in arg (ref_sat_params). */
static int ref_dof_fn(const ref_image *in, ref_image *out, const void *arg, int precision)
{
    const ref_sat_params *p = arg;
    size_t n = (size_t)in->w * in->h;
    double *coc = malloc(n * sizeof(*coc));
    if (!coc)
        return VKFX_E_NOMEM;
    for (size_t i = 0; i < n; i++)
        coc[i] = ref_coc(ref_map_value(p->map, i), p->coc);
    int ret = ref_dof(in, coc, 1.0, precision == 16, out);
    free(coc);
    return ret;
}

/* RGB in [0,1] and a depth ramp in metres, z = 2 + 8 x / (w - 1). */
static void write_render(const char *path, uint32_t w, uint32_t h, vkfx_pixels *colour,
                         vkfx_pixels *depth)
{
    tc_random_pixels(colour, w, h, 3, VKFX_SAMPLE_F32, 77);
    colour->straight = false;
    cr_assert_eq(vkfx_pixels_alloc(depth, w, h, 1, VKFX_SAMPLE_F32), VKFX_OK);
    depth->linear = true;
    float *s = malloc((size_t)w * h * 4 * sizeof(*s));
    cr_assert(s);
    for (uint32_t i = 0; i < w * h; i++) {
        uint32_t x = i % w;
        /* Half colour (so the file holds exactly what the reference sees),
         * float depth. */
        for (int c = 0; c < 3; c++) {
            float v = half_of(((float *)colour->data)[i * 3 + c]);
            ((float *)colour->data)[i * 3 + c] = v;
            s[i * 4 + (2 - c)] = v;
        }
        float z = 2.0f + 8.0f * (float)x / (float)(w - 1);
        ((float *)depth->data)[i] = z;
        s[i * 4 + 3] = z;
    }
    test_exr t = {EXR_STORAGE_TILED,
                  EXR_COMPRESSION_PIZ,
                  (int32_t)w,
                  (int32_t)h,
                  box(0, 0, 0, 0),
                  4,
                  {{"B", EXR_PIXEL_HALF},
                   {"G", EXR_PIXEL_HALF},
                   {"R", EXR_PIXEL_HALF},
                   {"Z", EXR_PIXEL_FLOAT}},
                  s};
    write_test_exr(path, &t);
    free(s);
}

Test(exr, depth_of_field_from_a_render)
{
    cr_assert_eq(tc_tmpdir_make("exrdof"), 0);
    th_gpu g;
    th_gpu_open(&g);
    vkfx_pixels colour, depth;
    write_render(tc_tpath("render.exr"), 97, 61, &colour, &depth);
    /* Focus 5 m, full blur 3 m away: coc 0 at z = 5, 8 px from z = 8 on. */
    ref_coc_params coc = {5.0, 3.0, 8.0, false};
    ref_sat_params p = {.map = &depth, .coc = &coc};
    int failures = 0;
    const char *suffix[] = {"", "#Z"};
    for (int k = 0; k < 2; k++) {
        char chain[512];
        snprintf(chain, sizeof(chain), "satdof:depth=%s%s:focus=5:range=3:maxcoc=8",
                 tc_tpath("render.exr"), suffix[k]);
        th_case c = {chain, ref_sat_fn, &p, 32, 1};
        failures += !th_check(&g, &c, &colour, 3, VKFX_SAMPLE_U8, "render");
        snprintf(chain, sizeof(chain), "dof:depth=%s%s:focus=5:range=3:maxcoc=8",
                 tc_tpath("render.exr"), suffix[k]);
        th_case d = {chain, ref_dof_fn, &p, 32, 2};
        failures += !th_check(&g, &d, &colour, 3, VKFX_SAMPLE_U8, "render");
    }
    /* The expected circle of confusion itself, from the ramp. */
    for (uint32_t x = 0; x < 97; x++) {
        double z = 2.0 + 8.0 * x / 96.0;
        double want = 8.0 * fmin(fabs(z - 5.0) / 3.0, 1.0);
        cr_assert_float_eq(ref_coc(((float *)depth.data)[x], &coc), want, 1e-5);
    }
    th_gpu_close(&g);
    /* depth=self through the CLI: the same bytes as naming the file. */
    cli_run a, b;
    char self_out[512], file_out[512], chain[512];
    snprintf(self_out, sizeof(self_out), "%s", tc_tpath("self.png"));
    snprintf(file_out, sizeof(file_out), "%s", tc_tpath("file.png"));
    VKFX(&a, tc_tpath("render.exr"), "-f", "satdof:depth=self:focus=5:range=3:maxcoc=8", "-o",
         self_out);
    cr_assert_eq(a.status, 0, "%s: %s", a.cmd, a.err);
    snprintf(chain, sizeof(chain), "satdof:depth=%s#Z:focus=5:range=3:maxcoc=8",
             tc_tpath("render.exr"));
    VKFX(&b, tc_tpath("render.exr"), "-f", chain, "-o", file_out);
    cr_assert_eq(b.status, 0, "%s: %s", b.cmd, b.err);
    vkfx_pixels x, y;
    cr_assert_eq(vkfx_file_load(self_out, &x), VKFX_OK);
    cr_assert_eq(vkfx_file_load(file_out, &y), VKFX_OK);
    cr_assert(memcmp(x.data, y.data, vkfx_pixels_bytes(&x)) == 0, "depth=self differs");
    vkfx_pixels_free(&x);
    vkfx_pixels_free(&y);
    run_free(&a);
    run_free(&b);
    /* A PNG input has no depth channel to offer. */
    cli_run c;
    VKFX(&c, self_out, "-f", "satdof:depth=self", "-o", tc_tpath("no.png"));
    cr_assert_eq(c.status, 2, "%s: %d %s", c.cmd, c.status, c.err);
    cr_assert(strstr(c.err, "not an OpenEXR file"), "%s", c.err);
    run_free(&c);
    vkfx_pixels_free(&colour);
    vkfx_pixels_free(&depth);
    tc_tmpdir_remove();
    cr_assert_eq(failures, 0, "%d comparisons out of tolerance (worst pixels above)", failures);
}

Test(exr, hdr_and_premultiplied_colour_survive_a_chain)
{
    cr_assert_eq(tc_tmpdir_make("exrhdr"), 0);
    /* A flat 20x10 RGBA image: colour 6.5 (premultiplied, alpha 0.5). */
    vkfx_pixels px = {.linear = true, .straight = false};
    cr_assert_eq(vkfx_pixels_alloc(&px, 20, 10, 4, VKFX_SAMPLE_F32), VKFX_OK);
    for (int i = 0; i < 200; i++) {
        float *p = (float *)px.data + i * 4;
        p[0] = 6.5f, p[1] = 0.25f, p[2] = 100.0f, p[3] = 0.5f;
    }
    cr_assert_eq(vkfx_file_save(tc_tpath("in.exr"), VKFX_FILE_EXR, &px, NULL), VKFX_OK);
    /* At rgba16f (forced) the flat image comes back exactly: the filters' sums
     * round to the same half. At rgba32f (--precision auto for a float input)
     * it comes back within the float rounding of the Gaussian's and the
     * summed-area table's sums. */
    for (int run = 0; run < 4; run++) {
        bool fl = run & 1, half = run < 2;
        const char *const args[] = {tc_tpath("in.exr"), "-f", "gauss:sigma=2,satblur:radius=3",
                                    "-o", tc_tpath("out.exr"), "--precision", half ? "16" : "auto",
                                    fl ? "--exr-float" : NULL, NULL};
        cli_run r;
        run_with(&r, NULL, args);
        cr_assert_eq(r.status, 0, "%s: %s", r.cmd, r.err);
        run_free(&r);
        vkfx_pixels out;
        cr_assert_eq(vkfx_file_load(tc_tpath("out.exr"), &out), VKFX_OK);
        cr_assert(out.channels == 4 && out.width == 20 && out.height == 10);
        const float want[4] = {6.5f, 0.25f, 100.0f, 0.5f};
        for (int i = 0; i < 200; i++) {
            const float *p = (const float *)out.data + i * 4;
            for (int c = 0; c < 4; c++)
                cr_assert(half ? p[c] == want[c] : fabsf(p[c] - want[c]) <= 1e-5f * want[c],
                          "%s output, %s: pixel %d: %.9g %.9g %.9g %.9g", fl ? "float" : "half",
                          half ? "rgba16f" : "rgba32f", i, p[0], p[1], p[2], p[3]);
        }
        vkfx_pixels_free(&out);
    }
    vkfx_pixels_free(&px);
    tc_tmpdir_remove();
}

/* The bytes the library writes, kept (it removes a file it did not finish). */
typedef struct header_bytes {
    unsigned char data[1 << 16];
    size_t size;
} header_bytes;

static int64_t keep_bytes(exr_const_context_t ctxt, void *user, const void *buffer, uint64_t sz,
                          uint64_t offset, exr_stream_error_func_ptr_t error_cb)
{
    (void)ctxt;
    (void)error_cb;
    header_bytes *h = user;
    cr_assert(offset + sz <= sizeof(h->data));
    memcpy(h->data + offset, buffer, (size_t)sz);
    if (offset + sz > h->size)
        h->size = (size_t)(offset + sz);
    return (int64_t)sz;
}

/* A file of a header declaring this image, and no pixels after it: the
 * checks that bound memory must refuse it before anything is allocated for
 * pixels. */
static void write_header_only(const char *path, exr_storage_t storage, int32_t w, int32_t h,
                              int nch, int32_t tile)
{
    exr_context_t ctxt = NULL;
    exr_context_initializer_t init = EXR_DEFAULT_CONTEXT_INITIALIZER;
    static header_bytes bytes;
    bytes.size = 0;
    init.user_data = &bytes;
    init.write_fn = keep_bytes;
    cr_assert_eq(exr_start_write(&ctxt, path, EXR_WRITE_FILE_DIRECTLY, &init), EXR_ERR_SUCCESS);
    int part = 0;
    cr_assert_eq(exr_add_part(ctxt, "", storage, &part), EXR_ERR_SUCCESS);
    exr_attr_box2i_t win = box(0, 0, w - 1, h - 1);
    exr_attr_v2f_t centre;
    memset(&centre, 0, sizeof(centre));
    cr_assert_eq(exr_initialize_required_attr(ctxt, part, &win, &win, 1.0f, &centre, 1.0f,
                                              EXR_LINEORDER_INCREASING_Y, EXR_COMPRESSION_ZIP),
                 EXR_ERR_SUCCESS);
    for (int c = 0; c < nch; c++) {
        static const char *const rgba[] = {"R", "G", "B", "A"};
        char name[16];
        if (c < 4)
            snprintf(name, sizeof(name), "%s", rgba[c]);
        else
            snprintf(name, sizeof(name), "c%04d", c);
        cr_assert_eq(exr_add_channel(ctxt, part, name, EXR_PIXEL_HALF, EXR_PERCEPTUALLY_LINEAR,
                                     1, 1),
                     EXR_ERR_SUCCESS);
    }
    if (storage == EXR_STORAGE_TILED)
        cr_assert_eq(exr_set_tile_descriptor(ctxt, part, (uint32_t)tile, (uint32_t)tile,
                                             EXR_TILE_ONE_LEVEL, EXR_TILE_ROUND_DOWN),
                     EXR_ERR_SUCCESS);
    cr_assert_eq(exr_write_header(ctxt), EXR_ERR_SUCCESS);
    exr_finish(&ctxt);
    FILE *f = fopen(path, "wb");
    cr_assert(f && fwrite(bytes.data, 1, bytes.size, f) == bytes.size && fclose(f) == 0);
}

/* Memory is bounded by --max-pixels counting every channel (a file of many
 * channels within the pixel limit is refused), and a tiled file whose chunk
 * table cannot be in it is refused before its image is allocated: both from
 * the header, in milliseconds. */
Test(exr, memory_bounded_by_the_limit)
{
    cr_assert_eq(tc_tmpdir_make("exrmem"), 0);
    vkfx_pixels px;
    vkfx_file_set_max_pixels(100000);
    write_header_only(tc_tpath("many.exr"), EXR_STORAGE_SCANLINE, 64, 64, 1024, 0);
    double t0 = tc_seconds();
    int ret = vkfx_file_load(tc_tpath("many.exr"), &px);
    cr_assert_eq(ret, VKFX_E_LIMIT, "%d: %s", ret, vkfx_error_message());
    cr_assert(strstr(vkfx_error_message(), "1024 channels"), "%s", vkfx_error_message());
    /* Four channels of the same size are within it (and then the missing
     * pixels are the error). */
    write_header_only(tc_tpath("four.exr"), EXR_STORAGE_SCANLINE, 64, 64, 4, 0);
    ret = vkfx_file_load(tc_tpath("four.exr"), &px);
    cr_assert_eq(ret, VKFX_E_FORMAT, "%d: %s", ret, vkfx_error_message());
    vkfx_file_set_max_pixels(0);
    /* 16384 x 16384 (the default limit) in 1x1 tiles: 2 GiB of chunk table
     * in a file of a few hundred bytes. */
    write_header_only(tc_tpath("tiled.exr"), EXR_STORAGE_TILED, 16384, 16384, 1, 1);
    ret = vkfx_file_load(tc_tpath("tiled.exr"), &px);
    cr_assert_eq(ret, VKFX_E_FORMAT, "%d: %s", ret, vkfx_error_message());
    cr_assert(strstr(vkfx_error_message(), "chunks does not fit"), "%s", vkfx_error_message());
    write_header_only(tc_tpath("tiled64.exr"), EXR_STORAGE_TILED, 16384, 16384, 3, 64);
    ret = vkfx_file_load(tc_tpath("tiled64.exr"), &px);
    cr_assert_eq(ret, VKFX_E_FORMAT, "%d: %s", ret, vkfx_error_message());
    cr_assert(tc_seconds() - t0 < 2.0, "the refusals took %.2f s", tc_seconds() - t0);
    tc_tmpdir_remove();
}

/* A damaged B44 block is a format error naming the block, never "out of
 * host memory". */
Test(exr, corrupt_b44_block_is_a_format_error)
{
    cr_assert_eq(tc_tmpdir_make("exrb44"), 0);
    float s[40 * 24 * 3];
    for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++)
        s[i] = (float)(i % 89) / 11.0f;
    test_exr t = {EXR_STORAGE_SCANLINE,
                  EXR_COMPRESSION_B44,
                  40,
                  24,
                  box(0, 0, 0, 0),
                  3,
                  {{"R", EXR_PIXEL_HALF}, {"G", EXR_PIXEL_HALF}, {"B", EXR_PIXEL_HALF}},
                  s};
    write_test_exr(tc_tpath("b44.exr"), &t);
    size_t n;
    unsigned char *buf = (unsigned char *)tc_slurp(tc_tpath("b44.exr"), &n);
    cr_assert(buf && n > 300);
    vkfx_pixels px;
    cr_assert_eq(vkfx_file_load_memory(buf, n, "b44.exr", &px), VKFX_OK, "%s",
                 vkfx_error_message());
    vkfx_pixels_free(&px);
    int formats = 0;
    for (size_t at = 8; at < n; at++)
        for (int bit = 0; bit < 8; bit += 3) {
            buf[at] ^= (unsigned char)(1u << bit);
            int ret = vkfx_file_load_memory(buf, n, "b44.exr", &px);
            buf[at] ^= (unsigned char)(1u << bit);
            if (ret == VKFX_OK) {
                vkfx_pixels_free(&px);
                continue;
            }
            cr_assert((ret == VKFX_E_FORMAT || ret == VKFX_E_LIMIT) &&
                          strstr(vkfx_error_message(), "b44.exr"),
                      "byte %zu bit %d: %d (%s)", at, bit, ret, vkfx_error_message());
            formats++;
        }
    cr_assert(formats > 0, "no damage was noticed");
    free(buf);
    tc_tmpdir_remove();
}

/* ------------------------------------------------------------------------ */
/* Standard attributes as metadata */

/* Rec. 2020's primaries and D65 */
static const exr_attr_chromaticities_t rec2020 = {0.708f, 0.292f, 0.170f, 0.797f,
                                                  0.131f, 0.046f, 0.3127f, 0.3290f};

static void photo_attributes(exr_context_t ctxt, int part)
{
    cr_assert_eq(exr_attr_set_string(ctxt, part, "comments", "Chelsea, asleep"), EXR_ERR_SUCCESS);
    cr_assert_eq(exr_attr_set_string(ctxt, part, "owner", "Photo Cat"), EXR_ERR_SUCCESS);
    cr_assert_eq(exr_attr_set_string(ctxt, part, "capDate", "2024:05:06 07:08:09"),
                 EXR_ERR_SUCCESS);
    cr_assert_eq(exr_attr_set_float(ctxt, part, "xDensity", 150), EXR_ERR_SUCCESS);
    cr_assert_eq(exr_set_pixel_aspect_ratio(ctxt, part, 2), EXR_ERR_SUCCESS);
    cr_assert_eq(exr_attr_set_chromaticities(ctxt, part, "chromaticities", &rec2020),
                 EXR_ERR_SUCCESS);
}

/* The attributes of an EXR file, read by the library. */
static void expect_attributes(const char *path, const char *what)
{
    exr_context_t ctxt = NULL;
    exr_context_initializer_t init = EXR_DEFAULT_CONTEXT_INITIALIZER;
    cr_assert_eq(exr_start_read(&ctxt, path, &init), EXR_ERR_SUCCESS, "%s", what);
    static const char *const attrs[3][2] = {
        {"comments", "Chelsea, asleep"}, {"owner", "Photo Cat"}, {"capDate", "2024:05:06 07:08:09"}};
    for (int i = 0; i < 3; i++) {
        int32_t len = 0;
        const char *s = NULL;
        cr_expect(exr_attr_get_string(ctxt, 0, attrs[i][0], &len, &s) == EXR_ERR_SUCCESS &&
                      len == (int32_t)strlen(attrs[i][1]) && !strncmp(s, attrs[i][1], (size_t)len),
                  "%s: %s is '%.*s'", what, attrs[i][0], s ? (int)len : 0, s ? s : "");
    }
    float density = 0, aspect = 0;
    cr_expect_eq(exr_attr_get_float(ctxt, 0, "xDensity", &density), EXR_ERR_SUCCESS, "%s", what);
    cr_expect_eq(exr_get_pixel_aspect_ratio(ctxt, 0, &aspect), EXR_ERR_SUCCESS);
    cr_expect(density == 150 && aspect == 2, "%s: xDensity %g, pixelAspectRatio %g", what,
              density, aspect);
    exr_attr_chromaticities_t c;
    cr_assert_eq(exr_attr_get_chromaticities(ctxt, 0, "chromaticities", &c), EXR_ERR_SUCCESS,
                 "%s: no chromaticities", what);
    const float *got = &c.red_x, *want = &rec2020.red_x;
    /* through an ICC profile: colorants in s15Fixed16 after a Bradford adaptation to D50 and
     * back, good to a few units in the fourth decimal */
    for (int i = 0; i < 8; i++)
        cr_expect(fabsf(got[i] - want[i]) < 5e-4f, "%s: chromaticity %d is %g, want %g", what, i,
                  got[i], want[i]);
    exr_finish(&ctxt);
}

/* comments, owner, capDate, xDensity with the pixel aspect ratio, and
 * chromaticities pass from an EXR to an EXR (through the text keys, the
 * resolution and a profile of the primaries) and into a PNG as those. */
Test(exr, standard_attributes_are_metadata)
{
    cr_assert_eq(tc_tmpdir_make("exr"), 0);
    float *s = test_samples(6 * 4, 3, 5);
    test_exr t = {EXR_STORAGE_SCANLINE, EXR_COMPRESSION_ZIP, 6, 4, box(0, 0, 0, 0), 3,
                  {{"B", EXR_PIXEL_HALF}, {"G", EXR_PIXEL_HALF}, {"R", EXR_PIXEL_HALF}}, s};
    test_exr_attributes = photo_attributes;
    write_test_exr(tc_tpath("in.exr"), &t);
    test_exr_attributes = NULL;
    expect_attributes(tc_tpath("in.exr"), "the input");
    static const char *const outs[2] = {"in-out.exr", "in-out.png"};
    for (int i = 0; i < 2; i++) {
        cli_run r;
        VKFX(&r, tc_tpath("in.exr"), "-f", "box:radius=0", "-o", tc_tpath(outs[i]));
        cr_assert_eq(r.status, 0, "%s: %s", r.cmd, r.err);
        cr_expect(!strstr(r.err, "dropped"), "stderr: %s", r.err);
        run_free(&r);
    }
    expect_attributes(tc_tpath("in-out.exr"), "EXR to EXR");
    vkfx_pixels px;
    vkfx_meta m;
    cr_assert_eq(vkfx_file_load_meta(tc_tpath("in-out.png"), &px, &m), VKFX_OK, "%s",
                 vkfx_error_message());
    static const char *const texts[3][2] = {
        {"Description", "Chelsea, asleep"}, {"Copyright", "Photo Cat"},
        {"Creation Time", "2024-05-06T07:08:09"}};
    cr_expect_eq(m.ntexts, 3);
    for (uint32_t i = 0; i < m.ntexts && i < 3; i++)
        cr_expect(!strcmp(m.texts[i].key, texts[i][0]) && !strcmp(m.texts[i].text, texts[i][1]),
                  "PNG text %u: %s = %s", i, m.texts[i].key, m.texts[i].text);
    cr_expect(m.has_res && fabs(m.res_x - 150) < 0.5 && fabs(m.res_y - 300) < 0.5,
              "PNG resolution %g x %g", m.res_x, m.res_y);
    cr_expect_not_null(m.icc.data, "the PNG has no profile of the primaries");
    vkfx_meta_free(&m);
    vkfx_pixels_free(&px);
    free(s);
    tc_tmpdir_remove();
}
