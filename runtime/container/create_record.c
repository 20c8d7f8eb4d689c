#include "runtime/container/create_record.h"

#include "config.h"

#include "common/cleanup.h"
#include "common/error.h"
#include "common/fault.h"
#include "hooks/hooks.h"
#include "oci/config.h"
#include "oci/state.h"
#include "runtime/container/container_status.h"
#include "runtime/container/create_container.h"
#include "runtime/container/create_ctx.h"
#include "runtime/container/pid_file.h"
#include "runtime/container/state_dir.h"
#include "runtime/container/wall_clock.h"
#include "runtime/sandbox/namespaces.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* prestart (deprecated, still used) and createRuntime in the runtime's
 * namespaces, then createContainer in the container's: all once the
 * container exists, before create returns; a failure fails create. */
static int run_create_hooks(struct create_ctx *c, const struct oci_state *state,
                            struct sb_error *err)
{
        const struct oci_hooks *hooks = &c->config->hooks;

        if (hooks_run(hooks, HOOK_PRESTART, state, NULL, NULL, err) < 0 ||
            hooks_run(hooks, HOOK_CREATE_RUNTIME, state, NULL, NULL, err) < 0 ||
            hooks_run(hooks, HOOK_CREATE_CONTAINER, state, ns_enter_pid, &c->container_pid, err) <
                    0)
                return -1;
        return 0;
}

/* The state of c as hooks and state.json see it; markers has room for 4.
 * While create is not done the record carries the CREATE_MARKER. */
static int fill_state(struct create_ctx *c, struct state_dir *sd, bool complete,
                      struct oci_state *state, struct oci_kv *markers, struct sb_error *err)
{
        *state = (struct oci_state){
                .oci_version = (char *)SBRUN_OCI_VERSION,
                .id = sd->id,
                .status = (char *)(c->restored ? "running" : "created"),
                .started = c->restored,
                .pid = c->container_pid,
                .bundle = c->bundle,
                .rootfs = c->rootfs,
                .owner = (char *)"",
                .cgroup_path = c->cgroup.cg.path,
                .created = c->created,
                /* The config's annotations exactly; sbrun's own facts are markers. */
                .annotations = c->config->annotations,
                .n_annotations = c->config->n_annotations,
                .markers = markers,
        };
        if (c->cgroup.unenforced)
                markers[state->n_markers++] =
                        (struct oci_kv){ (char *)RESOURCES_MARKER, (char *)RESOURCES_UNENFORCED };
        if (c->cgroup.unit != NULL) {
                markers[state->n_markers++] =
                        (struct oci_kv){ (char *)SYSTEMD_UNIT_MARKER, c->cgroup.unit };
                markers[state->n_markers++] =
                        (struct oci_kv){ (char *)SYSTEMD_SLICE_MARKER, c->cgroup.slice };
        }
        if (!complete)
                markers[state->n_markers++] =
                        (struct oci_kv){ (char *)CREATE_MARKER, (char *)CREATE_INCOMPLETE };
        if (state->n_markers == 0)
                state->markers = NULL;
        if (c->container_pid > 0 &&
            proc_stat_identity(c->container_pid, &state->pid_start_time, NULL) < 0)
                return sb_fail(err, errno, "container process %d vanished", c->container_pid);
        return 0;
}

static int save_record(struct create_ctx *c, struct state_dir *sd, bool complete,
                       struct sb_error *err)
{
        struct oci_state state;
        struct oci_kv markers[4];
        _cleanup_free_ char *cgroup_path = container_cgroup_planned_path(&c->cgroup);

        if (fill_state(c, sd, complete, &state, markers, err) < 0)
                return -1;
        /* Before the cgroup is made, the record names where it will be:
         * delete --force removes it if create dies once it is there. */
        state.cgroup_path = cgroup_path;
        return state_dir_save(sd, &state, err);
}

int create_record_pending(struct create_ctx *c, struct state_dir *sd, struct sb_error *err)
{
        if (c->created != NULL)
                return save_record(c, sd, false, err);
        c->created = wall_clock_rfc3339();
        if (c->created == NULL)
                return sb_fail(err, ENOMEM, "creation time");
        /* start and delete run the later hooks from this copy, and exec
         * takes the floor from it and the policy: the bundle may change or
         * go while the container lives. */
        if (state_dir_save_config(sd, c->config_text, c->config_len, err) < 0 ||
            state_dir_save_policy(sd, &c->policy, c->global, err) < 0)
                return -1;
        return save_record(c, sd, false, err);
}

int create_record_state(struct create_ctx *c, struct state_dir *sd,
                        const struct create_request *req, struct sb_error *err)
{
        struct oci_state state;
        struct oci_kv markers[4];

        if (fill_state(c, sd, true, &state, markers, err) < 0)
                return -1;
        SB_FAULT_POINT("create.before-hooks");
        if (run_create_hooks(c, &state, err) < 0)
                return -1;
        SB_FAULT_POINT("create.after-hooks");
        if (req->pid_file && pid_file_write(req->pid_file, c->container_pid, err) < 0)
                return -1;
        if (save_record(c, sd, true, err) < 0)
                return -1;
        SB_FAULT_POINT("create.after-state-record");
        return 0;
}
