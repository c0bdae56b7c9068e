/* Host-side codec timings of issue 23, no GPU involved:
 *
 *     codec_times jpeg FILE.jpg [RUNS]
 *         decodes FILE with plain libjpeg-turbo (its defaults: accurate
 *         integer IDCT, fancy upsampling, into one buffer) and through
 *         vkfx_file_load, alternating; prints the median of each and the
 *         ratio.
 *     codec_times png FILE [RUNS] [LEVEL] [WxH]
 *         encodes FILE's pixels (8-bit, resized bilinearly to WxH where
 *         given) to PNG in one piece (libdeflate) and in segments on every
 *         core; prints the median times and the sizes; then, on one core
 *         and the first 8 MiB of the filtered rows, libdeflate's level
 *         against zlib's levels and strategies and core/io/pngdeflate.c's
 *         setting.
 *     codec_times jpegpool THREADS FILE.jpg...
 *         the codec work of a JPEG batch and nothing else, on THREADS
 *         threads taking files in turn: each file read into memory, decoded
 *         to RGB with libjpeg-turbo's defaults and encoded to memory at
 *         quality 90, once as vkfx writes it (4:4:4, optimised Huffman
 *         tables) and once as OpenCV's imwrite does (4:2:0, standard
 *         tables); prints each wall time. What vkfx's batch must do besides
 *         the GPU's work, so the best a batch can reach on that machine.
 *
 *     codec_times thumbpool THREADS DENOM WIDTH FILE.jpg...
 *         the codec work of a thumbnail batch alone: each file decoded at
 *         1/DENOM in the DCT domain, every other sample dropped until the
 *         image is at most twice WIDTH wide, then point-sampled to WIDTH and
 *         encoded at quality 90 (4:4:4, optimised tables, as vkfx writes it,
 *         then 4:2:0, standard tables, as OpenCV does); prints each wall time.
 *     codec_times decodepool THREADS DENOM FILE.jpg...
 *         decoding alone at 1/DENOM, three ways on THREADS threads: to RGB
 *         (libjpeg-turbo's defaults), to the YCbCr planes before colour
 *         conversion and upsampling (jpeg_read_raw_data), and to the DCT
 *         coefficients alone (jpeg_read_coefficients: the entropy decoding
 *         every way pays); prints the best of 3 of each.
 *
 * Built with `meson compile -C BUILD codec_times`. */
#include <pthread.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <libdeflate.h>
#include <zlib.h>

#include "error.h"
#include "fileio.h"
#include "pngdeflate.h"
#include "pngwrite.h"
#include "vkfx.h"

static unsigned char *read_all(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f || fseek(f, 0, SEEK_END) != 0)
        exit(1);
    long n = ftell(f);
    rewind(f);
    unsigned char *data = malloc((size_t)n);
    if (!data || fread(data, 1, (size_t)n, f) != (size_t)n)
        exit(1);
    fclose(f);
    *size = (size_t)n;
    return data;
}

static jmp_buf fail_jump;

static void fail_exit(j_common_ptr c)
{
    (void)c;
    longjmp(fail_jump, 1);
}

/* What a program using libjpeg-turbo alone does: the file read into memory,
 * then decoded to RGB rows. */
static double plain_decode(const char *path)
{
    double t = vkfx_now_ms();
    size_t size;
    unsigned char *data = read_all(path, &size);
    struct jpeg_decompress_struct d;
    struct jpeg_error_mgr err;
    d.err = jpeg_std_error(&err);
    err.error_exit = fail_exit;
    if (setjmp(fail_jump)) {
        fprintf(stderr, "codec_times: libjpeg failed on %s\n", path);
        exit(1);
    }
    jpeg_create_decompress(&d);
    jpeg_mem_src(&d, data, (unsigned long)size);
    jpeg_read_header(&d, TRUE);
    jpeg_start_decompress(&d);
    size_t stride = (size_t)d.output_width * (size_t)d.output_components;
    unsigned char *px = malloc(stride * d.output_height);
    while (d.output_scanline < d.output_height) {
        JSAMPROW row = px + stride * d.output_scanline;
        jpeg_read_scanlines(&d, &row, 1);
    }
    jpeg_finish_decompress(&d);
    jpeg_destroy_decompress(&d);
    free(px);
    free(data);
    return vkfx_now_ms() - t;
}

