/* Messages on stderr: text that comes from the command line or from files
 * (names, option values) may hold control bytes or escape sequences, which
 * must not reach the terminal as such. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* Length of the valid UTF-8 sequence at s (1..4), 0 if it is not one. */
int cli_utf8_length(const unsigned char *s)
{
    int n = s[0] >= 0xF0 && s[0] <= 0xF4 ? 4 : s[0] >= 0xE0 ? 3 : s[0] >= 0xC2 ? 2 : 0;
    if (s[0] >= 0xF8 || n == 0)
        return 0;
    for (int i = 1; i < n; i++)
        if ((s[i] & 0xC0) != 0x80)
            return 0;
    if ((n == 3 && s[0] == 0xE0 && s[1] < 0xA0) || (n == 3 && s[0] == 0xED && s[1] >= 0xA0) ||
        (n == 4 && s[0] == 0xF0 && s[1] < 0x90) || (n == 4 && s[0] == 0xF4 && s[1] >= 0x90))
        return 0; /* overlong, surrogate or beyond U+10FFFF */
    return n;
}

void cli_escape(const char *text, char *out, size_t size)
{
    const unsigned char *s = (const unsigned char *)text;
    size_t len = 0;
    if (size == 0)
        return;
    while (*s) {
        char piece[8];
        int n = *s < 0x80 ? 1 : cli_utf8_length(s);
        /* C0 controls, DEL, and C1 controls (U+0080..U+009F, which some
         * terminals obey) as escapes; bytes that are not UTF-8 too. */
        bool control = *s < 0x20 || *s == 0x7F || n == 0 || (n == 2 && s[0] == 0xC2 && s[1] < 0xA0);
        if (control && n == 2)
            snprintf(piece, sizeof(piece), "\\u%04x", s[1]);
        else if (control)
            snprintf(piece, sizeof(piece), "\\x%02x", *s);
        else
            snprintf(piece, sizeof(piece), "%.*s", n, (const char *)s);
        size_t plen = strlen(piece);
        if (len + plen + 1 > size)
            break;
        memcpy(out + len, piece, plen);
        len += plen;
        s += n ? n : 1;
    }
    out[len] = 0;
}

int cli_usage_error(const char *command, const char *fmt, ...)
{
    char text[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    const char *space = command ? " " : "";
    command = command ? command : "";
    cli_message("vkfx%s%s: %s", space, command, text);
    fprintf(stderr, "Try 'vkfx%s%s --help'.\n", space, command);
    return EXIT_USAGE;
}

void cli_message(const char *fmt, ...)
{
    char raw[4096], shown[4 * sizeof(raw)];
    va_list ap;
    va_start(ap, fmt);
    vkfx_format_short(raw, sizeof(raw), fmt, ap);
    va_end(ap);
    cli_escape(raw, shown, sizeof(shown));
    fprintf(stderr, "%s\n", shown);
}
