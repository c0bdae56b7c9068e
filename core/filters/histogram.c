/* histogram of FILTERS.md: counts 256 bins of each encoded channel and of
 * luma on the device, reading the image once and handing it on unchanged
 * (the chain passes the same image to the next filter, no copy); after the run the host
 * reads the counts (copied to a host-visible buffer) and writes the JSON and the plot. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "fileio.h"
#include "safefile.h"
#include "variant.h"
#include "filters.h"

#include "histogram.spv.h"
#include "histogram_sg.spv.h"
#include "../../glsl/histogram.h"

_Static_assert(sizeof(histogram_push) == HISTOGRAM_PUSH_BYTES, "the kernels' push block");

/* Rows each invocation walks: a group covers 16 x 16*PER pixels, so the merge of its 1024
 * bins into the global counts (atomics that all groups aim at the same addresses) is paid once
 * per 16K pixels: with few rows per group the merges dominate (tests/bench/RESULTS.md). */
enum { PER = 64, BINS = 256, NCH = 4, PLOT_W = 512, PLOT_H = 256 };

typedef struct histogram_params {
    char *out;
    char *plot;
} histogram_params;

/* The kernel's atomics go to device memory; one small copy after the pass brings the counts
 * to the host-visible buffer (atomics aimed across the bus at host memory made the pass
 * slower). */
typedef struct histogram_state {
    vkfx_buffer *bins;   /* NCH x BINS uint32, device-local */
    vkfx_buffer *counts; /* the same, host-visible, read after the run */
} histogram_state;

static const vkfx_option histogram_options[] = {
    VKFX_OPTION_PATH_OUT(histogram_params, out,
                         "JSON file for the counts and statistics (none if not given)"),
    VKFX_OPTION_PATH_OUT(histogram_params, plot,
                         "image file (.png, ...) drawing the four histograms (none if not given)"),
    {0},
};

static const vkfx_kernel_desc histogram_kernel = {
    .name = "histogram",
    VKFX_SPV(histogram),
    .nbind = 2,
    .bind = {VKFX_BIND_SAMPLED, VKFX_BIND_BUFFER},
    .push_size = sizeof(histogram_push),
};

static const vkfx_kernel_desc histogram_sg_kernel = {
    .name = "histogram_sg",
    VKFX_SPV(histogram_sg),
    .nbind = 2,
    .bind = {VKFX_BIND_SAMPLED, VKFX_BIND_BUFFER},
    .push_size = sizeof(histogram_push),
};

static void histogram_destroy(vkfx_graph *g, void *state)
{
    histogram_state *s = state;
    if (!s)
        return;
    vkfx_buffer_destroy(vkfx_graph_context(g), s->bins);
    vkfx_buffer_destroy(vkfx_graph_context(g), s->counts);
    free(s);
}

static int histogram_create(vkfx_graph *g, const void *params, void **state)
{
    (void)params;
    int ret = VKFX_OK;
    histogram_state *s = calloc(1, sizeof(*s));
    if (!s)
        return vkfx_fail(VKFX_E_NOMEM, "out of host memory");
    TRY(vkfx_buffer_create(vkfx_graph_context(g), NCH * BINS * sizeof(uint32_t),
                           VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                               VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                           VKFX_MEM_DEVICE, &s->bins));
    TRY(vkfx_buffer_create(vkfx_graph_context(g), NCH * BINS * sizeof(uint32_t),
                           VK_BUFFER_USAGE_TRANSFER_DST_BIT, VKFX_MEM_UPLOAD, &s->counts));
    *state = s;
fail:
    if (ret < 0)
        histogram_destroy(g, s);
    return ret;
}

/* What each variant records: the counts of src into bins. */
typedef struct histogram_job {
    vkfx_image *src;
    vkfx_buffer *bins;
} histogram_job;

