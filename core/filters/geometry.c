/* crop, rotate and flip of FILTERS.md: exact pixel moves, all through one kernel
 * (glsl/remap.comp) that reads output pixel (x, y) from input pixel
 * origin + x * step_x + y * step_y. In windows (an image too large for one piece), a
 * rectangle of outputs reads one rectangle of inputs, which the same filter moves (crop: all of
 * it). */
#include <stddef.h>

#include "error.h"
#include "filters.h"

#include "remap.spv.h"
#include "../../glsl/remap.h"

/* The work group is GROUP x GROUP outputs. */
enum { GROUP = 16 };

/* The largest offset or side crop takes: larger images than any device takes. */
#define MOST 65536

_Static_assert(sizeof(remap_push) == REMAP_PUSH_BYTES, "remap.comp's push block");

static const vkfx_kernel_desc remap_kernel = VKFX_IMAGE_KERNEL(remap, remap_push);

/* The graph's size is the output's while a filter that reshapes the image records. */
static int remap(vkfx_graph *g, const char *label, const remap_push *push, vkfx_image *src,
                 vkfx_image *dst)
{
    vkfx_spec spec = {.local = {GROUP, GROUP, 1}, .half_out = vkfx_half_out(dst->format)};
    return vkfx_graph_pass(g, &remap_kernel, &spec, label, push, src, dst, GROUP, GROUP);
}

/* ---- crop ---- */

typedef struct crop_params {
    int32_t x, y, width, height;
} crop_params;

static const vkfx_option crop_options[] = {
    VKFX_OPTION_INT(crop_params, x, 0, 0, MOST,
                    "left edge of the rectangle, in pixels from the image's left"),
    VKFX_OPTION_INT(crop_params, y, 0, 0, MOST,
                    "top edge of the rectangle, in pixels from the image's top"),
    VKFX_OPTION_INT_UNSET(crop_params, width, "to the right edge", 1, MOST,
                          "width of the rectangle"),
    VKFX_OPTION_INT_UNSET(crop_params, height, "to the bottom edge", 1, MOST,
                          "height of the rectangle"),
    {0},
};

static int crop_size(const void *params, uint32_t w, uint32_t h, uint32_t *ow, uint32_t *oh)
{
    const crop_params *p = params;
    uint32_t x = (uint32_t)p->x, y = (uint32_t)p->y;
    uint32_t cw = p->width != VKFX_UNSET ? (uint32_t)p->width : x < w ? w - x : 0;
    uint32_t ch = p->height != VKFX_UNSET ? (uint32_t)p->height : y < h ? h - y : 0;
    if (x >= w || y >= h)
        return vkfx_fail(VKFX_E_USAGE,
                         "crop: (%u, %u) is outside the image, which is %ux%u at this point of "
                         "the chain",
                         x, y, w, h);
    if (cw > w - x || ch > h - y)
        return vkfx_fail(VKFX_E_USAGE,
                         "crop: %ux%u at (%u, %u) is not inside the image, which is %ux%u at this "
                         "point of the chain",
                         cw, ch, x, y, w, h);
    *ow = cw;
    *oh = ch;
    return VKFX_OK;
}

static int crop_record(vkfx_graph *g, const void *params, void *state, vkfx_image *src,
                       vkfx_image *dst)
{
    (void)state;
    const crop_params *p = params;
    remap_push push = {
        {(int32_t)dst->width, (int32_t)dst->height}, {p->x, p->y}, {1, 0}, {0, 1}};
    return remap(g, "crop", &push, src, dst);
}

static int crop_window(const void *params, uint32_t in_w, uint32_t in_h, uint32_t out_w,
                       uint32_t out_h, const vkfx_rect *out, vkfx_rect *in, void *window)
{
    (void)in_w, (void)in_h, (void)out_w, (void)out_h;
    const crop_params *p = params;
    *in = (vkfx_rect){(uint32_t)p->x + out->x, (uint32_t)p->y + out->y, out->w, out->h};
    *(crop_params *)window = (crop_params){0, 0, (int32_t)out->w, (int32_t)out->h};
    return VKFX_OK;
}

const vkfx_filter vkfx_filter_crop = {
    .name = "crop",
    .help = "crop: the rectangle at x, y of width x height, which must lie inside the image",
    .details = "Pixels are copied exactly. A rectangle that is not inside the image (at that "
               "point of the chain: after an earlier resize or rotate, in its size) is an error "
               "naming the image's size.",
    .options = crop_options,
    .params_size = sizeof(crop_params),
    .record = crop_record,
    .size = crop_size,
    .window = crop_window,
};

/* ---- rotate ---- */

enum { ANGLE_90, ANGLE_180, ANGLE_270 };
static const char *const angle_names[] = {"90", "180", "270", NULL};

typedef struct rotate_params {
    int angle;
} rotate_params;

