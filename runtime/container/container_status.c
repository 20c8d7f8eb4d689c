#include "runtime/container/container_status.h"

#include "common/cleanup.h"
#include "common/error.h"
#include "oci/state.h"
#include "runtime/cgroup/cgroup_manager.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int proc_stat_identity(int pid, uint64_t *start_time, char *state_letter)
{
        char path[64], buf[1024];
        _cleanup_close_ int fd = -1;
        ssize_t n;

        snprintf(path, sizeof(path), "/proc/%d/stat", pid);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
                errno = ESRCH;
                return -1;
        }
        n = read(fd, buf, sizeof(buf) - 1);
        if (n <= 0) {
                errno = ESRCH;
                return -1;
        }
        buf[n] = '\0';
        /* comm may contain spaces and parentheses: fields start after the last ')'. */
        char *p = strrchr(buf, ')');
        if (p == NULL || p[1] != ' ') {
                errno = EINVAL;
                return -1;
        }
        p += 2;
        if (state_letter)
                *state_letter = *p;
        /* p is at field 3; starttime is field 22. */
        for (int field = 3; field < 22; field++) {
                p = strchr(p, ' ');
                if (p == NULL) {
                        errno = EINVAL;
                        return -1;
                }
                p++;
        }
        if (start_time)
                *start_time = strtoull(p, NULL, 10);
        return 0;
}

bool container_process_alive(const struct oci_state *state)
{
        uint64_t start = 0;
        char letter = 0;

        if (state->pid <= 0)
                return false;
        /* A process that is gone costs one signal-0 probe rather than a failed
         * lookup in /proc: `sbrun list` asks this of every stopped container.
         * Any other answer (alive, or EPERM) goes on to the identity check. */
        if (kill(state->pid, 0) < 0 && errno == ESRCH)
                return false;
        if (proc_stat_identity(state->pid, &start, &letter) < 0)
                return false;
        return start == state->pid_start_time && letter != 'Z' && letter != 'X';
}

const char *container_status(const struct oci_state *state)
{
        if (!container_process_alive(state))
                return "stopped";
        if (oci_state_marker(state, CREATE_MARKER) != NULL)
                return "creating";
        /* A frozen cgroup is "paused", as runc and crun report it. */
        if (state->cgroup_path != NULL && cgroup_path_frozen(state->cgroup_path) == 1)
                return "paused";
        return state->started ? "running" : "created";
}

int container_pidfd(const struct oci_state *state, struct sb_error *err)
{
        int fd;

        if (state->pid <= 0)
                return sb_fail(err, ESRCH, "container %s has no process", state->id);
        fd = (int)syscall(SYS_pidfd_open, state->pid, 0);
        if (fd < 0)
                return sb_fail(err, errno == ESRCH ? ESRCH : errno, "container %s: process %d",
                               state->id, state->pid);
        /* Checked after opening: from here on the pidfd pins the process. */
        if (!container_process_alive(state)) {
                close(fd);
                return sb_fail(err, ESRCH, "container %s is not running", state->id);
        }
        return fd;
}

int pidfd_wait_exit(int pidfd, int timeout_ms)
{
        struct pollfd pfd = { .fd = pidfd, .events = POLLIN };
        int r;

        do
                r = poll(&pfd, 1, timeout_ms);
        while (r < 0 && errno == EINTR);
        return r > 0 ? 0 : -1;
}
