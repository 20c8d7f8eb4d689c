#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* openat2, close_range, setresuid, asprintf */
#endif
#include "runtime/init/init_creds.h"
#include "runtime/init/init_landlock.h"

#include "runtime/init/init_console.h"
#include "runtime/init/init_fds.h"
#include "runtime/init/init_notify.h"
#include "runtime/init/init_sched.h"

#include "common/cleanup.h"
#include "common/error.h"

#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/keyctl.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX_CAP 63 /* the plan carries the sets as 64-bit masks */

static bool has_cap(uint64_t set, int cap)
{
        return cap <= MAX_CAP && (set >> cap) & 1;
}

static int last_cap(void)
{
        char buf[16] = { 0 };
        _cleanup_close_ int fd = open("/proc/sys/kernel/cap_last_cap", O_RDONLY | O_CLOEXEC);
        if (fd < 0 || read(fd, buf, sizeof(buf) - 1) <= 0)
                return MAX_CAP; /* PR_CAPBSET_DROP's EINVAL tells us where to stop */
        return atoi(buf);
}

static int drop_bounding(uint64_t keep, struct sb_error *err)
{
        int last = last_cap();
        for (int cap = 0; cap <= last; cap++) {
                if (has_cap(keep, cap))
                        continue;
                if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0) {
                        if (errno == EINVAL)
                                continue; /* unknown to this kernel */
                        return sb_fail(err, errno, "drop capability %d from the bounding set", cap);
                }
        }
        return 0;
}

/* A user namespace whose setgroups is "deny" refuses even an empty list;
 * with no groups asked for there is nothing to refuse. */
static bool setgroups_denied(void)
{
        char buf[8] = { 0 };
        _cleanup_close_ int fd = open("/proc/self/setgroups", O_RDONLY | O_CLOEXEC);
        return fd >= 0 && read(fd, buf, sizeof(buf) - 1) > 0 && strncmp(buf, "deny", 4) == 0;
}

static int set_groups(const struct init_plan *plan, struct sb_error *err)
{
        size_t n = plan->n_additional_gids;
        _cleanup_free_ gid_t *gids = calloc(n + 1, sizeof(gid_t));
        if (gids == NULL)
                return sb_fail(err, ENOMEM, "setgroups");
        for (size_t i = 0; i < n; i++)
                gids[i] = plan->additional_gids[i];
        if (setgroups(n, gids) < 0) {
                if (n == 0 && errno == EPERM && setgroups_denied())
                        return 0;
                return sb_fail(err, errno, "setgroups (%zu groups)", n);
        }
        return 0;
}

static int set_capabilities(const struct init_plan *plan, struct sb_error *err)
{
        struct __user_cap_header_struct header = { .version = _LINUX_CAPABILITY_VERSION_3 };
        struct __user_cap_data_struct data[2] = {
                { .effective = (uint32_t)plan->cap_effective,
                  .permitted = (uint32_t)plan->cap_permitted,
                  .inheritable = (uint32_t)plan->cap_inheritable },
                { .effective = (uint32_t)(plan->cap_effective >> 32),
                  .permitted = (uint32_t)(plan->cap_permitted >> 32),
                  .inheritable = (uint32_t)(plan->cap_inheritable >> 32) },
        };
        if (syscall(SYS_capset, &header, data) < 0)
                return sb_fail(err, errno,
                               "capset (effective %#llx, permitted %#llx, inheritable %#llx)",
                               (unsigned long long)plan->cap_effective,
                               (unsigned long long)plan->cap_permitted,
                               (unsigned long long)plan->cap_inheritable);

        if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0)
                return sb_fail(err, errno, "clear the ambient capabilities");
        for (int cap = 0; cap <= MAX_CAP; cap++)
                if (has_cap(plan->cap_ambient, cap) &&
                    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, cap, 0, 0) < 0)
                        return sb_fail(err, errno, "raise ambient capability %d", cap);
        return 0;
}

