/* Shared by the command-line front ends: exit codes, message printing and
 * the log callback that puts library messages on stderr. */
#ifndef VKFX_CLI_H
#define VKFX_CLI_H

#include "../core/vkfx.h"

enum { EXIT_OK = 0, EXIT_PROCESSING = 1, EXIT_USAGE = 2 };

/* Exit code for a library status: usage mistakes are 2, the rest 1. */
int cli_exit_code(int status);
/* Prints "vkfx: MESSAGE" for the calling thread's last library error. */
void cli_print_error(void);
void cli_log(void *user, const char *message);
/* True when the environment variable is set to something other than 0. */
bool cli_env_flag(const char *name);
int cli_bench_main(int argc, char **argv);
int cli_compare_main(int argc, char **argv);

#endif
