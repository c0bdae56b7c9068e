#include "context.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "error.h"
#include "kernel.h"
#include "pipecache.h"
#include "spare.h"

void vkfx_log(vkfx_context *ctx, const char *fmt, ...)
{
    if (!ctx || !ctx->log)
        return;
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    ctx->log(ctx->log_user, buf);
}

static VKAPI_ATTR VkBool32 VKAPI_CALL on_debug_message(
    VkDebugUtilsMessageSeverityFlagBitsEXT severity, VkDebugUtilsMessageTypeFlagsEXT types,
    const VkDebugUtilsMessengerCallbackDataEXT *data, void *user)
{
    (void)types;
    vkfx_context *ctx = user;
    const char *level = (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT)     ? "error"
                        : (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT) ? "warning"
                                                                                       : "info";
    __atomic_add_fetch(&ctx->validation_messages, 1, __ATOMIC_RELAXED);
    vkfx_log(ctx, "validation %s: %s", level, data->pMessage ? data->pMessage : "(no text)");
    return VK_FALSE;
}

static int load_loader(void)
{
    static int loaded; /* volk's function pointers are process-wide */
    if (loaded)
        return VKFX_OK;
    if (volkInitialize() != VK_SUCCESS)
        return vkfx_fail(VKFX_E_NODEVICE,
                         "no Vulkan loader found (libvulkan.so.1): install libvulkan1 and a "
                         "driver, e.g. mesa-vulkan-drivers for the software device lavapipe");
    if (volkGetInstanceVersion() < VK_API_VERSION_1_3)
        return vkfx_fail(VKFX_E_NODEVICE, "the Vulkan loader is older than Vulkan 1.3");
    loaded = 1;
    return VKFX_OK;
}

static bool has_layer(const char *name)
{
    uint32_t n = 0;
    if (vkEnumerateInstanceLayerProperties(&n, NULL) != VK_SUCCESS || n == 0)
        return false;
    VkLayerProperties *p = calloc(n, sizeof(*p));
    bool found = false;
    if (p && vkEnumerateInstanceLayerProperties(&n, p) == VK_SUCCESS)
        for (uint32_t i = 0; i < n; i++)
            found |= strcmp(p[i].layerName, name) == 0;
    free(p);
    return found;
}

static const char *type_name(VkPhysicalDeviceType t)
{
    switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
        return "discrete GPU";
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
        return "integrated GPU";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
        return "virtual GPU";
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
        return "CPU";
    case VK_PHYSICAL_DEVICE_TYPE_OTHER:
    case VK_PHYSICAL_DEVICE_TYPE_MAX_ENUM:
        break;
    }
    return "other";
}

static int type_rank(VkPhysicalDeviceType t)
{
    switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
        return 4;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
        return 3;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
        return 2;
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
        return 1;
    case VK_PHYSICAL_DEVICE_TYPE_OTHER:
    case VK_PHYSICAL_DEVICE_TYPE_MAX_ENUM:
        break;
    }
    return 0;
}

typedef struct device_caps {
    VkPhysicalDeviceProperties2 props;
    VkPhysicalDeviceVulkan11Properties p11;
    VkPhysicalDeviceVulkan13Properties p13;
    VkPhysicalDeviceFeatures2 feats;
    VkPhysicalDeviceVulkan12Features f12;
    VkPhysicalDeviceVulkan13Features f13;
    VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR fpe;
    bool has_exec_props_ext; /* VK_KHR_pipeline_executable_properties */
    VkPhysicalDeviceCooperativeMatrixFeaturesNV fcm;
    bool matrix16; /* VK_NV_cooperative_matrix lists 16x16x16, halves into float32 */
    int queue_family;
} device_caps;

static bool has_extension(VkPhysicalDevice pd, const char *name)
{
    uint32_t n = 0;
    if (vkEnumerateDeviceExtensionProperties(pd, NULL, &n, NULL) != VK_SUCCESS || n == 0)
        return false;
    VkExtensionProperties *e = calloc(n, sizeof(*e));
    bool found = false;
    if (e && vkEnumerateDeviceExtensionProperties(pd, NULL, &n, e) == VK_SUCCESS)
        for (uint32_t i = 0; i < n && !found; i++)
            found = strcmp(e[i].extensionName, name) == 0;
    free(e);
    return found;
}

