#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include "runtime/init/init_sched.h"

#include "common/cpu_list.h"
#include "common/error.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/syscall.h>
#include <unistd.h>

/* ioprio_set's "who": this process. */
#define WHO_PROCESS 1

/* struct sched_attr of sched_setattr(2), as of Linux 5.3 (with the
 * utilisation clamps); neither musl nor every glibc declares it. */
struct init_sched_attr {
        uint32_t size;
        uint32_t sched_policy;
        uint64_t sched_flags;
        int32_t sched_nice;
        uint32_t sched_priority;
        uint64_t sched_runtime;
        uint64_t sched_deadline;
        uint64_t sched_period;
        uint32_t sched_util_min;
        uint32_t sched_util_max;
};

static int set_affinity(const char *list, const char *field, struct sb_error *err)
{
        unsigned long mask[CPU_LIST_WORDS];

        if (cpu_list_parse(list, mask) < 0)
                return sb_fail(err, EINVAL, "%s: \"%s\" is not a CPU list", field, list);
        if (syscall(SYS_sched_setaffinity, 0, sizeof(mask), mask) < 0)
                return sb_fail(err, errno, "%s: sched_setaffinity \"%s\"", field, list);
        return 0;
}

int init_affinity_initial(const struct init_plan *plan, struct sb_error *err)
{
        if (plan->cpu_affinity_initial == NULL)
                return 0;
        return set_affinity(plan->cpu_affinity_initial, "process.execCPUAffinity.initial", err);
}

int init_affinity_reset(const struct init_plan *plan, struct sb_error *err)
{
        unsigned long mask[CPU_LIST_WORDS];

        if (plan->cpu_affinity_initial != NULL)
                return 0;
        memset(mask, 0xff, sizeof(mask));
        if (syscall(SYS_sched_setaffinity, 0, sizeof(mask), mask) < 0)
                return sb_fail(err, errno, "reset the CPU affinity to the container's cpuset");
        return 0;
}

int init_affinity_final(const struct init_plan *plan, struct sb_error *err)
{
        if (plan->cpu_affinity_final == NULL)
                return 0;
        return set_affinity(plan->cpu_affinity_final, "process.execCPUAffinity.final", err);
}

int init_set_sched_attrs(const struct init_plan *plan, struct sb_error *err)
{
        if (plan->has_ioprio && syscall(SYS_ioprio_set, WHO_PROCESS, 0, (int)plan->ioprio) < 0)
                return sb_fail(err, errno, "process.ioPriority: ioprio_set class %u level %u",
                               plan->ioprio >> 13, plan->ioprio & 7);
        if (plan->has_scheduler) {
                struct init_sched_attr attr = {
                        .size = sizeof(attr),
                        .sched_policy = plan->sched_policy,
                        .sched_flags = plan->sched_flags,
                        .sched_nice = plan->sched_nice,
                        .sched_priority = plan->sched_priority,
                        .sched_runtime = plan->sched_runtime,
                        .sched_deadline = plan->sched_deadline,
                        .sched_period = plan->sched_period,
                };
                if (syscall(SYS_sched_setattr, 0, &attr, 0) < 0)
                        return sb_fail(err, errno,
                                       "process.scheduler: sched_setattr policy %u nice %d",
                                       plan->sched_policy, (int)plan->sched_nice);
        }
        if (plan->has_personality && personality(plan->personality) < 0)
                return sb_fail(err, errno, "linux.personality: personality 0x%x",
                               plan->personality);
        return 0;
}
