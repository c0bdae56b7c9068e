// The Sobel edge value of FILTERS.md: per-channel gradient magnitude of
// linear premultiplied RGB, weighted by luminance, times gain, clamped.
float sobel_edge(sampler2D s, ivec2 p, ivec2 size, float gain)
{
    vec3 a = load_clamped(s, p + ivec2(-1, -1), size).rgb;
    vec3 b = load_clamped(s, p + ivec2(0, -1), size).rgb;
    vec3 c = load_clamped(s, p + ivec2(1, -1), size).rgb;
    vec3 d = load_clamped(s, p + ivec2(-1, 0), size).rgb;
    vec3 f = load_clamped(s, p + ivec2(1, 0), size).rgb;
    vec3 g = load_clamped(s, p + ivec2(-1, 1), size).rgb;
    vec3 h = load_clamped(s, p + ivec2(0, 1), size).rgb;
    vec3 i = load_clamped(s, p + ivec2(1, 1), size).rgb;
    vec3 gx = (c + 2.0 * f + i) - (a + 2.0 * d + g);
    vec3 gy = (g + 2.0 * h + i) - (a + 2.0 * b + c);
    vec3 m = sqrt(gx * gx + gy * gy);
    return clamp(gain * luminance(m), 0.0, 1.0);
}
