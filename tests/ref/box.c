/* box:radius=R of FILTERS.md: the mean over the (2R+1)^2 window is the
 * product of two 1/(2R+1) line means, so it runs as a separable filter. */
#include <stdlib.h>

#include "error.h"
#include "ref.h"

int ref_box(const ref_image *in, int radius, ref_image *out)
{
    if (radius < 0)
        return vkfx_fail(VKFX_E_USAGE, "ref_box: radius %d", radius);
    size_t n = (size_t)2 * radius + 1;
    double *taps = malloc(n * sizeof(double));
    if (!taps)
        return vkfx_fail(VKFX_E_NOMEM, "out of host memory for %d taps", radius);
    for (size_t k = 0; k < n; k++)
        taps[k] = 1.0 / (double)n;
    int ret = ref_separable(in, taps, radius, out);
    free(taps);
    return ret;
}

int ref_filter_box(const ref_image *in, ref_opts *o, int precision, ref_image *out)
{
    (void)precision;
    return ref_box(in, (int)ref_opt(o, "radius"), out);
}

/* box3 is the 3x3 box whatever its order. */
int ref_filter_box3(const ref_image *in, ref_opts *o, int precision, ref_image *out)
{
    (void)o;
    (void)precision;
    return ref_box(in, 1, out);
}