static void query_caps(VkPhysicalDevice pd, device_caps *c)
{
    memset(c, 0, sizeof(*c));
    c->p13.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_PROPERTIES;
    c->p11.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_PROPERTIES;
    c->p11.pNext = &c->p13;
    c->props.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
    c->props.pNext = &c->p11;
    vkGetPhysicalDeviceProperties(pd, &c->props.properties);
    if (c->props.properties.apiVersion >= VK_API_VERSION_1_3)
        vkGetPhysicalDeviceProperties2(pd, &c->props);
    c->f13.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES;
    c->f12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
    c->f12.pNext = &c->f13;
    c->feats.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
    c->feats.pNext = &c->f12;
    c->has_exec_props_ext = has_extension(pd, VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
    if (c->has_exec_props_ext) {
        c->fpe.sType =
            VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR;
        c->f13.pNext = &c->fpe;
    }
    bool has_matrix_ext = has_extension(pd, VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME);
    if (has_matrix_ext) {
        c->fcm.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV;
        c->fcm.pNext = c->f13.pNext;
        c->f13.pNext = &c->fcm;
    }
    if (c->props.properties.apiVersion >= VK_API_VERSION_1_3)
        vkGetPhysicalDeviceFeatures2(pd, &c->feats);
    c->f13.pNext = NULL;
    c->fpe.pNext = NULL;
    c->fcm.pNext = NULL;
    /* The matrix kernels' SPIR-V declares the Vulkan memory model; with it enabled, the other
     * kernels' device-scope atomics (histogram, bokeh) need its device scope as well. */
    if (has_matrix_ext && c->fcm.cooperativeMatrix && c->f12.shaderFloat16 &&
        c->f12.vulkanMemoryModel && c->f12.vulkanMemoryModelDeviceScope &&
        vkGetPhysicalDeviceCooperativeMatrixPropertiesNV) {
        VkCooperativeMatrixPropertiesNV shapes[32];
        uint32_t n = 32;
        for (uint32_t i = 0; i < n; i++)
            shapes[i] = (VkCooperativeMatrixPropertiesNV){
                .sType = VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_NV};
        if (vkGetPhysicalDeviceCooperativeMatrixPropertiesNV(pd, &n, shapes) >= 0)
            for (uint32_t i = 0; i < n; i++) {
                const VkCooperativeMatrixPropertiesNV *m = &shapes[i];
                c->matrix16 |= m->MSize == 16 && m->NSize == 16 && m->KSize == 16 &&
                               m->AType == VK_COMPONENT_TYPE_FLOAT16_NV &&
                               m->BType == VK_COMPONENT_TYPE_FLOAT16_NV &&
                               m->CType == VK_COMPONENT_TYPE_FLOAT32_NV &&
                               m->DType == VK_COMPONENT_TYPE_FLOAT32_NV &&
                               m->scope == VK_SCOPE_SUBGROUP_NV;
            }
    }

    c->queue_family = -1;
    uint32_t nq = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &nq, NULL);
    VkQueueFamilyProperties *q = calloc(nq ? nq : 1, sizeof(*q));
    if (!q)
        return;
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &nq, q);
    /* Prefer a compute family that has timestamps, for --timings. */
    for (int pass = 0; pass < 2 && c->queue_family < 0; pass++)
        for (uint32_t i = 0; i < nq; i++)
            if ((q[i].queueFlags & VK_QUEUE_COMPUTE_BIT) && (pass || q[i].timestampValidBits)) {
                c->queue_family = (int)i;
                break;
            }
    free(q);
}

static bool caps_usable(const device_caps *c, char *why, size_t n)
{
    if (c->props.properties.apiVersion < VK_API_VERSION_1_3)
        snprintf(why, n, "Vulkan %u.%u (1.3 needed)",
                 VK_API_VERSION_MAJOR(c->props.properties.apiVersion),
                 VK_API_VERSION_MINOR(c->props.properties.apiVersion));
    else if (c->queue_family < 0)
        snprintf(why, n, "no compute queue");
    else if (!c->feats.features.shaderStorageImageWriteWithoutFormat)
        snprintf(why, n, "no shaderStorageImageWriteWithoutFormat");
    else if (!c->f12.timelineSemaphore)
        snprintf(why, n, "no timeline semaphores");
    else if (!c->f13.synchronization2)
        snprintf(why, n, "no synchronization2");
    else if (!c->f13.maintenance4)
        snprintf(why, n, "no maintenance4");
    else
        return true;
    return false;
}

