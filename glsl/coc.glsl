// The circle of confusion of FILTERS.md "Depth of field", in pixels, shared
// by satdof, dof and bokeh: z is the depth map's first channel ([0,1] for
// integer maps, scene units for float maps); kind=disparity flips it.
float coc_from_depth(float z, float focus, float range, float maxcoc, bool disparity)
{
    precise float d = disparity ? 1.0 - z : z;
    precise float t = clamp(abs(d - focus) / range, 0.0, 1.0);
    return maxcoc * t;
}
