#include "common/cleanup.h"
#include "common/error.h"
#include "oci/state.h"
#include "runtime/cli/cli.h"
#include "runtime/cli/commands.h"
#include "runtime/container/container_status.h"
#include "runtime/container/state_dir.h"
#include "runtime/container/verdict.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cmd_state(const struct global_options *global, int argc, char **argv, struct sb_error *err)
{
        _cleanup_state_dir_ struct state_dir sd = STATE_DIR_INIT;
        _cleanup_free_ char *json = NULL;
        struct oci_state *state;
        const char *id = NULL;
        int parsed = cli_parse_id_only(
                "state",
                "Print the container's state as JSON: ociVersion, id, pid, status, bundle,\n"
                "rootfs, created, owner, annotations, and sbrun's own facts.",
                argc, argv, &id, err);

        if (parsed != 0)
                return parsed < 0 ? 1 : 0;
        state = state_dir_open_state(global->root, id, &sd, err);
        if (state == NULL)
                return 1;
        free(state->status);
        state->status = strdup(container_status(state));
        if (state->status == NULL ||
            (strcmp(state->status, "stopped") == 0 && verdict_annotate_oom(state) < 0)) {
                oci_state_free(state);
                return sb_fail(err, ENOMEM, "state"), 1;
        }
        json = oci_state_to_json(state, true, err);
        oci_state_free(state);
        if (json == NULL)
                return 1;
        printf("%s\n", json);
        return 0;
}
