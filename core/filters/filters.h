/* Host sides of the filters: each file defines vkfx_filter descriptors that core/filters/registry.c
 * lists (filter_files in meson.build), plus what other filters reuse of it. */
#ifndef VKFX_FILTERS_H
#define VKFX_FILTERS_H

#include "filter.h"
#include "graph.h"
#include "maps.h"

/* The two passes of a separable filter: kh along rows from src into a temporary stored like
 * dst, in groups gh, then kv along columns from it into dst, in groups gv; both take push. */
typedef struct vkfx_separable {
    const char *label_h, *label_v;
    vkfx_kernel *kh, *kv;
    uint32_t gh[2], gv[2];
    const void *push;
} vkfx_separable;
int vkfx_record_separable(vkfx_graph *g, const vkfx_separable *s, vkfx_image *src, vkfx_image *dst);

/* The separable Gaussian of FILTERS.md from src to dst; radius < 0 takes
 * the default floor(3 sigma + 0.5), at least 1. */
int vkfx_gauss_record(vkfx_graph *g, double sigma, int radius, vkfx_image *src, vkfx_image *dst);
/* unsharp (FILTERS.md) from src into dst in one dispatch: its float blur at the default radius
 * in the one-pass kernel, then x + amount (x - b) where |x - b| > threshold, the same bytes as
 * the blur stored and unsharp's own pass after it. *done is false where the one-pass kernel does
 * not apply (or another Gaussian variant is forced): nothing is recorded then. */
int vkfx_gauss_unsharp_record(vkfx_graph *g, double sigma, double amount, double threshold,
                              vkfx_image *src, vkfx_image *dst, bool *done);
/* Whether a Gaussian may take the one-pass kernel: no other of vkfx_gauss_variants is forced. */
bool vkfx_gauss_one_pass_allowed(vkfx_graph *g);
/* cartoon (FILTERS.md) from src into dst in one dispatch (glsl/cartoon_fused.comp): its float blur
 * at the default radius and the darkening by its Sobel edges, the same bytes as the blur stored
 * in rgba32f and cartoon's own pass after it. Applies where the radius is the one-pass kernel's
 * and the tile fits the device's shared memory. */
bool vkfx_gauss_cartoon_applies(const vkfx_caps *caps, double sigma);
int vkfx_gauss_cartoon_record(vkfx_graph *g, double sigma, double gain, vkfx_image *src,
                              vkfx_image *dst);
/* Its kernels: one-pass, matrix, unrolled, generic (core/gpu/variant.h). */
extern const vkfx_variants vkfx_gauss_variants;
int vkfx_gauss_default_radius(double sigma);
/* Where tiles through that Gaussian start (vkfx_filter.align): the one-pass kernel's runs of
 * row results across and of outputs down a column at this radius. */
vkfx_align vkfx_gauss_align(int radius);

/* The circle of confusion of FILTERS.md "Depth of field", shared by every
 * depth-of-field filter: a params struct member and its option rows. */
enum { VKFX_DEPTH_DEPTH, VKFX_DEPTH_DISPARITY };
extern const char *const vkfx_depth_kinds[];

typedef struct vkfx_coc_params {
    char *depth;
    double focus, range, maxcoc;
    int kind;
    double hole; /* the map value of no data, or VKFX_UNSET */
} vkfx_coc_params;

/* The circle-of-confusion parameters of a filter that has them (its options
 * include VKFX_COC_OPTIONS), else NULL. */
const vkfx_coc_params *vkfx_coc_of(const vkfx_filter *f, const void *params);
/* The depth the circle of confusion compares with focus, for a map value z
 * (kind=disparity flips it): focus set to this makes that pixel sharp. */
float vkfx_coc_depth(const vkfx_coc_params *p, float z);

/* The depth map of a depth filter on the device (vkfx_aux_load), its holes
 * filled (FILTERS.md "Holes in a depth map") when coc->hole is given. */
int vkfx_depth_load(vkfx_graph *g, const char *filter, const vkfx_coc_params *coc,
                    vkfx_buffer **out);
/* The value the filled map holds at (x, y), from the w x h map as read (on
 * the host, as the kernels fill it): a click on a hole finds the depth the
 * filter uses there. */
