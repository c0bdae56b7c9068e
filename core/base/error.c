#include "error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static _Thread_local char message[1024];

int vkfx_fail(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof(message), fmt, ap);
    va_end(ap);
    return code;
}

int vkfx_fail_context(int code, const char *fmt, ...)
{
    char prefix[512], old[sizeof(message)];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof(prefix), fmt, ap);
    va_end(ap);
    memcpy(old, message, sizeof(old));
    size_t n = strlen(prefix);
    if (n > sizeof(message) - 3)
        n = sizeof(message) - 3;
    memcpy(message, prefix, n);
    memcpy(message + n, ": ", 2);
    size_t rest = sizeof(message) - n - 3;
    size_t len = strnlen(old, rest);
    memcpy(message + n + 2, old, len);
    message[n + 2 + len] = 0;
    return code;
}

const char *vkfx_error_message(void)
{
    return message[0] ? message : "unknown error";
}

void vkfx_error_clear(void)
{
    message[0] = 0;
}
