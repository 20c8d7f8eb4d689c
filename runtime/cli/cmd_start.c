#include "common/cleanup.h"
#include "common/error.h"
#include "oci/state.h"
#include "runtime/cli/cli.h"
#include "runtime/cli/commands.h"
#include "runtime/container/container_status.h"
#include "runtime/container/start_container.h"
#include "runtime/container/state_dir.h"

int cmd_start(const struct global_options *global, int argc, char **argv, struct sb_error *err)
{
        const char *id = NULL;
        int parsed = cli_parse_id_only(
                "start",
                "Start the process of a created container (its startContainer and poststart\n"
                "hooks run; a failing one stops the container).",
                argc, argv, &id, err);

        if (parsed != 0)
                return parsed < 0 ? 1 : 0;
        return container_start(global, id, 0, err) < 0 ? 1 : 0;
}
