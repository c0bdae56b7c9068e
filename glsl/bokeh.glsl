// Shared by the bokeh kernels: which pixels are hot spots, and the shape a
// hot spot is splatted over (FILTERS.md "Depth of field", bokeh).
#include "coc.glsl"
#define BOKEH_SPOTS
#include "bokeh.h"

float pixel_coc(uint index)
{
    return coc_from_depth(depth[index], pc.focus, pc.inv_range, pc.maxcoc, pc.disparity != 0u);
}

// Luminance of the linear premultiplied colour above the threshold, and a
// circle of confusion of at least 2 pixels.
bool is_hot(vec4 c, float coc)
{
    return luminance(c.rgb) > pc.threshold && coc >= 2.0;
}
