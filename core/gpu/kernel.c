#include "kernel.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"

static VkDescriptorType descriptor_type(vkfx_binding b)
{
    switch (b) {
    case VKFX_BIND_SAMPLED:
        return VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
    case VKFX_BIND_STORAGE_IMAGE:
        return VK_DESCRIPTOR_TYPE_STORAGE_IMAGE;
    case VKFX_BIND_BUFFER:
        return VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    }
    return VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
}

uint32_t vkfx_pick_halo(uint32_t r, uint32_t first, uint32_t limit,
                        uint32_t (*bytes)(uint32_t halo, uint32_t shape), uint32_t shape)
{
    uint32_t h = first;
    while (h < r)
        h *= 2;
    if (bytes(h, shape) <= limit)
        return h;
    if (bytes(r, shape) <= limit)
        return r;
    return 0;
}

uint32_t vkfx_half_out(VkFormat output)
{
    return output == VK_FORMAT_R16G16B16A16_SFLOAT;
}

/* A half has 11 significant bits and a float 24: 11 + 13 fit. */
_Static_assert(11 + VKFX_WEIGHT_BITS <= 24, "a weight's product with a half fits a float");

float vkfx_exact_weight(double w)
{
    if (fabs(w) < 0x1p-100)
        return 0.0f;
    int e;
    double m = frexp(w, &e); /* w = m 2^e, 0.5 <= |m| < 1 */
    return (float)ldexp(nearbyint(ldexp(m, VKFX_WEIGHT_BITS)), e - VKFX_WEIGHT_BITS);
}

static void kernel_free(vkfx_context *ctx, vkfx_kernel *k)
{
    if (!k)
        return;
    free(k->message);
    if (k->pipeline)
        vkDestroyPipeline(ctx->device, k->pipeline, NULL);
    if (k->layout)
        vkDestroyPipelineLayout(ctx->device, k->layout, NULL);
    if (k->set_layout)
        vkDestroyDescriptorSetLayout(ctx->device, k->set_layout, NULL);
    free(k);
}

/* Logs the driver's statistics of a pipeline, one line per executable. */
static void log_stats(vkfx_context *ctx, const vkfx_kernel *k)
{
    VkPipelineInfoKHR pi = {.sType = VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR, .pipeline = k->pipeline};
    VkPipelineExecutablePropertiesKHR props[4];
    uint32_t n = 4;
    for (uint32_t i = 0; i < n; i++)
        props[i] = (VkPipelineExecutablePropertiesKHR){
            .sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_PROPERTIES_KHR};
    if (vkGetPipelineExecutablePropertiesKHR(ctx->device, &pi, &n, props) < 0)
        return;
    for (uint32_t e = 0; e < n; e++) {
        VkPipelineExecutableInfoKHR ei = {.sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR,
                                          .pipeline = k->pipeline,
                                          .executableIndex = e};
        VkPipelineExecutableStatisticKHR st[32];
        uint32_t m = 32;
        for (uint32_t i = 0; i < m; i++)
            st[i] = (VkPipelineExecutableStatisticKHR){
                .sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR};
        if (vkGetPipelineExecutableStatisticsKHR(ctx->device, &ei, &m, st) < 0)
            continue;
        char line[1024];
        int len = snprintf(line, sizeof(line), "pipeline %s:", k->desc->name);
        for (uint32_t i = 0; i < m && len > 0 && (size_t)len < sizeof(line); i++) {
            const VkPipelineExecutableStatisticKHR *x = &st[i];
            switch (x->format) {
            case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR:
                len += snprintf(line + len, sizeof(line) - (size_t)len, " %s=%u", x->name,
                                x->value.b32);
                break;
            case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR:
                len += snprintf(line + len, sizeof(line) - (size_t)len, " %s=%lld", x->name,
                                (long long)x->value.i64);
                break;
            case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR:
                len += snprintf(line + len, sizeof(line) - (size_t)len, " %s=%llu", x->name,
                                (unsigned long long)x->value.u64);
                break;
            case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_FLOAT64_KHR:
                len += snprintf(line + len, sizeof(line) - (size_t)len, " %s=%g", x->name,
                                x->value.f64);
                break;
            default:
                break;
            }
        }
        vkfx_log(ctx, "%s", line);
    }
}

