/* Every filter vkfx knows, in the order --filters lists them. */
#include <string.h>

#include "filters/filters.h"

const vkfx_filter *const vkfx_filters[] = {
    &vkfx_filter_gauss, &vkfx_filter_box, &vkfx_filter_sobel, &vkfx_filter_cartoon, NULL,
};

const vkfx_filter *vkfx_filter_find(const char *name)
{
    for (const vkfx_filter *const *f = vkfx_filters; *f; f++)
        if (strcmp((*f)->name, name) == 0)
            return *f;
    return NULL;
}
