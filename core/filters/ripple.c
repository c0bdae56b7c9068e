/* ripple of FILTERS.md: drops on a damped 2D wave equation, simulated in
 * float32 on r32f height images, then a refraction of the input through the
 * final height field's gradient. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "filters.h"

#include "ripple_apply.spv.h"
#include "ripple_step.spv.h"
#include "../../glsl/ripple.h"

_Static_assert(sizeof(ripple_step_push) == RIPPLE_STEP_PUSH_BYTES, "ripple_step's push block");
_Static_assert(sizeof(ripple_apply_push) == RIPPLE_APPLY_PUSH_BYTES, "ripple_apply's push block");

/* Drops are discs of this radius (cells with dx^2 + dy^2 <= RADIUS^2). */
enum { RADIUS = 2, MAX_DROPS = 1024 };

typedef struct ripple_params {
    int32_t drops;
    int32_t seed;
    int32_t steps;
    double speed;
    double damping;
    double strength;
} ripple_params;

static const vkfx_option ripple_options[] = {
    VKFX_OPTION_INT(ripple_params, drops, 8, 0, MAX_DROPS,
                    "number of drops raising the water at step 0 (0: the identity)"),
    VKFX_OPTION_INT(ripple_params, seed, 1, 0, 2147483647,
                    "picks the drop positions; the same seed gives the same output"),
    VKFX_OPTION_INT(ripple_params, steps, 200, 0, 20000,
                    "time steps simulated before the image is refracted"),
    /* e = C^2 dt^2 / dx^2 with dt = dx = 1: the explicit scheme blows up for e > 0.5, so the
     * speed stops just below sqrt(0.5). */
    VKFX_OPTION_FLOAT(
        ripple_params, speed, 0.5, 0, 0.7071,
        "wave speed C in pixels per step, up to sqrt(0.5) where the scheme is stable"),
    VKFX_OPTION_FLOAT(ripple_params, damping, 0.01, 0, 100,
                      "damping D; larger values calm the water sooner"),
    VKFX_OPTION_FLOAT(ripple_params, strength, 20, -10000, 10000,
                      "pixels of displacement per unit of height slope"),
    {0},
};

/* The integer hash of FILTERS.md's drop placement (Wellons' lowbias32, applied
 * twice); tests/ref/ripple.c carries its own copy of the same contract. */
