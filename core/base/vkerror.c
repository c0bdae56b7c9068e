#include "vkerror.h"

#include <string.h>

#include "error.h"

const char *vkfx_vk_result_name(VkResult r)
{
    switch ((int)r) {
#define NAME(x)                                                                                    \
    case x:                                                                                        \
        return #x;
        NAME(VK_SUCCESS)
        NAME(VK_NOT_READY)
        NAME(VK_TIMEOUT)
        NAME(VK_INCOMPLETE)
        NAME(VK_ERROR_OUT_OF_HOST_MEMORY)
        NAME(VK_ERROR_OUT_OF_DEVICE_MEMORY)
        NAME(VK_ERROR_INITIALIZATION_FAILED)
        NAME(VK_ERROR_DEVICE_LOST)
        NAME(VK_ERROR_MEMORY_MAP_FAILED)
        NAME(VK_ERROR_LAYER_NOT_PRESENT)
        NAME(VK_ERROR_EXTENSION_NOT_PRESENT)
        NAME(VK_ERROR_FEATURE_NOT_PRESENT)
        NAME(VK_ERROR_INCOMPATIBLE_DRIVER)
        NAME(VK_ERROR_TOO_MANY_OBJECTS)
        NAME(VK_ERROR_FORMAT_NOT_SUPPORTED)
        NAME(VK_ERROR_FRAGMENTED_POOL)
        NAME(VK_ERROR_OUT_OF_POOL_MEMORY)
        NAME(VK_ERROR_UNKNOWN)
#undef NAME
    }
    return "VK_ERROR_(unnamed)";
}

int vkfx_vk_fail(VkResult r, const char *call, const char *file, int line)
{
    int code = VKFX_E_VULKAN;
    const char *hint = "";
    if (r == VK_ERROR_OUT_OF_DEVICE_MEMORY || r == VK_ERROR_OUT_OF_HOST_MEMORY) {
        code = VKFX_E_NOMEM;
        hint = " (the image may be too large for this device)";
    } else if (r == VK_ERROR_DEVICE_LOST) {
        return vkfx_fail(VKFX_E_LOST, "the GPU was lost (VK_ERROR_DEVICE_LOST): it faulted or its "
                                      "driver reset it, and nothing more can run on it in this "
                                      "process");
    }
    const char *base = strrchr(file, '/');
    return vkfx_fail(code, "%s failed with %s at %s:%d%s", call, vkfx_vk_result_name(r),
                     base ? base + 1 : file, line, hint);
}
