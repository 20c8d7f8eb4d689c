#include "runtime/sandbox/launcher.h"

#include "config.h"

#include "common/error.h"
#include "common/fs_util.h"
#include "runtime/init/handshake.h"
#include "runtime/sandbox/bwrap_binary.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <sys/resource.h>
#include <sys/prctl.h>
#include <unistd.h>

static const int ns_clone_flags[OCI_NS_COUNT] = {
        [OCI_NS_PID] = CLONE_NEWPID,       [OCI_NS_NETWORK] = CLONE_NEWNET,
        [OCI_NS_MOUNT] = CLONE_NEWNS,      [OCI_NS_IPC] = CLONE_NEWIPC,
        [OCI_NS_UTS] = CLONE_NEWUTS,       [OCI_NS_USER] = CLONE_NEWUSER,
        [OCI_NS_CGROUP] = CLONE_NEWCGROUP, [OCI_NS_TIME] = CLONE_NEWTIME,
};

/* In the child only: report and die. The message goes where create reads. */
static _Noreturn void launcher_die(int ready_fd, const char *what, int errnum)
{
        char buf[512];
        int n = snprintf(buf, sizeof(buf), "%c%s%s%s", HANDSHAKE_ERROR, what, errnum ? ": " : "",
                         errnum ? strerror(errnum) : "");
        if (n > 0)
                sb_write_all(ready_fd, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
        _exit(1);
}

static int write_sysctl(const char *key, const char *value)
{
        char path[512];
        int fd;

        /* "net.ipv4.ip_forward" → /proc/sys/net/ipv4/ip_forward. The host's
         * /proc resolves namespaced entries against this process's
         * namespaces, which are now the container's. */
        if (snprintf(path, sizeof(path), "/proc/sys/%s", key) >= (int)sizeof(path))
                return -1;
        for (char *p = path + strlen("/proc/sys/"); *p; p++) {
                if (*p == '.')
                        *p = '/';
        }
        fd = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0)
                return -1;
        int r = sb_write_all(fd, value, strlen(value));
        int saved = errno;
        close(fd);
        errno = saved;
        return r;
}

/* Become root of the container's user namespace: a joined one, or a new
 * one that sbrun maps from outside while we wait on the sync socket. */
static void enter_user_namespace(const struct launcher_config *lc, int ready_fd)
{
        const char unshared = HANDSHAKE_USERNS_UNSHARED;
        char byte = 0;

        if (lc->ns_fds[OCI_NS_USER] >= 0) {
                if (setns(lc->ns_fds[OCI_NS_USER], CLONE_NEWUSER) < 0)
                        launcher_die(ready_fd, "linux.namespaces: join user namespace", errno);
        } else if (lc->unshare[OCI_NS_USER]) {
                if (unshare(CLONE_NEWUSER) < 0)
                        launcher_die(ready_fd, "unshare user namespace", errno);
                /* /proc/<pid>/uid_map of a non-dumpable process belongs to
                 * root: a rootless create could not open it, nor newuidmap
                 * accept the pid. Dumpable only while sbrun maps us, as
                 * runc's nsexec does; nothing of the container runs yet. */
                if (prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) < 0)
                        launcher_die(ready_fd, "user namespace: make the launcher dumpable", errno);
                if (write(lc->userns_sync, &unshared, 1) != 1 ||
                    read(lc->userns_sync, &byte, 1) != 1 || byte != HANDSHAKE_USERNS_MAPPED)
                        launcher_die(ready_fd, "user namespace: mappings were not written", 0);
                if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
                        launcher_die(ready_fd, "launcher: make the process non-dumpable", errno);
        } else {
                return;
        }
        /* bwrap must run as uid 0 of the namespace to build the rootfs: host
         * root is usually not mapped in it (docs/design.md, bwrap
         * behaviours: "bwrap cannot join most namespaces"). */
        if (setresgid(0, 0, 0) < 0 || setresuid(0, 0, 0) < 0)
                launcher_die(ready_fd, "user namespace: become root (is 0 mapped?)", errno);
        if (setgroups(0, NULL) < 0 && errno != EPERM)
                launcher_die(ready_fd, "user namespace: setgroups", errno);
}

