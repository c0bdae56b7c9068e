/* satblur and satdof of FILTERS.md: box means over windows clipped to the
 * image, from per-pixel radii computed in double precision. The sums come
 * from a prefix table of 128-bit integers holding the samples to 2^-64, so
 * box sums are exact (a window of zeros sums to exactly 0, which a float
 * table's cancellation would not give) whatever the radius. */
#include <math.h>
#include <stdlib.h>

#include "error.h"
#include "ref.h"

static int64_t radius_from(double t)
{
    if (!(t >= 0))
        return 0;
    double r = floor(t + 0.5);
    return r > 1e9 ? 1000000000 : (int64_t)r;
}

double ref_map_value(const vkfx_pixels *m, size_t i)
{
    size_t at = i * m->channels;
    switch (m->sample) {
    case VKFX_SAMPLE_U8:
        return ((const uint8_t *)m->data)[at] / 255.0;
    case VKFX_SAMPLE_U16:
        return ((const uint16_t *)m->data)[at] / 65535.0;
    case VKFX_SAMPLE_F32:
        return ((const float *)m->data)[at];
    }
    return 0;
}

double ref_coc(double z, const ref_coc_params *p)
{
    double d = p->disparity ? 1.0 - z : z;
    double t = fabs(d - p->focus) / p->range;
    return p->maxcoc * (t < 0 ? 0 : t > 1 ? 1 : t);
}

int64_t ref_sat_radius(const ref_sat_params *p, size_t i)
{
    if (p->coc)
        return radius_from(ref_coc(ref_map_value(p->map, i), p->coc));
    if (p->map)
        return radius_from(ref_map_value(p->map, i) * p->scale);
    return p->radius;
}

/* 2^64: the table's unit. */
#define ONE 0x1p64L

/* v in units of 2^-64, exact for doubles of magnitude above 2^-11. */
static __int128 to_fixed(double v)
{
    long double high = floorl((long double)v * 0x1p32L);
    long long low = llroundl(((long double)v * 0x1p32L - high) * 0x1p32L);
    return (__int128)(long long)high * ((__int128)1 << 32) + low;
}

typedef struct table {
    uint32_t w, h;
    __int128 *s; /* (w + 1) x (h + 1), row 0 and column 0 zero */
} table;

static __int128 *tab_at(const table *t, int64_t x, int64_t y)
{
    return t->s + ((size_t)(y + 1) * (t->w + 1) + (size_t)(x + 1)) * 4;
}

/* Mean over [x - rx, x + rx] x [y - ry, y + ry] clipped to the image. */
static void box_mean(const table *t, int64_t x, int64_t y, int64_t rx, int64_t ry, double out[4])
{
    int64_t x1 = x - rx - 1 < -1 ? -1 : x - rx - 1;
    int64_t x2 = x + rx > (int64_t)t->w - 1 ? (int64_t)t->w - 1 : x + rx;
    int64_t y1 = y - ry - 1 < -1 ? -1 : y - ry - 1;
    int64_t y2 = y + ry > (int64_t)t->h - 1 ? (int64_t)t->h - 1 : y + ry;
    long double area = (long double)(x2 - x1) * (long double)(y2 - y1);
    for (int c = 0; c < 4; c++) {
        __int128 sum = tab_at(t, x2, y2)[c] - tab_at(t, x1, y2)[c] - tab_at(t, x2, y1)[c] +
                       tab_at(t, x1, y1)[c];
        out[c] = (double)((long double)sum / ONE / area);
    }
}

int ref_satblur(const ref_image *in, const ref_sat_params *p, ref_image *out)
{
    table t = {in->w, in->h, calloc((size_t)(in->w + 1) * (in->h + 1) * 4, sizeof(__int128))};
    if (!t.s)
        return VKFX_E_NOMEM;
    for (int64_t y = 0; y < in->h; y++)
        for (int64_t x = 0; x < in->w; x++)
            for (int c = 0; c < 4; c++) {
                /* The device clamps samples to the rgba16f range. */
                double v = ref_px(in, (uint32_t)x, (uint32_t)y)[c];
                v = v > 65504 ? 65504 : v < -65504 ? -65504 : v;
                tab_at(&t, x, y)[c] = to_fixed(v) + tab_at(&t, x - 1, y)[c] +
                                      tab_at(&t, x, y - 1)[c] - tab_at(&t, x - 1, y - 1)[c];
            }
    int ret = ref_image_alloc(out, in->w, in->h);
    if (ret < 0) {
        free(t.s);
        return ret;
    }
    for (uint32_t y = 0; y < in->h; y++)
        for (uint32_t x = 0; x < in->w; x++) {
            int64_t r = ref_sat_radius(p, (size_t)y * in->w + x);
            double *o = ref_px(out, x, y);
            if (p->smooth) {
                /* Half-sizes (r/2, r), (r, r/2), (3r/4, 3r/4), each floor(v + 0.5). */
                int64_t half = (int64_t)floor(r / 2.0 + 0.5),
                        three = (int64_t)floor(0.75 * r + 0.5);
                double a[4], b[4], c[4];
                box_mean(&t, x, y, half, r, a);
                box_mean(&t, x, y, r, half, b);
                box_mean(&t, x, y, three, three, c);
                for (int k = 0; k < 4; k++)
                    o[k] = (a[k] + b[k] + c[k]) / 3.0;
            } else {
                box_mean(&t, x, y, r, r, o);
            }
        }
    free(t.s);
    return VKFX_OK;
}

int ref_filter_satblur(const ref_image *in, ref_opts *o, int precision, ref_image *out)
{
    (void)precision;
    vkfx_pixels map = {0};
    ref_sat_params p = {.radius = (int64_t)ref_opt(o, "radius"),
                        .scale = ref_opt(o, "scale"),
                        .smooth = ref_opt(o, "shape") == 1};
    if (ref_opt_map(o, "map", &map))
        p.map = &map;
    int ret = ref_satblur(in, &p, out);
    vkfx_pixels_free(&map);
    return ret;
}

int ref_filter_satdof(const ref_image *in, ref_opts *o, int precision, ref_image *out)
{
    (void)precision;
    vkfx_pixels depth = {0};
    ref_coc_params coc;
    free(ref_opt_coc(o, &depth, &coc));
    ref_sat_params p = {.map = &depth, .coc = &coc, .smooth = ref_opt(o, "shape") == 1};
    int ret = ref_satblur(in, &p, out);
    vkfx_pixels_free(&depth);
    return ret;
}
