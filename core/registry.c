/* Every filter vkfx knows, in the order --filters lists them. */
#include <string.h>

#include "filters/filters.h"

/* One filter per line: adding a filter is one line here. */
// clang-format off
const vkfx_filter *const vkfx_filters[] = {
    &vkfx_filter_gauss,
    &vkfx_filter_box,
    &vkfx_filter_box3,
    &vkfx_filter_bilateral,
    &vkfx_filter_sobel,
    &vkfx_filter_cartoon,
    &vkfx_filter_ripple,
    &vkfx_filter_histogram,
    &vkfx_filter_tonemap,
    &vkfx_filter_satblur,
    &vkfx_filter_satdof,
    &vkfx_filter_dof,
    &vkfx_filter_bokeh,
    NULL,
};
// clang-format on

const vkfx_filter *vkfx_filter_find(const char *name)
{
    for (const vkfx_filter *const *f = vkfx_filters; *f; f++)
        if (strcmp((*f)->name, name) == 0)
            return *f;
    return NULL;
}
