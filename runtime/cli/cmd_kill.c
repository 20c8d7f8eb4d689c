#include "common/cleanup.h"
#include "common/error.h"
#include "common/fault.h"
#include "oci/state.h"
#include "runtime/cgroup/cgroup_manager.h"
#include "runtime/cli/cli_options.h"
#include "runtime/cli/commands.h"
#include "runtime/container/container_audit.h"
#include "runtime/container/container_status.h"
#include "runtime/container/container_procs.h"
#include "runtime/container/signals.h"
#include "runtime/container/state_dir.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* --all through the cgroup: SIGKILL is one write to cgroup.kill; other
 * signals go to each process while the cgroup is frozen, so none forks
 * away unsignalled. */
static int signal_cgroup(const struct oci_state *state, int signo, struct sb_error *err)
{
        _cleanup_cgroup_ struct cgroup cg = CGROUP_INIT;

        if (cgroup_open(state->cgroup_path, &cg, err) < 0)
                return -1;
        if (signo == SIGKILL)
                return cgroup_kill(&cg, err);
        return cgroup_signal(&cg, signo, err);
}

int cmd_kill(const struct global_options *global, int argc, char **argv, struct sb_error *err)
{
        _cleanup_state_dir_ struct state_dir sd = STATE_DIR_INIT;
        _cleanup_close_ int pidfd = -1;
        struct oci_state *state = NULL;
        bool all = false;
        int signo = SIGTERM;
        int next, ret = 1;
        const struct cli_option options[] = {
                { "all", 'a', CLI_FLAG, .to.flag = &all,
                  .help = "signal every process of the container (through its cgroup), not only "
                          "the container process" },
                { NULL },
        };
        const struct cli_command cmd = {
                .name = "kill",
                .usage = "usage: sbrun kill [options] ID [SIGNAL]\n\n"
                         "Send SIGNAL (default SIGTERM; a name with or without SIG, or a number)\n"
                         "to the container process.\n",
                .options = options,
        };
        int r = cli_parse(&cmd, argc, argv, &next, err);

        if (r != 0)
                return r < 0 ? 1 : 0;
        if (next >= argc)
                return sb_fail(err, 0, "kill: container ID is required"), 1;
        if (argc - next > 2)
                return sb_fail(err, 0, "kill: expected ID [SIGNAL]"), 1;
        if (argc - next == 2 && signal_parse(argv[next + 1], &signo, err) < 0)
                return 1;
        state = state_dir_open_state(global->root, argv[next], &sd, err);
        if (state == NULL)
                return 1;
        pidfd = container_pidfd(state, err);
        if (pidfd < 0) {
                /* runc's words: containerd's shim takes "container not
                 * running" for a process already gone and goes on deleting
                 * the task; any other wording fails a Kubernetes pod's
                 * StopContainer and RemovePodSandbox. */
                sb_error_clear(err);
                sb_fail(err, 0, "kill container \"%s\": container not running", state->id);
                goto out;
        }
        SB_FAULT_POINT("kill.before-signal");
        if (all && state->cgroup_path != NULL && signal_cgroup(state, signo, err) < 0)
                goto out;
        /* The container process before the others: a shell waiting on its
         * children would otherwise see them die and exit on its own, with
         * another status than the signal's. */
        if (syscall(SYS_pidfd_send_signal, pidfd, signo, NULL, 0) < 0 && !(all && errno == ESRCH)) {
                sb_fail(err, errno, "kill container \"%s\" with signal %d", state->id, signo);
                goto out;
        }
        if (all && state->cgroup_path == NULL &&
            container_procs_signal_all(state->pid, signo, err) < 0)
                goto out;
        SB_FAULT_POINT("kill.after-signal");
        ret = 0;
out:
        if (state != NULL)
                container_audit_kill(&sd, global, state->id, signo, all, ret == 0 ? NULL : err);
        oci_state_free(state);
        return ret;
}
