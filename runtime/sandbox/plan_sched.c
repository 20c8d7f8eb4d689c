#include "runtime/sandbox/plan_sched.h"

#include "common/error.h"
#include "oci/config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct named {
        const char *name;
        uint64_t value;
};

/* The kernel's numbers (include/uapi/linux/ioprio.h, sched.h and
 * personality.h), which neither libc declares in full. */
static const struct named ioprio_classes[] = {
        { "IOPRIO_CLASS_RT", 1 },
        { "IOPRIO_CLASS_BE", 2 },
        { "IOPRIO_CLASS_IDLE", 3 },
        { NULL, 0 },
};
#define IOPRIO_CLASS_SHIFT 13

static const struct named sched_policies[] = {
        { "SCHED_OTHER", 0 }, { "SCHED_FIFO", 1 }, { "SCHED_RR", 2 },       { "SCHED_BATCH", 3 },
        { "SCHED_ISO", 4 },   { "SCHED_IDLE", 5 }, { "SCHED_DEADLINE", 6 }, { NULL, 0 },
};

static const struct named sched_flags[] = {
        { "SCHED_FLAG_RESET_ON_FORK", 0x01 },  { "SCHED_FLAG_RECLAIM", 0x02 },
        { "SCHED_FLAG_DL_OVERRUN", 0x04 },     { "SCHED_FLAG_KEEP_POLICY", 0x08 },
        { "SCHED_FLAG_KEEP_PARAMS", 0x10 },    { "SCHED_FLAG_UTIL_CLAMP_MIN", 0x20 },
        { "SCHED_FLAG_UTIL_CLAMP_MAX", 0x40 }, { NULL, 0 },
};

static const struct named personality_domains[] = {
        { "LINUX", 0x0000 },
        { "LINUX32", 0x0008 },
        { NULL, 0 },
};

/* The parser admitted only these names (oci/config_parse_*.c); an unknown
 * one here is a mismatch between the tables, refused rather than guessed. */
static int lookup(const struct named *table, const char *name, const char *field, uint64_t *out,
                  struct sb_error *err)
{
        for (size_t i = 0; name != NULL && table[i].name != NULL; i++) {
                if (strcmp(table[i].name, name) == 0) {
                        *out = table[i].value;
                        return 0;
                }
        }
        return sb_fail(err, EINVAL, "%s: unknown value \"%s\"", field, name ? name : "");
}

static int scheduler(struct init_plan *plan, const struct oci_scheduler *s, struct sb_error *err)
{
        uint64_t v;

        if (lookup(sched_policies, s->policy, "process.scheduler.policy", &v, err) < 0)
                return -1;
        plan->has_scheduler = true;
        plan->sched_policy = (uint32_t)v;
        plan->sched_nice = s->nice;
        plan->sched_priority = (uint32_t)s->priority;
        plan->sched_runtime = s->runtime;
        plan->sched_deadline = s->deadline;
        plan->sched_period = s->period;
        for (size_t i = 0; i < s->n_flags; i++) {
                if (lookup(sched_flags, s->flags[i], "process.scheduler.flags", &v, err) < 0)
                        return -1;
                plan->sched_flags |= v;
        }
        return 0;
}

/* An empty list is the runtime-spec's "not given". */
static int affinity(char **out, const char *list, struct sb_error *err)
{
        if (list == NULL || *list == '\0')
                return 0;
        *out = strdup(list);
        if (*out == NULL)
                return sb_fail(err, ENOMEM, "process.execCPUAffinity");
        return 0;
}

int plan_sched(struct init_plan *plan, const struct oci_process *process,
               const struct oci_process *fallback, const struct oci_personality *personality,
               struct sb_error *err)
{
        const struct oci_io_priority *io = process->io_priority;
        const struct oci_scheduler *s = process->scheduler;
        const struct oci_exec_cpu_affinity *a = process->exec_cpu_affinity;
        uint64_t v;

        if (fallback != NULL) {
                io = io ? io : fallback->io_priority;
                s = s ? s : fallback->scheduler;
                a = a ? a : fallback->exec_cpu_affinity;
        }
        if (io != NULL) {
                if (lookup(ioprio_classes, io->klass, "process.ioPriority.class", &v, err) < 0)
                        return -1;
                plan->has_ioprio = true;
                plan->ioprio = (uint32_t)(v << IOPRIO_CLASS_SHIFT) | (uint32_t)io->priority;
        }
        if (s != NULL && scheduler(plan, s, err) < 0)
                return -1;
        if (a != NULL && (affinity(&plan->cpu_affinity_initial, a->initial, err) < 0 ||
                          affinity(&plan->cpu_affinity_final, a->final, err) < 0))
                return -1;
        if (personality != NULL) {
                if (lookup(personality_domains, personality->domain, "linux.personality.domain", &v,
                           err) < 0)
                        return -1;
                plan->has_personality = true;
                plan->personality = (uint32_t)v;
        }
        return 0;
}
