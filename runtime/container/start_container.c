#include "runtime/container/start_container.h"

#include "common/cleanup.h"
#include "common/error.h"
#include "common/fault.h"
#include "common/log.h"
#include "hooks/hooks.h"
#include "oci/config.h"
#include "oci/state.h"
#include "runtime/container/global_options.h"
#include "runtime/container/container_status.h"
#include "runtime/container/deadline_kill.h"
#include "runtime/container/notify_socket.h"
#include "runtime/sandbox/namespaces.h"
#include "runtime/container/state_dir.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <signal.h>
#include <sys/syscall.h>
#include <string.h>
#include <unistd.h>

/* The init blocks in open(exec.fifo, O_WRONLY) until a reader comes, then
 * writes HANDSHAKE_START (runtime/init/handshake.h). The fifo is opened
 * non-blocking, so that a container whose process died never leaves `start`
 * hanging: the pidfd tells.
 *
 * The pidfd is taken before the fifo is opened: opening it releases the
 * init, and a short process (`true`) can be gone before a pidfd taken
 * after could be had, failing a start that succeeded. */
static int release_through_fifo(struct state_dir *sd, const struct oci_state *state,
                                struct sb_error *err)
{
        _cleanup_close_ int pidfd = container_pidfd(state, err);
        _cleanup_close_ int fifo = -1;
        char byte;

        if (pidfd < 0)
                return sb_error_prefix(err, "start");
        fifo = openat(sd->dir_fd, EXEC_FIFO, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        if (fifo < 0 && errno == ENOENT)
                return sb_fail(err, 0,
                               "container \"%s\": %s/%s is missing: the container cannot be "
                               "started (delete --force removes it)",
                               state->id, sd->path, EXEC_FIFO);
        if (fifo < 0)
                return sb_fail(err, errno, "open %s/%s", sd->path, EXEC_FIFO);
        for (;;) {
                struct pollfd pfds[2] = {
                        { .fd = fifo, .events = POLLIN },
                        { .fd = pidfd, .events = POLLIN },
                };
                int r = poll(pfds, 2, -1);
                if (r < 0 && errno == EINTR)
                        continue;
                if (r < 0)
                        return sb_fail(err, errno, "wait on %s", EXEC_FIFO);
                if (pfds[0].revents & POLLIN) {
                        ssize_t n = read(fifo, &byte, 1);
                        if (n == 1)
                                return 0;
                        if (n < 0 && (errno == EAGAIN || errno == EINTR))
                                continue;
                }
                if (pfds[1].revents & POLLIN)
                        return sb_fail(err, 0, "container \"%s\" exited before it was started",
                                       state->id);
                /* POLLHUP without data: a writer came and went; wait on. */
                if ((pfds[0].revents & POLLHUP) && !(pfds[0].revents & POLLIN))
                        usleep(10000);
        }
}

/* Kill a container whose start failed: its process never ran. */
static void abort_start(const struct oci_state *state)
{
        struct sb_error ignored = { 0 };
        int pidfd = container_pidfd(state, &ignored);

        sb_error_clear(&ignored);
        if (pidfd >= 0) {
                syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0);
                close(pidfd);
        }
}

/* How long start waits for a container killed after a failed poststart
 * hook to be gone, so that its state reads stopped when start returns. */
#define POSTSTART_KILL_WAIT_MS 10000

/* A poststart hook failed (runtime-spec 1.3: the runtime must fail and stop
 * the container, as runc kills it): its process runs already, so the whole
 * container is killed, as at a wall-clock deadline. */
static void stop_after_poststart(const struct oci_state *state)
{
        struct sb_error e = { 0 };
        _cleanup_close_ int pidfd = container_pidfd(state, &e);
        int r = -1;

        if (pidfd >= 0)
                r = deadline_kill(pidfd, state->pid, state->cgroup_path, &e);
        if (r == 0) {
                struct pollfd pfd = { .fd = pidfd, .events = POLLIN };
                while (poll(&pfd, 1, POSTSTART_KILL_WAIT_MS) < 0 && errno == EINTR)
                        ;
        } else {
                char *text = sb_error_text(&e);
                sb_warn("start: stop the container after its poststart hook failed: %s",
                        text ? text : "failed");
                free(text);
        }
        sb_error_clear(&e);
}

