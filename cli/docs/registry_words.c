/* The command line's options and the filter registry as words, for the shell completions and
 * the man page that the build generates (make_docs.py), tab-separated: "option", a long
 * option's name, 1 when it takes a value, its short letter or "-"; then "filter", a filter's
 * name and each of its options as key[:value|value...] (the values of a choice or a
 * flag). A build tool, not installed. */
#include <stdio.h>

#include "../cli.h"

int main(void)
{
    for (const struct option *l = cli_longopts; l->name; l++)
        printf("option\t%s\t%d\t%c\n", l->name, l->has_arg != no_argument,
               l->val > 0 && l->val < 256 ? l->val : '-');
    for (const vkfx_filter *const *f = vkfx_filters; *f; f++) {
        printf("filter\t%s", (*f)->name);
        for (const vkfx_option *o = (*f)->options; o && o->name; o++) {
            printf("\t%s%s", o->name, o->type == VKFX_OPT_BOOL ? ":0|1" : "");
            for (const char *const *c = o->choices; o->type == VKFX_OPT_CHOICE && c && *c; c++)
                printf("%c%s", c == o->choices ? ':' : '|', *c);
        }
        printf("\n");
    }
    return ferror(stdout) || fflush(stdout) != 0;
}
