#include "runtime/host/host_probe.h"

#include "common/cleanup.h"
#include "common/error.h"
#include "runtime/cgroup/cgroup_root.h"
#include "runtime/cgroup/systemd_scope.h"
#include "runtime/host/lsm_host.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef SECCOMP_FILTER_FLAG_TSYNC_ESRCH
#define SECCOMP_FILTER_FLAG_TSYNC_ESRCH (1UL << 4)
#endif

static void set(struct host_probe *p, bool available, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

static void set(struct host_probe *p, bool available, const char *fmt, ...)
{
        va_list ap;

        p->available = available;
        va_start(ap, fmt);
        vsnprintf(p->detail, sizeof(p->detail), fmt, ap);
        va_end(ap);
}

/* The first line of a /proc/sys file, or "absent". */
static void read_sysctl(const char *path, char *buf, size_t len)
{
        _cleanup_fclose_ FILE *f = fopen(path, "re");

        if (f == NULL || fgets(buf, (int)len, f) == NULL) {
                snprintf(buf, len, "absent");
                return;
        }
        buf[strcspn(buf, "\n")] = '\0';
}

/* ---------------------------------------------------------------------- */
/* namespaces */

/* The child's exit status is the errno of its unshare. */
static int unshare_in_child(int flag)
{
        int status;
        pid_t pid = fork();

        if (pid < 0)
                return errno;
        if (pid == 0)
                _exit(unshare(flag) == 0 ? 0 : (errno & 0xff));
        while (waitpid(pid, &status, 0) < 0)
                if (errno != EINTR)
                        return errno;
        if (!WIFEXITED(status))
                return EINTR;
        return WEXITSTATUS(status);
}

void host_probe_namespace(int flag, bool in_user, struct host_probe *p)
{
        char max[32], clone[32], apparmor[32];
        int e = unshare_in_child(flag | (in_user ? CLONE_NEWUSER : 0));

        if (flag != CLONE_NEWUSER) {
                if (e == 0)
                        set(p, true, "unshare works");
                else
                        set(p, false, "unshare: %s", strerror(e));
                return;
        }
        read_sysctl("/proc/sys/user/max_user_namespaces", max, sizeof(max));
        read_sysctl("/proc/sys/kernel/unprivileged_userns_clone", clone, sizeof(clone));
        read_sysctl("/proc/sys/kernel/apparmor_restrict_unprivileged_userns", apparmor,
                    sizeof(apparmor));
        /* The last two restrict unprivileged users only (rootless sbrun);
         * a max of 0 stops root too. */
        set(p, e == 0,
            "%s%s%s; user.max_user_namespaces=%s, kernel.unprivileged_userns_clone=%s, "
            "kernel.apparmor_restrict_unprivileged_userns=%s",
            e == 0 ? "unshare works" : "unshare: ", e == 0 ? "" : strerror(e),
            e != 0 && strcmp(max, "0") == 0 ? " (user.max_user_namespaces is 0)" : "", max, clone,
            apparmor);
}

/* ---------------------------------------------------------------------- */
/* seccomp */

static bool action_avail(uint32_t action)
{
        return syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action) == 0;
}

/* As runtime/seccomp/seccomp_compile.c: with a NULL program the kernel
 * checks the flags first (EINVAL for an unknown one) and then faults
 * reading the program; nothing is installed. */
static bool flags_known(unsigned long flags)
{
        return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, NULL) < 0 && errno == EFAULT;
}

void host_probe_seccomp(struct host_probe *p)
{
        if (!flags_known(0)) {
                set(p, false, "seccomp(SECCOMP_SET_MODE_FILTER): %s", strerror(errno));
                return;
        }
        if (!action_avail(SECCOMP_RET_KILL_PROCESS) || !action_avail(SECCOMP_RET_ERRNO)) {
                set(p, false,
                    "filter mode works, but SECCOMP_RET_KILL_PROCESS or "
                    "SECCOMP_RET_ERRNO is not available");
                return;
        }
        set(p, true, "filter mode, actions KILL_PROCESS ERRNO%s%s%s",
            action_avail(SECCOMP_RET_TRAP) ? " TRAP" : "",
            action_avail(SECCOMP_RET_TRACE) ? " TRACE" : "",
            action_avail(SECCOMP_RET_LOG) ? " LOG" : "");
}

void host_probe_seccomp_flags(struct host_probe *p)
{
        static const struct {
                const char *name;
                unsigned long flag;
        } flags[] = {
                { "TSYNC", SECCOMP_FILTER_FLAG_TSYNC },
                { "SPEC_ALLOW", SECCOMP_FILTER_FLAG_SPEC_ALLOW },
                { "LOG", SECCOMP_FILTER_FLAG_LOG },
        };
        char have[128] = "", missing[128] = "";

        for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
                char *to = flags_known(flags[i].flag) ? have : missing;
                size_t len = strlen(to);
                snprintf(to + len, 128 - len, "%s%s", len ? " " : "", flags[i].name);
        }
        if (*missing)
                set(p, false, "not supported: %s%s%s", missing, *have ? "; supported: " : "", have);
        else
                set(p, true, "%s", have);
}

