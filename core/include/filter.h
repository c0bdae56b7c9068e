/* A filter is one static descriptor: its name, help, option rows and the
 * create / record / destroy functions that put its passes into a chain's
 * command buffer. The registry (core/filters/registry.c) lists them all. */
#ifndef VKFX_FILTER_H
#define VKFX_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct vkfx_graph vkfx_graph;
typedef struct vkfx_image vkfx_image;
typedef struct vkfx_variants vkfx_variants; /* core/gpu/variant.h */

typedef enum vkfx_opt_type {
    VKFX_OPT_INT,    /* int32_t */
    VKFX_OPT_FLOAT,  /* double */
    VKFX_OPT_BOOL,   /* bool: 0|1 (also true|false, yes|no) */
    VKFX_OPT_CHOICE, /* int: index into choices */
    VKFX_OPT_PATH,   /* char *: a file name, owned by the parsed chain */
} vkfx_opt_type;

typedef struct vkfx_option {
    const char *name;
    vkfx_opt_type type;
    size_t offset;              /* in the filter's params struct */
    double def;                 /* default (index for CHOICE; unused for PATH) */
    double min, max;            /* inclusive range for INT and FLOAT */
    const char *const *choices; /* NULL-terminated, for CHOICE */
    const char *help;
    const char *def_text; /* shown instead of def when the default is derived */
    bool required;        /* must be given (PATH options mostly) */
    bool unset_default;   /* leave the field at VKFX_UNSET unless given */
    bool writes;          /* PATH: the filter writes this file (else it reads it) */
} vkfx_option;

/* Value an INT or FLOAT field holds when unset_default is true and the user
 * did not give it: the filter derives it (gauss radius from sigma). */
#define VKFX_UNSET (-1)

/* An option row on one line: the option sets the field FIELD of the params struct T and is named
 * after it; the rest is the default, range, choices and help as vkfx_option holds them. Named
 * VKFX_OPTION_* apart from the VKFX_OPT_* types they fill. VKFX_OPTION is the row of any name
 * and offset, for fields inside a member (VKFX_COC_OPTIONS). */
#define VKFX_OPTION(name_, type_, offset_, ...)                                                    \
    {.name = (name_), .type = (type_), .offset = (offset_), __VA_ARGS__}
#define VKFX_OPTION_INT(T, field, def_, min_, max_, help_)                                         \
    VKFX_OPTION(#field, VKFX_OPT_INT, offsetof(T, field), .def = (def_), .min = (min_),            \
                .max = (max_), .help = (help_))
#define VKFX_OPTION_FLOAT(T, field, def_, min_, max_, help_)                                       \
    VKFX_OPTION(#field, VKFX_OPT_FLOAT, offsetof(T, field), .def = (def_), .min = (min_),          \
                .max = (max_), .help = (help_))
/* Left at VKFX_UNSET unless given; def_text_ says what the filter makes of it then. */
#define VKFX_OPTION_INT_UNSET(T, field, def_text_, min_, max_, help_)                              \
    VKFX_OPTION(#field, VKFX_OPT_INT, offsetof(T, field), .min = (min_), .max = (max_),            \
                .unset_default = true, .def_text = (def_text_), .help = (help_))
#define VKFX_OPTION_FLOAT_UNSET(T, field, def_text_, min_, max_, help_)                            \
    VKFX_OPTION(#field, VKFX_OPT_FLOAT, offsetof(T, field), .min = (min_), .max = (max_),          \
                .unset_default = true, .def_text = (def_text_), .help = (help_))
