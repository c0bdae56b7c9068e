/* What satdof, dof and bokeh share: the circle-of-confusion parameters
 * (glsl/coc.glsl computes the value); their depth maps are read by core/filters/maps.c. */
#include <stddef.h>

#include "error.h"
#include "filters.h"

const vkfx_coc_params *vkfx_coc_of(const vkfx_filter *f, const void *params)
{
    /* The kind row of VKFX_COC_OPTIONS is the one whose choices are
     * vkfx_depth_kinds: it locates the vkfx_coc_params member. */
    for (const vkfx_option *o = f->options; o->name; o++)
        if (o->type == VKFX_OPT_CHOICE && o->choices == vkfx_depth_kinds)
            return (const vkfx_coc_params *)((const char *)params + o->offset -
                                             offsetof(vkfx_coc_params, kind));
    return NULL;
}

float vkfx_coc_depth(const vkfx_coc_params *p, float z)
{
    /* As coc_from_depth in glsl/coc.glsl, in float. */
    return p->kind == VKFX_DEPTH_DISPARITY ? 1.0f - z : z;
}

void vkfx_coc_push(const vkfx_coc_params *p, float *focus, float *inv_range, float *maxcoc,
                   uint32_t *disparity)
{
    *focus = (float)p->focus;
    *inv_range = (float)(1.0 / p->range);
    *maxcoc = (float)p->maxcoc;
    *disparity = p->kind == VKFX_DEPTH_DISPARITY;
}

const char *const vkfx_depth_kinds[] = {"depth", "disparity", NULL};