static void enter_namespaces(const struct launcher_config *lc, int ready_fd)
{
        int unshare_flags = 0;
        char what[128];

        /* Joined namespaces first, while we hold the host's capabilities:
         * from inside a new user namespace the host-owned ones are out of
         * reach. New ones come after it, so that it owns them. */
        for (int t = 0; t < OCI_NS_COUNT; t++) {
                /* A pid namespace is joined by bwrap (--pidns): a proc
                 * mounted after our setns would show the host's pids. */
                if (t == OCI_NS_USER || t == OCI_NS_PID)
                        continue;
                if (lc->ns_fds[t] >= 0 && setns(lc->ns_fds[t], ns_clone_flags[t]) < 0) {
                        snprintf(what, sizeof(what), "linux.namespaces: join %s namespace",
                                 oci_namespace_type_name(t));
                        launcher_die(ready_fd, what, errno);
                }
                if (lc->unshare[t])
                        unshare_flags |= ns_clone_flags[t];
        }
        enter_user_namespace(lc, ready_fd);
        if (unshare_flags != 0 && unshare(unshare_flags) < 0)
                launcher_die(ready_fd, "unshare namespaces", errno);
}

static void apply_identity(const struct launcher_config *lc, int ready_fd)
{
        if (lc->hostname && sethostname(lc->hostname, strlen(lc->hostname)) < 0)
                launcher_die(ready_fd, "hostname", errno);
        if (lc->domainname && setdomainname(lc->domainname, strlen(lc->domainname)) < 0)
                launcher_die(ready_fd, "domainname", errno);
        for (size_t i = 0; i < lc->n_sysctl; i++) {
                if (write_sysctl(lc->sysctl[i].key, lc->sysctl[i].value) < 0) {
                        char what[300];
                        snprintf(what, sizeof(what), "linux.sysctl: %s=%s", lc->sysctl[i].key,
                                 lc->sysctl[i].value);
                        launcher_die(ready_fd, what, errno);
                }
        }
}

static void apply_limits(const struct launcher_config *lc, int ready_fd)
{
        for (size_t i = 0; i < lc->n_rlimits; i++) {
                struct rlimit rl = { .rlim_cur = lc->rlimits[i].soft,
                                     .rlim_max = lc->rlimits[i].hard };
                if (setrlimit(lc->rlimits[i].resource, &rl) < 0) {
                        char what[128];
                        snprintf(what, sizeof(what), "process.rlimits[%zu]: %s", i,
                                 lc->rlimits[i].type);
                        launcher_die(ready_fd, what, errno);
                }
        }
        if (lc->has_oom_score_adj) {
                char value[32];
                int fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
                int n = snprintf(value, sizeof(value), "%d", lc->oom_score_adj);
                if (fd < 0 || sb_write_all(fd, value, (size_t)n) < 0)
                        launcher_die(ready_fd, "process.oomScoreAdj", errno);
                close(fd);
        }
}

/* Move every fd bwrap and the init need to its fixed number. Sources are
 * first lifted above every target so no dup2 overwrites a pending source. */
