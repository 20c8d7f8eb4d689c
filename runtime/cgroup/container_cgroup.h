/* The container's cgroup during `create`: decided before anything exists
 * (operator policy, host check, cgroupsPath, resource conversion), made
 * after the state directory (mkdir, controllers, limits), joined by the
 * sbrun-init, removed again if create fails.
 *
 * Fail closed: a host without usable cgroup v2 controllers refuses the
 * container unless the operator's policy says "cgroups": {"enforce":
 * false}; then it runs without a cgroup, with a warning on every create
 * and "sbrun": {"resources": "unenforced"} in its state. */
#ifndef SB_CONTAINER_CGROUP_H
#define SB_CONTAINER_CGROUP_H

#include <stdbool.h>
#include <stddef.h>

#include "runtime/cgroup/cgroup_manager.h"
#include "runtime/cgroup/cgroup_resources.h"
#include "runtime/cgroup/cgroup_root.h"
#include "runtime/cgroup/device_filter.h"
#include "runtime/cgroup/systemd_scope.h"

struct sb_error;
struct operator_policy;
struct oci_config;
struct oci_kv;

/* The state marker (oci/state.h) of a container without a cgroup. */
#define RESOURCES_MARKER "resources"
#define RESOURCES_UNENFORCED "unenforced"

struct container_cgroup {
        struct cgroup_root root;
        struct cgroup cg;
        struct cgroup_settings settings;
        struct device_filter devices; /* attached before the init joins */
        bool no_device_program;       /* rootless: a user cannot attach one */
        char *rel;                    /* under the cgroup2 mount */
        bool unenforced;              /* no cgroup: the operator opted out on this host */
        /* The systemd driver (--systemd-cgroup): the scope, its slice, the
         * container's ID for the unit's description. */
        char *unit, *slice, *id;
        struct systemd_holder holder; /* the scope's first process, until the init joins */
        bool unit_started;            /* started by this create and not kept: stopped on release */
        bool attach_by_systemd;       /* rootless: systemd moves the launcher into the scope */
};

void container_cgroup_init(struct container_cgroup *cc);

/* Everything that can be refused, before the state dir exists.
 * systemd_cgroup: --systemd-cgroup, a "slice:prefix:name" cgroupsPath. */
int container_cgroup_plan(struct container_cgroup *cc, bool systemd_cgroup,
                          const struct operator_policy *policy, const struct oci_config *config,
                          const char *id, struct sb_error *err);

/* The syntax of linux.cgroupsPath (a "slice:prefix:name" one is judged
 * when the systemd driver resolves it), as container_cgroup_plan checks it
 * on a host without cgroups: for `policy explain` too. */
int container_cgroup_check_path(const struct oci_config *config, const char *id,
                                struct sb_error *err);

/* Make the cgroup, write its limits and attach its device program
 * (nothing when unenforced). With the systemd driver the cgroup is the
 * scope systemd makes, with the limits systemd owns as its properties. */
int container_cgroup_create(struct container_cgroup *cc, struct sb_error *err);

/* The init is in the cgroup: the systemd scope's holder can go. */
static inline void container_cgroup_joined(struct container_cgroup *cc)
{
        systemd_holder_end(&cc->holder);
}
/* The path the cgroup has or will have once made (what cg.path will be), NULL
 * without a cgroup or out of memory; caller frees. For a record written
 * before the cgroup exists. */
char *container_cgroup_planned_path(const struct container_cgroup *cc);

/* The cgroup directory (create opens cgroup.procs in it for the init to
 * join); -1 when unenforced. */
static inline int container_cgroup_fd(const struct container_cgroup *cc)
{
        return cc->cg.dir_fd;
}

/* After a successful create the cgroup outlives this command. */
static inline void container_cgroup_keep(struct container_cgroup *cc)
{
        cgroup_keep(&cc->cg);
        cc->unit_started = false;
}

/* The cgroup of an existing container, for pause, resume, update and ps;
 * fails naming `command` when the container has none (unenforced). */
struct oci_state;
int container_cgroup_open(const struct oci_state *state, const char *command, struct cgroup *cg,
                          struct sb_error *err);

/* Write settings to an existing container's cgroup (`update`), and to
 * its systemd scope's properties when it has one (state marker). */
int container_cgroup_update(const struct oci_state *state, struct cgroup *cg,
                            const struct cgroup_settings *settings, struct sb_error *err);

/* At delete: the systemd scope of the container (its state marker) is
 * stopped, reset and its made slices stopped; nothing without one. */
int container_cgroup_stop_unit(const struct oci_state *state, struct sb_error *err);

/* A cgroup made by this create and not kept is killed and removed (and
 * its systemd scope stopped). */
void container_cgroup_release(struct container_cgroup *cc);

#endif
