#include "bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "error.h"
#include "fileio.h"
#include "jpeg_gpu.h"
#include "meta.h"
#include "run.h"
#include "variant.h"

#include "copy.spv.h"
#include "copy_sat.spv.h"
#include "read.spv.h"
#include "../../glsl/bench.h"
#include "../../glsl/jpegdec.h"

_Static_assert(sizeof(copy_push) == COPY_PUSH_BYTES, "copy.comp's push block");
_Static_assert(sizeof(read_push) == READ_PUSH_BYTES, "read.comp's push block");

static const vkfx_kernel_desc copy_kernel = {
    .name = "copy",
    VKFX_SPV(copy),
    .nbind = 2,
    .bind = {VKFX_BIND_SAMPLED, VKFX_BIND_STORAGE_IMAGE},
    .push_size = sizeof(copy_push),
};

static const vkfx_kernel_desc read_kernel = {
    .name = "read",
    VKFX_SPV(read),
    .nbind = 2,
    .bind = {VKFX_BIND_SAMPLED, VKFX_BIND_BUFFER},
    .push_size = sizeof(read_push),
};

static const vkfx_kernel_desc copy_sat_kernel = {
    .name = "copy-sat",
    VKFX_SPV(copy_sat),
    .nbind = 3,
    .bind = {VKFX_BIND_SAMPLED, VKFX_BIND_STORAGE_IMAGE, VKFX_BIND_STORAGE_IMAGE},
    .push_size = sizeof(copy_push),
};

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double seconds_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Warm-up before the timed runs of a case: at least one run and WARM_UP_S seconds of them, so
 * that the GPU's clocks are up again after compiling the case's pipelines left it idle: a case
 * timed right after its pipelines were built can run far slower (tests/bench/RESULTS.md). */
#define WARM_UP_S 0.25

/* Runs g for at least one run and WARM_UP_S seconds. */
static int warm_up(vkfx_graph *g)
{
    int ret = VKFX_OK;
    const double warm_until = seconds_now() + WARM_UP_S;
    do
        TRY(vkfx_graph_run(g));
    while (seconds_now() < warm_until);
fail:
    return ret;
}

/* One timed run of g: its passes' times in *t (the graph's), *n of them. */
static int timed_run(vkfx_graph *g, const vkfx_pass_time **t, uint32_t *n)
{
    int ret = VKFX_OK;
    TRY(vkfx_graph_run(g));
    vkfx_graph_timings(g, t, n);
    if (*n == 0)
        ret = vkfx_fail(VKFX_E_VULKAN, "this device has no timestamp queries on its queue");
fail:
    return ret;
}

/* One case: decode random pixels, then the chain (or, text NULL, the
 * reference kernel ref) with the variants force names (NULL: those vkfx picks),
 * submitted for the warm-up and then reps times; the time of a run is the sum
 * of its passes after the decode. Returns 1, not timed, when a forced variant
 * does not apply. */
