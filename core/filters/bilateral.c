#include <math.h>
#include <stddef.h>

#include "error.h"
#include "filters.h"

#include "bilateral.spv.h"
#include "../../glsl/bilateral.h"

_Static_assert(sizeof(bilateral_push) == BILATERAL_PUSH_BYTES, "bilateral.comp's push block");

typedef struct bilateral_params {
    double sigma_s, sigma_r;
    int32_t radius;
} bilateral_params;

static const vkfx_option bilateral_options[] = {
    /* sigma_s stops at 32: the radius it derives, floor(2 sigma_s + 0.5), stays within radius's
     * range. */
    VKFX_OPTION_FLOAT(bilateral_params, sigma_s, 3, 0.1, 32,
                      "spatial standard deviation in pixels"),
    VKFX_OPTION_FLOAT(bilateral_params, sigma_r, 0.1, 0.001, 10,
                      "range standard deviation, in linear premultiplied RGB units"),
    VKFX_OPTION_INT_UNSET(bilateral_params, radius, "2*sigma_s rounded, at least 1", 1, 64,
                          "window half-size: the window is (2 radius + 1)^2 pixels"),
    {0},
};

static const vkfx_kernel_desc bilateral_kernel = {
    .name = "bilateral",
    VKFX_SPV(bilateral),
    .nbind = 3,
    .bind = {VKFX_BIND_SAMPLED, VKFX_BIND_STORAGE_IMAGE, VKFX_BIND_BUFFER},
    .push_size = sizeof(bilateral_push),
};

/* FILTERS.md's weight table, in double rounded once to float: glsl/bilateral.h. */
static void weight_table(float table[BILATERAL_ENTRIES][2])
{
    for (int i = 0; i < BILATERAL_ENTRIES; i++) {
        double e0 = exp(-(double)i / BILATERAL_STEPS), e1 = exp(-(double)(i + 1) / BILATERAL_STEPS);
        table[i][0] = (float)e0;
        table[i][1] = (float)(e1 - e0);
    }
}

/* The work group is GROUP x GROUP outputs (glsl/bilateral.comp). */
enum { GROUP = 16 };

static uint32_t tile_bytes(uint32_t halo, uint32_t shape)
{
    (void)shape;
    return (GROUP + 2 * halo) * (GROUP + 2 * halo) * 16;
}

static int32_t bilateral_default_radius(double sigma_s)
{
    int32_t r = (int32_t)floor(2.0 * sigma_s + 0.5);
    return r < 1 ? 1 : r;
}

static int bilateral_record(vkfx_graph *g, const void *params, void *state, vkfx_image *src,
                            vkfx_image *dst)
{
    (void)state;
    int ret = VKFX_OK;
    const bilateral_params *p = params;
    vkfx_buffer *table = NULL;
    vkfx_kernel *k = NULL;
    float weights[BILATERAL_ENTRIES][2];
    int32_t radius = p->radius >= 0 ? p->radius : bilateral_default_radius(p->sigma_s);
    vkfx_spec spec = {
        .local = {GROUP, GROUP, 1},
        .nextra = VKFX_SPEC_COUNT(BILATERAL_SPEC_FAST),
        .extra = {[VKFX_SPEC(BILATERAL_SPEC_HALO)] = vkfx_pick_halo(
                      (uint32_t)radius, 4, vkfx_graph_caps(g)->shared_memory, tile_bytes, 0),
                  [VKFX_SPEC(BILATERAL_SPEC_FAST)] = vkfx_graph_caps(g)->fast},
        .half_out = vkfx_half_out(dst->format),
    };
    bilateral_push push = {{(int32_t)vkfx_graph_width(g), (int32_t)vkfx_graph_height(g)},
                           radius,
                           (float)(1.0 / (2.0 * p->sigma_s * p->sigma_s)),
                           (float)(1.0 / (2.0 * p->sigma_r * p->sigma_r))};
    weight_table(weights);
    TRY(vkfx_graph_upload(g, weights, sizeof(weights), &table));
    TRY(vkfx_graph_kernel(g, &bilateral_kernel, &spec, &k));
    vkfx_dispatch d = {
        .kernel = k,
        .label = "bilateral",
        .use = {{.image = src}, {.image = dst, .write = true}, {.buffer = table}},
        .push = &push,
        .groups = {vkfx_groups(push.size[0], GROUP), vkfx_groups(push.size[1], GROUP), 1},
    };
    TRY(vkfx_graph_dispatch(g, &d));
fail:
    return ret;
}

static uint32_t bilateral_reach(const void *params)
{
    const bilateral_params *p = params;
    return (uint32_t)(p->radius >= 0 ? p->radius : bilateral_default_radius(p->sigma_s));
}

const vkfx_filter vkfx_filter_bilateral = {
    .name = "bilateral",
    .help = "edge-preserving bilateral blur",
    .details = "out(p) = sum_q w(p,q) in(q) / sum_q w(p,q) over the (2 radius + 1)^2 window, "
               "edges repeating the nearest pixel, with w = E(|p-q|^2/(2 sigma_s^2) + "
               "||in(q)-in(p)||^2/(2 sigma_r^2)), E(x) exp(-x) interpolated linearly between "
               "x = i/64 (0 from x = 24 on: within 1 code of exp on 8-bit files); the range "
               "distance is taken over linear "
               "premultiplied RGB and alpha is averaged with the same weights. The default "
               "radius is floor(2 sigma_s + 0.5), at least 1. A large sigma_r approaches the "
               "Gaussian-weighted window mean.",
    .fast = "the device's exp per tap instead of the table, and its own division and rounding: the "
            "bytes differ between devices.",
    .options = bilateral_options,
    .params_size = sizeof(bilateral_params),
    .record = bilateral_record,
    .reach = bilateral_reach,
    .pixel_options = (const char *const[]){"sigma_s", "radius", NULL},
};
