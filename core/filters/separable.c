/* The two passes of a separable filter (box's and the Gaussian's two-pass variants): along
 * rows into a temporary stored like the output (rgba16f at --precision 16, as every image
 * the chain stores: float32 there would add half again to the traffic of both passes), then
 * along columns into the output. */
#include "error.h"
#include "filters.h"

int vkfx_record_separable(vkfx_graph *g, const vkfx_separable *s, vkfx_image *src,
                          vkfx_image *dst)
{
    int ret = VKFX_OK;
    vkfx_image *tmp = NULL;
    TRY(vkfx_graph_image(g, vkfx_graph_width(g), vkfx_graph_height(g), dst->format, &tmp));
    vkfx_dispatch d = {
        .kernel = s->kh,
        .label = s->label_h,
        .use = {{.image = src}, {.image = tmp, .write = true}},
        .push = s->push,
        .groups = {s->gh[0], s->gh[1], 1},
    };
    TRY(vkfx_graph_dispatch(g, &d));
    d.kernel = s->kv;
    d.label = s->label_v;
    d.use[0] = (vkfx_use){.image = tmp};
    d.use[1] = (vkfx_use){.image = dst, .write = true};
    d.groups[0] = s->gv[0];
    d.groups[1] = s->gv[1];
    TRY(vkfx_graph_dispatch(g, &d));
fail:
    return ret;
}
