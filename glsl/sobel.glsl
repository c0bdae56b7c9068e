// The Sobel edge value of FILTERS.md: per-channel gradient magnitude of
// linear premultiplied RGB, weighted by luminance, times gain, clamped.
// Kernels walk down a column with a rolling window of three rows, each row
// the texels at x-1, x, x+1, so every output loads one new row.
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

float sobel_edge(sobel_row top, sobel_row mid, sobel_row bot, float gain)
{
    vec3 gx = (top.r - top.l) + 2.0 * (mid.r - mid.l) + (bot.r - bot.l);
    vec3 gy = (bot.l - top.l) + 2.0 * (bot.c - top.c) + (bot.r - top.r);
    vec3 m = sqrt(gx * gx + gy * gy);
    return clamp(gain * luminance(m), 0.0, 1.0);
}
