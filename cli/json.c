#include "cli.h"

#include <stdio.h>

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
            int n = cli_utf8_length(s);
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
