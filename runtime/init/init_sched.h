/* The process's scheduling attributes, set by sbrun-init as runc sets
 * them: the CPU affinity around the cgroup join and before execve, the I/O
 * priority, the scheduling policy and the execution domain before the
 * credentials are dropped. They are inherited over execve. The floor
 * judged each (spec/floor_spec_fields.c); what the kernel refuses still
 * fails, naming the field. Shared by create's init and by exec's. */
#ifndef SB_INIT_SCHED_H
#define SB_INIT_SCHED_H

#include "runtime/init/init_plan.h"

struct sb_error;

/* First thing of the init: execCPUAffinity.initial, so that what the init
 * does runs on those CPUs. Nothing when it is not given. */
int init_affinity_initial(const struct init_plan *plan, struct sb_error *err);

/* Right after the cgroup join: without an initial affinity, the one sbrun
 * inherited from its caller (`taskset -c 0 sbrun run`) is reset to every
 * CPU, which the kernel narrows to the cpuset the process is in, as runc
 * 1.2.7 does; otherwise the container would be pinned by whoever started
 * sbrun. */
int init_affinity_reset(const struct init_plan *plan, struct sb_error *err);

/* ioPriority, scheduler, personality, in that order. */
int init_set_sched_attrs(const struct init_plan *plan, struct sb_error *err);

/* execCPUAffinity.final, right before the seccomp filters and execve. */
int init_affinity_final(const struct init_plan *plan, struct sb_error *err);

#endif
