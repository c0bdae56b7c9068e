/* What satdof, dof and bokeh share: the circle-of-confusion parameters
 * (glsl/coc.glsl computes the value); their depth maps are read by core/filters/maps.c. */
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "filters.h"
#include "maps.h"

#include "coc_fill.spv.h"
#include "../../glsl/coc_fill.h"

_Static_assert(sizeof(coc_fill_push) == COC_FILL_PUSH_BYTES, "coc_fill.comp's push block");

/* Invocations of a fill group, along a row. */
enum { FILL_GROUP = 64 };

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

static const vkfx_kernel_desc fill_kernel = {
    .name = "coc_fill",
    VKFX_SPV(coc_fill),
    .nbind = 2,
    .bind = {VKFX_BIND_BUFFER, VKFX_BIND_BUFFER},
    .push_size = sizeof(coc_fill_push),
};

static bool larger_farther(const vkfx_coc_params *coc)
{
    return coc->kind != VKFX_DEPTH_DISPARITY;
}

int vkfx_depth_load(vkfx_graph *g, const char *filter, const vkfx_coc_params *coc,
                    vkfx_buffer **out)
{
    int ret = VKFX_OK;
    vkfx_buffer *map = NULL, *rows = NULL, *filled = NULL;
    vkfx_kernel *k = NULL;
    uint32_t w = vkfx_graph_width(g), h = vkfx_graph_height(g);
    TRY(vkfx_aux_load(g, filter, "depth", coc->depth, &map));
    *out = map;
    if (coc->hole == VKFX_UNSET)
        return VKFX_OK;
    VkDeviceSize bytes = (VkDeviceSize)w * h * sizeof(float);
    TRY(vkfx_graph_buffer(g, bytes, 0, &rows));
    TRY(vkfx_graph_buffer(g, bytes, 0, &filled));
    vkfx_spec spec = {.local = {FILL_GROUP, 1, 1}};
    TRY(vkfx_graph_kernel(g, &fill_kernel, &spec, &k));
    for (uint32_t vertical = 0; vertical < 2; vertical++) {
        coc_fill_push push = {{(int32_t)w, (int32_t)h}, (float)coc->hole, vertical,
                              larger_farther(coc)};
        vkfx_dispatch d = {
            .kernel = k,
            .label = vertical ? "hole_fill.columns" : "hole_fill.rows",
            .use = {{.buffer = vertical ? rows : map}, {.buffer = vertical ? filled : rows,
                                                         .write = true}},
            .push = &push,
            .groups = {vkfx_groups(w, FILL_GROUP), h, 1},
        };
        TRY(vkfx_graph_dispatch(g, &d));
    }
    *out = filled;
fail:
    return ret;
}

/* One line's rule: the farther of the nearest known values before and after
 * position pos of n (stride apart from start), the one there is, or none. */
static bool fill_line(const float *map, size_t start, size_t stride, uint32_t n, uint32_t pos,
                      float hole, bool larger, float *z)
{
    bool has_before = false, has_after = false;
    float before = 0, after = 0;
    for (uint32_t k = pos; k > 0 && !has_before; k--)
        if (map[start + (k - 1) * stride] != hole) {
            before = map[start + (k - 1) * stride];
            has_before = true;
        }
    for (uint32_t k = pos + 1; k < n && !has_after; k++)
        if (map[start + k * stride] != hole) {
            after = map[start + k * stride];
            has_after = true;
        }
    if (has_before && has_after)
        *z = larger ? (before > after ? before : after) : (before < after ? before : after);
    else if (has_before || has_after)
        *z = has_before ? before : after;
    return has_before || has_after;
}

/* The row pass's value at (x, y). */
static float row_filled(const float *map, uint32_t w, uint32_t x, uint32_t y, float hole,
                        bool larger)
{
    float z = map[(size_t)y * w + x];
    if (z == hole)
        fill_line(map, (size_t)y * w, 1, w, x, hole, larger, &z);
    return z;
}

float vkfx_depth_filled(const float *map, uint32_t w, uint32_t h, uint32_t x, uint32_t y,
                        const vkfx_coc_params *coc)
{
    float hole = (float)coc->hole;
    bool larger = larger_farther(coc);
    float z = map[(size_t)y * w + x];
    if (coc->hole == VKFX_UNSET || z != hole)
        return z;
    z = row_filled(map, w, x, y, hole, larger);
    if (z != hole)
        return z;
    /* A row with no known value: the column pass over the row pass's values. */
    bool has_before = false, has_after = false;
    float before = 0, after = 0;
    for (uint32_t k = y; k > 0 && !has_before; k--)
        if ((before = row_filled(map, w, x, k - 1, hole, larger)) != hole)
            has_before = true;
    for (uint32_t k = y + 1; k < h && !has_after; k++)
        if ((after = row_filled(map, w, x, k, hole, larger)) != hole)
            has_after = true;
    if (has_before && has_after)
        return larger ? (before > after ? before : after) : (before < after ? before : after);
    return has_before ? before : has_after ? after : z;
}