#define VKFX_OPTION_BOOL(T, field, def_, help_)                                                    \
    VKFX_OPTION(#field, VKFX_OPT_BOOL, offsetof(T, field), .def = (def_), .help = (help_))
/* choices_: a NULL-terminated array of names; def_ is an index into it. */
#define VKFX_OPTION_CHOICE(T, field, def_, choices_, help_)                                        \
    VKFX_OPTION(#field, VKFX_OPT_CHOICE, offsetof(T, field), .def = (def_),                        \
                .choices = (choices_), .help = (help_))
/* A file the filter reads (PATH) or writes (PATH_OUT); neither is required. */
#define VKFX_OPTION_PATH(T, field, help_)                                                          \
    VKFX_OPTION(#field, VKFX_OPT_PATH, offsetof(T, field), .help = (help_))
#define VKFX_OPTION_PATH_OUT(T, field, help_)                                                      \
    VKFX_OPTION(#field, VKFX_OPT_PATH, offsetof(T, field), .writes = true, .help = (help_))

/* Strides, across and down, on which tiles start (both at least 1). */
typedef struct vkfx_align {
    uint32_t x, y;
} vkfx_align;

/* The least common multiple of a and b, each at least 1. */
static inline uint32_t vkfx_lcm(uint32_t a, uint32_t b)
{
    uint32_t x = a, y = b;
    while (y) {
        uint32_t t = x % y;
        x = y;
        y = t;
    }
    return a / x * b;
}

/* Both strides of a and b together. */
static inline vkfx_align vkfx_align_join(vkfx_align a, vkfx_align b)
{
    return (vkfx_align){vkfx_lcm(a.x, b.x), vkfx_lcm(a.y, b.y)};
}

/* A rectangle of pixels: columns [x, x + w), rows [y, y + h). */
typedef struct vkfx_rect {
    uint32_t x, y, w, h;
} vkfx_rect;

typedef struct vkfx_filter {
    const char *name;
    const char *help;           /* one line */
    const char *details;        /* extra paragraph for --help-filter, or NULL */
    /* What --fast changes (for --help-filter), or NULL where the filter has no faster path:
     * without --fast every filter gives the same bytes on every device. */
    const char *fast;
    const vkfx_option *options; /* terminated by a row with name == NULL */
    size_t params_size;
    /* Cross-option checks after parsing; returns VKFX_E_USAGE with a message. */
    int (*check)(const void *params);
    /* Optional: per-run state beyond the graph's temporaries (NULL if none). */
    int (*create)(vkfx_graph *g, const void *params, void **state);
    /* Records the filter's passes reading src and writing dst (NULL for a
     * filter that passes its input through). */
    int (*record)(vkfx_graph *g, const void *params, void *state, vkfx_image *src, vkfx_image *dst);
    void (*destroy)(vkfx_graph *g, void *state);
    /* Optional: called by vkfx_run after the graph ran and before destroy, to
     * read results back to the host (histogram's counts). */
    int (*finish)(vkfx_graph *g, const void *params, void *state);
    /* How far, in pixels, an output pixel depends on the input (the chain's
     * tiles overlap by the sum over its filters); NULL, or VKFX_REACH_ALL
     * for these params: the output depends on the whole image (or on a map
     * of its size) and the filter cannot run in tiles. */
    uint32_t (*reach)(const void *params);
    /* Optional: where a tile may start for the output to be the untiled one byte for byte,
     * with these params: kernels that make runs of outputs (rolling sums, unrolled taps) start
     * their runs at fixed strides from the image's origin, and a tile must start on a multiple
     * of every such stride. NULL: anywhere. */
    vkfx_align (*align)(const void *params);
    /* The families of kernel variants the filter's passes choose from (core/gpu/variant.h), NULL
     * terminated; NULL when each pass has one kernel. */
    const vkfx_variants *const *variants;
    /* Optional: the output's size for an input of w x h, for a filter that reshapes the image
     * (resize, crop, rotate, flip; NULL: the input's size). Its record gets a dst of that
     * size, which is the graph's size from then on (while it records too). A size that cannot be made
     * (a crop outside the image) is VKFX_E_USAGE naming the image's size. */
    int (*size)(const void *params, uint32_t w, uint32_t h, uint32_t *out_w, uint32_t *out_h);
    /* Required with size: for the out_w x out_h image the filter makes of an in_w x in_h one,
     * the input rectangle *in that the outputs *out read, and in window (params_size bytes)
     * the params that make exactly those outputs, byte for byte, from that rectangle alone:
     * an image too large for the device is then reshaped in tiles of its outputs. */
    int (*window)(const void *params, uint32_t in_w, uint32_t in_h, uint32_t out_w, uint32_t out_h,
                  const vkfx_rect *out, vkfx_rect *in, void *window);
    /* The output is the input unchanged (histogram): record only reads src,
     * and the chain hands src itself to the next filter instead of a copy. */
    bool passes_through;
    /* The names of the INT and FLOAT options that are lengths in the image's pixels (radii,
     * sigmas, maxcoc), NULL terminated; NULL: none. The same chain on the image at a smaller
     * scale looks alike with them scaled too (vkfx_params_scale_pixels; the preview's draft). */
    const char *const *pixel_options;
    /* The result hangs on the pixel grid itself (ripple's drops and waves live on it): on the
     * image at a smaller scale the chain looks otherwise, whatever its options. */
    bool grid_bound;
} vkfx_filter;

#define VKFX_REACH_ALL UINT32_MAX

/* NULL-terminated, in the order --filters lists them. */
extern const vkfx_filter *const vkfx_filters[];
const vkfx_filter *vkfx_filter_find(const char *name);

#endif
