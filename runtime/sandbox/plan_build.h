/* The init plan for a new container, from the effective config and the
 * decisions create made (resolved executable and cwd, fd numbers). */
#ifndef SB_PLAN_BUILD_H
#define SB_PLAN_BUILD_H

#include "runtime/init/init_plan.h"

#include <stdbool.h>

struct sb_error;
struct oci_config;
struct oci_process;
struct init_mount_list;
struct floor_seccomp;
struct seccomp_setup;
struct landlock_rules;

struct plan_inputs {
        const char *cwd;
        struct init_mount_list *mounts; /* from mount translation; moved into the plan;
                                         * NULL for an exec */
        int preserve_fds;
        int listen_fds; /* inherited LISTEN_FDS, passed on to the container */
        int ready_fd, fifo_fd, stderr_fd, console_fd;
        const char *session_keyring; /* NULL: --no-new-keyring */
};

/* create's plan: the process, then the container's mounts, devices and
 * root. No exec_path: sbrun-init looks args[0] up once the mounts are made. */
int plan_build(const struct oci_config *config, const struct plan_inputs *in,
               struct init_plan *plan, struct sb_error *err);

/* exec's plan: the process, its executable already found inside the
 * running container (exec_path); the scheduling fields it does not give and
 * linux.personality come from the container's config, as with runc. */
int plan_build_exec(const struct oci_config *container, const struct oci_process *process,
                    const char *exec_path, const struct plan_inputs *in, struct init_plan *plan,
                    struct sb_error *err);

/* What confines every process a plan starts, create's first and each exec's. */
struct plan_confinement {
        const struct floor_seccomp *floor;
        const struct seccomp_setup *seccomp;
        bool cgroup; /* the launcher passes the container's cgroup.procs (LFD_CGROUP) */
        const struct landlock_rules *landlock; /* spec/floor_landlock.h; NULL: none */
};

/* The last step of both plans: the seccomp filters, Landlock and the cgroup fd, then
 * the plan encoded into a memfd named NAME. Returns the memfd (the caller
 * owns it) or -1. */
int plan_seal(struct init_plan *plan, const struct plan_confinement *conf, const char *name,
              struct sb_error *err);

#endif
