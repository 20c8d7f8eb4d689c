#include "runtime/delete_container.h"

#include "common/cleanup.h"
#include "common/error.h"
#include "oci/state.h"
#include "runtime/commands.h"
#include "runtime/container_procs.h"
#include "runtime/container_status.h"
#include "runtime/state_dir.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define KILL_WAIT_MS 10000

static int kill_and_wait(const struct oci_state *state, struct sb_error *err)
{
        _cleanup_close_ int pidfd = container_pidfd(state, err);

        if (pidfd < 0) {
                if (err->errnum == ESRCH) {
                        sb_error_clear(err);
                        return 0; /* already gone */
                }
                return -1;
        }
        /* SIGKILL to the pid namespace's init ends every process in it. */
        container_procs_signal_all(state->pid, SIGKILL, err);
        sb_error_clear(err);
        if (syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0) < 0 && errno != ESRCH)
                return sb_fail(err, errno, "kill container \"%s\"", state->id);
        if (pidfd_wait_exit(pidfd, KILL_WAIT_MS) < 0)
                return sb_fail(err, ETIMEDOUT, "container \"%s\" did not exit after SIGKILL",
                               state->id);
        return 0;
}

int container_delete(const struct global_options *global, const char *id, bool force,
                     struct sb_error *err)
{
        _cleanup_state_dir_ struct state_dir sd = STATE_DIR_INIT;
        struct oci_state *state;
        int ret = -1;

        if (state_dir_open(global->root, id, &sd, err) < 0)
                return -1;
        state = state_dir_load(&sd, err);
        if (state == NULL) {
                /* A record that cannot be read (a create that died half-way)
                 * is removed with --force, as runc does. */
                if (!force)
                        return -1;
                sb_error_clear(err);
                return state_dir_remove(&sd, err);
        }
        const char *status = container_status(state);
        if (strcmp(status, "running") == 0 && !force) {
                sb_fail(err, 0, "cannot delete container %s that is not stopped: %s", id, status);
                goto out;
        }
        if (strcmp(status, "stopped") != 0 && kill_and_wait(state, err) < 0)
                goto out;
        ret = state_dir_remove(&sd, err);
out:
        oci_state_free(state);
        return ret;
}
