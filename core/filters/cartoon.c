/* cartoon of FILTERS.md: b = gauss(sigma), darkened by its own Sobel edges. Two variants: the
 * blur and the darkening in one dispatch (vkfx_gauss_cartoon_record) where the one-pass Gaussian
 * applies, else the Gaussian's passes into a float image and glsl/cartoon.comp after them. Both
 * give the same bytes; VKFX_VARIANT=cartoon:separate times the second where the first applies. */
#include <stddef.h>

#include "error.h"
#include "variant.h"
#include "filters.h"

/* Rows each invocation walks down its column. */
enum { PER = 8 };

#include "cartoon.spv.h"
#include "../../glsl/cartoon.h"

_Static_assert(sizeof(cartoon_push) == CARTOON_PUSH_BYTES, "cartoon.comp's push block");

typedef struct cartoon_params {
    double sigma;
    double gain;
} cartoon_params;

static const vkfx_option cartoon_options[] = {
    VKFX_OPTION_FLOAT(cartoon_params, sigma, 2, 0.1, 1000, "Gaussian blur before the edges"),
    VKFX_OPTION_FLOAT(cartoon_params, gain, 4, 0, 1000, "edge strength (the sobel gain)"),
    {0},
};

static const vkfx_kernel_desc cartoon_kernel = VKFX_IMAGE_KERNEL(cartoon, cartoon_push);

/* What each variant records. */
typedef struct cartoon_job {
    const cartoon_params *p;
    bool one_pass; /* no Gaussian variant but the one-pass kernel is forced */
    vkfx_image *src, *dst;
} cartoon_job;

static bool fused_applies(const vkfx_caps *caps, const void *job)
{
    const cartoon_job *j = job;
    return j->one_pass && vkfx_gauss_cartoon_applies(caps, j->p->sigma);
}

static int fused_record(vkfx_graph *g, const void *job)
{
    const cartoon_job *j = job;
    return vkfx_gauss_cartoon_record(g, j->p->sigma, j->p->gain, j->src, j->dst);
}

static int separate_record(vkfx_graph *g, const void *job)
{
    int ret = VKFX_OK;
    const cartoon_job *j = job;
    uint32_t w = vkfx_graph_width(g), h = vkfx_graph_height(g);
    vkfx_image *blurred = NULL;
    vkfx_spec spec = {.local = {32, 8, 1},
                      .nextra = VKFX_SPEC_COUNT(CARTOON_SPEC_PER),
                      .extra = {[VKFX_SPEC(CARTOON_SPEC_PER)] = PER},
                      .half_out = vkfx_half_out(j->dst->format)};
    /* The blur feeds a gradient whose gain magnifies rounding: keep it in float32 whatever the
     * chain's internal format (rgba16f here put dark pixels 10 codes off). */
    TRY(vkfx_graph_image(g, w, h, VK_FORMAT_R32G32B32A32_SFLOAT, &blurred));
    TRY(vkfx_gauss_record(g, j->p->sigma, -1, j->src, blurred));
    cartoon_push push = {{(int32_t)w, (int32_t)h}, (float)j->p->gain};
    TRY(vkfx_graph_pass(g, &cartoon_kernel, &spec, "cartoon", &push, blurred, j->dst, 32,
                        8 * PER));
fail:
    return ret;
}

static const vkfx_variant cartoon_variant_list[] = {
    {"fused", fused_applies, fused_record, NULL},
    {"separate", vkfx_variant_always, separate_record, NULL},
    {0},
};

static const vkfx_variants cartoon_variants = {"cartoon", cartoon_variant_list};

static int cartoon_record(vkfx_graph *g, const void *params, void *state, vkfx_image *src,
                          vkfx_image *dst)
{
    (void)state;
    cartoon_job j = {params, vkfx_gauss_one_pass_allowed(g), src, dst};
    return vkfx_variant_record(g, &cartoon_variants, &j);
}

/* The blur's radius, plus one for the Sobel taps on the blurred image. */
static uint32_t cartoon_reach(const void *params)
{
    return (uint32_t)vkfx_gauss_default_radius(((const cartoon_params *)params)->sigma) + 1;
}

static vkfx_align cartoon_align(const void *params)
{
    return vkfx_gauss_align(vkfx_gauss_default_radius(((const cartoon_params *)params)->sigma));
}

const vkfx_filter vkfx_filter_cartoon = {
    .name = "cartoon",
    .help = "cartoon: Gaussian blur darkened along its Sobel edges",
    .details = "b = gauss(sigma); e = sobel edge value of b with the given gain; output "
               "RGB = b.rgb * (1 - e) (premultiplied), alpha from b.",
    .fast = "the Gaussian's fast path (gauss): the device's exp and rounding; the bytes differ "
            "between devices.",
    .options = cartoon_options,
    .params_size = sizeof(cartoon_params),
    .record = cartoon_record,
    .reach = cartoon_reach,
    .align = cartoon_align,
    .variants = (const vkfx_variants *const[]){&vkfx_gauss_variants, &cartoon_variants, NULL},
    .pixel_options = (const char *const[]){"sigma", NULL},
};