static int build(vkfx_context *ctx, vkfx_kernel *k)
{
    int ret = VKFX_OK;
    VkShaderModule module = VK_NULL_HANDLE;
    const vkfx_kernel_desc *d = k->desc;
    VkDescriptorSetLayoutBinding b[VKFX_MAX_BINDINGS];
    for (uint32_t i = 0; i < d->nbind; i++)
        b[i] = (VkDescriptorSetLayoutBinding){
            .binding = i,
            .descriptorType = descriptor_type(d->bind[i]),
            .descriptorCount = 1,
            .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT,
            .pImmutableSamplers = d->bind[i] == VKFX_BIND_SAMPLED ? &ctx->sampler : NULL,
        };
    VkDescriptorSetLayoutCreateInfo dli = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
        .bindingCount = d->nbind,
        .pBindings = b,
    };
    VK_TRY(vkCreateDescriptorSetLayout(ctx->device, &dli, NULL, &k->set_layout));
    VkPushConstantRange pr = {VK_SHADER_STAGE_COMPUTE_BIT, 0, d->push_size};
    VkPipelineLayoutCreateInfo pli = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
        .setLayoutCount = 1,
        .pSetLayouts = &k->set_layout,
        .pushConstantRangeCount = d->push_size ? 1 : 0,
        .pPushConstantRanges = &pr,
    };
    VK_TRY(vkCreatePipelineLayout(ctx->device, &pli, NULL, &k->layout));
    VkShaderModuleCreateInfo smi = {
        .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
        .codeSize = d->code_size,
        .pCode = d->code,
    };
    VK_TRY(vkCreateShaderModule(ctx->device, &smi, NULL, &module));

    uint32_t values[VKFX_MAX_SPEC];
    VkSpecializationMapEntry entries[VKFX_MAX_SPEC];
    uint32_t n = 4 + k->spec.nextra;
    values[0] = k->spec.local[0];
    values[1] = k->spec.local[1];
    values[2] = k->spec.local[2];
    values[3] = k->spec.subgroup ? k->spec.subgroup : ctx->subgroup_size;
    for (uint32_t i = 0; i < k->spec.nextra; i++)
        values[4 + i] = k->spec.extra[i];
    for (uint32_t i = 0; i < n; i++)
        entries[i] = (VkSpecializationMapEntry){i, i * 4, 4};
    /* A bool specialization constant takes a 32-bit value. */
    values[n] = k->spec.half_out ? 1 : 0;
    entries[n] = (VkSpecializationMapEntry){15, n * 4, 4};
    n++;
    values[n] = k->spec.pack_rne ? 1 : 0;
    entries[n] = (VkSpecializationMapEntry){14, n * 4, 4};
    n++;
    VkSpecializationInfo si = {n, entries, n * 4, values};
    VkPipelineShaderStageRequiredSubgroupSizeCreateInfo req = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_REQUIRED_SUBGROUP_SIZE_CREATE_INFO,
        .requiredSubgroupSize = k->spec.subgroup,
    };
    bool pin = k->spec.subgroup && ctx->subgroup_size_control;
    /* Whether the pipeline came from the cache: one that did not changes the cache's file. */
    VkPipelineCreationFeedback made = {0};
    VkPipelineCreationFeedbackCreateInfo feedback = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_CREATION_FEEDBACK_CREATE_INFO,
        .pPipelineCreationFeedback = &made,
    };
    VkComputePipelineCreateInfo cpi = {
        .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
        .pNext = &feedback,
        .flags = ctx->pipeline_stats ? VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR : 0,
        .stage =
            {
                .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                .pNext = pin ? &req : NULL,
                .flags = pin ? VK_PIPELINE_SHADER_STAGE_CREATE_REQUIRE_FULL_SUBGROUPS_BIT : 0,
                .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                .module = module,
                .pName = "main",
                .pSpecializationInfo = &si,
            },
        .layout = k->layout,
    };
    double t = vkfx_now_ms();
    VK_TRY(vkCreateComputePipelines(ctx->device, ctx->pipeline_cache, 1, &cpi, NULL, &k->pipeline));
    k->build_ms = vkfx_now_ms() - t;
    const VkPipelineCreationFeedbackFlags hit =
        VK_PIPELINE_CREATION_FEEDBACK_VALID_BIT |
        VK_PIPELINE_CREATION_FEEDBACK_APPLICATION_PIPELINE_CACHE_HIT_BIT;
    k->compiled = (made.flags & hit) != hit;
