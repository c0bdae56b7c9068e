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