#if defined(__SANITIZE_ADDRESS__)
#include <dlfcn.h>
/* Sanitizer builds only: the loader unmaps the driver and layers in
 * vkDestroyInstance, after which LeakSanitizer cannot name the library that
 * owns a leftover allocation ("<unknown module>") and the suppressions in
 * tests/sanitizers/lsan.supp, which name those libraries, cannot apply.
 * Marking them never-unloaded keeps every leak attributable. */
static void keep_vulkan_libraries_mapped(void)
{
    static const char *const names[] = {"libvulkan.so.1", "libvulkan_lvp.so",
                                        "libVkLayer_khronos_validation.so"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        dlopen(names[i], RTLD_LAZY | RTLD_NOLOAD | RTLD_NODELETE);
}
#else
static void keep_vulkan_libraries_mapped(void)
{
}
#endif

static int create_instance(bool validate, vkfx_context *ctx)
{
    int ret = VKFX_OK;
    const char *layers[1] = {"VK_LAYER_KHRONOS_validation"};
    const char *exts[1] = {VK_EXT_DEBUG_UTILS_EXTENSION_NAME};
    if (validate && !has_layer(layers[0]))
        return vkfx_fail(VKFX_E_NODEVICE,
                         "validation was asked for but VK_LAYER_KHRONOS_validation "
                         "is not installed (Debian: vulkan-validationlayers)");
    VkValidationFeatureEnableEXT enables[] = {
        VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT,
    };
    VkValidationFeaturesEXT features = {
        .sType = VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT,
        .enabledValidationFeatureCount = 1,
        .pEnabledValidationFeatures = enables,
    };
    VkDebugUtilsMessengerCreateInfoEXT dbg = {
        .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
        .pNext = &features,
        .messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                           VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
        .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                       VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                       VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT,
        .pfnUserCallback = on_debug_message,
        .pUserData = ctx,
    };
    VkApplicationInfo app = {
        .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
        .pApplicationName = "vkfx",
        .applicationVersion = 1,
        .pEngineName = "vkfx",
        .apiVersion = VK_API_VERSION_1_3,
    };
    VkInstanceCreateInfo ici = {
        .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
        .pNext = validate ? &dbg : NULL,
        .pApplicationInfo = &app,
        .enabledLayerCount = validate ? 1 : 0,
        .ppEnabledLayerNames = layers,
        .enabledExtensionCount = validate ? 1 : 0,
        .ppEnabledExtensionNames = exts,
    };
    VkResult r = vkCreateInstance(&ici, NULL, &ctx->instance);
    if (r == VK_ERROR_INCOMPATIBLE_DRIVER)
        return vkfx_fail(VKFX_E_NODEVICE, "no Vulkan 1.3 driver found: install one, e.g. "
                                          "mesa-vulkan-drivers for the software device lavapipe");
    VK_TRY(r);
    volkLoadInstanceOnly(ctx->instance);
    if (validate) {
        dbg.pNext = NULL;
        VK_TRY(vkCreateDebugUtilsMessengerEXT(ctx->instance, &dbg, NULL, &ctx->messenger));
    }
fail:
    return ret;
}

static int enumerate(VkInstance inst, VkPhysicalDevice **out, uint32_t *count)
{
    int ret = VKFX_OK;
    *out = NULL;
    *count = 0;
    VK_TRY(vkEnumeratePhysicalDevices(inst, count, NULL));
    if (*count == 0)
        return vkfx_fail(VKFX_E_NODEVICE, "no Vulkan device found: install a driver, e.g. "
                                          "mesa-vulkan-drivers for the software device lavapipe");
    *out = calloc(*count, sizeof(**out));
    if (!*out)
        return vkfx_fail(VKFX_E_NOMEM, "out of host memory");
    VK_TRY(vkEnumeratePhysicalDevices(inst, count, *out));
fail:
    return ret;
}

int vkfx_list_devices(vkfx_device_info **list, uint32_t *count, int *best)
{
    int ret = VKFX_OK;
    vkfx_context tmp = {0};
    VkPhysicalDevice *pds = NULL;
    int best_rank = -1;
    *list = NULL;
    *count = 0;
    *best = -1;
    TRY(load_loader());
    TRY(create_instance(false, &tmp));
    keep_vulkan_libraries_mapped();
    TRY(enumerate(tmp.instance, &pds, count));
    *list = calloc(*count, sizeof(**list));
    if (!*list) {
        ret = vkfx_fail(VKFX_E_NOMEM, "out of host memory");
        goto fail;
    }
    for (uint32_t i = 0; i < *count; i++) {
        device_caps c;
        query_caps(pds[i], &c);
        vkfx_device_info *d = &(*list)[i];
        snprintf(d->name, sizeof(d->name), "%s", c.props.properties.deviceName);
        d->type = type_name(c.props.properties.deviceType);
        d->api_version = c.props.properties.apiVersion;
        d->subgroup_size = c.p11.subgroupSize;
        d->usable = caps_usable(&c, d->why_not, sizeof(d->why_not));
        if (d->usable && type_rank(c.props.properties.deviceType) > best_rank) {
            best_rank = type_rank(c.props.properties.deviceType);
            *best = (int)i;
        }
    }
fail:
    free(pds);
    if (tmp.instance)
        vkDestroyInstance(tmp.instance, NULL);
    return ret;
}

static bool contains_ci(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++) {
        size_t i = 0;
        while (i < n && hay[i] &&
               tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i]))
            i++;
        if (i == n)
            return true;
    }
    return n == 0;
}