static double vkfx_decode(const char *path)
{
    double t = vkfx_now_ms();
    vkfx_pixels px;
    if (vkfx_file_load(path, &px) < 0) {
        fprintf(stderr, "codec_times: %s\n", vkfx_error_message());
        exit(1);
    }
    vkfx_pixels_free(&px);
    return vkfx_now_ms() - t;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(*v), cmp_double);
    return v[n / 2];
}

static double encode(const vkfx_pixels *px, int level, size_t *size)
{
    double t = vkfx_now_ms();
    unsigned char *out;
    if (vkfx_png_encode(px, level, &out, size) < 0) {
        fprintf(stderr, "codec_times: %s\n", vkfx_error_message());
        exit(1);
    }
    free(out);
    return vkfx_now_ms() - t;
}

/* px (8-bit) resized bilinearly to w x h. */
static void resize(vkfx_pixels *px, uint32_t w, uint32_t h)
{
    vkfx_pixels out = *px;
    if (px->sample != VKFX_SAMPLE_U8 || vkfx_pixels_alloc(&out, w, h, px->channels, px->sample) < 0)
        exit(1);
    const unsigned char *s = px->data;
    unsigned char *d = out.data;
    uint32_t c = px->channels;
    for (uint32_t y = 0; y < h; y++) {
        double fy = ((double)y + 0.5) * px->height / h - 0.5;
        fy = fy < 0 ? 0 : fy;
        uint32_t y0 = (uint32_t)fy, y1 = y0 + 1 < px->height ? y0 + 1 : y0;
        double ty = fy - y0;
        for (uint32_t x = 0; x < w; x++) {
            double fx = ((double)x + 0.5) * px->width / w - 0.5;
            fx = fx < 0 ? 0 : fx;
            uint32_t x0 = (uint32_t)fx, x1 = x0 + 1 < px->width ? x0 + 1 : x0;
            double tx = fx - x0;
            for (uint32_t k = 0; k < c; k++) {
                double v = (1 - ty) * ((1 - tx) * s[((size_t)y0 * px->width + x0) * c + k] +
                                       tx * s[((size_t)y0 * px->width + x1) * c + k]) +
                           ty * ((1 - tx) * s[((size_t)y1 * px->width + x0) * c + k] +
                                 tx * s[((size_t)y1 * px->width + x1) * c + k]);
                d[((size_t)y * w + x) * c + k] = (unsigned char)(v + 0.5);
            }
        }
    }
    vkfx_pixels_free(px);
    *px = out;
}

/* One core, the first 8 MiB of the filtered rows (inflated back out of
 * png, a PNG of one IDAT): libdeflate at level against zlib's levels and
 * strategies, size and speed. */