static int bench_case(vkfx_context *ctx, vkfx_staging *staging, const vkfx_bench_opts *o,
                      const vkfx_pixels *px, const char *text, const char *force,
                      const vkfx_kernel_desc *ref, vkfx_bench_case *c)
{
    int ret = VKFX_OK;
    vkfx_graph *g = NULL;
    vkfx_chain *chain = NULL;
    void **states = NULL;
    vkfx_buffer *raw = NULL;
    vkfx_image *src = NULL, *dst = NULL;
    enum { MAXP = sizeof(c->passes) / sizeof(c->passes[0]) };
    double *ms = calloc((size_t)o->reps * (MAXP + 1), sizeof(*ms));
    if (!ms)
        return vkfx_fail(VKFX_E_NOMEM, "out of host memory");
    double *pass_ms = ms + o->reps; /* [pass][rep] */
    if (force)
        snprintf(c->name, sizeof(c->name), "%s [%s]", text, force);
    else
        snprintf(c->name, sizeof(c->name), "%s", text ? text : ref->name);
    if (text)
        TRY(vkfx_chain_parse(text, &chain));
    TRY(vkfx_graph_begin(ctx, o->width, o->height, vkfx_internal_format(o->precision), true, &g));
    vkfx_graph_set_fast(g, o->fast);
    if (force)
        TRY(vkfx_graph_force_variants(g, force));
    vkfx_graph_set_staging(g, staging);
    TRY(vkfx_graph_buffer(g, vkfx_pixels_bytes(px), 0, &raw));
    TRY(vkfx_graph_image(g, o->width, o->height, vkfx_graph_format(g), &src));
    TRY(vkfx_staging_upload(staging, raw->buffer, 0, px->data, vkfx_pixels_bytes(px)));
    TRY(vkfx_record_decode(g, raw, px, false, NULL, src));
    if (chain) {
        /* Spares taken are the chain's as much as memory allocated. */
        uint64_t before = ctx->device_bytes - ctx->spare_bytes;
        ret = vkfx_record_chain(g, chain, src, &dst, &states);
        if (ret < 0 && vkfx_graph_variant_was_refused(g)) {
            vkfx_error_clear();
            ret = 1;
            goto fail;
        }
        if (ret < 0)
            goto fail;
        uint64_t used = ctx->device_bytes - ctx->spare_bytes - before;
        /* A chain that only passes its input through allocated no output. */
        c->extra_bytes = dst == src ? used : used > dst->bytes ? used - dst->bytes : 0;
    } else {
        vkfx_kernel *k = NULL;
        vkfx_spec spec = {.local = {16, 16, 1}};
        vkfx_dispatch d = {
            .label = ref->name,
            .use = {{.image = src}},
            .groups = {vkfx_groups(o->width, 16), vkfx_groups(o->height, 16), 1},
        };
        /* copy_push is read_push's first member: one push serves the three. */
        read_push push = {{(int32_t)o->width, (int32_t)o->height}, NAN};
        d.push = &push;
        if (ref == &copy_kernel) {
            TRY(vkfx_graph_image(g, o->width, o->height, vkfx_graph_format(g), &dst));
            spec.half_out = vkfx_half_out(dst->format);
            d.use[1] = (vkfx_use){.image = dst, .write = true};
        } else if (ref == &copy_sat_kernel) {
            vkfx_image *hi = NULL;
            TRY(vkfx_graph_image(g, o->width, o->height, VK_FORMAT_R32G32B32A32_UINT, &dst));
            TRY(vkfx_graph_image(g, o->width, o->height, VK_FORMAT_R32G32B32A32_UINT, &hi));
            d.use[1] = (vkfx_use){.image = dst, .write = true};
            d.use[2] = (vkfx_use){.image = hi, .write = true};
        } else {
            vkfx_buffer *flag = NULL;
            TRY(vkfx_graph_buffer(g, 4, 0, &flag));
            d.use[1] = (vkfx_use){.buffer = flag, .write = true};
        }
        TRY(vkfx_kernel_get(ctx, ref, &spec, &k));
        d.kernel = k;
        TRY(vkfx_graph_dispatch(g, &d));
    }
    TRY(warm_up(g));
    for (int rep = 0; rep < o->reps; rep++) {
        const vkfx_pass_time *t = NULL;
        uint32_t n = 0;
        TRY(timed_run(g, &t, &n));
        double sum = 0;
        c->npasses = 0;
        for (uint32_t i = 0; i < n; i++) {
            if (strcmp(t[i].label, "decode") == 0)
                continue;
            sum += t[i].ms;
            if (c->npasses < MAXP) {
                snprintf(c->passes[c->npasses].label, sizeof(c->passes[0].label), "%s", t[i].label);
                pass_ms[c->npasses * o->reps + rep] = t[i].ms;
                c->npasses++;
            }
        }
        ms[rep] = sum;
    }
    /* What filters report after a run (bokeh's hot-spot counts), once. */
    for (size_t i = 0; chain && i < chain->count; i++)
        if (chain->links[i].filter->finish)
            TRY(chain->links[i].filter->finish(g, chain->links[i].params, states[i]));
    const vkfx_note *notes = NULL;
    vkfx_graph_notes(g, &notes, &c->nnotes);
    memcpy(c->notes, notes, c->nnotes * sizeof(*notes));
    for (uint32_t p = 0; p < c->npasses; p++) {
        qsort(pass_ms + p * o->reps, (size_t)o->reps, sizeof(*ms), cmp_double);
        c->passes[p].ms = pass_ms[p * o->reps + o->reps / 2];
    }
    qsort(ms, (size_t)o->reps, sizeof(*ms), cmp_double);
    c->ms_min = ms[0];
    c->ms_median = ms[o->reps / 2];
    /* The image read once, plus written once unless the case only reads;
     * copy-sat writes 32 bytes a pixel. */
    double texel = vkfx_format_texel_bytes(vkfx_internal_format(o->precision));
    double bytes = (ref == &read_kernel       ? texel
                    : ref == &copy_sat_kernel ? texel + 32.0
                                              : 2.0 * texel) *
                   o->width * o->height;
    c->gbps = bytes / (c->ms_median * 1e-3) / 1e9;
fail:
    if (ret < 0)
        vkfx_fail_context(ret, "bench %s", c->name);
    if (ret > 0)
        memset(c, 0, sizeof(*c));
    vkfx_destroy_chain_states(g, chain, states);
    vkfx_graph_destroy(g);
    vkfx_chain_free(chain);
    free(ms);
    return ret;
}