static int pick_device(vkfx_context *ctx, const char *want, device_caps *chosen)
{
    int ret = VKFX_OK;
    VkPhysicalDevice *pds = NULL;
    uint32_t n = 0;
    TRY(enumerate(ctx->instance, &pds, &n));
    int best = -1, best_rank = -1;
    char *end = NULL;
    long index = want ? strtol(want, &end, 10) : -1;
    bool by_index = want && *want && end && *end == 0;
    char listing[1024] = "";
    for (uint32_t i = 0; i < n; i++) {
        device_caps c;
        char why[128] = "";
        query_caps(pds[i], &c);
        bool usable = caps_usable(&c, why, sizeof(why));
        size_t len = strlen(listing);
        snprintf(listing + len, sizeof(listing) - len, "%s%u: %s", i ? ", " : "", i,
                 c.props.properties.deviceName);
        bool match = !want || (by_index ? (long)i == index
                                        : contains_ci(c.props.properties.deviceName, want));
        if (!match)
            continue;
        if (!usable) {
            if (want) {
                ret = vkfx_fail(VKFX_E_NODEVICE, "device %u (%s) cannot run vkfx: %s", i,
                                c.props.properties.deviceName, why);
                goto fail;
            }
            continue;
        }
        int rank = type_rank(c.props.properties.deviceType);
        if (rank > best_rank) {
            best = (int)i;
            best_rank = rank;
            *chosen = c;
        }
    }
    if (best < 0) {
        ret = want ? vkfx_fail(VKFX_E_USAGE, "no device matches '%s'; devices: %s", want, listing)
                   : vkfx_fail(VKFX_E_NODEVICE,
                               "no Vulkan 1.3 device can run vkfx (devices: %s); install a "
                               "driver, e.g. mesa-vulkan-drivers for lavapipe",
                               listing);
        goto fail;
    }
    ctx->phys = pds[best];
fail:
    free(pds);
    return ret;
}

