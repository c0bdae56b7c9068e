/* What satdof, dof and bokeh share: auxiliary maps (a depth map, a radius
 * map) read from a file into a float buffer on the device, and the
 * circle-of-confusion parameters (glsl/coc.glsl computes the value). */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fileio.h"
#include "maps.h"
#include "filters.h"

int vkfx_aux_read(const char *filter, const char *option, const char *path, const char *input,
                  uint32_t w, uint32_t h, float **out)
{
    int ret = VKFX_OK;
    vkfx_pixels px = {0};
    float *m = NULL;
    *out = NULL;
    if (strcmp(path, "self") == 0) {
        /* The depth channel of the input file itself (an OpenEXR render). */
        if (!input)
            return vkfx_fail(VKFX_E_USAGE, "%s: %s=self needs an input file", filter, option);
        ret = vkfx_file_load_depth_of(input, &px);
    } else {
        ret = vkfx_file_load_map(path, &px);
    }
    if (ret < 0) {
        vkfx_fail_context(ret, "%s: reading %s=%s", filter, option, path);
        goto fail;
    }
    if (px.width != w || px.height != h) {
        ret = vkfx_fail(VKFX_E_USAGE,
                        "%s: %s=%s is %ux%u but the image is %ux%u; the map must have the "
                        "image's size (it is never resampled)",
                        filter, option, path, px.width, px.height, w, h);
        goto fail;
    }
    size_t n = (size_t)w * h;
    m = malloc(n * sizeof(*m));
    if (!m) {
        ret = vkfx_fail(VKFX_E_NOMEM, "out of host memory");
        goto fail;
    }
    /* The first channel, integer samples normalised by their bit depth:
     * data, so never sRGB-decoded or premultiplied. */
    for (size_t i = 0; i < n; i++) {
        size_t at = i * px.channels;
        switch (px.sample) {
        case VKFX_SAMPLE_U8:
            m[i] = (float)(((const uint8_t *)px.data)[at] / 255.0);
            break;
        case VKFX_SAMPLE_U16:
            m[i] = (float)(((const uint16_t *)px.data)[at] / 65535.0);
            break;
        case VKFX_SAMPLE_F32:
            m[i] = ((const float *)px.data)[at];
            break;
        }
    }
    *out = m;
    m = NULL;
fail:
    free(m);
    vkfx_pixels_free(&px);
    return ret;
}

int vkfx_aux_load(vkfx_graph *g, const char *filter, const char *option, const char *path,
                  vkfx_buffer **out)
{
    int ret = VKFX_OK;
    float *m = NULL;
    uint32_t w = vkfx_graph_width(g), h = vkfx_graph_height(g);
    vkfx_maps *maps = vkfx_graph_maps(g);
    if (maps)
        return vkfx_maps_get(maps, g, filter, option, path, out);
    TRY(vkfx_aux_read(filter, option, path, vkfx_graph_input_path(g), w, h, &m));
    TRY(vkfx_graph_upload(g, m, (size_t)w * h * sizeof(*m), out));
fail:
    free(m);
    return ret;
}

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
