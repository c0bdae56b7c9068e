#include "variant.h"

#include <stdio.h>
#include <string.h>

#include "error.h"

bool vkfx_variant_always(const vkfx_caps *caps, const void *job)
{
    (void)caps;
    (void)job;
    return true;
}

bool vkfx_variant_subgroup_arith(const vkfx_caps *caps, const void *job)
{
    (void)job;
    return caps->subgroup_arith;
}

const vkfx_variant *vkfx_variant_named(const vkfx_variants *family, const char *list, char *given,
                                       size_t size, bool *found)
{
    size_t n = strlen(family->name);
    *found = false;
    for (const char *p = list; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL) {
        if (strncmp(p, family->name, n) != 0 || p[n] != ':')
            continue;
        const char *v = p + n + 1;
        size_t len = strcspn(v, ",");
        snprintf(given, size, "%.*s", (int)len, v);
        *found = true;
        for (const vkfx_variant *x = family->list; x->name; x++)
            if (strlen(x->name) == len && strncmp(x->name, v, len) == 0)
                return x;
        return NULL;
    }
    return NULL;
}

void vkfx_variant_names(const vkfx_variants *family, char *out, size_t size)
{
    size_t used = 0;
    out[0] = 0;
    for (const vkfx_variant *x = family->list; x->name && used < size; x++)
        used += (size_t)snprintf(out + used, size - used, "%s%s", x == family->list ? "" : ", ",
                                 x->name);
}

int vkfx_variant_record(vkfx_graph *g, const vkfx_variants *family, const void *job)
{
    const vkfx_caps *caps = vkfx_graph_caps(g);
    const char *list = vkfx_graph_forced_variants(g);
    char given[64], all[256];
    bool found;
    const vkfx_variant *v = vkfx_variant_named(family, list, given, sizeof(given), &found);
    if (found) {
        if (!v) {
            vkfx_variant_names(family, all, sizeof(all));
            return vkfx_fail(VKFX_E_USAGE, "VKFX_VARIANT: %s has no variant '%s' (%s)",
                             family->name, given, all);
        }
        if (!v->applies(caps, job)) {
            vkfx_graph_note_refused_variant(g);
            return vkfx_fail(VKFX_E_USAGE,
                             "VKFX_VARIANT: %s:%s does not apply to these options and images on "
                             "this device",
                             family->name, v->name);
        }
        return v->record(g, job);
    }
    for (v = family->list; v->name; v++)
        if (v->applies(caps, job) && (!v->preferred || v->preferred(caps, job)))
            return v->record(g, job);
    return vkfx_fail(VKFX_E_LIMIT, "no %s kernel applies to these options on this device",
                     family->name);
}
