/* The init plan for a new container, from the effective config and the
 * decisions create made (resolved executable and cwd, fd numbers). */
#ifndef SB_PLAN_BUILD_H
#define SB_PLAN_BUILD_H

#include "runtime/init/init_plan.h"

struct sb_error;
struct oci_config;
struct oci_process;
struct init_mount_list;

struct plan_inputs {
        const char *cwd;
        struct init_mount_list *mounts; /* from mount translation; moved into the plan */
        int preserve_fds;
        int listen_fds; /* inherited LISTEN_FDS, passed on to the container */
        int ready_fd, fifo_fd, stderr_fd, console_fd;
        const char *session_keyring; /* NULL: --no-new-keyring */
};

/* The process half of a plan, shared by create and exec: what to run, as
 * whom, with which capabilities. */
int plan_fill_process(struct init_plan *plan, const struct oci_process *process,
                      const char *exec_path, const char *cwd, int listen_fds, struct sb_error *err);

int plan_build(const struct oci_config *config, const struct plan_inputs *in,
               struct init_plan *plan, struct sb_error *err);

#endif