/* The families of variants chain's filters use, each once, into out (at most max). */
static size_t chain_families(const vkfx_chain *chain, const vkfx_variants **out, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < chain->count; i++)
        for (const vkfx_variants *const *v = chain->links[i].filter->variants; v && *v; v++) {
            bool seen = false;
            for (size_t k = 0; k < n; k++)
                seen |= out[k] == *v;
            if (!seen && n < max)
                out[n++] = *v;
        }
    return n;
}

enum { MAX_FAMILIES = 8 };

/* The variants of chain i that a --variants bench times, each as "family:variant" into
 * names[] (at most max); 0 when the chain's filters have none. */
static size_t chain_variants(const char *text, char (*names)[64], size_t max)
{
    vkfx_chain *chain = NULL;
    size_t n = 0;
    if (vkfx_chain_parse(text, &chain) < 0) {
        vkfx_error_clear();
        return 0;
    }
    const vkfx_variants *fam[MAX_FAMILIES];
    size_t nf = chain_families(chain, fam, MAX_FAMILIES);
    for (size_t f = 0; f < nf; f++)
        for (const vkfx_variant *v = fam[f]->list; v->name; v++)
            if (n < max)
                snprintf(names[n++], sizeof(names[0]), "%s:%s", fam[f]->name, v->name);
    vkfx_chain_free(chain);
    return n;
}

enum { MAX_CHAIN_VARIANTS = 32 };

size_t vkfx_bench_max_cases(const vkfx_bench_opts *opts)
{
    size_t n = VKFX_BENCH_REFERENCES;
    char names[MAX_CHAIN_VARIANTS][64];
    for (size_t i = 0; i < opts->nchains; i++) {
        size_t nv = opts->variants ? chain_variants(opts->chains[i], names, MAX_CHAIN_VARIANTS) : 0;
        n += nv ? nv : 1;
    }
    return n;
}

int vkfx_bench(vkfx_context *ctx, vkfx_staging *staging, const vkfx_bench_opts *opts,
               vkfx_bench_case *cases, size_t *ncases)
{
    int ret = VKFX_OK;
    vkfx_pixels px = {.channels = 4, .sample = VKFX_SAMPLE_U8, .straight = true};
    if (opts->reps < 1)
        return vkfx_fail(VKFX_E_USAGE, "bench needs at least one run per case");
    TRY(vkfx_pixels_alloc(&px, opts->width, opts->height, 4, VKFX_SAMPLE_U8));
    uint64_t state = 0x9e3779b97f4a7c15ull;
    uint8_t *p = px.data;
    for (size_t i = 0; i < vkfx_pixels_bytes(&px); i++) {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        p[i] = (uint8_t)(state >> 24);
    }
    static const vkfx_kernel_desc *const refs[VKFX_BENCH_REFERENCES] = {&copy_kernel, &read_kernel,
                                                                        &copy_sat_kernel};
    *ncases = 0;
    for (size_t i = 0; i < VKFX_BENCH_REFERENCES; i++) {
        TRY(bench_case(ctx, staging, opts, &px, NULL, NULL, refs[i], &cases[i]));
        cases[i].vs_copy = cases[i].ms_median / cases[0].ms_median;
        (*ncases)++;
    }
    for (size_t i = 0; i < opts->nchains; i++) {
        char names[MAX_CHAIN_VARIANTS][64];
        size_t nv = opts->variants ? chain_variants(opts->chains[i], names, MAX_CHAIN_VARIANTS) : 0;
        for (size_t v = 0; v < (nv ? nv : 1); v++) {
            vkfx_bench_case *c = &cases[*ncases];
            ret =
                bench_case(ctx, staging, opts, &px, opts->chains[i], nv ? names[v] : NULL, NULL, c);
            if (ret < 0)
                goto fail;
            if (ret > 0) {
                ret = VKFX_OK; /* that variant does not apply here */
                continue;
            }
            c->vs_copy = c->ms_median / cases[0].ms_median;
            (*ncases)++;
        }
    }
fail:
    vkfx_pixels_free(&px);
    return ret;
}

