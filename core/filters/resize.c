/* resize of FILTERS.md: Pillow's ImagingResample scheme (lanczos3, mitchell, linear, box) on
 * linear premultiplied RGBA, along x into an image of the output's width, then along y. Each
 * output row or column takes its first input index, its tap count and its weights from a
 * table computed once on the host in double, normalised there and rounded to VKFX_WEIGHT_BITS
 * (core/gpu/kernel.h: their products with the halves they weigh are exact, the same bits on every
 * device). Where each side of the input is a whole number of times the output's, each pass
 * keeps an output's inputs in registers and loads only the new ones for the next output
 * (glsl/resize_ratio.comp). Else where both axes shrink, each pass walks lines, reading each
 * input once and adding it into the running sums of the outputs that read it
 * (glsl/resize_walk.comp). Otherwise the pass along x reads its rows through shared memory
 * where a work group's runs fit there (glsl/resize_rows.comp); the pass along y, and along x
 * otherwise, read the image directly (glsl/resize.comp). Every variant sums each output's taps
 * in input order: the same bytes. */
#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "variant.h"
#include "filters.h"

#include "resize.spv.h"
#include "resize_rows.spv.h"
#include "resize_ratio.spv.h"
#include "resize_walk.spv.h"
#include "../../glsl/resize.h"

_Static_assert(sizeof(resize_push) == RESIZE_PUSH_BYTES, "resize.comp's push block");
_Static_assert(sizeof(resize_rows_push) == RESIZE_ROWS_PUSH_BYTES, "resize_rows.comp's push block");
_Static_assert(sizeof(resize_walk_push) == RESIZE_WALK_PUSH_BYTES, "resize_walk.comp's push block");
_Static_assert(sizeof(resize_ratio_push) == RESIZE_RATIO_PUSH_BYTES,
               "resize_ratio.comp's push block");

/* resize.comp's work group: GROUP x GROUP outputs along x; along y, V_W x V_H, which the GPU
 * machine ran faster (tests/bench/RESULTS.md, resize). */
enum { GROUP = 16, V_W = 8, V_H = 32 };

enum { KERNEL_LANCZOS3, KERNEL_MITCHELL, KERNEL_LINEAR, KERNEL_BOX };
static const char *const kernel_names[] = {"lanczos3", "mitchell", "linear", "box", NULL};
/* Each kernel's support a, in input samples at scale 1 (FILTERS.md). */
static const double kernel_support[] = {3.0, 2.0, 1.0, 0.5};

/* The largest side resize makes: larger images than any device takes. */
#define MOST 65536

enum { FIT_EXACT, FIT_INSIDE, FIT_COVER };
static const char *const fit_names[] = {"exact", "inside", "cover", NULL};

typedef struct resize_params {
    int32_t width, height, longest;
    double scale;
    int kernel, fit;
    bool enlarge;
    /* Set by resize_window only: this run makes the outputs out of the full_out_w x full_out_h
     * image the whole full_in_w x full_in_h input would make, from the input's rectangle
     * starting at (in_x, in_y). */
    bool windowed;
    uint32_t full_in_w, full_in_h, full_out_w, full_out_h, in_x, in_y;
    vkfx_rect out;
} resize_params;

static const vkfx_option resize_options[] = {
    VKFX_OPTION_INT_UNSET(
        resize_params, width, "from height or scale", 1, MOST,
        "output width in pixels; alone, the height follows the aspect ratio (rounded to nearest)"),
    VKFX_OPTION_INT_UNSET(resize_params, height, "from width or scale", 1, MOST,
                          "output height in pixels; alone, the width follows the aspect ratio"),
    VKFX_OPTION_CHOICE(
        resize_params, fit, FIT_EXACT, fit_names,
        "with width and height: exact (that size, the aspect ratio not kept), inside (as large as "
        "fits in the box, aspect kept; a side left out does not bound it), cover (fills the box, "
        "aspect kept, the overflow cropped equally from both ends)"),
    VKFX_OPTION_INT_UNSET(resize_params, longest, "none", 1, MOST,
                          "the longer side in pixels, aspect kept (fit=inside in an NxN box)"),
    VKFX_OPTION_BOOL(resize_params, enlarge, 1,
                     "0: never larger than the input; an image already small enough keeps its size "
                     "(fit=cover: cropped to the box where it is larger)"),
    VKFX_OPTION_FLOAT_UNSET(
        resize_params, scale, "none", 1e-4, 16,
        "both sides times this, rounded to nearest, at least 1 (instead of width and height)"),
    VKFX_OPTION_CHOICE(resize_params, kernel, KERNEL_LANCZOS3, kernel_names,
                       "lanczos3 (sharpest), mitchell (B = C = 1/3), linear (triangle), box (mean "
                       "over the footprint)"),
    {0},
};

