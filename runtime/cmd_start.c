#include "common/cleanup.h"
#include "common/error.h"
#include "oci/state.h"
#include "runtime/cli.h"
#include "runtime/commands.h"
#include "runtime/container_status.h"
#include "runtime/start_container.h"
#include "runtime/state_dir.h"

#include <getopt.h>
#include <stdio.h>

int cmd_start(const struct global_options *global, int argc, char **argv, struct sb_error *err)
{
        static const struct option options[] = {
                { "help", no_argument, NULL, 'h' },
                { NULL, 0, NULL, 0 },
        };
        const char *id = NULL;
        int opt;

        cli_reset_getopt();
        while ((opt = getopt_long(argc, argv, "+h", options, NULL)) != -1) {
                if (opt == 'h') {
                        printf("usage: sbrun start ID\n");
                        return 0;
                }
                return sb_fail(err, 0, "start: unknown option \"%s\"", argv[optind - 1]), 1;
        }
        if (cli_require_id("start", argc, argv, optind, &id, err) < 0)
                return 1;
        return container_start(global, id, err) < 0 ? 1 : 0;
}
