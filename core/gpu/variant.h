/* Kernel variants: a filter whose work several kernels can do (one pass or two, matrix units,
 * subgroup or shared-memory scans) lists them in a table, each with when it applies and how it
 * records; the first that applies (and is preferred, where the variant says when) runs, unless
 * VKFX_VARIANT (or vkfx_graph_force_variants) names another. Tests run every variant that
 * applies against the C reference. */
#ifndef VKFX_VARIANT_H
#define VKFX_VARIANT_H

#include <stdbool.h>
#include <stddef.h>

#include "graph.h"

typedef struct vkfx_variant {
    const char *name;
    /* Whether it can do this job (the family's own struct: options, images) on this device. */
    bool (*applies)(const vkfx_caps *caps, const void *job);
    int (*record)(vkfx_graph *g, const void *job);
    /* Where not NULL: whether a run takes it unforced where it applies (one that serves every
     * device but is slow on some); VKFX_VARIANT still forces it wherever it applies. */
    bool (*preferred)(const vkfx_caps *caps, const void *job);
} vkfx_variant;

/* A family of variants, named as VKFX_VARIANT names it ("gauss:generic"). */
typedef struct vkfx_variants {
    const char *name;
    const vkfx_variant *list; /* in order of preference; terminated by a row with name == NULL */
} vkfx_variants;

/* The applies of a variant that serves every job on every device (the last resort of a
 * table), and of one that needs only subgroup arithmetic in compute. */
bool vkfx_variant_always(const vkfx_caps *caps, const void *job);
bool vkfx_variant_subgroup_arith(const vkfx_caps *caps, const void *job);

/* Records job with the first variant of family that applies, or with the one the graph is
 * told to force: VKFX_E_USAGE, naming it, when that one does not apply. */
int vkfx_variant_record(vkfx_graph *g, const vkfx_variants *family, const void *job);

/* The variant of family that list ("family:variant[,family:variant]...") names (NULL if it
 * names none); *found whether it names the family at all, the variant's name in given. */
const vkfx_variant *vkfx_variant_named(const vkfx_variants *family, const char *list, char *given,
                                       size_t size, bool *found);
/* "a, b, c": the family's variant names, for messages. */
void vkfx_variant_names(const vkfx_variants *family, char *out, size_t size);

#endif
