#include "cli.h"

#include <stdio.h>

/* Length of the valid UTF-8 sequence at s (1..4), 0 if it is not one. */
static int utf8_length(const unsigned char *s)
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

void cli_json_string(FILE *f, const char *text)
{
    const unsigned char *s = (const unsigned char *)text;
    fputc('"', f);
    while (*s) {
        if (*s == '"' || *s == '\\') {
            fputc('\\', f);
            fputc(*s++, f);
        } else if (*s < 0x20 || *s == 0x7F) {
            fprintf(f, "\\u%04x", *s++);
        } else if (*s < 0x80) {
            fputc(*s++, f);
        } else {
            int n = utf8_length(s);
            if (n == 0) {
                fputs("\\ufffd", f); /* a file name that is not UTF-8 */
                s++;
            } else {
                fwrite(s, 1, (size_t)n, f);
                s += n;
            }
        }
    }
    fputc('"', f);
}
