#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>
#include "common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "error.h"

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

void tc_random_pixels(vkfx_pixels *px, uint32_t w, uint32_t h, uint32_t channels, vkfx_sample s,
                      uint64_t seed)
{
    if (vkfx_pixels_alloc(px, w, h, channels, s) < 0) {
        fprintf(stderr, "tc_random_pixels: %s\n", vkfx_error_message());
        abort();
    }
    px->linear = s == VKFX_SAMPLE_F32;
    px->straight = true;
    uint64_t state = seed;
    size_t n = (size_t)w * h * channels;
    for (size_t i = 0; i < n; i++) {
        uint64_t r = splitmix64(&state);
        switch (s) {
        case VKFX_SAMPLE_U8:
            ((uint8_t *)px->data)[i] = (uint8_t)(r >> 56);
            break;
        case VKFX_SAMPLE_U16:
            ((uint16_t *)px->data)[i] = (uint16_t)(r >> 48);
            break;
        case VKFX_SAMPLE_F32:
            /* 24 random bits: every value is an exact float below 1 */
            ((float *)px->data)[i] = (float)((double)(r >> 40) * 0x1p-24);
            break;
        }
    }
}

const char *const *tc_photos(void)
{
    static const char *const photos[] = {
        "astronaut.png",         "camera.png",          "chelsea.png", "coffee.png",
        "hubble_deep_field.jpg", "motorcycle_left.png", "rocket.jpg",  NULL,
    };
    return photos;
}

int tc_crop(const vkfx_pixels *src, uint32_t x, uint32_t y, uint32_t w, uint32_t h,
            vkfx_pixels *dst)
{
    if ((src->width == 0 || src->height == 0) && w > 0 && h > 0)
        return vkfx_fail(VKFX_E_USAGE, "tc_crop: nothing to crop from a %ux%u image", src->width,
                         src->height);
    dst->linear = src->linear;
    dst->straight = src->straight;
    int ret = vkfx_pixels_alloc(dst, w, h, src->channels, src->sample);
    if (ret < 0)
        return ret;
    size_t px_bytes = src->channels * vkfx_sample_size(src->sample);
    const uint8_t *s = src->data;
    uint8_t *d = dst->data;
    for (uint32_t j = 0; j < h; j++) {
        size_t sy = ((size_t)y + j) % src->height;
        for (uint32_t i = 0; i < w; i++) {
            size_t sx = ((size_t)x + i) % src->width;
            memcpy(d + ((size_t)j * w + i) * px_bytes, s + (sy * src->width + sx) * px_bytes,
                   px_bytes);
        }
    }
    return VKFX_OK;
}

int tc_fit(const vkfx_pixels *src, uint32_t w, uint32_t h, vkfx_pixels *dst)
{
    uint32_t x = src->width >= w ? (src->width - w) / 2 : 0;
    uint32_t y = src->height >= h ? (src->height - h) / 2 : 0;
    return tc_crop(src, x, y, w, h, dst);
}

static double sample_at(const vkfx_pixels *px, size_t i)
{
    switch (px->sample) {
    case VKFX_SAMPLE_U8:
        return ((const uint8_t *)px->data)[i];
    case VKFX_SAMPLE_U16:
        return ((const uint16_t *)px->data)[i];
    case VKFX_SAMPLE_F32:
        return ((const float *)px->data)[i];
    }
    return 0.0;
}

static tc_diff compare(const vkfx_pixels *got, const vkfx_pixels *want, double tol,
                       double rel_floor)
{
    tc_diff d = {
        .tol = tol,
        .rel_floor = rel_floor,
        .got_w = got->width,
        .got_h = got->height,
        .got_c = got->channels,
        .got_s = got->sample,
        .want_w = want->width,
        .want_h = want->height,
        .want_c = want->channels,
        .want_s = want->sample,
    };
    if (got->width != want->width || got->height != want->height ||
        got->channels != want->channels || got->sample != want->sample) {
        d.shape_mismatch = true;
        return d;
    }
    bool first = true;
    for (uint32_t y = 0; y < want->height; y++) {
        for (uint32_t x = 0; x < want->width; x++) {
            for (uint32_t c = 0; c < want->channels; c++) {
                size_t i = ((size_t)y * want->width + x) * want->channels + c;
                double g = sample_at(got, i), w = sample_at(want, i);
                double err;
                if (g == w || (isnan(g) && isnan(w)))
                    err = 0.0;
                else if (rel_floor > 0.0)
                    err = fabs(g - w) / fmax(fabs(w), rel_floor);
                else
                    err = fabs(g - w);
                if (isnan(err))
                    err = INFINITY;
                if (err > tol)
                    d.over++;
                if (first || err > d.max_abs) {
                    first = false;
                    d.max_abs = err;
                    d.x = x;
                    d.y = y;
                    d.c = c;
                    d.got = g;
                    d.want = w;
                }
            }
        }
    }
    return d;
}

tc_diff tc_compare(const vkfx_pixels *got, const vkfx_pixels *want, double tol)
{
    return compare(got, want, tol, 0.0);
}

tc_diff tc_compare_rel(const vkfx_pixels *got, const vkfx_pixels *want, double tol,
                       double rel_floor)
{
    return compare(got, want, tol, rel_floor);
}

bool tc_diff_ok(const tc_diff *d)
{
    return !d->shape_mismatch && d->over == 0;
}

static const char *sample_name(vkfx_sample s)
{
    switch (s) {
    case VKFX_SAMPLE_U8:
        return "u8";
    case VKFX_SAMPLE_U16:
        return "u16";
    case VKFX_SAMPLE_F32:
        return "f32";
    }
    return "?";
}

