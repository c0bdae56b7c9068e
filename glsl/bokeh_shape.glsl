// The splat shape of bokeh: offsets d from the hot spot with |d| <= R (a
// disc, blades 0), or inside the regular polygon of circumradius R with
// one vertex straight up (blades >= 3). Points on an edge count as inside
// (a tolerance of 1e-3 R absorbs rounding in the edge test).
bool in_shape(ivec2 d, int R, uint blades)
{
    if (blades == 0u)
        return d.x * d.x + d.y * d.y <= R * R;
    float step = 6.28318530718 / float(blades);
    vec2 q = vec2(d);
    for (uint k = 0u; k < blades; k++) {
        float t0 = float(k) * step - 1.57079632679, t1 = t0 + step;
        vec2 p0 = float(R) * vec2(cos(t0), sin(t0)), p1 = float(R) * vec2(cos(t1), sin(t1));
        float e = (p1.x - p0.x) * (q.y - p0.y) - (p1.y - p0.y) * (q.x - p0.x);
        if (e < -1e-3 * float(R))
            return false;
    }
    return true;
}