static int resize_check(const void *params)
{
    const resize_params *p = params;
    bool sides = p->width != VKFX_UNSET || p->height != VKFX_UNSET;
    if (p->longest != VKFX_UNSET && (sides || p->scale != VKFX_UNSET))
        return vkfx_fail(VKFX_E_USAGE, "resize: longest=N is the whole size; give no width, "
                                       "height or scale with it");
    if (p->longest != VKFX_UNSET && p->fit == FIT_COVER)
        return vkfx_fail(VKFX_E_USAGE, "resize: longest=N fits inside an NxN box; for a filled "
                                       "box give width=N:height=N:fit=cover");
    if (sides && p->scale != VKFX_UNSET)
        return vkfx_fail(VKFX_E_USAGE, "resize: give width and/or height, or scale, not both");
    if (!sides && p->scale == VKFX_UNSET && p->longest == VKFX_UNSET)
        return vkfx_fail(VKFX_E_USAGE, "resize: needs width=W, height=H, longest=N or scale=F");
    if (p->fit == FIT_COVER && (p->width == VKFX_UNSET || p->height == VKFX_UNSET))
        return vkfx_fail(VKFX_E_USAGE, "resize: fit=cover needs both width and height");
    if (p->fit != FIT_EXACT && p->scale != VKFX_UNSET)
        return vkfx_fail(VKFX_E_USAGE, "resize: fit=%s needs width and height, not scale",
                         fit_names[p->fit]);
    return VKFX_OK;
}

/* n * num / den rounded to nearest, at least 1. */
static uint32_t scaled(uint32_t n, double factor)
{
    double v = floor(n * factor + 0.5);
    return v < 1 ? 1 : v > MOST ? MOST : (uint32_t)v;
}

static int resize_size(const void *params, uint32_t w, uint32_t h, uint32_t *ow, uint32_t *oh)
{
    const resize_params *p = params;
    if (p->windowed) {
        *ow = p->out.w;
        *oh = p->out.h;
    } else if (p->scale != VKFX_UNSET) {
        *ow = scaled(w, p->scale);
        *oh = scaled(h, p->scale);
    } else if (p->longest != VKFX_UNSET || p->fit == FIT_INSIDE) {
        uint32_t bw = p->longest != VKFX_UNSET ? (uint32_t)p->longest
                      : p->width != VKFX_UNSET ? (uint32_t)p->width
                                               : MOST;
        uint32_t bh = p->longest != VKFX_UNSET  ? (uint32_t)p->longest
                      : p->height != VKFX_UNSET ? (uint32_t)p->height
                                                : MOST;
        /* The side that binds gets the box's size exactly, the other its share rounded. */
        if ((uint64_t)bw * h <= (uint64_t)bh * w) {
            *ow = bw;
            *oh = scaled(h, (double)bw / w);
        } else {
            *ow = scaled(w, (double)bh / h);
            *oh = bh;
        }
    } else if (p->fit == FIT_COVER) {
        *ow = (uint32_t)p->width;
        *oh = (uint32_t)p->height;
    } else {
        *ow = p->width != VKFX_UNSET ? (uint32_t)p->width : scaled(w, (double)p->height / h);
        *oh = p->height != VKFX_UNSET ? (uint32_t)p->height : scaled(h, (double)p->width / w);
    }
    if (!p->enlarge && !p->windowed && (*ow > w || *oh > h)) {
        /* Cover still crops a side longer than the box; the rest keep the input's size. */
        bool cover = p->fit == FIT_COVER;
        *ow = cover && *ow < w ? *ow : w;
        *oh = cover && *oh < h ? *oh : h;
    }
    return VKFX_OK;
}

/* fit=cover: the size (*cw x *ch) that in_w x in_h is resized to before the out_w x out_h in its
 * middle is kept; the side that binds is the output's exactly, the other at least the
 * output's. Otherwise the output's own size. */
static void covered(const resize_params *p, uint32_t in_w, uint32_t in_h, uint32_t out_w,
                    uint32_t out_h, uint32_t *cw, uint32_t *ch)
{
    *cw = out_w;
    *ch = out_h;
    if (p->fit != FIT_COVER)
        return;
    if ((uint64_t)out_w * in_h >= (uint64_t)out_h * in_w) {
        uint32_t s = scaled(in_h, (double)out_w / in_w);
        *ch = s > out_h ? s : out_h;
    } else {
        uint32_t s = scaled(in_w, (double)out_h / in_h);
        *cw = s > out_w ? s : out_w;
    }
}

static double sinc(double x)
{
    return x == 0.0 ? 1.0 : sin(M_PI * x) / (M_PI * x);
}

static double kernel_at(int kernel, double t)
{
    double a = fabs(t);
    switch (kernel) {
    case KERNEL_LANCZOS3:
        return -3.0 <= t && t < 3.0 ? sinc(t) * sinc(t / 3.0) : 0.0;
    case KERNEL_MITCHELL:
        /* Mitchell-Netravali's cubic at B = C = 1/3, its coefficients worked out. */
        if (a < 1.0)
            return (7.0 * a - 12.0) * a * a / 6.0 + 8.0 / 9.0;
        if (a < 2.0)
            return ((-7.0 / 3.0 * a + 12.0) * a - 20.0) * a / 6.0 + 16.0 / 9.0;
        return 0.0;
    case KERNEL_LINEAR:
        return a < 1.0 ? 1.0 - a : 0.0;
    case KERNEL_BOX:
        return t > -0.5 && t <= 0.5 ? 1.0 : 0.0;
    }
    return 0.0;
}

/* The most taps an output of an axis from in_size to out_size takes. */
static uint32_t max_taps(int kernel, uint32_t in_size, uint32_t out_size)
{
    double s = (double)in_size / out_size;
    uint32_t n = (uint32_t)ceil(kernel_support[kernel] * (s > 1.0 ? s : 1.0)) * 2 + 1;
    return n < in_size ? n : in_size;
}

