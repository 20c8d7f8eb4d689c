/* sbrun-init: pid 1 of the container, started by bwrap from a sealed memfd
 * as `/proc/self/fd/MEMFD PLANFD`. It finishes the container setup that bwrap
 * cannot express, tells sbrun whether that worked, waits for `sbrun start`
 * and becomes the container process. The order of this file is the order of
 * what happens. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* openat2, close_range, setresuid, asprintf */
#endif
#include "runtime/init/handshake.h"
#include "runtime/init/init_console.h"
#include "runtime/init/init_creds.h"
#include "runtime/init/init_devices.h"
#include "runtime/init/init_fds.h"
#include "runtime/init/init_landlock.h"
#include "runtime/init/init_lsm.h"
#include "runtime/init/init_mounts.h"
#include "runtime/init/init_plan.h"
#include "runtime/init/init_sched.h"
#include "runtime/init/exec_lookup.h"

#include "common/cleanup.h"
#include "common/error.h"
#include "common/fs_util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/prctl.h>
#include <unistd.h>

#define MAX_PLAN_SIZE (64u << 20)

static int parse_fd(const char *s)
{
        char *end;
        errno = 0;
        long v = strtol(s, &end, 10);
        if (errno != 0 || end == s || *end != '\0' || v < 0 || v > INT_MAX)
                return -1;
        return (int)v;
}

/* bwrap passes the memfd we run from on to us (it is not CLOEXEC so that
 * bwrap can exec it). Left open, the container process would inherit a handle
 * on sbrun-init itself; it is sealed, but there is no reason to keep it. */
static void close_own_memfd(const char *argv0)
{
        static const char prefix[] = "/proc/self/fd/";
        struct stat self, fdst;

        if (argv0 == NULL || strncmp(argv0, prefix, sizeof(prefix) - 1) != 0)
                return;
        int fd = parse_fd(argv0 + sizeof(prefix) - 1);
        if (fd <= STDERR_FILENO || stat("/proc/self/exe", &self) < 0 || fstat(fd, &fdst) < 0)
                return;
        if (self.st_dev == fdst.st_dev && self.st_ino == fdst.st_ino)
                close(fd);
}

static int read_plan(const char *fd_arg, struct init_plan *plan, struct sb_error *err)
{
        _cleanup_close_ int fd = parse_fd(fd_arg);
        _cleanup_free_ uint8_t *buf = NULL;
        size_t len = 0, cap = 0;

        if (fd < 0)
                return sb_fail(err, EINVAL, "plan fd %s is not a file descriptor number", fd_arg);
        for (;;) {
                if (len == cap) {
                        cap = cap ? cap * 2 : 16384;
                        if (cap > MAX_PLAN_SIZE)
                                return sb_fail(err, EFBIG, "read init plan");
                        uint8_t *grown = realloc(buf, cap);
                        if (grown == NULL)
                                return sb_fail(err, ENOMEM, "read init plan");
                        buf = grown;
                }
                ssize_t n = read(fd, buf + len, cap - len);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return sb_fail(err, errno, "read init plan from fd %d", fd);
                if (n == 0)
                        break;
                len += (size_t)n;
        }
        return init_plan_decode(buf, len, plan, err);
}

/* Into the container's cgroup before anything else of the container is
 * made: the limits hold for the mounts, devices and the process from here
 * on, while the pages sbrun and bwrap touched to get here stay charged to
 * the caller's cgroup (a charge does not move with a migrating process).
 * A container with a small memory limit thus pays only for itself, as
 * with crun. The fd was opened by sbrun on the host, and the kernel checks
 * the write against that opener, not against this process's user and
 * cgroup namespaces. A new cgroup namespace comes right after, so that its
 * root is this cgroup, and before the cgroup2 mount, which shows that
 * root. */
static int join_cgroup(struct init_plan *plan, struct sb_error *err)
{
        if (plan->cgroup_procs_fd >= 0) {
                int r = sb_write_all(plan->cgroup_procs_fd, "0", 1);
                int saved = errno;
                close(plan->cgroup_procs_fd);
                plan->cgroup_procs_fd = -1;
                if (r < 0)
                        return sb_fail(err, saved,
                                       "join the container's cgroup (write 0 to its cgroup.procs)");
        }
        if (plan->unshare_cgroupns && unshare(CLONE_NEWCGROUP) < 0)
                return sb_fail(err, errno, "linux.namespaces: unshare the cgroup namespace");
        return 0;
}

