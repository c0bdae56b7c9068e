/* Whether the device's packHalf2x16 rounds to the nearest half, ties to even
 * (glsl/half_probe.comp): Vulkan leaves the rounding of conversions to halves
 * to the device. Checked the first time a kernel that can use it is built,
 * and the answer kept with the pipeline cache for the next runs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "context.h"
#include "error.h"
#include "safefile.h"
#include "gpu.h"
#include "graph.h"
#include "half.h"
#include "kernel.h"
#include "pipecache.h"
#include "vkfx.h"

#include "half_probe.spv.h"
#include "../../glsl/half_probe.h"

_Static_assert(sizeof(half_probe_push) == HALF_PROBE_PUSH_BYTES, "half_probe.comp's push block");

static const vkfx_kernel_desc probe_kernel = {
    .name = "half_probe",
    VKFX_SPV(half_probe),
    .nbind = 2,
    .bind = {VKFX_BIND_BUFFER, VKFX_BIND_BUFFER},
    .push_size = sizeof(half_probe_push),
};

static float half_value(uint16_t bits)
{
    return vkfx_half_to_float(bits);
}

/* The host's conversion rounds to nearest even (tests/ref does the same). */
static uint32_t half_bits(float f)
{
    return vkfx_half_from_float(f);
}

/* Converts, on the device, every finite half, each midpoint between two neighbouring halves
 * and the floats either side of it, both signs, and the overflow edge; compares with the host. */
static int check(vkfx_context *ctx, bool *rne)
{
    int ret = VKFX_OK;
    const uint16_t nhalf = 0x7bff;                  /* the largest finite half, 65504 */
    const uint32_t count = (2 * nhalf * 4 + 4) / 2; /* pairs of floats */
    vkfx_buffer *in = NULL, *out = NULL;
    vkfx_graph *g = NULL;
    vkfx_kernel *k = NULL;
    TRY(vkfx_buffer_create(ctx, (VkDeviceSize)count * 2 * sizeof(float),
                           VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, VKFX_MEM_UPLOAD, &in));
    TRY(vkfx_buffer_create(ctx, (VkDeviceSize)count * sizeof(uint32_t),
                           VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, VKFX_MEM_UPLOAD, &out));
    float *v = in->mapped;
    uint32_t n = 0;
    for (int sign = 0; sign < 2; sign++)
        for (uint16_t h = 0; h < nhalf; h++) {
            float lo = half_value(h), hi = half_value((uint16_t)(h + 1));
            float mid = lo + (hi - lo) / 2; /* exact: halves have 11 significant bits */
            float s = sign ? -1.0f : 1.0f;
            v[n++] = s * lo;
            v[n++] = s * mid;
            v[n++] = s * nextafterf(mid, 0.0f);
            v[n++] = s * nextafterf(mid, INFINITY);
        }
    v[n++] = 65519.99f; /* to 65504 */
    v[n++] = 65520.0f;  /* the tie above 65504: to infinity */
    v[n++] = -65520.0f;
    v[n++] = INFINITY;
    vkfx_spec spec = {.local = {64, 1, 1}};
    TRY(vkfx_kernel_get(ctx, &probe_kernel, &spec, &k));
    TRY(vkfx_graph_begin(ctx, 1, 1, VK_FORMAT_R16G16B16A16_SFLOAT, false, &g));
    vkfx_dispatch d = {
        .kernel = k,
        .label = "half_probe",
        .use = {{.buffer = in}, {.buffer = out, .write = true}},
        .push = &(half_probe_push){count},
        .groups = {vkfx_groups(count, 64), 1, 1},
    };
    TRY(vkfx_graph_dispatch(g, &d));
    vkfx_graph_host_reads(g, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                          VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
    TRY(vkfx_graph_run(g));
    const uint32_t *got = out->mapped;
    *rne = true;
    for (uint32_t i = 0; i < count && *rne; i++)
        *rne = got[i] == (half_bits(v[2 * i]) | half_bits(v[2 * i + 1]) << 16);
fail:
    vkfx_graph_destroy(g);
    vkfx_buffer_destroy(ctx, in);
    vkfx_buffer_destroy(ctx, out);
    return ret;
}

/* The answer is kept beside the pipeline cache, in a file named by the same
 * pipeline-cache UUID and by the device's vendor, model and driver version,
 * so that later runs skip the probe's kernel, upload and dispatch. NULL when
 * no pipeline cache is kept. */
static char *answer_path(const vkfx_context *ctx)
{
    const char *cache = ctx->pipeline_cache_path; /* DIR/pipelines-UUID.bin */
    const char *slash = cache ? strrchr(cache, '/') : NULL;
    const char *prefix = "/pipelines-";
    if (!slash || strncmp(slash, prefix, strlen(prefix)) != 0)
        return NULL;
    size_t len = strlen(cache) + 64;
    char *path = malloc(len);
    if (path)
        snprintf(path, len, "%.*s/halfpack-%.*s-%x-%x-%x.txt", (int)(slash - cache), cache,
                 2 * VK_UUID_SIZE, slash + strlen(prefix), ctx->props.vendorID, ctx->props.deviceID,
                 ctx->props.driverVersion);
    return path;
}

/* The file's one line: the answer and the driver's own description of
 * itself ("Mesa 22.3.6 (LLVM 15.0.6)"), which changes with its version where
 * the UUID and version number do not (lavapipe's). */
static void answer_line(const vkfx_context *ctx, bool rne, char *line, size_t len)
{
    VkPhysicalDeviceVulkan12Properties p12 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_PROPERTIES,
    };
    VkPhysicalDeviceProperties2 p = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
                                     .pNext = &p12};
    vkGetPhysicalDeviceProperties2(ctx->phys, &p);
    snprintf(line, len, "rne %d %.*s %.*s\n", rne ? 1 : 0, (int)sizeof(p12.driverName),
             p12.driverName, (int)sizeof(p12.driverInfo), p12.driverInfo);
}

