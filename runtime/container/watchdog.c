#include "runtime/container/watchdog.h"

#include "common/cleanup.h"
#include "common/error.h"
#include "runtime/container/container_audit.h"
#include "runtime/container/deadline_kill.h"
#include "runtime/container/global_options.h"
#include "runtime/container/verdict.h"
#include "runtime/container/wall_clock.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define WATCHDOG_PIDFD 3

static void quiet_stdio(void)
{
        int null = open("/dev/null", O_RDWR | O_CLOEXEC);
        for (int fd = 0; fd < 3 && null >= 0; fd++)
                dup2(null, fd);
}

static __attribute__((noreturn)) void watch(const struct global_options *global, const char *id,
                                            int pid, const char *cgroup_path, int64_t deadline)
{
        struct pollfd pfd = { .fd = WATCHDOG_PIDFD, .events = POLLIN };
        sigset_t none;

        for (;;) {
                int64_t left = deadline - wall_clock_now_ms();
                if (left <= 0)
                        break;
                int r = poll(&pfd, 1, left > INT32_MAX ? INT32_MAX : (int)left);
                if (r > 0)
                        _exit(0); /* the container exited first */
                if (r < 0 && errno != EINTR)
                        _exit(1);
        }
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        struct sb_error err = { 0 };
        deadline_kill(WATCHDOG_PIDFD, pid, cgroup_path, &err);
        sb_error_clear(&err);
        struct verdict v = { .kind = VERDICT_TIMEOUT,
                             .exit_code = 128 + SIGKILL,
                             .signal = SIGKILL };
        verdict_record(global->root, id, &v, &err);
        sb_error_clear(&err);
        container_audit_verdict(global, id, &v, cgroup_path);
        _exit(0);
}

int watchdog_spawn(const struct global_options *global, const char *id, int pid,
                   const char *cgroup_path, int seconds, struct sb_error *err)
{
        int64_t deadline = wall_clock_now_ms() + (int64_t)seconds * 1000;
        _cleanup_close_ int pidfd = (int)syscall(SYS_pidfd_open, (pid_t)pid, 0);
        int status;

        if (pidfd < 0)
                return sb_fail(err, errno, "watchdog: pidfd of container process %d", pid);
        pid_t child = fork();
        if (child < 0)
                return sb_fail(err, errno, "watchdog: fork");
        if (child == 0) {
                setsid();
                if (fork() != 0)
                        _exit(0);
                prctl(PR_SET_NAME, "sbrun-watchdog");
                quiet_stdio();
                /* Nothing else: not the state dir's lock, not a log or a
                 * pipe a reader of the container waits on. */
                if (dup2(pidfd, WATCHDOG_PIDFD) < 0)
                        _exit(1);
                syscall(SYS_close_range, WATCHDOG_PIDFD + 1, ~0U, 0);
                watch(global, id, pid, cgroup_path, deadline);
        }
        while (waitpid(child, &status, 0) < 0 && errno == EINTR)
                ;
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
                return sb_fail(err, 0, "watchdog: could not be started");
        return 0;
}
