/* The container process's Linux security module labels, set by sbrun-init
 * as runc sets them: written to /proc/self/attr, they take effect at the
 * next execve, the container's process, and never confine the init. */
#ifndef SB_INIT_LSM_H
#define SB_INIT_LSM_H

#include "runtime/init/init_plan.h"

struct sb_error;

/* AppArmor: "exec PROFILE" to attr/apparmor/exec (attr/exec before Linux
 * 5.8); SELinux: the label to attr/exec. Nothing for fields left NULL. A
 * refusal (a profile unloaded since create checked it) is an error naming
 * the field. */
int init_set_lsm_labels(const struct init_plan *plan, struct sb_error *err);

#endif