/* 1 or 0 from a file holding exactly one of the two lines answer_line
 * writes for this driver; -1 otherwise (none, unreadable, not a regular
 * file, another driver's, damaged: the device is asked again). */
static int read_answer(const vkfx_context *ctx, const char *path)
{
    char want[2][600];
    unsigned char *buf = NULL;
    size_t n = 0;
    int known = -1;
    vkfx_safefile_read_cache(path, sizeof(want[0]), &buf, &n);
    for (int rne = 0; rne < 2 && buf; rne++) {
        answer_line(ctx, rne, want[rne], sizeof(want[rne]));
        if (n == strlen(want[rne]) && memcmp(buf, want[rne], n) == 0)
            known = rne;
    }
    free(buf);
    return known;
}

/* Written through the one writer (core/io/safefile.c), so that a run reading
 * it at the same time sees the old file or the new; a failure is not an
 * error (the file is only ever a shortcut). */
static void write_answer(const vkfx_context *ctx, const char *path, bool rne)
{
    char *dir = strdup(path), line[600];
    if (!dir)
        return;
    *strrchr(dir, '/') = 0; /* the cache's folder, made on the first run */
    answer_line(ctx, rne, line, sizeof(line));
    if (vkfx_safefile_make_dirs(dir) == VKFX_OK)
        vkfx_safefile_write_cache(path, line, strlen(line));
    free(dir);
}

static int probe(vkfx_context *ctx, bool *rne)
{
    char *path = answer_path(ctx);
    int known = path ? read_answer(ctx, path) : -1;
    int ret = VKFX_OK;
    if (known >= 0) {
        *rne = known == 1;
    } else {
        ret = check(ctx, rne);
        if (ret == VKFX_OK && path)
            write_answer(ctx, path, *rne);
    }
    free(path);
    return ret;
}

int vkfx_context_pack_rne(vkfx_context *ctx, bool *rne)
{
    int ret = VKFX_OK;
    if (!ctx->pack_checked) {
        /* The check is not the run's own work. */
        ctx->aside++;
        double t = vkfx_now_ms();
        ret = probe(ctx, &ctx->pack_rne);
        ctx->times.probe_ms = vkfx_now_ms() - t;
        ctx->aside--;
        if (ret < 0)
            return ret;
        ctx->pack_checked = true;
    }
    *rne = ctx->pack_rne;
    return ret;
}