float vkfx_depth_filled(const float *map, uint32_t w, uint32_t h, uint32_t x, uint32_t y,
                        const vkfx_coc_params *coc);

/* focus, 1/range (glsl/coc.glsl multiplies by it), maxcoc and whether the map is disparity,
 * for the kernels' push constants. */
void vkfx_coc_push(const vkfx_coc_params *p, float *focus, float *inv_range, float *maxcoc,
                   uint32_t *disparity);

#define VKFX_COC_OPTIONS(T, member)                                                                \
    VKFX_OPTION("depth", VKFX_OPT_PATH, offsetof(T, member.depth), .required = true,               \
                .help = "depth map of the image's size: the first channel of an image (8/16-bit "  \
                        "read as [0,1]); of an OpenEXR file its Z channel, else one named *.Z, "   \
                        "else one containing 'depth' (FILE.exr#NAME picks one); self: the input "  \
                        "EXR's own depth. Float depth is in scene units, and focus and range "     \
                        "with it"),                                                                \
        VKFX_OPTION("focus", VKFX_OPT_FLOAT, offsetof(T, member.focus), .def = 0.5, .min = -1e30,  \
                    .max = 1e30,                                                                   \
                    .help = "depth in focus (after kind=disparity flips the map), in the map's "   \
                            "units"),                                                              \
        VKFX_OPTION("range", VKFX_OPT_FLOAT, offsetof(T, member.range), .def = 0.5, .min = 1e-9,   \
                    .max = 1e30, .help = "depth distance from focus at which the blur reaches "    \
                                         "maxcoc"),                                                \
        VKFX_OPTION("maxcoc", VKFX_OPT_FLOAT, offsetof(T, member.maxcoc), .def = 16, .min = 0,     \
                    .max = 4096, .help = "largest circle of confusion, in pixels"),                \
        VKFX_OPTION("kind", VKFX_OPT_CHOICE, offsetof(T, member.kind), .def = VKFX_DEPTH_DEPTH,    \
                    .choices = vkfx_depth_kinds,                                                   \
                    .help = "depth: the map holds depth; disparity: it holds inverse depth "       \
                            "(larger is nearer) and is used as 1 - z"),                            \
        VKFX_OPTION("hole", VKFX_OPT_FLOAT, offsetof(T, member.hole), .min = 0, .max = 1e30,       \
                    .unset_default = true, .def_text = "none",                                     \
                    .help = "the map value that means no data (Middlebury: 0; 8/16-bit maps in "   \
                            "[0,1]): such pixels take the farther of the nearest known values "    \
                            "along their row, then along their column, before the circle of "      \
                            "confusion")

/* The depth-of-field filters' passes from src to dst with the depth map
 * already on the device (bokeh runs them as its base). */
int vkfx_dof_record(vkfx_graph *g, const vkfx_coc_params *coc, double strength, vkfx_buffer *depth,
                    vkfx_image *src, vkfx_image *dst);
int vkfx_satdof_record(vkfx_graph *g, const vkfx_coc_params *coc, bool smooth, vkfx_buffer *depth,
                       vkfx_image *src, vkfx_image *dst);

/* The summed-area table of src in 64-bit fixed point (value * 2^shift,
 * wrapping modulo 2^64; box sums taken from it are exact): the low and
 * high 32 bits of each channel in two W x H rgba32ui images. probe, when not NULL, receives what
 * the table pass ran with (gl_SubgroupSize, the specialised size, the subgroup count; all 0 on the
 * shared-memory path). */
typedef struct vkfx_sat {
    vkfx_image *lo, *hi;
    int shift;
} vkfx_sat;
/* The shift a W x H image gets: as many fraction bits as keep every box
 * sum of samples within +-65504 inside int64, at most 24. */
int vkfx_sat_shift(uint32_t width, uint32_t height);
int vkfx_sat_record(vkfx_graph *g, vkfx_image *src, int shift, vkfx_buffer *probe, vkfx_sat *out);
/* Its kernels: subgroup64, subgroup, shared (core/gpu/variant.h). */
extern const vkfx_variants vkfx_sat_variants;
/* Copies table rows [first, first + rows) into out as int64 RGBA, row-major. */
int vkfx_sat_record_export(vkfx_graph *g, const vkfx_sat *sat, uint32_t first, uint32_t rows,
                           vkfx_buffer *out);

#endif