/* The axes made last, by kernel and sizes: a batch of like files asks for the same ones file
 * after file, and making one takes two sines a tap (a 24-megapixel photo's 1024-wide thumbnail:
 * 4 ms of its recording on the H200 machine's host, where the device then took about 2). A
 * table here is the one axis_table made, copied out. */
enum { AXES_KEPT = 4 };
static struct kept_axis {
    int kernel;
    uint32_t in_size, out_size, taps;
    uint32_t *table;
} axes_kept[AXES_KEPT];
static unsigned axes_next;
static pthread_mutex_t axes_mu = PTHREAD_MUTEX_INITIALIZER;

static size_t axis_words(uint32_t out_size, uint32_t taps)
{
    return 2 * (size_t)out_size + (size_t)out_size * taps;
}

/* A copy of the kept table of these arguments into *out, or false. */
static bool axis_kept(int kernel, uint32_t in_size, uint32_t out_size, uint32_t taps,
                      uint32_t **out)
{
    bool found = false;
    pthread_mutex_lock(&axes_mu);
    for (unsigned i = 0; i < AXES_KEPT && !found; i++) {
        const struct kept_axis *k = &axes_kept[i];
        if (k->table && k->kernel == kernel && k->in_size == in_size && k->out_size == out_size &&
            k->taps == taps) {
            size_t bytes = axis_words(out_size, taps) * sizeof(uint32_t);
            *out = malloc(bytes);
            if (*out)
                memcpy(*out, k->table, bytes);
            found = *out != NULL;
        }
    }
    pthread_mutex_unlock(&axes_mu);
    return found;
}

/* Keeps a copy of table, made with these arguments, in place of the oldest (nothing kept when
 * the host has no memory for it). */
static void axis_keep(int kernel, uint32_t in_size, uint32_t out_size, uint32_t taps,
                      const uint32_t *table)
{
    size_t bytes = axis_words(out_size, taps) * sizeof(uint32_t);
    uint32_t *copy = malloc(bytes);
    if (!copy)
        return;
    memcpy(copy, table, bytes);
    pthread_mutex_lock(&axes_mu);
    struct kept_axis *k = &axes_kept[axes_next++ % AXES_KEPT];
    free(k->table);
    *k = (struct kept_axis){kernel, in_size, out_size, taps, copy};
    pthread_mutex_unlock(&axes_mu);
}

/* The weights of one axis: for output i, words[2i] its first input index, words[2i+1] its tap
 * count, then its taps as floats, normalised to sum 1: tap k of output i at word
 * 2 out + k * out + i, so that neighbouring outputs' weights are neighbouring words (the
 * kernels' loads of a tap then touch one or two cache lines, not one per output). */
static int axis_table(int kernel, uint32_t in_size, uint32_t out_size, uint32_t taps,
                      uint32_t **out)
{
    if (axis_kept(kernel, in_size, out_size, taps, out))
        return VKFX_OK;
    size_t words = axis_words(out_size, taps);
    uint32_t *t = calloc(words, sizeof(*t));
    double *wt = malloc(sizeof(double) * (in_size + 1));
    if (!t || !wt) {
        free(t);
        free(wt);
        return vkfx_fail(VKFX_E_NOMEM, "out of host memory for resize weights");
    }
    double s = (double)in_size / out_size;
    double fs = s > 1.0 ? s : 1.0;
    double support = kernel_support[kernel] * fs;
    float *weights = (float *)(t + 2 * (size_t)out_size);
    for (uint32_t i = 0; i < out_size; i++) {
        double center = (i + 0.5) * s;
        int64_t lo = (int64_t)floor(center - support + 0.5);
        int64_t hi = (int64_t)floor(center + support + 0.5);
        lo = lo < 0 ? 0 : lo;
        hi = hi > (int64_t)in_size ? (int64_t)in_size : hi;
        if (hi - lo > (int64_t)taps)
            hi = lo + taps;
        double sum = 0.0;
        for (int64_t x = lo; x < hi; x++)
            sum += wt[x - lo] = kernel_at(kernel, (x + 0.5 - center) / fs);
        /* Every output has a tap within the support: the kernels are positive near 0. */
        for (int64_t x = lo; x < hi; x++)
            weights[(size_t)(x - lo) * out_size + i] =
                vkfx_exact_weight(sum != 0.0 ? wt[x - lo] / sum : 0.0);
        t[2 * i] = (uint32_t)lo;
        t[2 * i + 1] = (uint32_t)(hi - lo);
    }
    free(wt);
    axis_keep(kernel, in_size, out_size, taps, t);
    *out = t;
    return VKFX_OK;
}

static const vkfx_kernel_desc resize_kernel = {
    .name = "resize",
    VKFX_SPV(resize),
    .nbind = 3,
    .bind = {VKFX_BIND_SAMPLED, VKFX_BIND_STORAGE_IMAGE, VKFX_BIND_BUFFER},
    .push_size = sizeof(resize_push),
};

/* The weight table of one axis (axis_table's layout) and its sizes. */
typedef struct axis {
    uint32_t *table;
    uint32_t taps, out_size;
    size_t words;
} axis;

/* The first input and the end of the furthest run of each tile of width outputs, into out
 * (two words a tile) where not NULL; returns the most inputs a tile reads. */