static int setup_container(const struct init_plan *plan, int *console_slave, struct sb_error *err)
{
        if (init_apply_mounts(plan->mounts, plan->n_mounts, err) < 0)
                return -1;
        if (init_create_devices(plan->devices, plan->n_devices, err) < 0)
                return -1;
        /* The engine gets the pty master during create, as with runc; only
         * the container's first process owns /dev/console. */
        if (plan->terminal) {
                *console_slave = init_console_setup(plan, plan->fifo_fd >= 0, err);
                if (*console_slave < 0)
                        return -1;
        }
        if (plan->domainname != NULL &&
            setdomainname(plan->domainname, strlen(plan->domainname)) < 0)
                return sb_fail(err, errno, "setdomainname %s", plan->domainname);
        if (plan->readonly_root && init_remount_root_readonly(err) < 0)
                return -1;
        /* bwrap's --chdir ran before our mounts, which may cover the cwd. */
        if (plan->cwd != NULL && init_enter_cwd(plan->cwd, err) < 0)
                return -1;
        return 0;
}

/* sbrun turns HANDSHAKE_ERROR and the message into the error `create`
 * reports: one line. */
static void report_failure(int ready_fd, const struct sb_error *err)
{
        _cleanup_free_ char *text = sb_error_text(err);
        if (ready_fd < 0 || text == NULL) {
                init_print_error(err);
                return;
        }
        const char failed = HANDSHAKE_ERROR;
        for (char *p = text; *p; p++)
                if (*p == '\n')
                        *p = ' ';
        if (sb_write_all(ready_fd, &failed, 1) < 0 ||
            sb_write_all(ready_fd, text, strlen(text)) < 0)
                init_print_error(err);
        close(ready_fd);
}

/* After the mounts, as the process will see its root: a program that a
 * bind mount brings (podman --init's /run/podman-init over an empty file
 * in the image) is found, one under a fresh tmpfs is not. A failure fails
 * create through the ready pipe, in runc's words. */
static int find_executable(struct init_plan *plan, struct sb_error *err)
{
        if (plan->exec_path != NULL)
                return 0;
        if (plan->args == NULL || plan->args[0] == NULL)
                return sb_fail(err, EINVAL, "process.args: no program");
        _cleanup_close_ int root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (root < 0)
                return sb_fail(err, errno, "open /");
        return exec_lookup(root, plan->args[0], plan->cwd ? plan->cwd : "/", plan->env,
                           &plan->exec_path, err);
}

/* With a terminal the container's stdio is the pty alone, from before
 * create returns: the caller of create (containerd's shim, through go-runc)
 * reads create's stdout and stderr until EOF, which would never come while
 * the container held them, as it did until start. Later errors of the init
 * go to the pty, as with runc. */
static int attach_terminal(struct init_plan *plan, int *console_slave, struct sb_error *err)
{
        if (*console_slave < 0)
                return 0;
        if (init_console_attach(*console_slave, err) < 0)
                return -1;
        *console_slave = -1;
        if (plan->stderr_fd > STDERR_FILENO)
                close(plan->stderr_fd);
        plan->stderr_fd = -1;
        return 0;
}

static int report_ready(int ready_fd, struct sb_error *err)
{
        const char ready = HANDSHAKE_READY;

        if (ready_fd < 0)
                return 0;
        if (sb_write_all(ready_fd, &ready, 1) < 0)
                return sb_fail(err, errno, "report readiness");
        close(ready_fd);
        return 0;
}

int main(int argc, char **argv)
{
        struct init_plan plan = { 0 };
        struct sb_error err = { 0 };
        int console_slave = -1;

        /* Until the container's process is exec'd we hold capabilities the
         * container's processes lack; they must not reach our memory or fds
         * through /proc. The final execve makes the process dumpable again. */
        if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0) {
                sb_fail(&err, errno, "make sbrun-init non-dumpable");
                init_print_error(&err);
                return 1;
        }
        close_own_memfd(argv[0]);
        if (argc != 2) {
                sb_fail(&err, 0, "usage: sbrun-init PLAN-FD (started by sbrun, not by hand)");
                init_print_error(&err);
                return 1;
        }
        if (read_plan(argv[1], &plan, &err) < 0) {
                init_print_error(&err);
                return 1;
        }
        /* The labels before the ready report, as runc applies them before it
         * syncs with its parent: a profile the kernel refuses fails create. */
        if (init_affinity_initial(&plan, &err) < 0 || join_cgroup(&plan, &err) < 0 ||
            init_affinity_reset(&plan, &err) < 0 ||
            setup_container(&plan, &console_slave, &err) < 0 || find_executable(&plan, &err) < 0 ||
            attach_terminal(&plan, &console_slave, &err) < 0 ||
            init_set_lsm_labels(&plan, &err) < 0 ||
            init_landlock_prepare(&plan, &plan.landlock_ruleset_fd, &err) < 0) {
                report_failure(plan.ready_fd, &err);
                return 1;
        }
        if (report_ready(plan.ready_fd, &err) < 0 ||
            (plan.fifo_fd >= 0 && init_wait_exec_fifo(plan.fifo_fd, &err) < 0)) {
                init_print_error(&err);
                return 1;
        }
        init_become_process(&plan);
}
