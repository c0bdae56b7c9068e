// The Sobel edge value of FILTERS.md: per-channel gradient magnitude of
// linear premultiplied RGB, weighted by luminance, times gain, clamped.
// Kernels walk down a column with a rolling window of three rows, each row
// the texels at x-1, x, x+1, so every output loads one new row.
#include "portable.glsl"
struct sobel_row {
    vec3 l, c, r;
};

sobel_row sobel_load_row(sampler2D s, ivec2 p, ivec2 size)
{
    sobel_row row;
    row.l = load_clamped(s, p + ivec2(-1, 0), size).rgb;
    row.c = load_clamped(s, p, size).rgb;
    row.r = load_clamped(s, p + ivec2(1, 0), size).rgb;
    return row;
}

// Each operation rounded on its own in the order written, and portable_sqrt for the device's
// sqrt: the same bits on every device.
float sobel_edge(sobel_row top, sobel_row mid, sobel_row bot, float gain)
{
    precise vec3 gx = (top.r - top.l) + 2.0 * (mid.r - mid.l) + (bot.r - bot.l);
    precise vec3 gy = (bot.l - top.l) + 2.0 * (bot.c - top.c) + (bot.r - top.r);
    precise vec3 sq = gx * gx + gy * gy;
    precise float e = gain * luminance(portable_sqrt(sq));
    return clamp(e, 0.0, 1.0);
}
