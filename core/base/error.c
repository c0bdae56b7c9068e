#include "error.h"

#include <stdbool.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static _Thread_local char message[1024];

static bool continuation(char c)
{
    return ((unsigned char)c & 0xC0) == 0x80;
}

void vkfx_format_short(char *out, size_t size, const char *fmt, va_list ap)
{
    static const char gap[] = " ... ";
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(out, size, fmt, ap);
    char *full = n >= 0 && (size_t)n >= size && size > 3 * sizeof(gap) ? malloc((size_t)n + 1)
                                                                      : NULL;
    if (full) {
        vsnprintf(full, (size_t)n + 1, fmt, again);
        /* A third of the room for the start, the rest for the end; neither cut inside a
         * UTF-8 sequence. */
        size_t head = (size - sizeof(gap)) / 3, tail = size - sizeof(gap) - head;
        while (head > 0 && continuation(full[head]))
            head--;
        const char *end = full + n - tail;
        while (*end && continuation(*end))
            end++;
        snprintf(out, size, "%.*s%s%s", (int)head, full, gap, end);
        free(full);
    }
    va_end(again);
}

int vkfx_fail(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vkfx_format_short(message, sizeof(message), fmt, ap);
    va_end(ap);
    return code;
}

static void set_message(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void set_message(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vkfx_format_short(message, sizeof(message), fmt, ap);
    va_end(ap);
}

int vkfx_fail_context(int code, const char *fmt, ...)
{
    char prefix[sizeof(message)], old[sizeof(message)];
    va_list ap;
    va_start(ap, fmt);
    vkfx_format_short(prefix, sizeof(prefix), fmt, ap);
    va_end(ap);
    memcpy(old, message, sizeof(old));
    set_message("%s: %s", prefix, old);
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