static void sweep(const unsigned char *png, size_t size, int level)
{
    uint32_t len =
        (uint32_t)png[33] << 24 | (uint32_t)png[34] << 16 | (uint32_t)png[35] << 8 | png[36];
    size_t n = (size_t)8 << 20;
    unsigned char *raw = malloc(n), *out = malloc(2 * n);
    z_stream z = {.next_in = (unsigned char *)png + 41, .avail_in = len};
    if (size < 41 + (size_t)len || !raw || !out || inflateInit(&z) != Z_OK)
        exit(1);
    z.next_out = raw;
    z.avail_out = (uInt)n;
    inflate(&z, Z_FINISH);
    n -= z.avail_out;
    inflateEnd(&z);
    struct libdeflate_compressor *c = libdeflate_alloc_compressor(level);
    double t = vkfx_now_ms();
    size_t ref = libdeflate_deflate_compress(c, raw, n, out, 2 * n);
    printf("  one core, first %zu bytes: libdeflate level %d %zu bytes, %.0f MB/s\n", n, level, ref,
           n / 1e3 / (vkfx_now_ms() - t));
    libdeflate_free_compressor(c);
    /* zlib's level, strategy, and (where nice > 0) deflateTune's good, lazy,
     * nice and chain: core/io/pngdeflate.c's level 6 is the last. */
    static const int cfg[][7] = {
        {4, 1, 0},
        {5, 1, 0},
        {6, 0, 0},
        {6, 1, 0},
        {6, 1, 1, 8, 16, 64, 64},
        {6, 1, 1, 8, 32, 64, 40},
        {6, 1, 1, 8, 32, 64, 48},
    };
    for (size_t k = 0; k < sizeof(cfg) / sizeof(*cfg); k++) {
        z_stream d = {0};
        deflateInit2(&d, cfg[k][0], Z_DEFLATED, -15, 8,
                     cfg[k][1] ? Z_FILTERED : Z_DEFAULT_STRATEGY);
        if (cfg[k][2])
            deflateTune(&d, cfg[k][3], cfg[k][4], cfg[k][5], cfg[k][6]);
        d.next_in = raw;
        d.avail_in = (uInt)n;
        d.next_out = out;
        d.avail_out = (uInt)(2 * n);
        t = vkfx_now_ms();
        deflate(&d, Z_FINISH);
        double ms = vkfx_now_ms() - t;
        char tune[64] = "";
        if (cfg[k][2])
            snprintf(tune, sizeof(tune), ", lazy %d nice %d chain %d", cfg[k][4], cfg[k][5],
                     cfg[k][6]);
        printf("  zlib level %d %s%s: %zu bytes (%+.2f%%), %.0f MB/s\n", cfg[k][0],
               cfg[k][1] ? "filtered" : "default", tune, (size_t)d.total_out,
               100.0 * ((double)d.total_out / (double)ref - 1), n / 1e3 / ms);
        deflateEnd(&d);
    }
    free(raw);
    free(out);
}

/* decodepool: how a file is decoded. */
enum decode_way { WAY_RGB, WAY_PLANES, WAY_COEFFICIENTS };

/* jpegpool, thumbpool, decodepool: files decoded (and for the first two encoded again), in
 * memory, by a pool of threads. */
typedef struct pool {
    char **files;
    int nfiles;
    atomic_int next;
    bool vkfx_way; /* 4:4:4 and optimised tables; else 4:2:0 and standard ones */
    unsigned denom;  /* decode at 1/denom (thumbpool, decodepool), else 1 */
    unsigned width;  /* encode at this width (thumbpool), else the decoded width */
    bool decode_only; /* decodepool: decoded the given way, not encoded */
    enum decode_way way;
} pool;

typedef struct coder {
    struct jpeg_error_mgr err;
    jmp_buf jump;
} coder;

static void coder_exit(j_common_ptr c)
{
    longjmp(((coder *)c->err)->jump, 1);
}

/* The image of d (its header read) decoded to RGB at 1/denom, with libjpeg-turbo's defaults. */
static unsigned char *decode_rgb(struct jpeg_decompress_struct *d, unsigned denom)
{
    d->out_color_space = JCS_RGB;
    d->scale_num = 1;
    d->scale_denom = denom;
    jpeg_start_decompress(d);
    size_t stride = (size_t)d->output_width * 3;
    unsigned char *px = malloc(stride * d->output_height);
    if (!px)
        exit(1);
    while (d->output_scanline < d->output_height) {
        JSAMPROW row = px + stride * d->output_scanline;
        jpeg_read_scanlines(d, &row, 1);
    }
    return px;
}