static uint32_t tile_spans(const axis *a, uint32_t width, uint32_t *out)
{
    uint32_t most = 0;
    for (uint32_t t = 0; t * width < a->out_size; t++) {
        uint32_t first = a->table[2 * t * width], end = first;
        for (uint32_t i = t * width; i < a->out_size && i < (t + 1) * width; i++) {
            uint32_t e = a->table[2 * i] + a->table[2 * i + 1];
            end = e > end ? e : end;
        }
        if (out) {
            out[2 * t] = first;
            out[2 * t + 1] = end;
        }
        most = end - first > most ? end - first : most;
    }
    return most;
}

static int make_axis(int kernel, uint32_t in_size, uint32_t out_size, axis *a)
{
    a->taps = max_taps(kernel, in_size, out_size);
    a->out_size = out_size;
    a->words = (2 + (size_t)a->taps) * out_size;
    return axis_table(kernel, in_size, out_size, a->taps, &a->table);
}

/* The inputs [*first, *end) that outputs [o0, o0 + n) of a read. */
static void axis_reads(const axis *a, uint32_t o0, uint32_t n, uint32_t *first, uint32_t *end)
{
    *first = a->table[2 * o0];
    *end = *first;
    for (uint32_t i = o0; i < o0 + n; i++)
        if (a->table[2 * i] + a->table[2 * i + 1] > *end)
            *end = a->table[2 * i] + a->table[2 * i + 1];
}

/* The table of outputs [o0, o0 + n) of the axis from in_size to out_size, their inputs counted
 * from in0: the whole axis's taps and weights, the same floats. */
static int make_axis_window(int kernel, uint32_t in_size, uint32_t out_size, uint32_t o0,
                            uint32_t n, uint32_t in0, axis *a)
{
    axis whole;
    int ret = make_axis(kernel, in_size, out_size, &whole);
    if (ret < 0)
        return ret;
    a->taps = whole.taps;
    a->out_size = n;
    a->words = (2 + (size_t)a->taps) * n;
    a->table = malloc(a->words * sizeof(*a->table));
    if (!a->table) {
        free(whole.table);
        return vkfx_fail(VKFX_E_NOMEM, "out of host memory for resize weights");
    }
    for (uint32_t i = 0; i < n; i++) {
        a->table[2 * i] = whole.table[2 * (o0 + i)] - in0;
        a->table[2 * i + 1] = whole.table[2 * (o0 + i) + 1];
        for (uint32_t k = 0; k < a->taps; k++)
            a->table[(2 + (size_t)k) * n + i] = whole.table[(2 + (size_t)k) * out_size + o0 + i];
    }
    free(whole.table);
    return VKFX_OK;
}

static int resize_window(const void *params, uint32_t in_w, uint32_t in_h, uint32_t out_w,
                         uint32_t out_h, const vkfx_rect *out, vkfx_rect *in, void *window)
{
    const resize_params *p = params;
    axis x = {0}, y = {0};
    int ret = VKFX_OK;
    uint32_t cw, ch;
    covered(p, in_w, in_h, out_w, out_h, &cw, &ch);
    /* The window of the covering image: the output's rectangle moved by the crop. */
    vkfx_rect full = {out->x + (cw - out_w) / 2, out->y + (ch - out_h) / 2, out->w, out->h};
    TRY(make_axis(p->kernel, in_w, cw, &x));
    TRY(make_axis(p->kernel, in_h, ch, &y));
    uint32_t x_end, y_end;
    axis_reads(&x, full.x, full.w, &in->x, &x_end);
    axis_reads(&y, full.y, full.h, &in->y, &y_end);
    in->w = x_end - in->x;
    in->h = y_end - in->y;
    resize_params *wp = window;
    *wp = *p;
    wp->windowed = true;
    wp->full_in_w = in_w;
    wp->full_in_h = in_h;
    wp->full_out_w = cw;
    wp->full_out_h = ch;
    wp->in_x = in->x;
    wp->in_y = in->y;
    wp->out = full;
fail:
    free(x.table);
    free(y.table);
    return ret;
}

/* One pass along an axis from src into dst (of its final size along that axis). */
static int pass(vkfx_graph *g, const axis *a, bool vertical, vkfx_image *src, vkfx_image *dst)
{
    int ret = VKFX_OK;
    vkfx_buffer *buf = NULL;
    vkfx_kernel *k = NULL;
    TRY(vkfx_graph_upload(g, a->table, a->words * sizeof(*a->table), &buf));
    uint32_t gw = vertical ? V_W : GROUP, gh = vertical ? V_H : GROUP;
    vkfx_spec spec = {.local = {gw, gh, 1}, .half_out = vkfx_half_out(dst->format)};
    TRY(vkfx_graph_kernel(g, &resize_kernel, &spec, &k));
    resize_push push = {{(int32_t)dst->width, (int32_t)dst->height}, vertical};
    vkfx_dispatch d = {
        .kernel = k,
        .label = vertical ? "resize.v" : "resize.h",
        .use = {{.image = src}, {.image = dst, .write = true}, {.buffer = buf}},
        .push = &push,
        .groups = {vkfx_groups(dst->width, gw), vkfx_groups(dst->height, gh), 1},
    };
    TRY(vkfx_graph_dispatch(g, &d));
fail:
    return ret;
}

