/* ripple[:drops=N][:seed=K][:steps=T][:speed=C][:damping=D][:strength=K2] of
 * FILTERS.md "Simulation", in double. opt = {drops, seed, steps, speed, damping,
 * strength}. The definition, as that section and the filter's --help text
 * (core/filters/ripple.c) give it:
 * - Height grid of the image's size. Step 0: each of the N drops is a disc of
 *   radius 2 (cells with dx^2 + dy^2 <= 4) setting h = 1 (overlaps do not
 *   add), every other cell 0, and h_prev = h.
 * - Drop i's centre is (R(2i) mod W, R(2i+1) mod H) with
 *   R(j) = lowbias32(lowbias32(seed) + j) in uint32 arithmetic; this file keeps
 *   its own copy of the hash, as the contract, rather than calling core.
 * - Each of the T steps: h' = k1 h_prev + k2 h + k3 (h_l + h_r + h_u + h_d),
 *   k1 = (D - 2)/(D + 2), k2 = (4 - 8e)/(D + 2), k3 = 2e/(D + 2), e = C^2
 *   (dt = dx = 1). The outermost ring of cells (x = 0, x = W-1, y = 0,
 *   y = H-1) is 0 at every step, drops included, so images at most 2 pixels
 *   wide or high are left unchanged.
 * - e > 0.5 (speed > sqrt(0.5) = 0.7071) is refused by the parser; here it is
 *   VKFX_E_USAGE as well.
 * - Output pixel p samples the input at q = p + strength * (dh/dx, dh/dy),
 *   dh/dx = (h(x+1) - h(x-1))/2 with clamp-to-edge (likewise dh/dy),
 *   bilinearly with pixel centres at integer coordinates and clamp-to-edge
 *   taps, on linear premultiplied RGBA. */
#include <math.h>
#include <stdlib.h>

#include "error.h"
#include "ref.h"

static uint32_t lowbias32(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

static uint32_t drop_hash(uint32_t seed, uint32_t j)
{
    return lowbias32(lowbias32(seed) + j);
}

/* Height with clamp-to-edge, for the gradient. */
static double h_at(const double *h, int64_t w, int64_t hh, int64_t x, int64_t y)
{
    x = x < 0 ? 0 : x >= w ? w - 1 : x;
    y = y < 0 ? 0 : y >= hh ? hh - 1 : y;
    return h[y * w + x];
}

int ref_ripple(const ref_image *in, const double opt[6], ref_image *out)
{
    uint32_t drops = (uint32_t)opt[0], seed = (uint32_t)opt[1], steps = (uint32_t)opt[2];
    double c = opt[3], d = opt[4], strength = opt[5];
    double e = c * c;
    if (e > 0.5)
        return vkfx_fail(VKFX_E_USAGE, "ripple: speed beyond sqrt(0.5) = 0.7071");
    int64_t w = in->w, hh = in->h;
    size_t n = (size_t)w * (size_t)hh;
    double *prev = calloc(n, sizeof(double));
    double *cur = calloc(n, sizeof(double));
    double *next = calloc(n, sizeof(double));
    int ret = VKFX_E_NOMEM;
    if (!prev || !cur || !next)
        goto fail;

    for (uint32_t i = 0; i < drops; i++) {
        int64_t cx = drop_hash(seed, 2 * i) % (uint32_t)w;
        int64_t cy = drop_hash(seed, 2 * i + 1) % (uint32_t)hh;
        for (int64_t y = 1; y < hh - 1; y++)
            for (int64_t x = 1; x < w - 1; x++)
                if ((x - cx) * (x - cx) + (y - cy) * (y - cy) <= 4)
                    cur[y * w + x] = 1.0;
    }
    for (size_t i = 0; i < n; i++)
        prev[i] = cur[i];

    double k1 = (d - 2.0) / (d + 2.0), k2 = (4.0 - 8.0 * e) / (d + 2.0), k3 = 2.0 * e / (d + 2.0);
    for (uint32_t t = 0; t < steps; t++) {
        for (int64_t y = 0; y < hh; y++)
            for (int64_t x = 0; x < w; x++) {
                int64_t i = y * w + x;
                if (x == 0 || y == 0 || x == w - 1 || y == hh - 1) {
                    next[i] = 0.0;
                    continue;
                }
                next[i] = k1 * prev[i] + k2 * cur[i] +
                          k3 * (cur[i - 1] + cur[i + 1] + cur[i - w] + cur[i + w]);
            }
        double *t0 = prev;
        prev = cur;
        cur = next;
        next = t0;
    }

    ret = ref_image_alloc(out, in->w, in->h);
    if (ret < 0)
        goto fail;
    for (int64_t y = 0; y < hh; y++)
        for (int64_t x = 0; x < w; x++) {
            double gx = 0.5 * (h_at(cur, w, hh, x + 1, y) - h_at(cur, w, hh, x - 1, y));
            double gy = 0.5 * (h_at(cur, w, hh, x, y + 1) - h_at(cur, w, hh, x, y - 1));
            double qx = (double)x + strength * gx, qy = (double)y + strength * gy;
            /* Beyond one pixel outside, every tap is the edge pixel anyway. */
            qx = fmin(fmax(qx, -1.0), (double)w);
            qy = fmin(fmax(qy, -1.0), (double)hh);
            double fx0 = floor(qx), fy0 = floor(qy);
            double fx = qx - fx0, fy = qy - fy0;
            int64_t x0 = (int64_t)fx0, y0 = (int64_t)fy0;
            const double *a = ref_at(in, x0, y0), *b = ref_at(in, x0 + 1, y0);
            const double *cc = ref_at(in, x0, y0 + 1), *dd = ref_at(in, x0 + 1, y0 + 1);
            double *o = ref_px(out, (uint32_t)x, (uint32_t)y);
            for (int k = 0; k < 4; k++)
                o[k] = (1.0 - fy) * ((1.0 - fx) * a[k] + fx * b[k]) +
                       fy * ((1.0 - fx) * cc[k] + fx * dd[k]);
        }
    ret = VKFX_OK;
fail:
    free(prev);
    free(cur);
    free(next);
    return ret;
}

int ref_filter_ripple(const ref_image *in, ref_opts *o, int precision, ref_image *out)
{
    (void)precision;
    const double opt[6] = {ref_opt(o, "drops"), ref_opt(o, "seed"),    ref_opt(o, "steps"),
                           ref_opt(o, "speed"), ref_opt(o, "damping"), ref_opt(o, "strength")};
    return ref_ripple(in, opt, out);
}