int vkfx_context_create(const vkfx_context_opts *opts, vkfx_context **out)
{
    int ret = VKFX_OK;
    *out = NULL;
    vkfx_context *ctx = calloc(1, sizeof(*ctx));
    if (!ctx)
        return vkfx_fail(VKFX_E_NOMEM, "out of host memory");
    ctx->log = opts->log;
    ctx->log_user = opts->log_user;
    ctx->opts = *opts;
    double t = vkfx_now_ms();
    TRY(load_loader());
    ctx->times.loader_ms = vkfx_now_ms() - t;
    t = vkfx_now_ms();
    TRY(create_instance(opts->validate, ctx));
    keep_vulkan_libraries_mapped();
    ctx->times.instance_ms = vkfx_now_ms() - t;
    t = vkfx_now_ms();
    device_caps c = {0};
    TRY(pick_device(ctx, opts->device, &c));

    ctx->props = c.props.properties;
    vkGetPhysicalDeviceMemoryProperties(ctx->phys, &ctx->mem);
    ctx->queue_family = (uint32_t)c.queue_family;
    ctx->subgroup_size = c.p11.subgroupSize;
    ctx->min_subgroup_size = c.p13.minSubgroupSize ? c.p13.minSubgroupSize : c.p11.subgroupSize;
    ctx->max_subgroup_size = c.p13.maxSubgroupSize ? c.p13.maxSubgroupSize : c.p11.subgroupSize;
    const VkSubgroupFeatureFlags need =
        VK_SUBGROUP_FEATURE_BASIC_BIT | VK_SUBGROUP_FEATURE_ARITHMETIC_BIT;
    ctx->subgroup_arith = !opts->no_subgroup_ops &&
                          (c.p11.subgroupSupportedStages & VK_SHADER_STAGE_COMPUTE_BIT) &&
                          (c.p11.subgroupSupportedOperations & need) == need;
    ctx->subgroup_size_control = c.f13.subgroupSizeControl && c.f13.computeFullSubgroups &&
                                 (c.p13.requiredSubgroupSizeStages & VK_SHADER_STAGE_COMPUTE_BIT);
    ctx->timestamp_period_ns = ctx->props.limits.timestampPeriod;
    ctx->shader_int64 = c.feats.features.shaderInt64;
    ctx->int64_atomics = c.feats.features.shaderInt64 && c.f12.shaderBufferInt64Atomics;
    ctx->subgroup_int64 = ctx->subgroup_arith && !opts->no_subgroup_int64 &&
                          c.feats.features.shaderInt64 && c.f12.shaderSubgroupExtendedTypes;
    ctx->max_workgroup_subgroups = c.p13.maxComputeWorkgroupSubgroups;

    float prio = 1.0f;
    VkDeviceQueueCreateInfo qci = {
        .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
        .queueFamilyIndex = ctx->queue_family,
        .queueCount = 1,
        .pQueuePriorities = &prio,
    };
    VkPhysicalDeviceVulkan13Features f13 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES,
        .synchronization2 = VK_TRUE,
        .maintenance4 = VK_TRUE, /* LocalSizeId: work-group size from specialization constants */
        .subgroupSizeControl = ctx->subgroup_size_control,
        .computeFullSubgroups = ctx->subgroup_size_control,
    };
    VkPhysicalDeviceVulkan12Features f12 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
        .pNext = &f13,
        .timelineSemaphore = VK_TRUE,
        .shaderFloat16 = c.f12.shaderFloat16,
        .shaderInt8 = c.f12.shaderInt8,
        .storageBuffer8BitAccess = c.f12.storageBuffer8BitAccess,
        .hostQueryReset = c.f12.hostQueryReset,
        .shaderBufferInt64Atomics = ctx->int64_atomics,
        .shaderSubgroupExtendedTypes = ctx->subgroup_int64,
    };
    VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR fpe = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR,
        .pipelineExecutableInfo = VK_TRUE,
    };
    VkPhysicalDeviceCooperativeMatrixFeaturesNV fcm = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV,
        .cooperativeMatrix = VK_TRUE,
    };
    const char *exts[2];
    uint32_t nexts = 0;
    ctx->matrix16 = c.matrix16 && !ctx->opts.no_matrix;
    /* Unchecked, the kernels round halves bit by bit without asking the device's conversion. */
    ctx->pack_checked = ctx->opts.no_half_pack;
    if (ctx->matrix16) {
        exts[nexts++] = VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME;
        fcm.pNext = f13.pNext;
        f13.pNext = &fcm;
        f12.vulkanMemoryModel = VK_TRUE;
        f12.vulkanMemoryModelDeviceScope = VK_TRUE;
    }
    /* The driver's statistics of every pipeline built (registers, shared memory...) go to the
     * log, for tuning kernels. */
    ctx->pipeline_stats =
        ctx->opts.pipeline_stats && c.has_exec_props_ext && c.fpe.pipelineExecutableInfo;
    if (ctx->pipeline_stats) {
        exts[nexts++] = VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME;
        fpe.pNext = f13.pNext;
        f13.pNext = &fpe;
    }
    VkPhysicalDeviceFeatures2 f = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
        .pNext = &f12,
        .features =
            {
                .shaderStorageImageWriteWithoutFormat = VK_TRUE,
                .shaderInt64 = c.feats.features.shaderInt64,
                .shaderInt16 = c.feats.features.shaderInt16,
            },
    };
    VkDeviceCreateInfo dci = {
        .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
        .pNext = &f,
        .queueCreateInfoCount = 1,
        .pQueueCreateInfos = &qci,
        .enabledExtensionCount = nexts,
        .ppEnabledExtensionNames = nexts ? exts : NULL,
    };
    VK_TRY(vkCreateDevice(ctx->phys, &dci, NULL, &ctx->device));
    volkLoadDevice(ctx->device);
    vkGetDeviceQueue(ctx->device, ctx->queue_family, 0, &ctx->queue);

    uint32_t nq = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(ctx->phys, &nq, NULL);
    VkQueueFamilyProperties qp[16];
    nq = nq > 16 ? 16 : nq;
    vkGetPhysicalDeviceQueueFamilyProperties(ctx->phys, &nq, qp);
    ctx->timestamps = ctx->queue_family < nq && qp[ctx->queue_family].timestampValidBits > 0 &&
                      ctx->timestamp_period_ns > 0;

    VkCommandPoolCreateInfo pci = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
        .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
        .queueFamilyIndex = ctx->queue_family,
    };
    VK_TRY(vkCreateCommandPool(ctx->device, &pci, NULL, &ctx->pool));
    VkSemaphoreTypeCreateInfo sti = {
        .sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
        .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE,
    };
    VkSemaphoreCreateInfo sci = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, .pNext = &sti};
    VK_TRY(vkCreateSemaphore(ctx->device, &sci, NULL, &ctx->timeline));
    VkSamplerCreateInfo smp = {
        .sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO,
        .magFilter = VK_FILTER_NEAREST,
        .minFilter = VK_FILTER_NEAREST,
        .mipmapMode = VK_SAMPLER_MIPMAP_MODE_NEAREST,
        .addressModeU = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
        .addressModeV = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
        .addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
    };
    VK_TRY(vkCreateSampler(ctx->device, &smp, NULL, &ctx->sampler));
    TRY(vkfx_pipecache_open(ctx));
    ctx->times.device_ms = vkfx_now_ms() - t;
    *out = ctx;
    return VKFX_OK;
