#include "runtime/cli/cli.h"

#include "common/error.h"
#include "runtime/cli/cli_options.h"

#include <errno.h>
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

int cli_parse_id_only(const char *command, const char *about, int argc, char **argv,
                      const char **id, struct sb_error *err)
{
        char usage[512];
        int next, r;

        snprintf(usage, sizeof(usage), "usage: sbrun %s ID\n\n%s\n", command, about);
        r = cli_parse(&(struct cli_command){ .name = command, .usage = usage }, argc, argv, &next,
                      err);
        if (r != 0)
                return r;
        return cli_require_id(command, argc, argv, next, id, err);
}
