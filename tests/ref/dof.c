/* dof of FILTERS.md: one implicit diffusion step along every row, then
 * every column of the row result, each tridiagonal system solved by the
 * Thomas algorithm in double precision. */
#include <math.h>
#include <stdlib.h>

#include "error.h"
#include "ref.h"

/* Solves the line of n values x (stride apart, 4 channels) in place, with
 * link conductivities beta[0..n-2] (beta[i] between i and i + 1). */
static void solve_line(double *x, size_t stride, const double *beta, size_t n, double *cp,
                       double (*dp)[4])
{
    for (size_t i = 0; i < n; i++) {
        double left = i > 0 ? beta[i - 1] : 0, right = i + 1 < n ? beta[i] : 0;
        double a = -left, b = 1 + left + right, c = -right;
        double den = b - (i > 0 ? a * cp[i - 1] : 0);
        cp[i] = c / den;
        for (int k = 0; k < 4; k++)
            dp[i][k] = (x[i * stride + k] - (i > 0 ? a * dp[i - 1][k] : 0)) / den;
    }
    for (size_t i = n; i-- > 0;)
        for (int k = 0; k < 4; k++) {
            if (i + 1 < n)
                dp[i][k] -= cp[i] * dp[i + 1][k];
            x[i * stride + k] = dp[i][k];
        }
}

int ref_dof(const ref_image *in, const double *coc, double strength, bool half_mid, ref_image *out)
{
    uint32_t w = in->w, h = in->h;
    size_t longest = w > h ? w : h;
    int ret = ref_image_alloc(out, w, h);
    double *beta = malloc(longest * sizeof(*beta));
    double *cp = malloc(longest * sizeof(*cp));
    double(*dp)[4] = malloc(longest * sizeof(*dp));
    if (ret < 0 || !beta || !cp || !dp) {
        free(beta);
        free(cp);
        free(dp);
        ref_image_free(out);
        return vkfx_fail(VKFX_E_NOMEM, "ref_dof: out of memory");
    }
    for (size_t i = 0; i < (size_t)w * h * 4; i++)
        out->px[i] = in->px[i];
    for (uint32_t y = 0; y < h; y++) {
        for (uint32_t x = 0; x + 1 < w; x++) {
            double m = strength * fmin(coc[(size_t)y * w + x], coc[(size_t)y * w + x + 1]);
            beta[x] = m * m;
        }
        solve_line(ref_px(out, 0, y), 4, beta, w, cp, dp);
    }
    if (half_mid)
        ref_round_half(out);
    for (uint32_t x = 0; x < w; x++) {
        for (uint32_t y = 0; y + 1 < h; y++) {
            double m = strength * fmin(coc[(size_t)y * w + x], coc[(size_t)(y + 1) * w + x]);
            beta[y] = m * m;
        }
        solve_line(ref_px(out, x, 0), (size_t)w * 4, beta, h, cp, dp);
    }
    free(beta);
    free(cp);
    free(dp);
    return VKFX_OK;
}

/* Within 2 code values, as tests/test_dof.c: the solver's float32 elimination on the device. */
int ref_filter_dof(const ref_image *in, ref_opts *o, int precision, ref_image *out)
{
    vkfx_pixels depth = {0};
    ref_coc_params coc;
    double *c = ref_opt_coc(o, &depth, &coc);
    int ret = ref_dof(in, c, ref_opt(o, "strength"), precision == 16, out);
    o->tol = 2;
    free(c);
    vkfx_pixels_free(&depth);
    return ret;
}

/* One line of the fill: from src to dst, n values stride apart. */
static void fill_line(const double *src, double *dst, size_t n, size_t stride, double hole,
                      bool larger_farther)
{
    for (size_t i = 0; i < n; i++) {
        double z = src[i * stride];
        dst[i * stride] = z;
        if (z != hole)
            continue;
        /* The nearest known value on each side, searched outwards. */
        bool has_a = false, has_b = false;
        double a = 0, b = 0;
        for (size_t k = i; k-- > 0;)
            if (src[k * stride] != hole) {
                a = src[k * stride];
                has_a = true;
                break;
            }
        for (size_t k = i + 1; k < n; k++)
            if (src[k * stride] != hole) {
                b = src[k * stride];
                has_b = true;
                break;
            }
        if (has_a && has_b)
            dst[i * stride] = larger_farther ? fmax(a, b) : fmin(a, b);
        else if (has_a)
            dst[i * stride] = a;
        else if (has_b)
            dst[i * stride] = b;
    }
}

int ref_fill_holes(double *z, uint32_t w, uint32_t h, double hole, bool larger_farther)
{
    double *rows = malloc((size_t)w * h * sizeof(*rows));
    if (!rows)
        return VKFX_E_NOMEM;
    for (uint32_t y = 0; y < h; y++)
        fill_line(z + (size_t)y * w, rows + (size_t)y * w, w, 1, hole, larger_farther);
    for (uint32_t x = 0; x < w; x++)
        fill_line(rows + x, z + x, h, w, hole, larger_farther);
    free(rows);
    return 0;
}