static const vkfx_option rotate_options[] = {
    VKFX_OPTION_CHOICE(rotate_params, angle, ANGLE_90, angle_names, "degrees, clockwise"),
    {0},
};

static int rotate_size(const void *params, uint32_t w, uint32_t h, uint32_t *ow, uint32_t *oh)
{
    bool turn = ((const rotate_params *)params)->angle != ANGLE_180;
    *ow = turn ? h : w;
    *oh = turn ? w : h;
    return VKFX_OK;
}

static int rotate_record(vkfx_graph *g, const void *params, void *state, vkfx_image *src,
                         vkfx_image *dst)
{
    (void)state;
    int32_t w = (int32_t)src->width, h = (int32_t)src->height;
    int32_t ow = (int32_t)dst->width, oh = (int32_t)dst->height;
    remap_push push = {{ow, oh}, {0, 0}, {1, 0}, {0, 1}};
    /* Output (x, y) of a clockwise turn reads the input at origin + x step_x + y step_y. */
    switch (((const rotate_params *)params)->angle) {
    case ANGLE_90:
        push = (remap_push){{ow, oh}, {0, h - 1}, {0, -1}, {1, 0}};
        break;
    case ANGLE_180:
        push = (remap_push){{ow, oh}, {w - 1, h - 1}, {-1, 0}, {0, -1}};
        break;
    case ANGLE_270:
        push = (remap_push){{ow, oh}, {w - 1, 0}, {0, 1}, {-1, 0}};
        break;
    }
    return remap(g, "rotate", &push, src, dst);
}

static int rotate_window(const void *params, uint32_t in_w, uint32_t in_h, uint32_t out_w,
                         uint32_t out_h, const vkfx_rect *out, vkfx_rect *in, void *window)
{
    (void)out_w, (void)out_h;
    const rotate_params *p = params;
    /* Output (x, y) reads (y, h-1-x) at 90, (w-1-x, h-1-y) at 180, (w-1-y, x) at 270. */
    switch (p->angle) {
    case ANGLE_90:
        *in = (vkfx_rect){out->y, in_h - out->x - out->w, out->h, out->w};
        break;
    case ANGLE_180:
        *in = (vkfx_rect){in_w - out->x - out->w, in_h - out->y - out->h, out->w, out->h};
        break;
    default:
        *in = (vkfx_rect){in_w - out->y - out->h, out->x, out->h, out->w};
        break;
    }
    *(rotate_params *)window = *p;
    return VKFX_OK;
}

const vkfx_filter vkfx_filter_rotate = {
    .name = "rotate",
    .help = "rotate: a quarter, half or three-quarter turn clockwise",
    .details = "Pixels are moved exactly; 90 and 270 swap width and height.",
    .options = rotate_options,
    .params_size = sizeof(rotate_params),
    .record = rotate_record,
    .size = rotate_size,
    .window = rotate_window,
};

/* ---- flip ---- */

enum { AXIS_H, AXIS_V };
static const char *const axis_names[] = {"h", "v", NULL};

typedef struct flip_params {
    int axis;
} flip_params;

static const vkfx_option flip_options[] = {
    VKFX_OPTION_CHOICE(flip_params, axis, AXIS_H, axis_names,
                       "h: mirror left to right; v: mirror top to bottom"),
    {0},
};

/* Same size, but the pixels move: maps given after it would no longer match. */
static int flip_size(const void *params, uint32_t w, uint32_t h, uint32_t *ow, uint32_t *oh)
{
    (void)params;
    *ow = w;
    *oh = h;
    return VKFX_OK;
}

static int flip_record(vkfx_graph *g, const void *params, void *state, vkfx_image *src,
                       vkfx_image *dst)
{
    (void)state;
    int32_t w = (int32_t)src->width, h = (int32_t)src->height;
    bool h_axis = ((const flip_params *)params)->axis == AXIS_H;
    remap_push push = {{w, h}, {h_axis ? w - 1 : 0, h_axis ? 0 : h - 1}, {h_axis ? -1 : 1, 0},
                       {0, h_axis ? 1 : -1}};
    return remap(g, "flip", &push, src, dst);
}

static int flip_window(const void *params, uint32_t in_w, uint32_t in_h, uint32_t out_w,
                       uint32_t out_h, const vkfx_rect *out, vkfx_rect *in, void *window)
{
    (void)out_w, (void)out_h;
    const flip_params *p = params;
    *in = *out;
    if (p->axis == AXIS_H)
        in->x = in_w - out->x - out->w;
    else
        in->y = in_h - out->y - out->h;
    *(flip_params *)window = *p;
    return VKFX_OK;
}

const vkfx_filter vkfx_filter_flip = {
    .name = "flip",
    .help = "flip: mirror left to right (axis=h) or top to bottom (axis=v)",
    .details = "Pixels are moved exactly.",
    .options = flip_options,
    .params_size = sizeof(flip_params),
    .record = flip_record,
    .size = flip_size,
    .window = flip_window,
};