int init_set_credentials(const struct init_plan *plan, struct sb_error *err)
{
        bool caps = plan->has_capabilities;

        /* Dropping from the bounding set needs CAP_SETPCAP, which is gone
         * once the uid changes: do it first. */
        if (caps && drop_bounding(plan->cap_bounding, err) < 0)
                return -1;
        /* Without KEEPCAPS, setresuid to a non-zero uid empties the permitted
         * set and capset could not give the process its capabilities back. */
        if (caps && prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) < 0)
                return sb_fail(err, errno, "PR_SET_KEEPCAPS");
        if (set_groups(plan, err) < 0)
                return -1;
        if (setresgid(plan->gid, plan->gid, plan->gid) < 0)
                return sb_fail(err, errno, "setresgid %u", plan->gid);
        if (setresuid(plan->uid, plan->uid, plan->uid) < 0)
                return sb_fail(err, errno, "setresuid %u", plan->uid);
        if (!caps)
                return 0;
        if (prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0) < 0)
                return sb_fail(err, errno, "PR_SET_KEEPCAPS");
        return set_capabilities(plan, err);
}

int init_set_process_attrs(const struct init_plan *plan, struct sb_error *err)
{
        if (plan->has_umask)
                umask((mode_t)plan->umask & 0777);
        if (plan->no_new_privileges && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
                return sb_fail(err, errno, "PR_SET_NO_NEW_PRIVS");
        return 0;
}

static uint32_t seccomp_flags(const struct init_plan *plan, size_t i)
{
        return plan->seccomp_program_flags ? plan->seccomp_program_flags[i] : 0;
}

static bool wants_listener(const struct init_plan *plan)
{
        for (size_t i = 0; i < plan->n_seccomp_programs; i++)
                if (seccomp_flags(plan, i) & SECCOMP_FILTER_FLAG_NEW_LISTENER)
                        return true;
        return false;
}

int init_load_seccomp(const struct init_plan *plan, struct sb_error *err)
{
        struct init_notify notify = { .listener_sock = -1 };

        /* Everything the hand-over needs is received before any filter. */
        if (wants_listener(plan) &&
            init_notify_receive(plan->seccomp_notify_fd, &notify, err) < 0) {
                init_notify_release(&notify);
                return -1;
        }
        for (size_t i = 0; i < plan->n_seccomp_programs; i++) {
                size_t size = plan->seccomp_program_sizes[i];
                size_t len = size / sizeof(struct sock_filter);
                unsigned int flags = seccomp_flags(plan, i);
                if (size == 0 || size % sizeof(struct sock_filter) != 0 || len > BPF_MAXINSNS) {
                        init_notify_release(&notify);
                        return sb_fail(err, EINVAL,
                                       "seccomp program %zu: %zu bytes is not a BPF program", i,
                                       size);
                }
                struct sock_fprog prog = {
                        .len = (unsigned short)len,
                        .filter = (struct sock_filter *)plan->seccomp_programs[i],
                };
                long rc = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &prog);
                if (rc >= 0 && (flags & SECCOMP_FILTER_FLAG_NEW_LISTENER)) {
                        /* rc is the listener fd; a failed send stops the exec. */
                        if (init_notify_deliver(&notify, (int)rc, err) < 0)
                                return -1;
                        continue;
                }
                if (rc >= 0)
                        continue;
                /* Flags need seccomp(2); prctl (before Linux 3.17) takes none. */
                if (errno != ENOSYS || flags != 0 ||
                    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) < 0) {
                        int saved = errno;
                        init_notify_release(&notify);
                        return sb_fail(err, saved, "load seccomp program %zu (flags %#x)", i,
                                       flags);
                }
        }
        init_notify_release(&notify);
        return 0;
}

/* close_fds keeps fds below 3 + preserve_fds; the notify channel sits among
 * the launcher's fds above them and must live until the filter is loaded. */
static int close_fds_keeping_notify(const struct init_plan *plan, struct sb_error *err)
{
        int keep = wants_listener(plan) ? plan->seccomp_notify_fd : -1;
        int first = 3 + (plan->preserve_fds > 0 ? plan->preserve_fds : 0);

        if (keep < first)
                return init_close_fds(plan->preserve_fds, err);
        if (init_close_fds(keep - 2, err) < 0) /* closes from keep + 1 */
                return -1;
        for (int fd = first; fd < keep; fd++)
                close(fd);
        return 0;
}

