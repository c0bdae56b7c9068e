#include "variant.h"

#include <stdio.h>
#include <string.h>

#include "error.h"
#include "filter.h"

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

/* The variant of family that list names (NULL if it names none), its name in *given. */
static const vkfx_variant *named(const vkfx_variants *family, const char *list, char *given,
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

/* "a, b, c": the family's variant names. */
static void names(const vkfx_variants *family, char *out, size_t size)
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
    const vkfx_variant *v = named(family, list, given, sizeof(given), &found);
    if (found) {
        if (!v) {
            names(family, all, sizeof(all));
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
        if (!named(family, p, given, sizeof(given), &found)) {
            char all[256];
            names(family, all, sizeof(all));
            return vkfx_fail(VKFX_E_USAGE, "VKFX_VARIANT: %s has no variant '%s' (%s)",
                             family->name, given, all);
        }
    }
    return VKFX_OK;
}
