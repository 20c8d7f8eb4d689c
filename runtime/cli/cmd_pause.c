/* `pause` and `resume`: freeze and thaw every process of a container
 * through cgroup.freeze, as runc and crun do on cgroup v2. A paused
 * container's status is "paused". */
#include "common/cleanup.h"
#include "common/error.h"
#include "oci/state.h"
#include "runtime/cgroup/cgroup_manager.h"
#include "runtime/cli/cli.h"
#include "runtime/cli/commands.h"
#include "runtime/cgroup/container_cgroup.h"
#include "runtime/container/container_status.h"
#include "runtime/container/state_dir.h"

#include <string.h>

static int freeze_command(const struct global_options *global, int argc, char **argv, bool freeze,
                          struct sb_error *err)
{
        const char *command = freeze ? "pause" : "resume";
        _cleanup_state_dir_ struct state_dir sd = STATE_DIR_INIT;
        _cleanup_cgroup_ struct cgroup cg = CGROUP_INIT;
        struct oci_state *state = NULL;
        const char *id = NULL;
        int ret = 1, parsed = cli_parse_id_only(
                             command,
                             freeze ? "Freeze every process of a created or running container "
                                      "(cgroup.freeze);\nits status is paused until "
                                      "`sbrun resume ID`." :
                                      "Thaw a paused container (cgroup.freeze).",
                             argc, argv, &id, err);

        if (parsed != 0)
                return parsed < 0 ? 1 : 0;
        state = state_dir_open_state(global->root, id, &sd, err);
        if (state == NULL)
                return 1;
        const char *status = container_status(state);
        /* runc pauses created or running containers and resumes paused ones. */
        bool allowed = freeze ? strcmp(status, "running") == 0 || strcmp(status, "created") == 0 :
                                strcmp(status, "paused") == 0;
        if (!allowed) {
                sb_fail(err, 0, "%s: container %s is %s", command, id, status);
                goto out;
        }
        if (container_cgroup_open(state, command, &cg, err) < 0)
                goto out;
        if (cgroup_freeze(&cg, freeze, err) < 0) {
                sb_error_prefix(err, "%s: container %s", command, id);
                goto out;
        }
        ret = 0;
out:
        oci_state_free(state);
        return ret;
}

int cmd_pause(const struct global_options *global, int argc, char **argv, struct sb_error *err)
{
        return freeze_command(global, argc, argv, true, err);
}

int cmd_resume(const struct global_options *global, int argc, char **argv, struct sb_error *err)
{
        return freeze_command(global, argc, argv, false, err);
}