/* After the process runs: READY=1 from inside, passed on. Its pidfd is
 * taken now; a process gone already ends the wait at once. */
static int forward_ready(const struct notify_proxy *p, const struct oci_state *state, pid_t mainpid,
                         struct sb_error *err)
{
        _cleanup_close_ int pidfd = container_pidfd(state, err);

        if (pidfd < 0 && err->errnum == ESRCH) {
                sb_error_clear(err);
                return 0;
        }
        if (pidfd < 0)
                return sb_error_prefix(err, "start: NOTIFY_SOCKET");
        return notify_proxy_forward(p, pidfd, mainpid > 0 ? mainpid : state->pid, err);
}

int container_start(const struct global_options *global, const char *id, pid_t notify_mainpid,
                    struct sb_error *err)
{
        _cleanup_state_dir_ struct state_dir sd = STATE_DIR_INIT;
        _cleanup_notify_proxy_ struct notify_proxy proxy = NOTIFY_PROXY_INIT;
        const char *notify = notify_socket_host();
        struct oci_config *config = NULL;
        struct oci_state *state;
        int ret = -1;

        state = state_dir_open_state(global->root, id, &sd, err);
        if (state == NULL)
                return -1;
        const char *status = container_status(state);
        if (strcmp(status, "creating") == 0) {
                sb_fail(err, 0,
                        "cannot start container \"%s\": its create did not finish "
                        "(state: creating); delete --force removes it",
                        id);
                goto out;
        }
        if (strcmp(status, "created") != 0) {
                sb_fail(err, 0, "cannot start a container that is %s", status);
                goto out;
        }
        config = state_dir_load_config(&sd, err);
        if (config == NULL)
                goto out;
        /* Before anything runs: a socket that cannot be reached fails a
         * start that leaves the container as it was, created. */
        if (notify != NULL && notify_proxy_open(&sd, notify, &proxy, err) < 0)
                goto out;
        /* startContainer: in the container, with its paths, before the
         * process; its failure fails start and the container. */
        SB_FAULT_POINT("start.before-hooks");
        if (hooks_run(&config->hooks, HOOK_START_CONTAINER, state, ns_enter_pid, &state->pid, err) <
            0) {
                abort_start(state);
                goto out;
        }
        /* Written before the release, so that a full file system fails
         * start while the process still waits: never a running process
         * whose record says created. */
        state->started = true;
        if (state_dir_stage(&sd, state, err) < 0) {
                state->started = false;
                goto out;
        }
        SB_FAULT_POINT("start.before-fifo-read");
        if (release_through_fifo(&sd, state, err) < 0) {
                state_dir_drop_staged(&sd);
                goto out;
        }
        SB_FAULT_POINT("start.after-fifo-read");
        if (state_dir_commit_staged(&sd, err) < 0)
                goto out;
        SB_FAULT_POINT("start.after-state-update");
        unlinkat(sd.dir_fd, EXEC_FIFO, 0);
        SB_FAULT_POINT("start.after-fifo-removed");
        if (hooks_run(&config->hooks, HOOK_POSTSTART, state, NULL, NULL, err) < 0) {
                stop_after_poststart(state);
                goto out;
        }
        /* As runc's start: as long as the process lives and has not said
         * READY=1; systemd's TimeoutStartSec bounds it. */
        if (proxy.sock >= 0) {
                /* Without the lock: `state`, `kill` and `delete` of the
                 * container must not wait for its READY=1. */
                state_dir_release(&sd);
                if (forward_ready(&proxy, state, notify_mainpid, err) < 0)
                        goto out;
        }
        ret = 0;
out:
        oci_config_free(config);
        oci_state_free(state);
        return ret;
}