void tc_report(const tc_diff *d, const char *what)
{
    if (d->shape_mismatch) {
        fprintf(stderr,
                "%s: shape mismatch: got %ux%u, %u channels %s; want %ux%u, %u channels %s\n", what,
                d->got_w, d->got_h, d->got_c, sample_name(d->got_s), d->want_w, d->want_h,
                d->want_c, sample_name(d->want_s));
        return;
    }
    char metric[64];
    if (d->rel_floor > 0.0)
        snprintf(metric, sizeof metric, "|got-want|/max(|want|, %g)", d->rel_floor);
    else
        snprintf(metric, sizeof metric, "|got-want|");
    fprintf(stderr,
            "%s: worst %s = %.9g at (x=%u, y=%u, c=%u): got %.9g want %.9g; "
            "%zu samples over tolerance %g\n",
            what, metric, d->max_abs, d->x, d->y, d->c, d->got, d->want, d->over, d->tol);
}

char *tc_slurp(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    char *data = NULL;
    long n = -1;
    if (f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (data = malloc((size_t)n + 1)) && fread(data, 1, (size_t)n, f) == (size_t)n) {
        data[n] = 0;
        *size = (size_t)n;
    } else {
        free(data);
        data = NULL;
    }
    if (f)
        fclose(f);
    return data;
}

bool tc_same_files(const char *a, const char *b, char *why, size_t why_size)
{
    size_t na = 0, nb = 0;
    char *x = tc_slurp(a, &na), *y = tc_slurp(b, &nb);
    bool same = x && y && na == nb && !memcmp(x, y, na);
    if (!x || !y)
        snprintf(why, why_size, "%s missing", !x ? a : b);
    else if (!same)
        snprintf(why, why_size, "%s (%zu bytes) and %s (%zu bytes) differ", a, na, b, nb);
    free(x);
    free(y);
    return same;
}

int tc_spit_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    bool ok = fputs(text, f) >= 0;
    return fclose(f) == 0 && ok ? 0 : -1;
}

void tc_remove_tree(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char p[512];
        struct stat st;
        snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
        if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
            tc_remove_tree(p);
        else
            unlink(p);
    }
    closedir(d);
    rmdir(dir);
}

char tc_tmpdir[64];

int tc_tmpdir_make(const char *suite)
{
    snprintf(tc_tmpdir, sizeof(tc_tmpdir), "/tmp/vkfx-%s-XXXXXX", suite);
    return mkdtemp(tc_tmpdir) ? 0 : -1;
}

void tc_tmpdir_remove(void)
{
    tc_remove_tree(tc_tmpdir);
}

const char *tc_tpath(const char *name)
{
    static char bufs[16][512];
    static unsigned next;
    char *b = bufs[next++ % 16];
    snprintf(b, 512, "%s/%s", tc_tmpdir, name);
    return b;
}

void tc_ramp_pixels(vkfx_pixels *px, uint32_t w, uint32_t h)
{
    if (vkfx_pixels_alloc(px, w, h, 4, VKFX_SAMPLE_U8) < 0)
        abort();
    px->linear = false;
    px->straight = true;
    uint8_t *d = px->data;
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            uint32_t v[3] = {3 * x % 510, 3 * y % 510, 2 * (x + y) % 510};
            uint8_t *p = d + ((size_t)y * w + x) * 4;
            for (int c = 0; c < 3; c++)
                p[c] = (uint8_t)(v[c] < 255 ? v[c] : 509 - v[c]);
            p[3] = 255;
        }
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int tc_list_dir(const char *dir, bool hidden, char *out, size_t size)
{
    out[0] = 0;
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    char *names[256];
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < 256)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 &&
            (hidden || e->d_name[0] != '.'))
            names[n++] = strdup(e->d_name);
    closedir(d);
    qsort(names, (size_t)n, sizeof(*names), cmp_names);
    for (int i = 0; i < n; i++) {
        size_t len = strlen(out);
        snprintf(out + len, size - len, "%s%s", i ? " " : "", names[i] ? names[i] : "");
        free(names[i]);
    }
    return n;
}

double tc_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

bool tc_histogram_json(const char *path, unsigned long long *pixels, tc_histogram_channel ch[4])
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    static char text[1 << 16];
    size_t n = fread(text, 1, sizeof(text) - 1, f);
    fclose(f);
    text[n] = 0;
    const char *p = strstr(text, "\"pixels\":");
    if (!p || sscanf(p, "\"pixels\": %llu", pixels) != 1)
        return false;
    static const char *const names[4] = {"\"r\":", "\"g\":", "\"b\":", "\"luma\":"};
    for (int c = 0; c < 4; c++) {
        p = strstr(text, names[c]);
        if (!p)
            return false;
        p += strlen(names[c]);
        int used = 0;
        if (sscanf(p, " {\"min\": %d, \"max\": %d, \"mean\": %lf, \"counts\": [%n", &ch[c].min,
                   &ch[c].max, &ch[c].mean, &used) != 3 ||
            !used)
            return false;
        p += used;
        for (int i = 0; i < 256; i++) {
            char *end;
            unsigned long v = strtoul(p, &end, 10);
            if (end == p)
                return false;
            ch[c].counts[i] = (uint32_t)v;
            p = end;
            while (*p == ',' || *p == ' ')
                p++;
        }
        if (*p != ']')
            return false;
    }
    return true;
}