/* What the synchronisation took, as c's notes. */
static void note_sync(vkfx_bench_case *c, const vkfx_jpeg_sync_stats *s)
{
    const struct {
        const char *key;
        uint32_t value;
    } rows[] = {{"jpeg.subsequences", s->subsequences},    {"jpeg.sequences", s->sequences},
                {"jpeg.rounds_recorded", s->rounds},       {"jpeg.settle_turns", s->turns},
                {"jpeg.last_moving_round", s->last_round}, {"jpeg.decodes", s->decodes}};
    c->nnotes = 0;
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]) && c->nnotes < VKFX_MAX_NOTES; i++) {
        snprintf(c->notes[c->nnotes].key, sizeof(c->notes[0].key), "%s", rows[i].key);
        c->notes[c->nnotes++].value = rows[i].value;
    }
}

/* The decode of l recorded once with dec, run for the warm-up and reps times into c, its
 * samples into samples (vkfx_jpeg_gpu_bytes(l) of them); 1 where the device refused the stream,
 * and with *flags what it found. */
static int bench_decode_graph(vkfx_context *ctx, vkfx_staging *staging, const vkfx_jpeg_layout *l,
                              const vkfx_jpeg_gpu_opts *dec, int reps, double *ms, double *pass_ms,
                              vkfx_bench_case *c, uint32_t *flags, unsigned char *samples)
{
    enum { MAXP = sizeof(c->passes) / sizeof(c->passes[0]) };
    int ret = VKFX_OK;
    vkfx_graph *g = NULL;
    vkfx_buffer *dst = NULL, *status = NULL, *notes = NULL;
    vkfx_jpeg_sync_stats stats = {0};
    *flags = 0;
    TRY(vkfx_graph_begin(ctx, l->width, l->height, VK_FORMAT_R16G16B16A16_SFLOAT, true, &g));
    vkfx_graph_set_staging(g, staging);
    TRY(vkfx_graph_buffer(g, vkfx_jpeg_gpu_bytes(l), 0, &dst));
    TRY(vkfx_graph_buffer(g, 4, 0, &status));
    if ((ret = vkfx_jpeg_gpu_record_noted(g, l, dec, dst, status, &notes, &stats)) != 0)
        goto fail;
    TRY(vkfx_graph_run(g));
    TRY(vkfx_staging_download(staging, status->buffer, 0, flags, sizeof(*flags)));
    if (notes) {
        TRY(vkfx_jpeg_gpu_read_stats(staging, notes, &stats));
        note_sync(c, &stats);
    }
    if (*flags) {
        ret = 1;
        goto fail;
    }
    TRY(warm_up(g));
    for (int rep = 0; rep < reps; rep++) {
        const vkfx_pass_time *t = NULL;
        uint32_t n = 0;
        TRY(timed_run(g, &t, &n));
        /* Passes of one name (the rounds of synchronisation) are one line. */
        double sum = 0;
        for (uint32_t i = 0; i < n; i++) {
            sum += t[i].ms;
            uint32_t p = 0;
            while (p < c->npasses && strcmp(c->passes[p].label, t[i].label) != 0)
                p++;
            if (p == c->npasses && p < MAXP) {
                snprintf(c->passes[p].label, sizeof(c->passes[0].label), "%s", t[i].label);
                for (int r = 0; r < reps; r++)
                    pass_ms[p * reps + r] = 0;
                c->npasses++;
            }
            if (p < MAXP)
                pass_ms[p * reps + rep] += t[i].ms;
        }
        ms[rep] = sum;
    }
    TRY(vkfx_staging_download(staging, dst->buffer, 0, samples, vkfx_jpeg_gpu_bytes(l)));
fail:
    vkfx_graph_destroy(g);
    return ret;
}

