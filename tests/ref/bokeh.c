/* bokeh of FILTERS.md: hot spots gathered in row-major order (the first
 * max kept, their colour taken out of the image), the caller's base blur of
 * what is left, then each kept spot's gain * colour spread evenly over the
 * in-image pixels of its shape, in double precision. */
#include <math.h>
#include <stdlib.h>

#include "error.h"
#include "ref.h"

bool ref_bokeh_in_shape(int64_t dx, int64_t dy, int64_t R, int blades)
{
    if (blades == 0)
        return dx * dx + dy * dy <= R * R;
    double step = 2 * M_PI / blades;
    for (int k = 0; k < blades; k++) {
        double t0 = k * step - M_PI / 2, t1 = t0 + step;
        double x0 = R * cos(t0), y0 = R * sin(t0), x1 = R * cos(t1), y1 = R * sin(t1);
        double e = (x1 - x0) * (dy - y0) - (y1 - y0) * (dx - x0);
        if (e < -1e-3 * R)
            return false;
    }
    return true;
}

int ref_bokeh_gather(const ref_image *in, const double *coc, const ref_bokeh_params *p,
                     ref_image *base_in, ref_bokeh_spot **spots, size_t *kept, size_t *total)
{
    size_t n = (size_t)in->w * in->h;
    int ret = ref_image_alloc(base_in, in->w, in->h);
    *spots = calloc(n ? n : 1, sizeof(**spots));
    if (ret < 0 || !*spots) {
        ref_image_free(base_in);
        free(*spots);
        return vkfx_fail(VKFX_E_NOMEM, "ref_bokeh: out of memory");
    }
    *kept = *total = 0;
    for (uint32_t y = 0; y < in->h; y++)
        for (uint32_t x = 0; x < in->w; x++) {
            const double *c = ref_px(in, x, y);
            double *b = ref_px(base_in, x, y);
            double z = coc[(size_t)y * in->w + x];
            for (int k = 0; k < 4; k++)
                b[k] = c[k];
            if (!(ref_luma(c[0], c[1], c[2]) > p->threshold && z >= 2))
                continue;
            (*total)++;
            if (*kept >= p->max)
                continue;
            ref_bokeh_spot *s = &(*spots)[(*kept)++];
            s->x = x, s->y = y, s->coc = z;
            for (int k = 0; k < 3; k++) {
                s->rgb[k] = c[k];
                b[k] = 0;
            }
        }
    return VKFX_OK;
}

void ref_bokeh_splat(ref_image *img, const ref_bokeh_spot *spots, size_t n,
                     const ref_bokeh_params *p)
{
    for (size_t i = 0; i < n; i++) {
        const ref_bokeh_spot *s = &spots[i];
        int64_t R = (int64_t)floor(s->coc + 0.5), covered = 0;
        for (int pass = 0; pass < 2; pass++)
            for (int64_t dy = -R; dy <= R; dy++)
                for (int64_t dx = -R; dx <= R; dx++) {
                    int64_t x = s->x + dx, y = s->y + dy;
                    if (x < 0 || y < 0 || x >= img->w || y >= img->h ||
                        !ref_bokeh_in_shape(dx, dy, R, p->blades))
                        continue;
                    if (pass == 0) {
                        covered++;
                        continue;
                    }
                    double *o = ref_px(img, (uint32_t)x, (uint32_t)y);
                    for (int k = 0; k < 3; k++)
                        o[k] += p->gain * s->rgb[k] / (double)covered;
                }
    }
}

/* Gather, the base depth of field (stored in the internal format), splat; within 2 code values
 * as tests/test_bokeh.c, the base's tolerance. */
int ref_filter_bokeh(const ref_image *in, ref_opts *o, int precision, ref_image *out)
{
    vkfx_pixels depth = {0};
    ref_coc_params coc;
    double *c = ref_opt_coc(o, &depth, &coc);
    ref_bokeh_params p = {ref_opt(o, "threshold"), ref_opt(o, "gain"), (int)ref_opt(o, "blades"),
                          (size_t)ref_opt(o, "max")};
    ref_image base_in = {0};
    ref_bokeh_spot *spots = NULL;
    size_t kept, total;
    int ret = ref_bokeh_gather(in, c, &p, &base_in, &spots, &kept, &total);
    if (ret == 0 && ref_opt(o, "base") == 1) {
        ref_sat_params sp = {.map = &depth, .coc = &coc};
        ret = ref_satblur(&base_in, &sp, out);
    } else if (ret == 0) {
        ret = ref_dof(&base_in, c, 1.0, precision == 16, out);
    }
    if (ret == 0 && precision == 16)
        ref_round_half(out);
    if (ret == 0)
        ref_bokeh_splat(out, spots, kept, &p);
    o->tol = 2;
    ref_image_free(&base_in);
    free(spots);
    free(c);
    vkfx_pixels_free(&depth);
    return ret;
}