static uint32_t lowbias32(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

static uint32_t ripple_hash(uint32_t seed, uint32_t i)
{
    return lowbias32(lowbias32(seed) + i);
}

/* A coefficient of the scheme as the kernel takes it: 0 below RIPPLE_TINY_COEFF (glsl/ripple.h). */
static float coefficient(double k)
{
    return fabs(k) < RIPPLE_TINY_COEFF ? 0.0f : (float)k;
}

static const vkfx_kernel_desc ripple_step_kernel = {
    .name = "ripple_step",
    VKFX_SPV(ripple_step),
    .nbind = 4,
    .bind = {VKFX_BIND_SAMPLED, VKFX_BIND_SAMPLED, VKFX_BIND_STORAGE_IMAGE, VKFX_BIND_BUFFER},
    .push_size = sizeof(ripple_step_push),
};

static const vkfx_kernel_desc ripple_apply_kernel = {
    .name = "ripple_apply",
    VKFX_SPV(ripple_apply),
    .nbind = 3,
    .bind = {VKFX_BIND_SAMPLED, VKFX_BIND_SAMPLED, VKFX_BIND_STORAGE_IMAGE},
    .push_size = sizeof(ripple_apply_push),
};

static int ripple_record(vkfx_graph *g, const void *params, void *state, vkfx_image *src,
                         vkfx_image *dst)
{
    (void)state;
    int ret = VKFX_OK;
    const ripple_params *p = params;
    uint32_t w = vkfx_graph_width(g), h = vkfx_graph_height(g);
    vkfx_kernel *step = NULL, *apply = NULL;
    vkfx_image *height[3] = {NULL, NULL, NULL};
    vkfx_buffer *drops = NULL;

    vkfx_spec step_spec = {.local = {16, 16, 1},
                           .nextra = VKFX_SPEC_COUNT(RIPPLE_SPEC_RADIUS),
                           .extra = {[VKFX_SPEC(RIPPLE_SPEC_RADIUS)] = RADIUS}};
    vkfx_spec apply_spec = {.local = {16, 16, 1}, .half_out = vkfx_half_out(dst->format)};
    TRY(vkfx_graph_kernel(g, &ripple_step_kernel, &step_spec, &step));
    TRY(vkfx_graph_kernel(g, &ripple_apply_kernel, &apply_spec, &apply));
    for (int i = 0; i < 3; i++)
        TRY(vkfx_graph_image(g, w, h, VK_FORMAT_R32_SFLOAT, &height[i]));

    /* Drop centres are placed here, in integers, so that the device and the
     * reference agree on them exactly; at most 8 KiB, small enough to travel
     * inside the command buffer. */
    int32_t centres[2 * MAX_DROPS];
    uint32_t n = (uint32_t)p->drops;
    for (uint32_t i = 0; i < n; i++) {
        centres[2 * i] = (int32_t)(ripple_hash((uint32_t)p->seed, 2 * i) % w);
        centres[2 * i + 1] = (int32_t)(ripple_hash((uint32_t)p->seed, 2 * i + 1) % h);
    }
    VkDeviceSize bytes = (n ? n : 1) * 2 * sizeof(int32_t);
    TRY(vkfx_graph_buffer(g, bytes, 0, &drops));
    if (n)
        TRY(vkfx_graph_update(g, drops, centres, bytes));

    double dt = 1.0, dx = 1.0, d = p->damping;
    double e = p->speed * p->speed * dt * dt / (dx * dx);
    ripple_step_push push = {{(int32_t)w, (int32_t)h},
                             coefficient((d * dt - 2.0) / (d * dt + 2.0)),
                             coefficient((4.0 - 8.0 * e) / (d * dt + 2.0)),
                             coefficient(2.0 * e / (d * dt + 2.0)),
                             1,
                             n};
    uint32_t groups[3] = {vkfx_groups(w, 16), vkfx_groups(h, 16), 1};
    /* Step 0 into height[0]; its sampled inputs are not read. */
    vkfx_dispatch d0 = {
        .kernel = step,
        .label = "ripple.drops",
        .use = {{.image = height[1]},
                {.image = height[2]},
                {.image = height[0], .write = true},
                {.buffer = drops}},
        .push = &push,
        .groups = {groups[0], groups[1], groups[2]},
    };
    TRY(vkfx_graph_dispatch(g, &d0));
    /* h_prev = h at step 0; afterwards three images rotate. */
    push.init = 0;
    int prev = 0, cur = 0;
    for (int32_t t = 0; t < p->steps; t++) {
        int next = prev == cur ? (cur + 1) % 3 : 3 - prev - cur;
        vkfx_dispatch ds = {
            .kernel = step,
            .label = "ripple.step",
            .use = {{.image = height[prev]},
                    {.image = height[cur]},
                    {.image = height[next], .write = true},
                    {.buffer = drops}},
            .push = &push,
            .groups = {groups[0], groups[1], groups[2]},
        };
        TRY(vkfx_graph_dispatch(g, &ds));
        prev = cur;
        cur = next;
    }

    ripple_apply_push apush = {{(int32_t)w, (int32_t)h}, (float)p->strength};
    vkfx_dispatch da = {
        .kernel = apply,
        .label = "ripple.apply",
        .use = {{.image = src}, {.image = height[cur]}, {.image = dst, .write = true}},
        .push = &apush,
        .groups = {groups[0], groups[1], groups[2]},
    };
    TRY(vkfx_graph_dispatch(g, &da));
fail:
    return ret;
}

const vkfx_filter vkfx_filter_ripple = {
    .name = "ripple",
    .help = "water ripples from random drops, refracting the image",
    .details =
        "Height grid of the image's size, float32 on the device. Step 0: each of the N drops is a "
        "disc of radius 2 (cells with dx^2 + dy^2 <= 4) setting h = 1 (overlaps do not add), "
        "every other cell 0, and h_prev = h. Drop i's centre is (R(2i) mod W, R(2i+1) mod H) "
        "with R(j) = lowbias32(lowbias32(seed) + j) in uint32 arithmetic, lowbias32(x): "
        "x ^= x >> 16; x *= 0x7feb352d; x ^= x >> 15; x *= 0x846ca68b; x ^= x >> 16. "
        "Each of the T steps: h' = k1 h_prev + k2 h + k3 (h_l + h_r + h_u + h_d) with "
        "k1 = (D - 2)/(D + 2), k2 = (4 - 8e)/(D + 2), k3 = 2e/(D + 2), e = C^2 "
        "(dt = dx = 1); the outermost ring of cells (x = 0, x = W-1, y = 0, y = H-1) is 0 at "
        "every step, drops included, so images at most 2 pixels wide or high are left unchanged. "
        "e > 0.5 (speed > sqrt(0.5) = 0.7071) is unstable and refused. Output pixel p samples "
        "the input at q = p + strength * (dh/dx, dh/dy), dh/dx = (h(x+1) - h(x-1))/2 with "
        "clamp-to-edge (likewise dh/dy), bilinearly with pixel centres at integer "
        "coordinates and clamp-to-edge taps, on linear premultiplied RGBA. Deterministic "
        "for a given seed, and the same bytes on every device: each product and sum is "
        "rounded on its own, in the order written (h_l + h_r, h_u + h_d, then their sum), and "
        "heights and displacements below 2^-64 in magnitude, and coefficients below 2^-32, "
        "are taken as 0, so that no operation meets a subnormal.",
    .options = ripple_options,
    .params_size = sizeof(ripple_params),
    .record = ripple_record,
    .grid_bound = true,
};