int vkfx_bench_decode(vkfx_context *ctx, vkfx_staging *staging, const char *path,
                      const vkfx_bench_opts *opts, vkfx_bench_case *c, double *host_ms)
{
    int reps = opts->reps;
    enum { MAXP = sizeof(c->passes) / sizeof(c->passes[0]) };
    int ret = VKFX_OK;
    vkfx_jpeg_input in = {0};
    vkfx_pixels shape, px = {0};
    vkfx_meta meta = {0};
    memset(c, 0, sizeof(*c));
    *host_ms = 0;
    double *ms = calloc((size_t)reps * (MAXP + 2), sizeof(*ms));
    if (!ms)
        return vkfx_fail(VKFX_E_NOMEM, "out of host memory");
    double *host = ms + reps, *pass_ms = host + reps;
    unsigned char *samples = NULL;
    snprintf(c->name, sizeof(c->name), "decode %s", path);
    ret = vkfx_file_load_jpeg_input(path, 0, &shape, &meta, &in);
    if (ret == 1)
        ret = vkfx_fail(VKFX_E_USAGE,
                        "%s: not a JPEG the device decodes (it takes baseline 8-bit gray or YCbCr "
                        "files stored upright)",
                        path);
    if (ret < 0)
        goto fail;
    vkfx_jpeg_gpu_opts dec = {.sub_bits = opts->jpeg_sub_bits, .lanes = opts->jpeg_lanes};
    uint32_t flags = 0;
    samples = malloc(vkfx_jpeg_gpu_bytes(&in.layout));
    if (!samples) {
        ret = vkfx_fail(VKFX_E_NOMEM, "out of host memory");
        goto fail;
    }
    ret = bench_decode_graph(ctx, staging, &in.layout, &dec, reps, ms, pass_ms, c, &flags, samples);
    if (ret == 1 && (flags & JD_BAD_SYNC)) {
        /* sequences that did not settle in the rounds recorded: what a run does next */
        c->npasses = 0;
        dec.rounds = VKFX_JPEG_GPU_ALL_ROUNDS;
        ret = bench_decode_graph(ctx, staging, &in.layout, &dec, reps, ms, pass_ms, c, &flags,
                                 samples);
    }
    if (ret == 1)
        ret = vkfx_fail(VKFX_E_FORMAT,
                        "%s: the device refused the stream (glsl/jpegdec.h's flags 0x%x)", path,
                        flags);
    if (ret < 0)
        goto fail;
    for (int rep = 0; rep < reps; rep++) {
        vkfx_pixels_free(&px);
        double t = vkfx_now_ms();
        TRY(vkfx_file_load_memory(in.bytes, in.size, path, &px));
        host[rep] = vkfx_now_ms() - t;
    }
    /* The device's samples against libjpeg-turbo's, byte for byte. */
    uint64_t differ = vkfx_pixels_bytes(&px);
    if (px.sample == VKFX_SAMPLE_U8 && px.width == in.layout.width &&
        px.height == in.layout.height && px.channels == in.layout.channels) {
        differ = 0;
        const unsigned char *host_samples = px.data;
        for (size_t i = 0; i < vkfx_pixels_bytes(&px); i++)
            differ += host_samples[i] != samples[i];
    }
    if (c->nnotes < VKFX_MAX_NOTES) {
        snprintf(c->notes[c->nnotes].key, sizeof(c->notes[0].key), "bytes_unlike_libjpeg_turbo");
        c->notes[c->nnotes++].value = differ;
    }
    for (uint32_t p = 0; p < c->npasses; p++) {
        qsort(pass_ms + p * reps, (size_t)reps, sizeof(*ms), cmp_double);
        c->passes[p].ms = pass_ms[p * reps + reps / 2];
    }
    qsort(ms, (size_t)reps, sizeof(*ms), cmp_double);
    qsort(host, (size_t)reps, sizeof(*ms), cmp_double);
    c->ms_min = ms[0];
    c->ms_median = ms[reps / 2];
    *host_ms = host[reps / 2];
    c->gbps = (double)vkfx_pixels_bytes(&shape) / (c->ms_median * 1e-3) / 1e9;
    c->vs_copy = 0;
fail:
    if (ret < 0)
        vkfx_fail_context(ret, "bench --decode");
    vkfx_pixels_free(&px);
    vkfx_meta_free(&meta);
    vkfx_jpeg_input_free(&in);
    free(samples);
    free(ms);
    return ret;
}