/* What each variant records: src resized into dst by the two axes' tables. */
typedef struct resize_job {
    axis x, y;
    vkfx_image *src, *dst;
} resize_job;

/* One pass of a variant's kernel along axis a from src into dst. */
typedef int (*pass_fn)(vkfx_graph *g, const axis *a, bool vertical, vkfx_image *src,
                       vkfx_image *dst);

/* job's two passes through one kernel: along x first, as Pillow does, into an image of the
 * output's width, then along y. */
static int x_then_y(vkfx_graph *g, const resize_job *j, pass_fn one)
{
    int ret = VKFX_OK;
    vkfx_image *mid = NULL;
    TRY(vkfx_graph_image(g, j->dst->width, j->src->height, vkfx_graph_format(g), &mid));
    TRY(one(g, &j->x, false, j->src, mid));
    TRY(one(g, &j->y, true, mid, j->dst));
fail:
    return ret;
}

static int texture_record(vkfx_graph *g, const void *job)
{
    return x_then_y(g, job, pass);
}

/* resize_rows' work group: ROWS_W outputs of each of ROWS_H rows (on the GPU machine two rows
 * ran faster than one, four or eight: tests/bench/RESULTS.md, resize). */
enum { ROWS_W = 64, ROWS_H = 2 };

static const vkfx_kernel_desc resize_rows_kernel = {
    .name = "resize_rows",
    VKFX_SPV(resize_rows),
    .nbind = 3,
    .bind = {VKFX_BIND_SAMPLED, VKFX_BIND_STORAGE_IMAGE, VKFX_BIND_BUFFER},
    .push_size = sizeof(resize_rows_push),
};

/* resize_rows' shared capacity of a row's span for a job (a power of two from 64 up), or 0
 * where the image is not rgba16f (the kernel keeps packed halves) or the group's rows do not
 * fit. */
static uint32_t rows_span(const vkfx_caps *caps, const resize_job *j)
{
    if (j->src->format != VK_FORMAT_R16G16B16A16_SFLOAT)
        return 0;
    uint32_t most = tile_spans(&j->x, ROWS_W, NULL), cap = 64;
    while (cap < most)
        cap *= 2;
    return (uint64_t)cap * ROWS_H * 8 <= caps->shared_memory ? cap : 0;
}

static bool rows_applies(const vkfx_caps *caps, const void *job)
{
    return rows_span(caps, job) > 0;
}

/* Along x through resize_rows into an image of the output's width, then along y. */
static int rows_record(vkfx_graph *g, const void *job)
{
    int ret = VKFX_OK;
    const resize_job *j = job;
    vkfx_image *mid = NULL;
    vkfx_buffer *buf = NULL;
    vkfx_kernel *k = NULL;
    uint32_t ntiles = vkfx_groups(j->x.out_size, ROWS_W);
    size_t words = j->x.words + 2 * (size_t)ntiles;
    uint32_t *table = malloc(words * sizeof(*table));
    if (!table)
        return vkfx_fail(VKFX_E_NOMEM, "out of host memory for resize weights");
    memcpy(table, j->x.table, j->x.words * sizeof(*table));
    tile_spans(&j->x, ROWS_W, table + j->x.words);
    TRY(vkfx_graph_image(g, j->dst->width, j->src->height, vkfx_graph_format(g), &mid));
    TRY(vkfx_graph_upload(g, table, words * sizeof(*table), &buf));
    vkfx_spec spec = {.local = {ROWS_W, ROWS_H, 1},
                      .half_out = vkfx_half_out(mid->format),
                      .nextra = VKFX_SPEC_COUNT(RESIZE_SPEC_SPAN)};
    spec.extra[VKFX_SPEC(RESIZE_SPEC_SPAN)] = rows_span(vkfx_graph_caps(g), j);
    TRY(vkfx_graph_kernel(g, &resize_rows_kernel, &spec, &k));
    resize_rows_push push = {{(int32_t)mid->width, (int32_t)mid->height}, (uint32_t)j->x.words};
    vkfx_dispatch d = {
        .kernel = k,
        .label = "resize.h",
        .use = {{.image = j->src}, {.image = mid, .write = true}, {.buffer = buf}},
        .push = &push,
        .groups = {ntiles, vkfx_groups(mid->height, ROWS_H), 1},
    };
    TRY(vkfx_graph_dispatch(g, &d));
    TRY(pass(g, &j->y, true, mid, j->dst));
fail:
    free(table);
    return ret;
}

/* resize_walk's work group: WALK_W lines. Each invocation makes a segment of at most
 * WALK_SEG outputs of its line, fewer where the pass would then have fewer than WALK_THREADS
 * invocations (down to WALK_SEG_LEAST): a segment reads the inputs at its ends a second time,
 * but one invocation walks its inputs one after another (sizes from a sweep on the GPU
 * machine, tests/bench/RESULTS.md, resize). It takes shrink factors up to WALK_MOST (beyond,
 * the texture passes can be faster) and kernels of at least WALK_TAPS taps along x (with
 * fewer, resize_rows' sums are cheap and it was faster). */
enum {
    WALK_W = 64,
    WALK_SEG = 32,
    WALK_SEG_LEAST = 2,
    WALK_THREADS = 1 << 17,
    WALK_MOST = 32,
    WALK_TAPS = 6,
    WALK_UNROLL = 4,
    WALK_STEP_WORDS = 8
};

