/* The scheduling half of a plan: process.ioPriority, process.scheduler,
 * process.execCPUAffinity and linux.personality as the numbers sbrun-init
 * hands to the kernel (runtime/init/init_sched.h). The floor has judged the
 * fields (spec/floor_spec_fields.c); here they are only translated. */
#ifndef SB_PLAN_SCHED_H
#define SB_PLAN_SCHED_H

#include "runtime/init/init_plan.h"

struct sb_error;
struct oci_process;
struct oci_personality;

/* Each of the three process fields from `process`, or where it does not
 * give one from `fallback` (the container's process for an exec, as runc
 * does; NULL for create). personality may be NULL. */
int plan_sched(struct init_plan *plan, const struct oci_process *process,
               const struct oci_process *fallback, const struct oci_personality *personality,
               struct sb_error *err);

#endif