static void recode(const pool *p, const char *path)
{
    size_t size;
    unsigned char *data = read_all(path, &size), *px = NULL, *out = NULL;
    unsigned long out_size = 0;
    struct jpeg_decompress_struct d;
    struct jpeg_compress_struct c;
    coder cd, cc;
    d.err = jpeg_std_error(&cd.err);
    cd.err.error_exit = coder_exit;
    c.err = jpeg_std_error(&cc.err);
    cc.err.error_exit = coder_exit;
    if (setjmp(cd.jump) || setjmp(cc.jump)) {
        fprintf(stderr, "codec_times: libjpeg failed on %s\n", path);
        exit(1);
    }
    jpeg_create_decompress(&d);
    jpeg_mem_src(&d, data, (unsigned long)size);
    jpeg_read_header(&d, TRUE);
    px = decode_rgb(&d, p->denom ? p->denom : 1);
    size_t stride = (size_t)d.output_width * 3;
    /* A thumbnail: point samples (the resize's own cost is the GPU's). */
    uint32_t ow = d.output_width, oh = d.output_height;
    if (p->width && p->width < ow) {
        oh = (uint32_t)((uint64_t)oh * p->width / ow);
        ow = p->width;
        oh = oh ? oh : 1;
        for (uint32_t y = 0; y < oh; y++) {
            const unsigned char *from = px + stride * ((uint64_t)y * d.output_height / oh);
            unsigned char *to = px + (size_t)ow * 3 * y;
            for (uint32_t x = 0; x < ow; x++)
                memmove(to + 3 * x, from + 3 * ((uint64_t)x * d.output_width / ow), 3);
        }
        stride = (size_t)ow * 3;
    }
    jpeg_create_compress(&c);
    jpeg_mem_dest(&c, &out, &out_size);
    c.image_width = ow;
    c.image_height = oh;
    c.input_components = 3;
    c.in_color_space = JCS_RGB;
    jpeg_set_defaults(&c);
    jpeg_set_quality(&c, 90, TRUE);
    int h = p->vkfx_way ? 1 : 2;
    c.comp_info[0].h_samp_factor = h;
    c.comp_info[0].v_samp_factor = h;
    c.optimize_coding = p->vkfx_way;
    jpeg_start_compress(&c, TRUE);
    while (c.next_scanline < c.image_height) {
        JSAMPROW row = px + stride * c.next_scanline;
        jpeg_write_scanlines(&c, &row, 1);
    }
    jpeg_finish_compress(&c);
    jpeg_destroy_compress(&c);
    jpeg_finish_decompress(&d);
    jpeg_destroy_decompress(&d);
    free(out);
    free(px);
    free(data);
}

static void decode_one(const pool *p, const char *path);

static void *pool_worker(void *arg)
{
    pool *p = arg;
    for (int i; (i = atomic_fetch_add(&p->next, 1)) < p->nfiles;) {
        if (p->decode_only)
            decode_one(p, p->files[i]);
        else
            recode(p, p->files[i]);
    }
    return NULL;
}

static double run_pool(pool *p, int threads)
{
    pthread_t t[256];
    atomic_store(&p->next, 0);
    double t0 = vkfx_now_ms();
    for (int i = 0; i < threads; i++)
        if (pthread_create(&t[i], NULL, pool_worker, p) != 0)
            exit(1);
    for (int i = 0; i < threads; i++)
        pthread_join(t[i], NULL);
    return vkfx_now_ms() - t0;
}

static int jpeg_pool(int threads, unsigned denom, unsigned width, char **files, int nfiles)
{
    threads = threads < 1 ? 1 : threads > 256 ? 256 : threads;
    pool p = {.files = files, .nfiles = nfiles, .denom = denom, .width = width};
    double best[2] = {0, 0};
    for (int round = 0; round < 3; round++)
        for (int way = 1; way >= 0; way--) {
            p.vkfx_way = way;
            double ms = run_pool(&p, threads);
            if (round == 0 || ms < best[way])
                best[way] = ms;
        }
    if (width)
        printf("%d JPEG files, %d threads, decoded at 1/%u, encoded %u wide: ", nfiles, threads,
               denom, width);
    else
        printf("%d JPEG files, %d threads, ", nfiles, threads);
    printf("decoded and encoded at quality 90 in memory (best of 3): "
           "4:4:4 with optimised tables (vkfx) %.1f ms; 4:2:0 with standard tables (OpenCV's "
           "imwrite) %.1f ms\n",
           best[1], best[0]);
    return 0;
}

