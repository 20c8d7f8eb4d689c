#include "common/error.h"
#include "runtime/cli/cli.h"
#include "runtime/cli/commands.h"
#include "runtime/container/delete_container.h"

#include <getopt.h>
#include <stdio.h>

int cmd_delete(const struct global_options *global, int argc, char **argv, struct sb_error *err)
{
        static const struct option options[] = {
                { "force", no_argument, NULL, 'f' },
                { "help", no_argument, NULL, 'h' },
                { NULL, 0, NULL, 0 },
        };
        const char *id = NULL;
        bool force = false;
        int opt;

        cli_reset_getopt();
        while ((opt = getopt_long(argc, argv, "+fh", options, NULL)) != -1) {
                if (opt == 'f') {
                        force = true;
                        continue;
                }
                if (opt == 'h') {
                        printf("usage: sbrun delete [--force] ID\n");
                        return 0;
                }
                return sb_fail(err, 0, "delete: unknown option \"%s\"", argv[optind - 1]), 1;
        }
        if (cli_require_id("delete", argc, argv, optind, &id, err) < 0)
                return 1;
        return container_delete(global, id, force, err) < 0 ? 1 : 0;
}