/* resize_walk's table for axis a from in_size inputs (WALK_STEP_WORDS words an input,
 * glsl/resize_walk.comp) into steps, and the first incomplete output before each input into
 * low_of, where not NULL; false where the kernel cannot take the axis: the outputs' runs must
 * start and end in output order, only the last input may complete more than one, and no input
 * may feed an output RESIZE_WALK_SLOTS or more past the first one not yet complete. */
static bool walk_steps(const axis *a, uint32_t in_size, uint32_t *steps, uint32_t *low_of)
{
    const uint32_t n = a->out_size, *t = a->table;
    const float *weights = (const float *)(t + 2 * (size_t)n);
    if (n > in_size)
        return false;
    for (uint32_t i = 1; i < n; i++)
        if (t[2 * i] < t[2 * (i - 1)] ||
            t[2 * i] + t[2 * i + 1] < t[2 * (i - 1)] + t[2 * (i - 1) + 1])
            return false;
    uint32_t low = 0; /* the first output not complete before input r */
    for (uint32_t r = 0; r < in_size; r++) {
        while (low < n && t[2 * low] + t[2 * low + 1] <= r)
            low++;
        if (low + RESIZE_WALK_SLOTS < n && t[2 * (low + RESIZE_WALK_SLOTS)] <= r)
            return false;
        uint32_t done = 0, feeds = 0;
        while (low + done < n && t[2 * (low + done)] + t[2 * (low + done) + 1] == r + 1)
            done++;
        /* Only the last input completes more than one output (their runs end at the edge);
         * the kernel stores those after its walk. */
        if (done > 1 && r + 1 < in_size)
            return false;
        if (low_of)
            low_of[r] = low;
        if (!steps)
            continue;
        uint32_t *step = steps + (size_t)r * WALK_STEP_WORDS;
        memset(step, 0, WALK_STEP_WORDS * sizeof(*step));
        for (uint32_t s = 0; s < RESIZE_WALK_SLOTS && low + s < n; s++) {
            uint32_t i = low + s, first = t[2 * i];
            if (first <= r && r < first + t[2 * i + 1]) {
                feeds |= 1u << s;
                memcpy(&step[1 + s], &weights[(size_t)(r - first) * n + i], sizeof(float));
            }
        }
        step[0] = (done > 0) | feeds << 8;
    }
    return true;
}

static const vkfx_kernel_desc resize_walk_kernel = {
    .name = "resize_walk",
    VKFX_SPV(resize_walk),
    .nbind = 4,
    .bind = {VKFX_BIND_SAMPLED, VKFX_BIND_STORAGE_IMAGE, VKFX_BIND_BUFFER, VKFX_BIND_BUFFER},
    .push_size = sizeof(resize_walk_push),
};

static bool walk_applies(const vkfx_caps *caps, const void *job)
{
    (void)caps;
    const resize_job *j = job;
    if ((uint64_t)j->x.out_size * WALK_MOST < j->src->width ||
        (uint64_t)j->y.out_size * WALK_MOST < j->src->height || j->x.taps < WALK_TAPS)
        return false;
    return walk_steps(&j->x, j->src->width, NULL, NULL) &&
           walk_steps(&j->y, j->src->height, NULL, NULL);
}

/* One pass of resize_walk along axis a from src into dst. */
static int walk_pass(vkfx_graph *g, const axis *a, bool vertical, vkfx_image *src, vkfx_image *dst)
{
    int ret = VKFX_OK;
    vkfx_buffer *steps_buf = NULL, *segs_buf = NULL;
    vkfx_kernel *k = NULL;
    uint32_t in_size = vertical ? src->height : src->width;
    uint32_t lines = vertical ? dst->width : dst->height, seg = WALK_SEG;
    while (seg > WALK_SEG_LEAST && (uint64_t)lines * vkfx_groups(a->out_size, seg) < WALK_THREADS)
        seg /= 2;
    uint32_t nsegs = vkfx_groups(a->out_size, seg);
    uint32_t *steps = malloc((size_t)in_size * WALK_STEP_WORDS * sizeof(*steps));
    uint32_t *low = malloc((size_t)in_size * sizeof(*low));
    uint32_t *segs = malloc(3 * (size_t)nsegs * sizeof(*segs));
    if (!steps || !low || !segs) {
        ret = vkfx_fail(VKFX_E_NOMEM, "out of host memory for resize weights");
        goto fail;
    }
    walk_steps(a, in_size, steps, low);
    for (uint32_t s = 0; s < nsegs; s++) {
        uint32_t o0 = s * seg, on = a->out_size - o0 < seg ? a->out_size - o0 : seg;
        axis_reads(a, o0, on, &segs[3 * s], &segs[3 * s + 1]);
        segs[3 * s + 2] = low[segs[3 * s]];
    }
    TRY(vkfx_graph_upload(g, steps, (size_t)in_size * WALK_STEP_WORDS * sizeof(*steps),
                          &steps_buf));
    TRY(vkfx_graph_upload(g, segs, 3 * (size_t)nsegs * sizeof(*segs), &segs_buf));
    vkfx_spec spec = {.local = {WALK_W, 1, 1},
                      .half_out = vkfx_half_out(dst->format),
                      .nextra = VKFX_SPEC_COUNT(RESIZE_SPEC_UNROLL)};
    spec.extra[VKFX_SPEC(RESIZE_SPEC_UNROLL)] = WALK_UNROLL;
    TRY(vkfx_graph_kernel(g, &resize_walk_kernel, &spec, &k));
    resize_walk_push push = {{(int32_t)dst->width, (int32_t)dst->height}, vertical, seg};
    vkfx_dispatch d = {
        .kernel = k,
        .label = vertical ? "resize.v" : "resize.h",
        .use = {{.image = src},
                {.image = dst, .write = true},
                {.buffer = steps_buf},
                {.buffer = segs_buf}},
        .push = &push,
        .groups = {vkfx_groups(lines, WALK_W), nsegs, 1},
    };
    TRY(vkfx_graph_dispatch(g, &d));
fail:
    free(steps);
    free(low);
    free(segs);
    return ret;
}