/* decodepool: one file decoded at 1/p->denom, p->way. */
static void decode_one(const pool *p, const char *path)
{
    size_t size;
    unsigned char *data = read_all(path, &size);
    struct jpeg_decompress_struct d;
    coder cd;
    d.err = jpeg_std_error(&cd.err);
    cd.err.error_exit = coder_exit;
    unsigned char *planes[MAX_COMPONENTS] = {0}, *rgb = NULL;
    if (setjmp(cd.jump)) {
        fprintf(stderr, "codec_times: libjpeg failed on %s\n", path);
        exit(1);
    }
    jpeg_create_decompress(&d);
    jpeg_mem_src(&d, data, (unsigned long)size);
    jpeg_read_header(&d, TRUE);
    if (p->way == WAY_COEFFICIENTS) {
        jpeg_read_coefficients(&d);
    } else if (p->way == WAY_RGB) {
        rgb = decode_rgb(&d, p->denom);
    } else {
        d.raw_data_out = TRUE;
        d.scale_num = 1;
        d.scale_denom = p->denom;
        jpeg_start_decompress(&d);
        /* Each component's plane whole, its rows handed over an iMCU row at a time. */
        JSAMPROW rows[MAX_COMPONENTS][4 * DCTSIZE * MAX_SAMP_FACTOR];
        JSAMPARRAY arrays[MAX_COMPONENTS];
        size_t stride[MAX_COMPONENTS], height[MAX_COMPONENTS];
        for (int c = 0; c < d.num_components; c++) {
            jpeg_component_info *ci = &d.comp_info[c];
            stride[c] = (size_t)ci->width_in_blocks * ci->DCT_scaled_size;
            height[c] = (size_t)ci->height_in_blocks * ci->DCT_scaled_size + 64;
            planes[c] = malloc(stride[c] * height[c]);
            if (!planes[c])
                exit(1);
            arrays[c] = rows[c];
        }
        unsigned lines = (unsigned)(d.max_v_samp_factor * d.min_DCT_scaled_size);
        for (unsigned y = 0; d.output_scanline < d.output_height; y++) {
            for (int c = 0; c < d.num_components; c++) {
                jpeg_component_info *ci = &d.comp_info[c];
                size_t n = (size_t)ci->v_samp_factor * ci->DCT_scaled_size;
                for (size_t r = 0; r < n; r++)
                    rows[c][r] = planes[c] + stride[c] * ((y * n + r) % height[c]);
            }
            jpeg_read_raw_data(&d, arrays, lines);
        }
    }
    jpeg_finish_decompress(&d);
    jpeg_destroy_decompress(&d);
    for (int c = 0; c < MAX_COMPONENTS; c++)
        free(planes[c]);
    free(rgb);
    free(data);
}

