#include "common/error.h"
#include "runtime/cli/cli.h"
#include "runtime/cli/commands.h"
#include "runtime/cli/create_options.h"
#include "runtime/container/create_container.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int cmd_create(const struct global_options *global, int argc, char **argv, struct sb_error *err)
{
        struct create_request req = { 0 };
        struct create_result result;
        struct cli_option options[CREATE_OPTIONS_LEN];
        int next;

        create_options_table(&req, options);
        const struct cli_command cmd = {
                .name = "create",
                .usage =
                        "usage: sbrun create [--bundle DIR] [--pid-file FILE] [--console-socket PATH]\n"
                        "                    [--pidfd-socket PATH] [--preserve-fds N] [--no-pivot]\n"
                        "                    [--no-new-keyring] ID\n",
                .options = options,
        };
        int r = cli_parse(&cmd, argc, argv, &next, err);
        if (r != 0)
                return r < 0 ? 1 : 0;
        if (cli_require_id("create", argc, argv, next, &req.id, err) < 0)
                return 1;
        if (container_create(global, &req, &result, err) < 0)
                return 1;
        if (result.console_master >= 0)
                close(result.console_master);
        free(result.cgroup_path);
        return 0;
}