static void arrange_fds(struct launcher_config *lc, int *ready_fd)
{
        int lifted[LFD_COUNT];
        int error_pipe;
        int first_extra = launcher_fd_number(lc->preserve_fds, LFD_COUNT);
        int floor = first_extra + (int)lc->n_extra_fds + 1;
        int *extra = lc->n_extra_fds ? calloc(lc->n_extra_fds, sizeof(int)) : NULL;

        if (lc->n_extra_fds && extra == NULL)
                launcher_die(*ready_fd, "launcher: fds", ENOMEM);

        /* Fds still needed after the moves are lifted too. */
        for (int t = 0; t < OCI_NS_COUNT; t++) {
                if (lc->ns_fds[t] >= 0 &&
                    (lc->ns_fds[t] = fcntl(lc->ns_fds[t], F_DUPFD_CLOEXEC, floor)) < 0)
                        launcher_die(*ready_fd, "launcher: dup", errno);
        }
        if (lc->userns_sync >= 0 &&
            (lc->userns_sync = fcntl(lc->userns_sync, F_DUPFD_CLOEXEC, floor)) < 0)
                launcher_die(*ready_fd, "launcher: dup", errno);

        for (int i = 0; i < LFD_COUNT; i++) {
                lifted[i] = fcntl(lc->fds[i], F_DUPFD_CLOEXEC, floor);
                if (lifted[i] < 0)
                        launcher_die(*ready_fd, "launcher: dup", errno);
        }
        for (size_t i = 0; i < lc->n_extra_fds; i++) {
                extra[i] = fcntl(lc->extra_fds[i], F_DUPFD_CLOEXEC, floor);
                if (extra[i] < 0)
                        launcher_die(*ready_fd, "launcher: dup", errno);
        }
        *ready_fd = lifted[LFD_READY];
        error_pipe = fcntl(lc->error_pipe, F_DUPFD_CLOEXEC, floor);
        if (error_pipe < 0)
                launcher_die(*ready_fd, "launcher: dup", errno);
        if (lc->stdout_fd >= 0 &&
            (lc->stdout_fd = fcntl(lc->stdout_fd, F_DUPFD_CLOEXEC, floor)) < 0)
                launcher_die(*ready_fd, "launcher: dup", errno);
        for (int i = 0; i < LFD_COUNT; i++) {
                int target = launcher_fd_number(lc->preserve_fds, (enum launcher_fd)i);
                /* dup2 leaves the target without FD_CLOEXEC: these cross the exec. */
                if (dup2(lifted[i], target) < 0)
                        launcher_die(*ready_fd, "launcher: dup2", errno);
        }
        for (size_t i = 0; i < lc->n_extra_fds; i++) {
                if (dup2(extra[i], first_extra + (int)i) < 0)
                        launcher_die(*ready_fd, "launcher: dup2", errno);
        }
        free(extra);
        /* Preserved fds are the caller's to pass: make sure they survive exec. */
        for (int fd = 3; fd < 3 + lc->preserve_fds; fd++) {
                int flags = fcntl(fd, F_GETFD);
                if (flags < 0 || fcntl(fd, F_SETFD, flags & ~FD_CLOEXEC) < 0)
                        launcher_die(*ready_fd, "--preserve-fds: fd is not open", errno);
        }
        if (dup2(error_pipe, STDERR_FILENO) < 0)
                launcher_die(*ready_fd, "launcher: dup2 stderr", errno);
        if (lc->stdout_fd >= 0 && dup2(lc->stdout_fd, STDOUT_FILENO) < 0)
                launcher_die(*ready_fd, "launcher: dup2 stdout", errno);
}

pid_t launcher_spawn(const struct launcher_config *lc, struct sb_error *err)
{
        pid_t pid = fork();

        if (pid < 0)
                return sb_fail(err, errno, "fork the launcher");
        if (pid > 0)
                return pid;

        struct launcher_config local = *lc;
        int ready_fd = lc->fds[LFD_READY];
        sigset_t none;
        char moved = 0;

        /* Nothing of the container is forked before we are in its scope. */
        if (lc->attach_wait >= 0) {
                close(lc->attach_other);
                if (read(lc->attach_wait, &moved, 1) != 1 || moved != HANDSHAKE_ATTACHED)
                        launcher_die(ready_fd, "launcher: not moved into the container's scope", 0);
                close(lc->attach_wait);
                local.attach_wait = -1;
        }
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        signal(SIGPIPE, SIG_DFL);
        /* A joined pid namespace may already hold the container's processes
         * (see exec_container.c); bwrap's execve makes it dumpable again, but
         * bwrap runs no container code. */
        if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
                launcher_die(ready_fd, "launcher: make the process non-dumpable", errno);

        /* Limits first: raising an rlimit or lowering oom_score_adj needs
         * the host's capabilities, gone once in a new user namespace. The fd
         * moves come before them, so a low RLIMIT_NOFILE cannot stop those. */
        arrange_fds(&local, &ready_fd);
        apply_limits(&local, ready_fd);
        enter_namespaces(&local, ready_fd);
        apply_identity(&local, ready_fd);

        char *const empty_env[] = { NULL };
        execve(sbrun_bwrap_path, local.bwrap_argv, empty_env);
        launcher_die(ready_fd, "exec bwrap", errno);
}
