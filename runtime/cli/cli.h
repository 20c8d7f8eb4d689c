/* Command-line helpers shared by the cmd_*.c files. */
#ifndef SB_CLI_H
#define SB_CLI_H

#include <stdbool.h>

struct sb_error;

/* Parse a non-negative decimal integer option value; names the option on error. */
int cli_parse_int(const char *option, const char *value, int max, int *out, struct sb_error *err);

/* Exactly one positional container ID is required after the options. */
int cli_require_id(const char *command, int argc, char **argv, int optind_, const char **id,
                   struct sb_error *err);

/* For a command whose only argument is the container ID (and --help,
 * through cli_parse in runtime/cli/cli_options.h; about is the line of
 * --help that says what the command does):
 * 1 when the usage was printed, 0 with *id set, -1 on a bad command line. */
int cli_parse_id_only(const char *command, const char *about, int argc, char **argv,
                      const char **id, struct sb_error *err);

#endif