fail:
    if (module)
        vkDestroyShaderModule(ctx->device, module, NULL);
    if (ret < 0)
        vkfx_fail_context(ret, "building kernel %s", d->name);
    return ret;
}

/* Takes a built kernel into the context's accounts. */
static void adopt(vkfx_context *ctx, vkfx_kernel *k, bool threaded)
{
    ctx->pipelines_built |= k->compiled;
    unsigned i = ctx->times.nkernels++;
    if (i < VKFX_TIMED_KERNELS) {
        ctx->times.kernels[i].name = k->desc->name;
        ctx->times.kernels[i].ms = k->build_ms;
        ctx->times.kernels[i].compiled = k->compiled;
        ctx->times.kernels[i].threaded = threaded;
    }
    if (ctx->pipeline_stats)
        log_stats(ctx, k);
}

static void *build_thread(void *arg)
{
    vkfx_kernel *k = arg;
    k->ret = build(k->ctx, k);
    if (k->ret < 0)
        k->message = strdup(vkfx_error_message());
    return NULL;
}

/* Joins a kernel's build thread; on failure takes the kernel out of the
 * list, frees it and returns the build's error. */
static int join(vkfx_context *ctx, vkfx_kernel *k)
{
    if (!k->building)
        return VKFX_OK;
    pthread_join(k->thread, NULL);
    k->building = false;
    if (k->ret == VKFX_OK) {
        adopt(ctx, k, true);
        return VKFX_OK;
    }
    int ret = vkfx_fail(k->ret, "%s", k->message ? k->message : "building a kernel failed");
    for (vkfx_kernel **p = &ctx->kernels; *p; p = &(*p)->next)
        if (*p == k) {
            *p = k->next;
            break;
        }
    kernel_free(ctx, k);
    return ret;
}

static vkfx_kernel *find(vkfx_context *ctx, const vkfx_kernel_desc *desc, const vkfx_spec *spec)
{
    for (vkfx_kernel *k = ctx->kernels; k; k = k->next)
        if (k->desc == desc && memcmp(&k->spec, spec, sizeof(*spec)) == 0)
            return k;
    return NULL;
}

void vkfx_kernel_prepare(vkfx_context *ctx, const vkfx_kernel_desc *desc, const vkfx_spec *spec)
{
    if (find(ctx, desc, spec))
        return;
    vkfx_kernel *k = calloc(1, sizeof(*k));
    if (!k)
        return;
    k->ctx = ctx;
    k->desc = desc;
    k->spec = *spec;
    k->building = true;
    if (pthread_create(&k->thread, NULL, build_thread, k) != 0) {
        free(k);
        return;
    }
    k->next = ctx->kernels;
    ctx->kernels = k;
}

int vkfx_kernel_get(vkfx_context *ctx, const vkfx_kernel_desc *desc, const vkfx_spec *spec,
                    vkfx_kernel **out)
{
    int ret = VKFX_OK;
    vkfx_kernel *k = find(ctx, desc, spec);
    if (k) {
        double t = vkfx_now_ms();
        ret = join(ctx, k);
        ctx->times.pipelines_ms += vkfx_now_ms() - t;
        *out = ret == VKFX_OK ? k : NULL;
        return ret;
    }
    k = calloc(1, sizeof(*k));
    if (!k)
        return vkfx_fail(VKFX_E_NOMEM, "out of host memory");
    k->ctx = ctx;
    k->desc = desc;
    k->spec = *spec;
    double t = vkfx_now_ms();
    ret = build(ctx, k);
    ctx->times.pipelines_ms += vkfx_now_ms() - t;
    if (ret < 0)
        goto fail;
    adopt(ctx, k, false);
    k->next = ctx->kernels;
    ctx->kernels = k;
    *out = k;
    return VKFX_OK;
fail:
    kernel_free(ctx, k);
    return ret;
}

void vkfx_kernels_wait(vkfx_context *ctx)
{
    for (vkfx_kernel *k = ctx->kernels, *next; k; k = next) {
        next = k->next;
        join(ctx, k);
    }
}

void vkfx_kernels_destroy(vkfx_context *ctx)
{
    vkfx_kernels_wait(ctx);
    while (ctx->kernels) {
        vkfx_kernel *next = ctx->kernels->next;
        kernel_free(ctx, ctx->kernels);
        ctx->kernels = next;
    }
}
