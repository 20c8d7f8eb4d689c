#include "runtime/container/deadline_kill.h"

#include "common/error.h"
#include "runtime/cgroup/cgroup_manager.h"
#include "runtime/container/container_procs.h"

#include <errno.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

int deadline_kill(int pidfd, int pid, const char *cgroup_path, struct sb_error *err)
{
        int ret = 0;

        if (cgroup_path != NULL) {
                _cleanup_cgroup_ struct cgroup cg = CGROUP_INIT;
                if (cgroup_open(cgroup_path, &cg, err) == 0 && cgroup_kill_nowait(&cg, err) == 0)
                        return 0;
                /* Fall through: the pid namespace still bounds the container. */
                ret = -1;
        }
        struct sb_error ignored = { 0 };
        container_procs_signal_all(pid, SIGKILL, &ignored);
        sb_error_clear(&ignored);
        if (syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0) < 0 && errno != ESRCH)
                return sb_fail(err, errno, "kill container process %d", pid);
        if (ret < 0)
                sb_error_clear(err);
        return 0;
}
