/* Commands of runc's command line that sbrun does not carry out yet: they
 * fail loudly instead of pretending. Only --help answers. */
#include "common/error.h"

#include "runtime/cli/cli_options.h"
#include "runtime/cli/commands.h"

#include <stdio.h>

int cmd_not_implemented(const struct global_options *global, int argc, char **argv,
                        struct sb_error *err)
{
        char usage[256];
        int next;

        snprintf(usage, sizeof(usage),
                 "usage: sbrun %s ID\n\n"
                 "Not implemented in this version of sbrun: it fails whatever its\n"
                 "arguments, and runc's options of %s are refused.\n",
                 argv[0], argv[0]);
        const struct cli_command cmd = { .name = argv[0], .usage = usage };
        /* Whatever the command line, once --help is out of the way. */
        if (cli_parse(&cmd, argc, argv, &next, err) == 1)
                return 0;
        sb_error_clear(err);
        sb_fail(err, 0, "%s: not implemented yet in this version of sbrun", argv[0]);
        return 1;
}