static int count_with(vkfx_graph *g, const histogram_job *j, const vkfx_kernel_desc *desc)
{
    int ret = VKFX_OK;
    uint32_t w = vkfx_graph_width(g), h = vkfx_graph_height(g);
    vkfx_kernel *k = NULL;
    vkfx_spec spec = {.local = {16, 16, 1},
                      .nextra = VKFX_SPEC_COUNT(HISTOGRAM_SPEC_PER),
                      .extra = {[VKFX_SPEC(HISTOGRAM_SPEC_PER)] = PER}};
    TRY(vkfx_graph_kernel(g, desc, &spec, &k));
    histogram_push push = {{(int32_t)w, (int32_t)h}};
    vkfx_dispatch d = {
        .kernel = k,
        .label = "histogram",
        .use = {{.image = j->src}, {.buffer = j->bins, .write = true}},
        .push = &push,
        .groups = {vkfx_groups(w, 16), vkfx_groups(vkfx_groups(h, PER), 16), 1},
    };
    TRY(vkfx_graph_dispatch(g, &d));
fail:
    return ret;
}

static int subgroup_record(vkfx_graph *g, const void *job)
{
    return count_with(g, job, &histogram_sg_kernel);
}

static int shared_record(vkfx_graph *g, const void *job)
{
    return count_with(g, job, &histogram_kernel);
}

/* Subgroup-aggregated counts where the device has subgroup arithmetic, shared-memory atomics
 * alone otherwise; both count exactly, so their outputs are the same. */
static const vkfx_variant histogram_variant_list[] = {
    {"subgroup", vkfx_variant_subgroup_arith, subgroup_record, NULL},
    {"shared", vkfx_variant_always, shared_record, NULL},
    {0},
};

static const vkfx_variants histogram_variants = {"histogram", histogram_variant_list};

static int histogram_record(vkfx_graph *g, const void *params, void *state, vkfx_image *src,
                            vkfx_image *dst)
{
    (void)params;
    (void)dst; /* NULL: the filter passes its input through */
    int ret = VKFX_OK;
    histogram_state *s = state;
    /* Cleared inside the command buffer: bench submits it several times. */
    TRY(vkfx_graph_fill(g, s->bins, 0));
    TRY(vkfx_variant_record(g, &histogram_variants, &(histogram_job){src, s->bins}));
    TRY(vkfx_graph_copy(g, s->bins, s->counts, NCH * BINS * sizeof(uint32_t)));
    /* The host reads the counts after the run. */
    vkfx_graph_host_reads(g, VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT);
fail:
    return ret;
}

static const char *const channel_names[NCH] = {"r", "g", "b", "luma"};

static int write_json(const char *path, const uint32_t *counts, uint64_t pixels)
{
    vkfx_safefile *out;
    int ret = vkfx_safefile_open(path, &out);
    if (ret < 0)
        return vkfx_fail_context(ret, "histogram: out");
    FILE *f = vkfx_safefile_stream(out);
    fprintf(f, "{\n  \"pixels\": %llu", (unsigned long long)pixels);
    for (int c = 0; c < NCH; c++) {
        const uint32_t *bins = counts + c * BINS;
        int lo = -1, hi = -1;
        double sum = 0;
        for (int i = 0; i < BINS; i++) {
            if (bins[i]) {
                if (lo < 0)
                    lo = i;
                hi = i;
            }
            sum += (double)i * bins[i];
        }
        fprintf(f, ",\n  \"%s\": {\"min\": %d, \"max\": %d, \"mean\": %.6f, \"counts\": [",
                channel_names[c], lo, hi, pixels ? sum / (double)pixels : 0.0);
        for (int i = 0; i < BINS; i++)
            fprintf(f, "%s%u", i ? ", " : "", bins[i]);
        fprintf(f, "]}");
    }
    fprintf(f, "\n}\n");
    ret = vkfx_safefile_commit(out);
    return ret < 0 ? vkfx_fail_context(ret, "histogram: out") : VKFX_OK;
}

/* R, G and B bars in their colours over the luma bars in gray, each
 * normalised to its own tallest bin; two columns per bin. */