fail:
    vkfx_context_destroy(ctx);
    return ret;
}

double vkfx_now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

void vkfx_context_times_get(const vkfx_context *ctx, vkfx_context_times *t)
{
    *t = ctx->times;
}

void vkfx_context_destroy_after_failure(vkfx_context *ctx)
{
    if (ctx)
        ctx->run_failed = true;
    vkfx_context_destroy(ctx);
}

void vkfx_context_close_device(vkfx_context *ctx)
{
    if (!ctx)
        return;
    if (ctx->device) {
        vkDeviceWaitIdle(ctx->device);
        vkfx_spares_destroy(ctx);
        if (ctx->nidle_cmds) {
            vkFreeCommandBuffers(ctx->device, ctx->pool, ctx->nidle_cmds, ctx->idle_cmds);
            vkfx_count(&ctx->objects_freed, ctx->nidle_cmds);
            ctx->nidle_cmds = 0;
        }
        vkfx_kernels_destroy(ctx);
        vkfx_pipecache_take(ctx);
        if (ctx->sampler)
            vkDestroySampler(ctx->device, ctx->sampler, NULL);
        if (ctx->timeline)
            vkDestroySemaphore(ctx->device, ctx->timeline, NULL);
        if (ctx->pool)
            vkDestroyCommandPool(ctx->device, ctx->pool, NULL);
        vkDestroyDevice(ctx->device, NULL);
        ctx->device = VK_NULL_HANDLE;
    }
    if (ctx->messenger)
        vkDestroyDebugUtilsMessengerEXT(ctx->instance, ctx->messenger, NULL);
    ctx->messenger = VK_NULL_HANDLE;
    if (ctx->instance)
        vkDestroyInstance(ctx->instance, NULL);
    ctx->instance = VK_NULL_HANDLE;
}

