/* The floor's profiles as data: what each one forces, and the ceilings it
 * clamps resource requests to. The operator policy file picks the default
 * profile and may adjust the ceilings (spec/operator_policy.h); the
 * annotation run.sbrun.policy may only pick a stricter profile. */
#ifndef SB_SPEC_POLICY_PROFILES_H
#define SB_SPEC_POLICY_PROFILES_H

#include "spec/floor_io.h"
#include "spec/policy_profile_id.h"

#include <stdbool.h>
#include <stdint.h>

struct sb_error;

#define POLICY_ANNOTATION "run.sbrun.policy"
/* A directory that gets a size- and inode-capped tmpfs: a workspace on a
 * read-only root (spec/floor_mounts.c). */
#define WORKSPACE_ANNOTATION "run.sbrun.workspace"

/* 0 means "no ceiling" for every field. A ceiling applies also when the
 * spec asks for no limit at all. */
struct floor_ceilings {
        int64_t pids;               /* linux.resources.pids.limit */
        int64_t memory;             /* linux.resources.memory.limit, bytes */
        int64_t cpu_quota;          /* linux.resources.cpu.quota, µs per cpu_period */
        uint64_t cpu_period;        /* µs */
        uint64_t fsize;             /* RLIMIT_FSIZE, bytes */
        uint64_t nofile;            /* RLIMIT_NOFILE */
        uint64_t tmp_size;          /* size of every tmpfs mount (strict: and of /tmp), bytes */
        uint64_t inodes;            /* nr_inodes of every tmpfs mount */
        struct floor_io_ceiling io; /* io.max and io.weight (spec/floor_io.h) */
};

struct floor_profile {
        enum policy_profile id;
        const char *name;
        bool no_swap;                   /* memory.swap.max 0 */
        bool no_network;                /* a new empty network namespace, joining refused */
        bool no_capabilities;           /* every capability dropped */
        bool readonly_root;             /* root.readonly and a size-capped /tmp */
        bool volumes_bounded;           /* a writable directory bind is bounded by project
                                         * quota (spec/floor_volumes.h) */
        bool io_required;               /* the io ceiling must hold on the root and every
                                         * writable bind (spec/floor_io.h) */
        uint64_t caps;                  /* capability ceiling, a CAP_* bit mask */
        struct floor_ceilings ceilings; /* built-in defaults */
        int64_t output_limit;           /* limits.output's default, bytes per stream;
                                         * 0: none (spec/floor_output_limit.c) */
};

const struct floor_profile *policy_profile_get(enum policy_profile id);
/* "standard"/"strict" to the profile; NULL if unknown. */
const struct floor_profile *policy_profile_by_name(const char *name);

/* "512M", "1G", "2t", "1048576" → bytes (common/size_parse.h; no 0, no b).
 * -1 on a malformed, zero or too large size. */
int policy_parse_size(const char *text, int64_t *out);
/* "1.5" CPUs → quota per 100000 µs period. -1 if malformed. */
int policy_parse_cpus(const char *text, int64_t *quota, uint64_t *period);

#endif
