/* Status codes and the thread-local message that goes with a failure: core
 * never prints, it returns a code and leaves a sentence for the caller. */
#ifndef VKFX_ERROR_H
#define VKFX_ERROR_H

#include <stdarg.h>
#include <stddef.h>

enum vkfx_status {
    VKFX_OK = 0,
    VKFX_E_USAGE = -1,    /* bad chain, option or argument: exit code 2 */
    VKFX_E_IO = -2,       /* a file could not be read or written */
    VKFX_E_FORMAT = -3,   /* unsupported, corrupt or truncated file */
    VKFX_E_VULKAN = -4,   /* a Vulkan call failed */
    VKFX_E_NOMEM = -5,    /* host or device memory exhausted */
    VKFX_E_NODEVICE = -6, /* no Vulkan loader, driver or suitable device */
    VKFX_E_LIMIT = -7,    /* a size beyond what vkfx or the device supports */
    VKFX_E_LOST = -8,     /* the device was lost: nothing more runs on it */
    VKFX_E_STOPPED = -9,  /* stopped by the caller's cancel check (vkfx_cancel) */
};

/* Records a printf-style message for the calling thread and returns code. */
int vkfx_fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prefixes the current message with "what: " (for context further up). */
int vkfx_fail_context(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const char *vkfx_error_message(void);
void vkfx_error_clear(void);

/* Calls something that returns a status, in a function that has `int ret` and a `fail:`
 * label, which a failure jumps to (one cleanup label per function). VK_TRY, for Vulkan
 * calls, is in vkerror.h. */
#define TRY(call)                                                                                  \
    do {                                                                                           \
        ret = (call);                                                                              \
        if (ret < 0)                                                                               \
            goto fail;                                                                             \
    } while (0)

/* vsnprintf into out, except that a text longer than size keeps its start and its end around
 * " ... ": a message naming a very long path keeps its reason, which comes last. */
void vkfx_format_short(char *out, size_t size, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

#endif
