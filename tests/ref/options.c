/* The options of a parsed chain's link, read by name for the references (ref.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fileio.h"
#include "filter.h"
#include "ref.h"

static const vkfx_option *find(const ref_opts *o, const char *name)
{
    for (const vkfx_option *opt = o->filter->options; opt->name; opt++)
        if (strcmp(opt->name, name) == 0)
            return opt;
    fprintf(stderr, "ref_opt: %s has no option %s\n", o->filter->name, name);
    abort();
}

double ref_opt(const ref_opts *o, const char *name)
{
    const vkfx_option *opt = find(o, name);
    const char *field = (const char *)o->params + opt->offset;
    switch (opt->type) {
    case VKFX_OPT_INT:
        return *(const int32_t *)field;
    case VKFX_OPT_FLOAT:
        return *(const double *)field;
    case VKFX_OPT_BOOL:
        return *(const bool *)field;
    case VKFX_OPT_CHOICE:
        return *(const int *)field;
    case VKFX_OPT_PATH:
        break;
    }
    fprintf(stderr, "ref_opt: %s:%s is a file name\n", o->filter->name, name);
    abort();
}

const char *ref_opt_path(const ref_opts *o, const char *name)
{
    const vkfx_option *opt = find(o, name);
    if (opt->type != VKFX_OPT_PATH) {
        fprintf(stderr, "ref_opt_path: %s:%s is not a file name\n", o->filter->name, name);
        abort();
    }
    return *(char *const *)((const char *)o->params + opt->offset);
}

bool ref_opt_map(const ref_opts *o, const char *name, vkfx_pixels *map)
{
    const char *path = ref_opt_path(o, name);
    if (!path)
        return false;
    if (vkfx_file_load_map(path, map) < 0) {
        fprintf(stderr, "ref_opt_map: %s: %s\n", path, vkfx_error_message());
        abort();
    }
    return true;
}

double *ref_opt_coc(const ref_opts *o, vkfx_pixels *depth, ref_coc_params *coc)
{
    if (!ref_opt_map(o, "depth", depth)) {
        fprintf(stderr, "ref_opt_coc: %s without depth\n", o->filter->name);
        abort();
    }
    *coc = (ref_coc_params){ref_opt(o, "focus"), ref_opt(o, "range"), ref_opt(o, "maxcoc"),
                            ref_opt(o, "kind") == 1};
    size_t n = (size_t)depth->width * depth->height;
    double *c = malloc(n * sizeof(*c));
    if (!c)
        abort();
    for (size_t i = 0; i < n; i++)
        c[i] = ref_coc(ref_map_value(depth, i), coc);
    return c;
}