/* Not on a software device: each invocation's walk is one long loop, which lavapipe runs far
 * slower than resize_rows' or the texture passes' short ones (tests/bench/RESULTS.md,
 * resize walking lines). */
static bool walk_preferred(const vkfx_caps *caps, const void *job)
{
    (void)job;
    return !caps->cpu;
}

/* Along x, then along y, each pass walking lines (glsl/resize_walk.comp). */
static int walk_record(vkfx_graph *g, const void *job)
{
    return x_then_y(g, job, walk_pass);
}

/* resize_ratio's work group: RATIO_LINES lines by RATIO_SEGS segments, each invocation making a
 * segment of one turn of the kernel (taps / ratio outputs); short segments read the inputs at
 * their ends again, but the GPU machine ran these fastest (tests/bench/RESULTS.md, resize by
 * whole numbers). An output's taps, RATIO_TAPS_MOST at most, are held in registers. */
enum { RATIO_LINES = 32, RATIO_SEGS = 4, RATIO_TAPS_MOST = 24 };

/* The shape glsl/resize_ratio.comp needs of axis a from in_size inputs. */
typedef struct ratio_shape {
    uint32_t r, taps; /* in_size / out_size, and the taps of the outputs in [lo, hi) */
    uint32_t lo, hi;  /* each reads taps inputs from r i + first on, with output lo's weights */
    int32_t first;
} ratio_shape;

/* Whether outputs i and m of axis a read the same run relative to r i and r m, with the same
 * weights. */
static bool ratio_same(const axis *a, uint32_t r, uint32_t i, uint32_t m)
{
    const uint32_t n = a->out_size, *t = a->table;
    if (t[2 * i + 1] != t[2 * m + 1] ||
        (int64_t)t[2 * i] - (int64_t)r * i != (int64_t)t[2 * m] - (int64_t)r * m)
        return false;
    for (uint32_t k = 0; k < t[2 * m + 1]; k++)
        if (t[(2 + (size_t)k) * n + i] != t[(2 + (size_t)k) * n + m])
            return false;
    return true;
}

/* The outputs around the middle one that read a whole number of inputs' shift apart with the
 * same weights; false where in_size is not a whole number of times the output size, or the
 * taps do not fit resize_ratio. */
static bool ratio_axis(const axis *a, uint32_t in_size, ratio_shape *sh)
{
    const uint32_t n = a->out_size, m = n / 2;
    if (in_size % n != 0)
        return false;
    sh->r = in_size / n;
    sh->taps = a->table[2 * m + 1];
    if (sh->taps > RATIO_TAPS_MOST || sh->taps < sh->r || sh->taps % sh->r != 0)
        return false;
    sh->first = (int32_t)((int64_t)a->table[2 * m] - (int64_t)sh->r * m);
    sh->lo = m;
    while (sh->lo > 0 && ratio_same(a, sh->r, sh->lo - 1, m))
        sh->lo--;
    sh->hi = m + 1;
    while (sh->hi < n && ratio_same(a, sh->r, sh->hi, m))
        sh->hi++;
    return true;
}

static const vkfx_kernel_desc resize_ratio_kernel = {
    .name = "resize_ratio",
    VKFX_SPV(resize_ratio),
    .nbind = 3,
    .bind = {VKFX_BIND_SAMPLED, VKFX_BIND_STORAGE_IMAGE, VKFX_BIND_BUFFER},
    .push_size = sizeof(resize_ratio_push),
};

static bool ratio_applies(const vkfx_caps *caps, const void *job)
{
    (void)caps;
    const resize_job *j = job;
    ratio_shape x, y;
    return ratio_axis(&j->x, j->src->width, &x) && ratio_axis(&j->y, j->src->height, &y);
}

