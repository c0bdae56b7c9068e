// The circle of confusion of FILTERS.md "Depth of field", in pixels, shared
// by satdof, dof and bokeh: z is the depth map's first channel ([0,1] for
// integer maps, scene units for float maps); kind=disparity flips it. inv_range is 1/range
// rounded to float on the host: a product where a division may differ between devices by a
// few units in the last place, each operation rounded on its own, so that the radii a filter
// rounds from it are the same on every device.
float coc_from_depth(float z, float focus, float inv_range, float maxcoc, bool disparity)
{
    precise float d = disparity ? 1.0 - z : z;
    precise float t = clamp(abs(d - focus) * inv_range, 0.0, 1.0);
    precise float coc = maxcoc * t;
    return coc;
}
