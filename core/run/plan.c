/* Plans a batch makes from a chain before any GPU work: how small a JPEG may be decoded
 * (shrink-on-load), so that the file layer gets a factor and knows no filter. */
#include <string.h>

#include "vkfx.h"

/* Shrink-on-load leaves the resize on the GPU at least this much shrinking of its own, as
 * vipsthumbnail does. The DCT-domain decode averages encoded (not linear) values over its
 * blocks, darker than light's average where a block has texture, and no margin removes that
 * bias: 8 instead of 2 still left 16 to 24 codes at edges (tests/test_shrink.c prints them). */
#define SHRINK_MARGIN 2

/* A chain that starts with a resize shrinking both sides by 2 * SHRINK_MARGIN or more lets the
 * decode do the largest power of two of it, up to 8. */
static unsigned chain_shrink(const void *plan, uint32_t w, uint32_t h)
{
    const vkfx_chain *chain = plan;
    const vkfx_chain_link *first = chain && chain->count ? &chain->links[0] : NULL;
    uint32_t out_w = w, out_h = h;
    if (!first || strcmp(first->filter->name, "resize") != 0 ||
        first->filter->size(first->params, w, h, &out_w, &out_h) != VKFX_OK)
        return 1;
    double shrink_x = (double)w / out_w, shrink_y = (double)h / out_h;
    double shrink = shrink_x < shrink_y ? shrink_x : shrink_y;
    for (unsigned d = 8; d >= 2; d /= 2)
        if (shrink >= d * SHRINK_MARGIN)
            return d;
    return 1;
}

int vkfx_file_load_for_chain(const char *path, const vkfx_chain *chain, vkfx_pixels *out,
                             vkfx_meta *meta, uint32_t *source_w, uint32_t *source_h)
{
    return vkfx_file_load_shrunk(path, chain_shrink, chain, out, meta, source_w, source_h);
}
