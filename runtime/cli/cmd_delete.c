#include "common/error.h"
#include "runtime/cli/cli.h"
#include "runtime/cli/cli_options.h"
#include "runtime/cli/commands.h"
#include "runtime/container/delete_container.h"

#include <stdbool.h>

int cmd_delete(const struct global_options *global, int argc, char **argv, struct sb_error *err)
{
        const char *id = NULL;
        bool force = false;
        const struct cli_option options[] = {
                { "force", 'f', CLI_FLAG, .to.flag = &force,
                  .help = "also a running or paused container (killed first), and no error for "
                          "one that does not exist" },
                { NULL },
        };
        const struct cli_command cmd = {
                .name = "delete",
                .usage = "usage: sbrun delete [options] ID\n\n"
                         "Delete a created or stopped container: its processes, cgroup and state;\n"
                         "its poststop hooks run.\n",
                .options = options,
        };
        int next, r = cli_parse(&cmd, argc, argv, &next, err);

        if (r != 0)
                return r < 0 ? 1 : 0;
        if (cli_require_id("delete", argc, argv, next, &id, err) < 0)
                return 1;
        return container_delete(global, id, force, err) < 0 ? 1 : 0;
}
