/* Every filter vkfx knows, in the order --filters lists them: the rows of filter_files in
 * meson.build, through the X-macro list VKFX_FILTER_LIST it generates. */
#include <string.h>

#include "filters.h"
#include "vkfx_filter_list.h"

#define X(name) extern const vkfx_filter vkfx_filter_##name;
VKFX_FILTER_LIST
#undef X

// clang-format off
const vkfx_filter *const vkfx_filters[] = {
#define X(name) &vkfx_filter_##name,
    VKFX_FILTER_LIST
#undef X
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
