#include "halfprobe.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "gpu.h"
#include "graph.h"
#include "kernel.h"

#include "half_probe.spv.h"

static const vkfx_kernel_desc probe_kernel = {
    .name = "half_probe",
    VKFX_SPV(half_probe),
    .nbind = 2,
    .bind = {VKFX_BIND_BUFFER, VKFX_BIND_BUFFER},
    .push_size = 4,
};

static float half_to_float(uint16_t h)
{
    int e = (h >> 10) & 31, m = h & 1023;
    float v = e ? ldexpf((float)(m | 1024), e - 25) : ldexpf((float)m, -24);
    return (h & 0x8000) ? -v : v;
}

/* The nearest half of f, ties to even (f finite or infinite, not NaN). */
static uint16_t half_nearest(float f)
{
    uint32_t b;
    memcpy(&b, &f, sizeof(b));
    uint16_t sign = (uint16_t)((b >> 16) & 0x8000u);
    uint32_t a = b & 0x7fffffffu;
    if (a >= 0x477ff000u) /* 65520 and up: the tie above 65504 goes to infinity */
        return sign | 0x7c00u;
    if (a >= 0x38800000u) { /* 2^-14 and up: a normal half */
        uint32_t r = a + 0x0fffu + ((a >> 13) & 1u);
        return sign | (uint16_t)((r >> 13) - (112u << 10));
    }
    /* Steps of 2^-24 below that; rintf rounds ties to even. */
    return sign | (uint16_t)rintf(ldexpf(fabsf(f), 24));
}

enum { PER_HALF = 4 }; /* the half, the midpoint above it and the floats either side */

int vkfx_half_probe(vkfx_context *ctx)
{
    int ret = VKFX_OK;
    const char *env = getenv("VKFX_HALF_PACK");
    ctx->pack_rne = false;
    if (env && strcmp(env, "0") == 0)
        return VKFX_OK;
    /* Finite halves below the largest, each with PER_HALF floats, both signs; then four at the
     * overflow edge. count: pairs of floats. */
    const uint32_t nhalf = 0x7bff, count = (2 * nhalf * PER_HALF + 4) / 2;
    vkfx_buffer *in = NULL, *out = NULL;
    vkfx_graph *g = NULL;
    vkfx_kernel *k = NULL;
    const uint64_t bytes = ctx->device_bytes, peak = ctx->device_bytes_peak;
    const unsigned allocs = ctx->nallocs, submits = ctx->nsubmits;
    TRY(vkfx_buffer_create(ctx, (VkDeviceSize)count * 2 * sizeof(float),
                           VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, VKFX_MEM_UPLOAD, &in));
    TRY(vkfx_buffer_create(ctx, (VkDeviceSize)count * sizeof(uint32_t),
                           VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, VKFX_MEM_UPLOAD, &out));
    float *v = in->mapped;
    uint32_t n = 0;
    for (int sign = 0; sign < 2; sign++)
        for (uint16_t h = 0; h < nhalf; h++) {
            float lo = half_to_float(h), hi = half_to_float((uint16_t)(h + 1));
            float mid = lo + (hi - lo) / 2; /* exact: halves have 11 significant bits */
            float s = sign ? -1.0f : 1.0f;
            v[n++] = s * lo;
            v[n++] = s * mid;
            v[n++] = s * nextafterf(mid, 0.0f);
            v[n++] = s * nextafterf(mid, INFINITY);
        }
    v[n++] = 65519.99f;
    v[n++] = 65520.0f;
    v[n++] = -65520.0f;
    v[n++] = INFINITY;
    vkfx_spec spec = {.local = {64, 1, 1}};
    TRY(vkfx_kernel_get(ctx, &probe_kernel, &spec, &k));
    TRY(vkfx_graph_begin(ctx, 1, 1, VK_FORMAT_R16G16B16A16_SFLOAT, false, &g));
    vkfx_dispatch d = {
        .kernel = k,
        .label = "half_probe",
        .use = {{.buffer = in}, {.buffer = out, .write = true}},
        .push = &count,
        .groups = {vkfx_groups(count, 64), 1, 1},
    };
    TRY(vkfx_graph_dispatch(g, &d));
    vkfx_graph_host_reads(g, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                          VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
    TRY(vkfx_graph_run(g));
    const uint32_t *got = out->mapped;
    bool rne = true;
    for (uint32_t i = 0; i < count && rne; i++)
        rne = got[i] ==
              ((uint32_t)half_nearest(v[2 * i]) | (uint32_t)half_nearest(v[2 * i + 1]) << 16);
    ctx->pack_rne = rne;
fail:
    vkfx_graph_destroy(g);
    vkfx_buffer_destroy(ctx, in);
    vkfx_buffer_destroy(ctx, out);
    /* Not counted: the memory is freed, and injected faults count from the run's own work. */
    ctx->device_bytes = bytes;
    ctx->device_bytes_peak = peak;
    ctx->nallocs = allocs;
    ctx->nsubmits = submits;
    return ret;
}
