#include "common/error.h"
#include "runtime/cli/cli.h"
#include "runtime/cli/commands.h"
#include "runtime/container/create_container.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

const struct option create_long_options[] = {
        { "bundle", required_argument, NULL, 'b' },
        { "pid-file", required_argument, NULL, 'p' },
        { "console-socket", required_argument, NULL, 'c' },
        { "preserve-fds", required_argument, NULL, 'P' },
        { "no-pivot", no_argument, NULL, 'N' },
        { "no-new-keyring", no_argument, NULL, 'K' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
};

int cmd_create(const struct global_options *global, int argc, char **argv, struct sb_error *err)
{
        struct create_request req = { 0 };
        struct create_result result;
        int opt;

        cli_reset_getopt();
        while ((opt = getopt_long(argc, argv, "+b:h", create_long_options, NULL)) != -1) {
                if (opt == 'h') {
                        printf("usage: sbrun create [--bundle DIR] [--pid-file FILE] [--console-socket PATH]\n"
                               "                    [--preserve-fds N] [--no-pivot] [--no-new-keyring] ID\n");
                        return 0;
                }
                int r = create_request_option(opt, optarg, &req, err);
                if (r < 0)
                        return 1;
                if (r == 0)
                        return sb_fail(err, 0, "create: unknown option \"%s\"", argv[optind - 1]),
                               1;
        }
        if (cli_require_id("create", argc, argv, optind, &req.id, err) < 0)
                return 1;
        if (container_create(global, &req, &result, err) < 0)
                return 1;
        if (result.console_master >= 0)
                close(result.console_master);
        free(result.cgroup_path);
        return 0;
}
