/* Whether sbrun runs without real root, and where its state goes then.
 * Two callers are rootless: a user who runs sbrun directly (euid != 0), and
 * an engine that runs it as root of a user namespace it made (rootless
 * podman: euid 0, but only over the ids its user namespace maps). */
#ifndef SB_ROOTLESS_H
#define SB_ROOTLESS_H

#include <stdbool.h>
#include <sys/types.h>

struct sb_error;

/* This process's user namespace is not the initial one: its uid_map is not
 * the identity over every id. */
bool rootless_in_user_namespace(void);

/* The uid the host's root shows as to this process (spec/operator_policy.h
 * takes it): its id in this user namespace where the namespace maps it, else
 * the kernel's overflow uid (/proc/sys/kernel/overflowuid). */
uid_t rootless_host_root_uid(void);

/* The id in the parent user namespace of uid of this one (the user whose
 * namespace rootless podman runs sbrun in); uid itself where the map does
 * not cover it or cannot be read. */
uid_t rootless_outer_uid(uid_t uid);

/* euid != 0, or root of a user namespace other than the initial one. */
bool rootless_detect(void);

/* The state root when --root is not given: $XDG_RUNTIME_DIR/sbrun for a
 * rootless caller that has XDG_RUNTIME_DIR (runc's rule: root of a user
 * namespace only when $USER is not "root"), else /run/sbrun. The string is
 * allocated; NULL only on ENOMEM. */
char *rootless_state_root(void);

/* dir ($XDG_RUNTIME_DIR) may hold sockets sbrun talks to (the user's
 * systemd, runtime/cgroup/systemd_scope.c): it must be a directory, not a
 * symbolic link, owned by the caller (euid) and writable by nobody else;
 * else -1 with err naming XDG_RUNTIME_DIR, its owner and mode. Another
 * user who may put a socket there could answer for systemd. */
int rootless_runtime_dir_check(const char *dir, struct sb_error *err);

/* For `sbrun check` (struct host_probe, runtime/host/host_probe.h): the
 * setuid newuidmap and newgidmap and the caller's ranges in /etc/subuid and
 * /etc/subgid; and whether root (the state root) is, or can be made, the
 * caller's alone. */
struct host_probe;
void rootless_probe_idmap(struct host_probe *p);
void rootless_probe_state_root(const char *root, struct host_probe *p);

#endif
