// The splat shape of bokeh: offsets d from the hot spot with |d| <= R (a
// disc, blades 0), or inside the regular polygon of circumradius R with
// one vertex straight up (blades >= 3). Points on an edge count as inside
// (a tolerance of 1e-3 R absorbs rounding in the edge test). The corners
// turn from the top one by the host's cosine and sine of 2 pi / blades,
// each operation rounded on its own (NoContraction): the same shape on
// every device, whose own cos and sin differ.
bool in_shape(ivec2 d, int R, uint blades, float cos_step, float sin_step)
{
    if (blades == 0u)
        return d.x * d.x + d.y * d.y <= R * R;
    const vec2 q = vec2(d);
    const float r = float(R);
    precise vec2 u0 = vec2(0.0, -1.0);
    for (uint k = 0u; k < blades; k++) {
        precise vec2 u1 = vec2(cos_step * u0.x - sin_step * u0.y,
                               sin_step * u0.x + cos_step * u0.y);
        precise vec2 p0 = r * u0, p1 = r * u1;
        precise float e = (p1.x - p0.x) * (q.y - p0.y) - (p1.y - p0.y) * (q.x - p0.x);
        if (e < -1e-3 * r)
            return false;
        u0 = u1;
    }
    return true;
}