void host_probe_seccomp_notify(struct host_probe *p)
{
        struct seccomp_notif_sizes sizes;

        if (!action_avail(SECCOMP_RET_USER_NOTIF)) {
                set(p, false, "SECCOMP_RET_USER_NOTIF is not available (SCMP_ACT_NOTIFY fails)");
                return;
        }
        if (!flags_known(SECCOMP_FILTER_FLAG_NEW_LISTENER) ||
            !flags_known(SECCOMP_FILTER_FLAG_NEW_LISTENER | SECCOMP_FILTER_FLAG_TSYNC |
                         SECCOMP_FILTER_FLAG_TSYNC_ESRCH)) {
                set(p, false,
                    "SECCOMP_FILTER_FLAG_NEW_LISTENER (with TSYNC, TSYNC_ESRCH) is "
                    "not supported");
                return;
        }
        if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) < 0) {
                set(p, false, "SECCOMP_GET_NOTIF_SIZES: %s", strerror(errno));
                return;
        }
        set(p, true, "USER_NOTIF, NEW_LISTENER with TSYNC_ESRCH, notif %u bytes",
            (unsigned int)sizes.seccomp_notif);
}

/* ---------------------------------------------------------------------- */
/* openat2 */

void host_probe_openat2(struct host_probe *p)
{
        struct open_how how = {
                .flags = O_PATH | O_CLOEXEC | O_DIRECTORY,
                .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
        };
        _cleanup_close_ int root = open("/", O_PATH | O_CLOEXEC | O_DIRECTORY);
        _cleanup_close_ int fd = -1;

        if (root < 0) {
                set(p, false, "open /: %s", strerror(errno));
                return;
        }
        fd = (int)syscall(SYS_openat2, root, ".", &how, sizeof(how));
        if (fd < 0)
                set(p, false, "openat2(RESOLVE_IN_ROOT): %s", strerror(errno));
        else
                set(p, true, "RESOLVE_IN_ROOT, RESOLVE_NO_MAGICLINKS");
}

/* ---------------------------------------------------------------------- */
/* LSMs */

void host_probe_lsm(struct host_probe *p)
{
        char list[256];
        struct lsm_host_facts facts;
        struct sb_error err = { 0 };
        _cleanup_fclose_ FILE *f = fopen("/sys/kernel/security/lsm", "re");

        if (f == NULL || fgets(list, sizeof(list), f) == NULL)
                snprintf(list, sizeof(list), "unknown (/sys/kernel/security/lsm unreadable)");
        list[strcspn(list, "\n")] = '\0';
        if (lsm_host_probe(&facts, &err) < 0) {
                _cleanup_free_ char *why = sb_error_text(&err);
                sb_error_clear(&err);
                set(p, true, "%s; AppArmor and SELinux unknown: %s", list, why ? why : "");
                return;
        }
        if (facts.apparmor_enabled)
                set(p, true, "%s; AppArmor enabled (%zu profiles loaded); SELinux %s", list,
                    facts.n_apparmor_profiles, facts.selinux_enabled ? "enabled" : "off");
        else
                set(p, true, "%s; AppArmor off; SELinux %s", list,
                    facts.selinux_enabled ? "enabled" : "off");
        lsm_host_facts_release(&facts);
}

void host_probe_systemd(struct host_probe *p)
{
        struct sb_error err = { 0 };
        _cleanup_free_ char *version = NULL;
        bool direct = false;

        if (systemd_probe(&version, &direct, &err) < 0) {
                _cleanup_free_ char *why = sb_error_text(&err);
                sb_error_clear(&err);
                set(p, false, "%s", why ? why : "systemd unreachable");
                return;
        }
        if (atoi(version) < 244) {
                set(p, false, "systemd %s is too old to delegate a scope (244 or later)", version);
                return;
        }
        set(p, true, "systemd %s over %s: --systemd-cgroup makes delegated scopes", version,
            direct ? "its private socket" : "the system bus");
}

int host_probe_cgroups(const struct operator_policy *policy, enum host_status *status,
                       char **detail, struct sb_error *err)
{
        struct cgroup_root root = CGROUP_ROOT_INIT;
        _cleanup_free_ char *unusable = NULL, *where = NULL;
        int ret;

        *detail = NULL;
        if (cgroup_root_probe(&root, &unusable, err) < 0 ||
            (unusable == NULL && cgroup_root_rootless_writable(&root, &unusable, err) < 0))
                return -1;
        if (unusable == NULL && asprintf(&where, "%s (%s; controllers cpu, memory, pids)",
                                         root.path, cgroup_layout_name(root.layout)) < 0)
                where = NULL;
        cgroup_root_release(&root);
        ret = host_cgroups_status(policy, unusable, where ? where : "the delegation root", status,
                                  detail, err);
        return ret;
}

int host_probe_io(const struct operator_policy *policy, enum host_status *status, char **detail,
                  struct sb_error *err)
{
        struct cgroup_root root = CGROUP_ROOT_INIT;
        _cleanup_free_ char *unusable = NULL, *no_io = NULL;
        int ret;

        *detail = NULL;
        if (cgroup_root_probe(&root, &unusable, err) < 0 ||
            (unusable == NULL && cgroup_root_rootless_writable(&root, &unusable, err) < 0))
                return -1;
        if (unusable == NULL && cgroup_root_missing(&root, NULL, "io", &no_io, err) < 0) {
                cgroup_root_release(&root);
                return -1;
        }
        ret = host_io_status(policy, unusable, no_io, root.path ? root.path : "the delegation root",
                             status, detail, err);
        cgroup_root_release(&root);
        return ret;
}
