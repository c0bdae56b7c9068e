/* Checking VKFX_VARIANT's list against the kernel families of the registered filters: the
 * graph that applies the list sits below the filters and cannot see them. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "error.h"
#include "filter.h"
#include "run.h"
#include "variant.h"

/* The family named name[0..len) among the registered filters' (NULL if none). */
static const vkfx_variants *family_named(const char *name, size_t len)
{
    for (const vkfx_filter *const *f = vkfx_filters; *f; f++)
        for (const vkfx_variants *const *v = (*f)->variants; v && *v; v++)
            if (strlen((*v)->name) == len && strncmp((*v)->name, name, len) == 0)
                return *v;
    return NULL;
}

int vkfx_variants_check(const char *list)
{
    for (const char *p = list; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL) {
        size_t len = strcspn(p, ",");
        const char *colon = memchr(p, ':', len);
        const vkfx_variants *family = colon ? family_named(p, (size_t)(colon - p)) : NULL;
        if (!family)
            return vkfx_fail(VKFX_E_USAGE,
                             "VKFX_VARIANT: '%.*s' is not FAMILY:VARIANT of a filter's kernels "
                             "(vkfx bench --variants lists them)",
                             (int)len, p);
        char given[64];
        bool found;
        if (!vkfx_variant_named(family, p, given, sizeof(given), &found)) {
            char all[256];
            vkfx_variant_names(family, all, sizeof(all));
            return vkfx_fail(VKFX_E_USAGE, "VKFX_VARIANT: %s has no variant '%s' (%s)",
                             family->name, given, all);
        }
    }
    return VKFX_OK;
}
