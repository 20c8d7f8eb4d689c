/* Landlock in sbrun-init (spec/floor_landlock.h says what and why). The
 * ruleset is built once the container's mounts are made, as the process
 * will see its root, so that a failure fails create through the ready
 * pipe; it is enforced first thing in init_become_process, while the init
 * still holds CAP_SYS_ADMIN in its user namespace (landlock_restrict_self
 * needs that or no_new_privs, which the config may not ask for). The init
 * itself does nothing after that but what any process of the container may
 * do, then execve. */
#ifndef SB_INIT_LANDLOCK_H
#define SB_INIT_LANDLOCK_H

#include "runtime/init/init_plan.h"

struct sb_error;

/* *ruleset_fd: the ruleset, or -1 when the plan asks for none. */
int init_landlock_prepare(const struct init_plan *plan, int *ruleset_fd, struct sb_error *err);

/* Restrict this process to ruleset_fd (-1: nothing) and close it. */
int init_landlock_enforce(int ruleset_fd, struct sb_error *err);

#endif
