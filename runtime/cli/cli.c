#include "runtime/cli/cli.h"

#include "common/error.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

int cli_parse_int(const char *option, const char *value, int max, int *out, struct sb_error *err)
{
        char *end = NULL;
        long v;

        errno = 0;
        v = strtol(value, &end, 10);
        if (errno != 0 || end == value || *end != '\0' || v < 0 || v > max)
                return sb_fail(err, 0, "%s: invalid value \"%s\"", option, value);
        *out = (int)v;
        return 0;
}

int cli_require_id(const char *command, int argc, char **argv, int optind_, const char **id,
                   struct sb_error *err)
{
        if (optind_ >= argc)
                return sb_fail(err, 0, "%s: container ID is required", command);
        if (argc - optind_ > 1)
                return sb_fail(err, 0, "%s: expected one container ID, got %d arguments", command,
                               argc - optind_);
        *id = argv[optind_];
        return 0;
}

int cli_parse_id_only(const char *command, int argc, char **argv, const char **id,
                      struct sb_error *err)
{
        static const struct option options[] = {
                { "help", no_argument, NULL, 'h' },
                { NULL, 0, NULL, 0 },
        };
        int opt;

        cli_reset_getopt();
        while ((opt = getopt_long(argc, argv, "+h", options, NULL)) != -1) {
                if (opt == 'h') {
                        printf("usage: sbrun %s ID\n", command);
                        return 1;
                }
                return sb_fail(err, 0, "%s: unknown option \"%s\"", command, argv[optind - 1]);
        }
        return cli_require_id(command, argc, argv, optind, id, err);
}

void cli_reset_getopt(void)
{
        /* optind 0 makes glibc reinitialise its state, needed for a second pass. */
        optind = 0;
        opterr = 0;
}