_Noreturn void init_exec(const struct init_plan *plan)
{
        static char *const empty[] = { NULL };
        const char *path = plan->exec_path ? plan->exec_path : plan->args[0];

        if (path != NULL)
                execve(path, plan->args, plan->env ? plan->env : empty);
        int saved = path ? errno : EINVAL;
        struct sb_error err = { 0 };
        sb_fail(&err, saved, "exec %s", path ? path : "(no program)");
        init_print_error(&err);
        /* The shell's and runc's codes: 127 for a program that is not
         * there, 126 for every other failure (not executable, an argument
         * list over the kernel's limit, a bad binary), which engines map
         * to "cannot be run". */
        _exit(saved == ENOENT || path == NULL ? 127 : 126);
}

/* Keys live in the kernel, not in a namespace: without a session keyring of
 * its own the container would share the one sbrun was started with. */
static int join_session_keyring(const char *name, struct sb_error *err)
{
        if (name == NULL)
                return 0;
        if (syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, name) < 0 && errno != ENOSYS)
                return sb_fail(err, errno, "join a new session keyring");
        return 0;
}

/* Without a terminal of its own the process still shares the caller's
 * session and controlling terminal: it could read /dev/tty, get the
 * terminal's signals, and type into the caller's shell with TIOCSTI. A new
 * session has no controlling terminal (runc does the same); `sbrun run`
 * forwards the terminal's signals. */
static int leave_session(struct sb_error *err)
{
        if (setsid() < 0 && !(errno == EPERM && getsid(0) == getpid()))
                return sb_fail(err, errno, "setsid");
        return 0;
}

/* Ignored signals survive fork and execve: what the engine ignored (nohup's
 * SIGHUP, a shell's `trap ''`, a Go parent's SIGPIPE) would reach the
 * container's process, whose shell then may not even trap them (POSIX: a
 * signal ignored on entry cannot be trapped), and whose writes to a closed
 * pipe would not end it. The process starts as a fresh one does: every
 * disposition at its default, nothing blocked. Raw system calls, because
 * the libc refuses sigaction for the signals it reserves (32-34), which an
 * engine built on another libc may have left ignored. An all-zero kernel
 * sigaction is SIG_DFL with no flags and an empty mask, whatever the
 * architecture's field order. */
static void reset_signals(void)
{
        static const unsigned long dfl[4];
        static const unsigned long none[2];

        for (int sig = 1; sig < _NSIG; sig++)
                if (sig != SIGKILL && sig != SIGSTOP)
                        (void)syscall(SYS_rt_sigaction, sig, dfl, NULL, _NSIG / 8);
        (void)syscall(SYS_rt_sigprocmask, SIG_SETMASK, none, NULL, _NSIG / 8);
}

_Noreturn void init_become_process(const struct init_plan *plan)
{
        struct sb_error err = { 0 };

        if (init_redirect_stderr(plan->stderr_fd, &err) < 0 ||
            init_landlock_enforce(plan->landlock_ruleset_fd, &err) < 0)
                goto fail;
        if (join_session_keyring(plan->session_keyring, &err) < 0)
                goto fail;
        /* With a terminal the init attached the pty already. */
        if (!plan->terminal && leave_session(&err) < 0)
                goto fail;
        /* The scheduling attributes while the init still holds its
         * capabilities: a nice the caller's raised needs CAP_SYS_NICE to
         * come back down to what the config asks. */
        if (init_set_sched_attrs(plan, &err) < 0 || init_set_credentials(plan, &err) < 0 ||
            init_set_process_attrs(plan, &err) < 0 || close_fds_keeping_notify(plan, &err) < 0)
                goto fail;
        reset_signals();
        if (init_affinity_final(plan, &err) < 0 || init_load_seccomp(plan, &err) < 0)
                goto fail;
        init_exec(plan);
fail:
        init_print_error(&err);
        _exit(1);
}
