/* One option parser for every command: a command describes its options in
 * a table and cli_parse() runs getopt_long over it. --help/-h, unknown
 * options and missing values are handled here, with one wording for all
 * commands (runc's usage errors exit with status 1). The help is printed
 * from the same table, so an option the parser takes is one --help lists;
 * a long option must be spelt out (getopt_long's unique prefixes such as
 * "--bund" are refused, as runc refuses them):
 *   CMD: unknown option "--bogus"
 *   CMD: option "--bundle" needs a value
 * Options come before the positional arguments: parsing stops at the first
 * argument that is no option (or after "--"), as runc's commands do. */
#ifndef SB_CLI_OPTIONS_H
#define SB_CLI_OPTIONS_H

#include <stdbool.h>
#include <stddef.h> /* NULL, which ends a table */
#include <stdio.h>

struct sb_error;
struct cli_option;

/* What an option does with its value; the kind says whether it takes one. */
enum cli_kind {
        CLI_FLAG,     /* no value: *to.flag = true */
        CLI_STRING,   /* a value: *to.string = the value, kept in argv */
        CLI_INT,      /* a value: *to.integer = a decimal in [0, max] */
        CLI_CALL,     /* no value: call(opt, NULL, err) */
        CLI_CALL_ARG, /* a value: call(opt, value, err) */
};

/* Returns 0, or -1 with err set (the command line is then refused). */
typedef int (*cli_handler)(const struct cli_option *opt, const char *value, struct sb_error *err);

struct cli_option {
        const char *name; /* the long name, without "--"; NULL ends a table */
        char letter;      /* the short option, 0 for none ('h' is --help's) */
        enum cli_kind kind;
        union {
                bool *flag;
                const char **string;
                int *integer;
                void *data; /* CLI_CALL, CLI_CALL_ARG: the handler's own */
        } to;
        int max;          /* CLI_INT: the largest value accepted */
        cli_handler call; /* CLI_CALL, CLI_CALL_ARG */
        int id;           /* CLI_CALL, CLI_CALL_ARG: free for the handler */
        const char *arg;  /* the value's placeholder in --help ("FILE"), for a kind with one */
        const char *help; /* one line for --help: what sbrun does with it */
};

struct cli_command {
        const char *name;  /* "create", "policy explain": starts every message */
        const char *usage; /* --help's synopsis (and a paragraph), before the options */
        const struct cli_option *options; /* may be NULL: only --help */
        const struct cli_option *more;    /* a second table (run: create's), or NULL */
};

/* Parse the options of argv[1..argc-1] (argv[0] is the command's name).
 * Returns 1 when --help printed the help on stdout (the command exits 0),
 * 0 with *next the index of the first positional argument, -1 with err set. */
int cli_parse(const struct cli_command *cmd, int argc, char **argv, int *next,
              struct sb_error *err);

/* The help --help prints: cmd->usage, then "Options:", one line for each
 * option of cmd->options and cmd->more and for -h, --help. */
void cli_print_help(FILE *out, const struct cli_command *cmd);

#endif
