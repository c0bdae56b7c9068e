/* --precision auto: the internal format follows the samples the chain
 * reads, so that 16-bit and float files lose nothing to rgba16f. */
#include "vkfx.h"

int vkfx_auto_precision(const vkfx_chain *chain, const vkfx_pixels *in)
{
    if (in->sample != VKFX_SAMPLE_U8)
        return 32;
    for (size_t i = 0; chain && i < chain->count; i++) {
        const vkfx_filter *f = chain->links[i].filter;
        for (const vkfx_option *o = f->options; o && o->name; o++) {
            /* Paths a filter writes (histogram's out and plot) are never
             * opened here: one may be a FIFO that only a writer unblocks. */
            if (o->type != VKFX_OPT_PATH || o->writes)
                continue;
            const char *path = *(char *const *)((const char *)chain->links[i].params + o->offset);
            vkfx_sample s;
            /* A path that does not read as an image says nothing about
             * precision; a map that fails to read fails later, with its
             * own message. */
            if (path && vkfx_file_map_sample(path, &s) == VKFX_OK && s != VKFX_SAMPLE_U8) {
                vkfx_error_clear();
                return 32;
            }
            vkfx_error_clear();
        }
    }
    return 16;
}
