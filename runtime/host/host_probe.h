/* Host facts for `sbrun check`: whether the kernel lets sbrun do what every
 * create does (namespaces, seccomp filters and flags, openat2) and what the
 * LSMs and sysctls are. Each probe runs what create would run, in a child
 * where it must change the process (unshare), so sbrun itself is left as it
 * was. spec/host_requirements.h decides what a missing fact means. */
#ifndef SB_HOST_PROBE_H
#define SB_HOST_PROBE_H

#include "spec/host_requirements.h"

#include <stdbool.h>

struct operator_policy;
struct sb_error;

struct host_probe {
        bool available;
        char detail[512];
};

/* unshare(flag) (CLONE_NEWUSER, CLONE_NEWPID, …) in a forked child; with
 * in_user, together with a new user namespace, as a rootless caller makes
 * every other namespace (an unprivileged unshare needs one). For
 * CLONE_NEWUSER the detail also names the sysctls that restrict user
 * namespaces (user.max_user_namespaces, kernel.unprivileged_userns_clone,
 * kernel.apparmor_restrict_unprivileged_userns). */
void host_probe_namespace(int flag, bool in_user, struct host_probe *p);

/* Filter mode with the actions the floor's programs use (KILL_PROCESS,
 * ERRNO: SECCOMP_GET_ACTION_AVAIL). */
void host_probe_seccomp(struct host_probe *p);
/* The load flags linux.seccomp.flags may ask for (TSYNC, SPEC_ALLOW, LOG),
 * probed as runtime/seccomp/seccomp_compile.c does before loading. */
void host_probe_seccomp_flags(struct host_probe *p);
/* SCMP_ACT_NOTIFY: the USER_NOTIF action, SECCOMP_FILTER_FLAG_NEW_LISTENER
 * (with TSYNC and TSYNC_ESRCH, as sbrun combines them) and
 * SECCOMP_GET_NOTIF_SIZES. */
void host_probe_seccomp_notify(struct host_probe *p);
/* openat2(RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS) of "/". */
void host_probe_openat2(struct host_probe *p);
/* /sys/kernel/security/lsm, and AppArmor and SELinux as create finds them
 * (runtime/host/lsm_host.h). Always available: only informs. */
void host_probe_lsm(struct host_probe *p);
/* The systemd cgroup driver: built in, systemd reachable over the system
 * bus, and new enough to delegate a scope (244: Delegate= on scopes with
 * every v2 controller, AllowedCPUs=). */
void host_probe_systemd(struct host_probe *p);

/* cgroup v2 as create finds it (cgroup_root_probe), judged by the
 * operator's policy as create judges it (host_cgroups_status): the cgroups
 * line of `check` and of `policy show`. *detail: caller frees. Only running
 * out of memory fails. */
int host_probe_cgroups(const struct operator_policy *policy, enum host_status *status,
                       char **detail, struct sb_error *err);

/* The io ceiling as create would hold it (host_io_status): the io line
 * of `check`. *detail: caller frees. Only running out of memory fails. */
int host_probe_io(const struct operator_policy *policy, enum host_status *status, char **detail,
                  struct sb_error *err);

#endif