static int decode_pool_run(int threads, unsigned denom, char **files, int nfiles)
{
    threads = threads < 1 ? 1 : threads > 256 ? 256 : threads;
    pool p = {.files = files, .nfiles = nfiles, .denom = denom ? denom : 1, .decode_only = true};
    double best[3] = {0, 0, 0};
    for (int round = 0; round < 3; round++)
        for (int way = 0; way < 3; way++) {
            p.way = (enum decode_way)way;
            double ms = run_pool(&p, threads);
            if (round == 0 || ms < best[way])
                best[way] = ms;
        }
    printf("%d JPEG files, %d threads, decoded at 1/%u (best of 3): to RGB %.1f ms; to YCbCr "
           "planes %.1f ms; to coefficients only %.1f ms\n",
           nfiles, threads, p.denom, best[0], best[1], best[2]);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 3 && strcmp(argv[1], "jpegpool") == 0)
        return jpeg_pool(atoi(argv[2]), 1, 0, argv + 3, argc - 3);
    if (argc > 4 && strcmp(argv[1], "decodepool") == 0)
        return decode_pool_run(atoi(argv[2]), (unsigned)atoi(argv[3]), argv + 4, argc - 4);
    if (argc > 5 && strcmp(argv[1], "thumbpool") == 0)
        return jpeg_pool(atoi(argv[2]), (unsigned)atoi(argv[3]), (unsigned)atoi(argv[4]),
                         argv + 5, argc - 5);
    if (argc < 3) {
        fprintf(stderr,
                "usage: codec_times jpeg|png FILE [RUNS] [LEVEL] | jpegpool THREADS FILE... | "
                "thumbpool THREADS DENOM WIDTH FILE... | decodepool THREADS DENOM FILE...\n");
        return 2;
    }
    int runs = argc > 3 ? atoi(argv[3]) : 7;
    runs = runs < 1 ? 1 : runs > 99 ? 99 : runs;
    double a[99], b[99];
    if (strcmp(argv[1], "jpeg") == 0) {
        plain_decode(argv[2]);
        vkfx_decode(argv[2]);
        for (int i = 0; i < runs; i++) {
            a[i] = plain_decode(argv[2]);
            b[i] = vkfx_decode(argv[2]);
        }
        double pa = median(a, runs), pb = median(b, runs);
        printf("%s: libjpeg-turbo alone %.2f ms, vkfx_file_load %.2f ms (median of %d): "
               "%.3fx\n",
               argv[2], pa, pb, runs, pb / pa);
        return 0;
    }
    int level = argc > 4 ? atoi(argv[4]) : 6;
    vkfx_pixels px;
    if (vkfx_file_load(argv[2], &px) < 0) {
        fprintf(stderr, "codec_times: %s\n", vkfx_error_message());
        return 1;
    }
    unsigned w, h;
    if (argc > 5 && sscanf(argv[5], "%ux%u", &w, &h) == 2)
        resize(&px, w, h);
    size_t one = 0, seg = 0;
    for (int i = 0; i < runs; i++) {
        vkfx_png_set_segments((size_t)-1, 0);
        a[i] = encode(&px, level, &one);
        vkfx_png_set_segments(1, 0);
        b[i] = encode(&px, level, &seg);
    }
    printf("%s: %ux%u, %u channels, level %d: one piece (libdeflate) %.1f ms, %zu bytes; "
           "segments (zlib, every core) %.1f ms, %zu bytes: %+.2f%% size (median of %d)\n",
           argv[2], px.width, px.height, px.channels, level, median(a, runs), one, median(b, runs),
           seg, 100.0 * ((double)seg / (double)one - 1), runs);
    unsigned char *png;
    vkfx_png_set_segments((size_t)-1, 0);
    if (vkfx_png_encode(&px, level, &png, &one) == VKFX_OK)
        sweep(png, one, level);
    /* The whole image in segments on every core, by level 6's search. */
    static const int tunes[][4] = {
        {8, 32, 64, 48}, {8, 16, 64, 64}, {8, 32, 64, 40}, {8, 32, 64, 32}};
    for (size_t k = 0; level == 6 && k < sizeof(tunes) / sizeof(*tunes); k++) {
        vkfx_png_set_segments(1, 0);
        vkfx_png_set_tune(tunes[k]);
        for (int i = 0; i < runs; i++)
            b[i] = encode(&px, level, &seg);
        printf("  segments, every core, good %d lazy %d nice %d chain %d: %.1f ms, %zu bytes, "
               "%+.2f%% (median of %d)\n",
               tunes[k][0], tunes[k][1], tunes[k][2], tunes[k][3], median(b, runs), seg,
               100.0 * ((double)seg / (double)one - 1), runs);
    }
    vkfx_png_set_tune(NULL);
    vkfx_png_set_segments(0, 0);
    free(png);
    vkfx_pixels_free(&px);
    return 0;
}
