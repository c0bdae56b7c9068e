/* Failed Vulkan calls as status codes and messages: VK_TRY, for every layer that calls Vulkan
 * (cli/ never does). */
#ifndef VKFX_VKERROR_H
#define VKFX_VKERROR_H

#include <vulkan/vulkan_core.h>

#include "error.h"

/* Records a failed Vulkan call (call text, VkResult name, file, line) and
 * returns the matching status code. */
int vkfx_vk_fail(VkResult r, const char *call, const char *file, int line);
const char *vkfx_vk_result_name(VkResult r);

/* Wraps a Vulkan call in a function that has `int ret` and a `fail:` label. */
#define VK_TRY(call)                                                                               \
    do {                                                                                           \
        VkResult vk_try_r_ = (call);                                                               \
        if (vk_try_r_ != VK_SUCCESS) {                                                             \
            ret = vkfx_vk_fail(vk_try_r_, #call, __FILE__, __LINE__);                              \
            goto fail;                                                                             \
        }                                                                                          \
    } while (0)

#endif
