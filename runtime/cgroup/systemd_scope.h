/* The systemd cgroup driver (--systemd-cgroup): the container's cgroup is a
 * transient scope unit that systemd makes and owns, asked over D-Bus as
 * runc and crun do, so that systemd neither fights over the directory nor
 * undoes its limits on a daemon-reload.
 *
 * The scope is started with a holder: a child of sbrun that only waits, as
 * the scope's first process (systemd moves the PIDs it is given), so that
 * the cgroup exists, with its limits written, before the container's init
 * joins it through cgroup.procs as with cgroupfs. The holder ends once the
 * init is in; a scope whose last process exits is stopped by systemd.
 *
 * systemd is spoken to by sbrun's own D-Bus client (runtime/dbus/), so
 * the driver is always built in and sbrun stays static. A rootless caller
 * (runtime/host/rootless.h) speaks to its own systemd --user instead of
 * PID 1: its scopes go below user@UID.service, which delegates to it. */
#ifndef SB_SYSTEMD_SCOPE_H
#define SB_SYSTEMD_SCOPE_H

#include <stdbool.h>
#include <sys/types.h>

struct sb_error;
struct systemd_props;

/* The state marker (oci/state.h) naming the container's scope. */
#define SYSTEMD_UNIT_MARKER "systemd-unit"
#define SYSTEMD_SLICE_MARKER "systemd-slice"

/* Start unit (a ".scope") in slice with Delegate=yes, props and pid as its
 * process, and wait until systemd's job for it is done. *made: systemd took
 * the start (the unit is this create's, to stop if create fails); false
 * when it refused it, e.g. a unit of that name exists: another's. */
int systemd_scope_start(const char *unit, const char *slice, const char *description,
                        const struct systemd_props *props, pid_t pid, bool *made,
                        struct sb_error *err);

/* Set props on the running unit (runtime only, as `systemctl set-property
 * --runtime`): `update`. */
int systemd_scope_update(const char *unit, const struct systemd_props *props, struct sb_error *err);

/* Move pid into unit's cgroup (AttachProcessesToUnit, systemd 238). A
 * rootless caller's process cannot write the scope's cgroup.procs itself:
 * moving between cgroups takes write access to their common ancestor, which
 * below user@UID.service is root's; the user's manager asks PID 1 to move
 * it. So create and exec have their first child moved before it forks
 * anything of the container (runtime/container/create_launch.c). */
int systemd_scope_attach(const char *unit, pid_t pid, struct sb_error *err);

/* Stop unit if it is still there and wait for it (systemd unloads it,
 * failed or not: CollectMode); then stop each slice above it that is now
 * empty and that systemd made only because a unit named it (no unit file,
 * not transient), as the scope's start made it. A unit that is already gone is not an error.
 * cgroup_path: the scope's cgroup directory, where the slices' are found. */
int systemd_scope_stop(const char *unit, const char *slice, const char *cgroup_path,
                       struct sb_error *err);

/* For `sbrun check`: systemd's version over the bus (caller frees), and
 * whether the connection is systemd's private socket (root) rather than
 * the system bus. */
int systemd_probe(char **version, bool *direct, struct sb_error *err);

/* The cgroup the manager runs its units under, as systemd names it: "" for
 * PID 1, "/user.slice/user-1000.slice/user@1000.service" for a user's
 * manager (a rootless caller's; slices are named below it). */
int systemd_manager_cgroup(char **cgroup, struct sb_error *err);

/* The holder: a child that waits until *release is closed. */
struct systemd_holder {
        pid_t pid;
        int release; /* write end of its pipe; closing it ends the holder */
};
#define SYSTEMD_HOLDER_INIT             \
        {                               \
                .pid = 0, .release = -1 \
        }
int systemd_holder_spawn(struct systemd_holder *h, struct sb_error *err);
/* Close, reap. */
void systemd_holder_end(struct systemd_holder *h);

#endif