static int write_plot(const char *path, const uint32_t *counts)
{
    int ret = VKFX_OK;
    vkfx_file_format fmt;
    uint32_t channels;
    vkfx_sample sample;
    vkfx_pixels px = {0};
    TRY(vkfx_file_format_for_output(path, &fmt));
    vkfx_file_output_layout(fmt, 3, VKFX_SAMPLE_U8, &channels, &sample);
    px.linear = sample == VKFX_SAMPLE_F32;
    px.straight = true;
    TRY(vkfx_pixels_alloc(&px, PLOT_W, PLOT_H, channels, sample));
    uint32_t peak[NCH] = {0};
    for (int c = 0; c < NCH; c++)
        for (int i = 0; i < BINS; i++)
            if (counts[c * BINS + i] > peak[c])
                peak[c] = counts[c * BINS + i];
    for (uint32_t x = 0; x < PLOT_W; x++) {
        uint32_t bin = x * BINS / PLOT_W;
        uint32_t bar[NCH];
        for (int c = 0; c < NCH; c++)
            bar[c] =
                peak[c] ? (uint32_t)((double)counts[c * BINS + bin] / peak[c] * PLOT_H + 0.5) : 0;
        for (uint32_t y = 0; y < PLOT_H; y++) {
            uint32_t up = PLOT_H - 1 - y; /* height above the bottom row */
            uint8_t gray = up < bar[3] ? 96 : 0;
            uint8_t rgb[3];
            for (int c = 0; c < 3; c++)
                rgb[c] = up < bar[c] ? 255 : gray;
            size_t at = ((size_t)y * PLOT_W + x) * channels;
            for (uint32_t c = 0; c < channels; c++) {
                uint8_t v = channels >= 3 ? (c < 3 ? rgb[c] : 255) : (c == 0 ? gray : 255);
                if (sample == VKFX_SAMPLE_U8)
                    ((uint8_t *)px.data)[at + c] = v;
                else if (sample == VKFX_SAMPLE_U16)
                    ((uint16_t *)px.data)[at + c] = (uint16_t)(v * 257);
                else
                    ((float *)px.data)[at + c] = v / 255.0f;
            }
        }
    }
    TRY(vkfx_file_save(path, fmt, &px, &(vkfx_save_opts){0}));
fail:
    vkfx_pixels_free(&px);
    if (ret < 0)
        vkfx_fail_context(ret, "histogram plot");
    return ret;
}

static int histogram_finish(vkfx_graph *g, const void *params, void *state)
{
    int ret = VKFX_OK;
    const histogram_params *p = params;
    histogram_state *s = state;
    uint32_t counts[NCH * BINS];
    memcpy(counts, s->counts->mapped, sizeof(counts));
    uint64_t pixels = (uint64_t)vkfx_graph_width(g) * vkfx_graph_height(g);
    if (p->out)
        TRY(write_json(p->out, counts, pixels));
    if (p->plot)
        TRY(write_plot(p->plot, counts));
fail:
    return ret;
}

const vkfx_filter vkfx_filter_histogram = {
    .name = "histogram",
    .help = "counts R, G, B and luma histograms; the image passes through unchanged",
    .details =
        "256 bins for each of R', G', B': the 8-bit codes of the un-premultiplied colour "
        "(alpha 0 gives 0), clamped to [0,1] and sRGB-encoded, code = floor(v*255 + 0.5), as an "
        "8-bit sRGB output would hold them (also with --linear), and 256 for luma "
        "Y' = 0.2126 R' + 0.7152 G' + 0.0722 B' of those codes, rounded to the nearest code "
        "(halves up, in exact integer arithmetic). out=FILE.json writes {\"pixels\": N, \"r\": "
        "{\"min\", \"max\", \"mean\", \"counts\": [256]}, \"g\", \"b\", \"luma\"}, where min, max "
        "and mean are of the codes 0..255 of that channel over all pixels. plot=FILE draws a "
        "512x256 picture: R, G, B bars in their colours over luma in gray, each scaled to its "
        "tallest bin. Counted where the filter sits in the chain; the output is its input.",
    .options = histogram_options,
    .params_size = sizeof(histogram_params),
    .create = histogram_create,
    .record = histogram_record,
    .finish = histogram_finish,
    .passes_through = true,
    .destroy = histogram_destroy,
    .variants = (const vkfx_variants *const[]){&histogram_variants, NULL},
};