void vkfx_context_destroy(vkfx_context *ctx)
{
    if (!ctx)
        return;
    vkfx_context_close_device(ctx);
    vkfx_pipecache_write(ctx);
    free(ctx);
}

const char *vkfx_context_device_name(const vkfx_context *ctx)
{
    return ctx->props.deviceName;
}

unsigned vkfx_context_validation_messages(const vkfx_context *ctx)
{
    return __atomic_load_n(&ctx->validation_messages, __ATOMIC_RELAXED);
}

int vkfx_cmd_begin(vkfx_context *ctx, bool once, VkCommandBuffer *cmd)
{
    int ret = VKFX_OK;
    *cmd = VK_NULL_HANDLE;
    if (ctx->nidle_cmds) {
        *cmd = ctx->idle_cmds[--ctx->nidle_cmds];
    } else {
        VkCommandBufferAllocateInfo ai = {
            .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
            .commandPool = ctx->pool,
            .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
            .commandBufferCount = 1,
        };
        VK_TRY(vkAllocateCommandBuffers(ctx->device, &ai, cmd));
        vkfx_count(&ctx->objects_made, 1);
    }
    VkCommandBufferBeginInfo bi = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
        .flags = once ? VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT : 0,
    };
    VK_TRY(vkBeginCommandBuffer(*cmd, &bi));
    return VKFX_OK;
fail:
    vkfx_cmd_free(ctx, *cmd);
    *cmd = VK_NULL_HANDLE;
    return ret;
}

void vkfx_cmd_free(vkfx_context *ctx, VkCommandBuffer cmd)
{
    if (!cmd)
        return;
    /* Reset (the pool allows it one by one), it serves the next vkfx_cmd_begin: a run begins
     * one for its graph and one for each staging chunk. */
    if (ctx->nidle_cmds < sizeof(ctx->idle_cmds) / sizeof(ctx->idle_cmds[0]) &&
        vkResetCommandBuffer(cmd, 0) == VK_SUCCESS) {
        ctx->idle_cmds[ctx->nidle_cmds++] = cmd;
        return;
    }
    vkFreeCommandBuffers(ctx->device, ctx->pool, 1, &cmd);
    vkfx_count(&ctx->objects_freed, 1);
}

int vkfx_submit(vkfx_context *ctx, VkCommandBuffer cmd, uint64_t *ticket)
{
    int ret = VKFX_OK;
    uint64_t value = ctx->timeline_value + 1;
    VkSemaphoreSubmitInfo sig = {
        .sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO,
        .semaphore = ctx->timeline,
        .value = value,
        .stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
    };
    VkCommandBufferSubmitInfo cbi = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO,
        .commandBuffer = cmd,
    };
    VkSubmitInfo2 si = {
        .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO_2,
        .commandBufferInfoCount = 1,
        .pCommandBufferInfos = &cbi,
        .signalSemaphoreInfoCount = 1,
        .pSignalSemaphoreInfos = &sig,
    };
    VK_TRY(vkQueueSubmit2(ctx->queue, 1, &si, VK_NULL_HANDLE));
    ctx->timeline_value = value;
    *ticket = value;
fail:
    return ret;
}

int vkfx_wait(vkfx_context *ctx, uint64_t ticket)
{
    int ret = VKFX_OK;
    VkSemaphoreWaitInfo wi = {
        .sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
        .semaphoreCount = 1,
        .pSemaphores = &ctx->timeline,
        .pValues = &ticket,
    };
    /* A finite wait on a GPU: a hung device becomes an error instead of a hang. The software
     * device runs large images for minutes, and cannot hang the way a GPU does. */
    bool cpu = ctx->props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
    VkResult r = vkWaitSemaphores(ctx->device, &wi, cpu ? UINT64_MAX : 60ull * 1000 * 1000 * 1000);
    if (r == VK_TIMEOUT)
        return vkfx_fail(VKFX_E_VULKAN, "the GPU did not finish within 60 s (device hung?)");
    VK_TRY(r);
fail:
    return ret;
}
