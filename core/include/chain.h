/* The filter chain as the user writes it: name[:key=value]...[,name...]...
 * parsed against the registry's option tables into params structs. */
#ifndef VKFX_CHAIN_H
#define VKFX_CHAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "filter.h"

typedef struct vkfx_chain_link {
    const vkfx_filter *filter;
    void *params; /* filter->params_size bytes, defaults filled in */
} vkfx_chain_link;

typedef struct vkfx_chain {
    vkfx_chain_link *links;
    size_t count;
} vkfx_chain;

/* Parses text; on error returns VKFX_E_USAGE with a message naming the
 * filter, option, value and what is allowed (closest filter or option name
 * suggested for a misspelling). A backslash escapes the next character, so
 * file names may hold ',' ':' '=' and '\'. text NULL is the chain of no
 * filters: the image decoded, oriented and written again. */
int vkfx_chain_parse(const char *text, vkfx_chain **out);
void vkfx_chain_free(vkfx_chain *chain);

/* Calls fn for every file option (VKFX_OPT_PATH) given in chain, in order,
 * with the filter, the option's row (o->writes: the filter writes the
 * file) and the value; stops at and returns fn's first negative result. */
typedef int (*vkfx_chain_path_fn)(void *user, const vkfx_filter *f, const vkfx_option *o,
                                  const char *value);
int vkfx_chain_paths(const vkfx_chain *chain, vkfx_chain_path_fn fn, void *user);

/* The size chain makes of a w x h input (each reshaping filter's size hook in turn);
 * VKFX_E_USAGE with the filter's message when one cannot make its size. */
int vkfx_chain_size(const vkfx_chain *chain, uint32_t w, uint32_t h, uint32_t *out_w,
                    uint32_t *out_h);
/* Whether a filter of chain reshapes the image (has a size hook). */
bool vkfx_chain_reshapes(const vkfx_chain *chain);
/* Whether a filter of chain is grid_bound: the chain cannot be drafted at a smaller size. */
bool vkfx_chain_grid_bound(const vkfx_chain *chain);

/* What the tiler needs of chain, each filter's own declaration summed up: *reach, the pixels
 * around an output that it depends on (the filters' reaches added), and *align, the strides
 * on which a tile may start (every filter's alignment joined). Returns the first filter that
 * cannot run in tiles with its params (its output depends on the whole image), else NULL. */
const vkfx_filter *vkfx_chain_tiling(const vkfx_chain *chain, uint64_t *reach, vkfx_align *align);

/* The tile grid for tiles of at most side pixels, for a chain of that reach and alignment (one
 * axis at a time). Each tile's share of the output starts on a multiple of the alignment, so
 * that the run of outputs holding its first pixel starts there; the tile starts reach before
 * it, rounded down to a multiple of the alignment, so that every run it keeps starts on the
 * whole image's stride with a window of real pixels (a run started on pixels the tile's edge
 * repeats rounds its rolling sums differently, even where it ends on kept pixels). */
static inline uint32_t vkfx_tile_share(uint32_t side, uint64_t reach, uint32_t align)
{
    return (side - 2 * (uint32_t)reach - align) / align * align;
}

static inline uint32_t vkfx_tile_start(uint32_t share_start, uint64_t reach, uint32_t align)
{
    return share_start > reach ? (uint32_t)((share_start - reach) / align * align) : 0;
}

/* The least tile side the grid above can use: a share of one alignment step on both axes. */
static inline uint64_t vkfx_tile_side_least(uint64_t reach, vkfx_align align)
{
    return 2 * reach + 2 * (uint64_t)(align.x > align.y ? align.x : align.y);
}

/* Parses one option value into its field (used by the chain parser). */
int vkfx_option_parse(const vkfx_filter *f, const vkfx_option *o, const char *value, void *params);
/* Fills params with every option's default. */
void vkfx_options_defaults(const vkfx_filter *f, void *params);
/* Whether option o of f is a length in the image's pixels (f->pixel_options names it). */
bool vkfx_option_in_pixels(const vkfx_filter *f, const vkfx_option *o);
/* Multiplies every option of f's params that is a length in pixels by scale, as the chain
 * would be written for the image scaled by it: INT rounded (halves up), both kept in the
 * option's range; a derived value left unset stays so (it follows the scaled ones). */
void vkfx_params_scale_pixels(const vkfx_filter *f, void *params, double scale);

/* Writes "name: help" option rows for --help-filter into buf. */
int vkfx_filter_describe(const vkfx_filter *f, char *buf, size_t size);

/* Levenshtein distance, for "did you mean" suggestions. */
size_t vkfx_edit_distance(const char *a, const char *b);
/* The filter to suggest for a name that is none: the one other tools give that name (blur:
 * gauss), else the closest spelling within reach; NULL when none is near. */
const char *vkfx_filter_suggest(const char *name);

#endif