/* One pass of resize_ratio along axis a from src into dst. */
static int ratio_pass(vkfx_graph *g, const axis *a, bool vertical, vkfx_image *src, vkfx_image *dst)
{
    int ret = VKFX_OK;
    vkfx_buffer *buf = NULL;
    vkfx_kernel *k = NULL;
    ratio_shape sh;
    ratio_axis(a, vertical ? src->height : src->width, &sh);
    uint32_t lines = vertical ? dst->width : dst->height, seg = sh.taps / sh.r;
    TRY(vkfx_graph_upload(g, a->table, a->words * sizeof(*a->table), &buf));
    vkfx_spec spec = {.local = {RATIO_LINES, RATIO_SEGS, 1},
                      .half_out = vkfx_half_out(dst->format),
                      .nextra = VKFX_SPEC_COUNT(RESIZE_SPEC_TAPS)};
    spec.extra[VKFX_SPEC(RESIZE_SPEC_RATIO)] = sh.r;
    spec.extra[VKFX_SPEC(RESIZE_SPEC_TAPS)] = sh.taps;
    TRY(vkfx_graph_kernel(g, &resize_ratio_kernel, &spec, &k));
    resize_ratio_push push = {
        {(int32_t)dst->width, (int32_t)dst->height}, vertical, seg, sh.lo, sh.hi, sh.first};
    vkfx_dispatch d = {
        .kernel = k,
        .label = vertical ? "resize.v" : "resize.h",
        .use = {{.image = src}, {.image = dst, .write = true}, {.buffer = buf}},
        .push = &push,
        .groups = {vkfx_groups(lines, RATIO_LINES),
                   vkfx_groups(vkfx_groups(a->out_size, seg), RATIO_SEGS), 1},
    };
    TRY(vkfx_graph_dispatch(g, &d));
fail:
    return ret;
}

/* Along x, then along y, each pass through resize_ratio. */
static int ratio_record(vkfx_graph *g, const void *job)
{
    return x_then_y(g, job, ratio_pass);
}

/* Registers holding each output's inputs where both sides shrink by whole numbers with at most
 * RATIO_TAPS_MOST taps (on every device: on lavapipe too it ran faster than rows or texture);
 * else walking lines where both axes shrink by up to WALK_MOST with a kernel of WALK_TAPS taps or
 * more, except on a software device; else along x through shared memory for rgba16f where a
 * work group's runs fit there (with lanczos3 and 48 KiB of it, shrinking by up to about 14x),
 * then along y through the texture cache; else through the texture cache along both. */
static const vkfx_variant resize_variant_list[] = {
    {"ratio", ratio_applies, ratio_record, NULL},
    {"walk", walk_applies, walk_record, walk_preferred},
    {"rows", rows_applies, rows_record, NULL},
    {"texture", vkfx_variant_always, texture_record, NULL},
    {0},
};

static const vkfx_variants resize_variants = {"resize", resize_variant_list};

static int resize_record(vkfx_graph *g, const void *params, void *state, vkfx_image *src,
                         vkfx_image *dst)
{
    (void)state;
    int ret = VKFX_OK;
    const resize_params *p = params;
    resize_job j = {.src = src, .dst = dst};
    if (p->windowed) {
        TRY(make_axis_window(p->kernel, p->full_in_w, p->full_out_w, p->out.x, p->out.w, p->in_x,
                             &j.x));
        TRY(make_axis_window(p->kernel, p->full_in_h, p->full_out_h, p->out.y, p->out.h, p->in_y,
                             &j.y));
    } else {
        uint32_t cw, ch;
        covered(p, src->width, src->height, dst->width, dst->height, &cw, &ch);
        if (p->fit == FIT_COVER) {
            TRY(make_axis_window(p->kernel, src->width, cw, (cw - dst->width) / 2, dst->width, 0,
                                 &j.x));
            TRY(make_axis_window(p->kernel, src->height, ch, (ch - dst->height) / 2, dst->height, 0,
                                 &j.y));
        } else {
            TRY(make_axis(p->kernel, src->width, dst->width, &j.x));
            TRY(make_axis(p->kernel, src->height, dst->height, &j.y));
        }
    }
    TRY(vkfx_variant_record(g, &resize_variants, &j));
fail:
    free(j.x.table);
    free(j.y.table);
    return ret;
}

const vkfx_filter vkfx_filter_resize = {
    .name = "resize",
    .help = "resize: lanczos3, mitchell, linear or box in linear premultiplied light",
    .details = "Pillow's resampling scheme (FILTERS.md): for output i, centre (i + 0.5) in/out, "
               "the kernel widened by in/out when shrinking, its taps clipped to the image and "
               "normalised to sum 1, then rounded to 13 significant bits (each product with a "
               "half is then exact: at rgba16f, the same bytes on every device checked, README); "
               "along x, then along y, each output summing its taps in input order. A chain's "
               "later filters see the new size; a map given to a filter after it is refused. As "
               "the first filter of a chain that shrinks a JPEG by 4x or more, the JPEG is "
               "decoded at 1/2, 1/4 or 1/8 of its size in the DCT domain and resized from there "
               "by 2x or more (within 2 code values of the exact result on average, up to 75 at "
               "high-contrast edges; --no-shrink-on-load: from the full decode).\n"
               "\n"
               "Thumbnails of mixed photos, as vipsthumbnail and ImageMagick's -resize make them:\n"
               "  resize:width=800:height=800:fit=inside   fits in 800x800, aspect kept\n"
               "  resize:longest=800                       the same: the longer side 800\n"
               "  resize:width=300:height=300:fit=cover    fills 300x300, the rest cropped evenly\n"
               "  resize:longest=1024:enlarge=0            shrinks to 1024, never enlarges\n"
               "                                           (ImageMagick '1024x1024>')",
    .options = resize_options,
    .params_size = sizeof(resize_params),
    .check = resize_check,
    .record = resize_record,
    .size = resize_size,
    .window = resize_window,
    .variants = (const vkfx_variants *const[]){&resize_variants, NULL},
};
