/* The floor's decisions about how a container runs rather than what its
 * config says: its wall-clock limit and whether its resource limits may go
 * unenforced. Like every floor decision they are made here and recorded in
 * a floor_report, so that `create` logs them and `policy explain` lists
 * them; runtime/ only carries them out. */
#ifndef SB_SPEC_FLOOR_RUNTIME_H
#define SB_SPEC_FLOOR_RUNTIME_H

#include <stdbool.h>
#include <stdint.h>

#include "spec/policy_profile_id.h"

struct sb_error;
struct floor_report;
struct oci_config;
struct operator_policy;

/* A ceiling on how a container runs, as its clamps name it: NAME in the
 * warning ("wall-clock"), UNIT of its values ("s"), the policy KEY that
 * sets it and the SOURCE of the policy. */
struct floor_ceiling {
        const char *name, *unit, *key, *source;
};

/* WANTED (0 or less: not asked) for the ceiling *LIMIT (0: none), asked by
 * WHAT (an annotation or an option): at most the ceiling replaces it;
 * above, it is clamped, recorded and (when the report logs) warned about. */
int floor_lower(const struct floor_ceiling *ceiling, int64_t *limit, int64_t wanted,
                const char *what, struct floor_report *report, struct sb_error *err);

#define TIMEOUT_ANNOTATION "run.sbrun.timeout"

/* The wall-clock limit in seconds (0: none): the smallest of the
 * operator's ceiling (timeout.max_seconds), the annotation
 * run.sbrun.timeout and `run --timeout` (requested, 0 for none). The
 * annotation and the option may only lower the ceiling: a higher value is
 * clamped, recorded and (when the report logs) warned about, never
 * honoured. A malformed annotation is an error naming it. */
int floor_wall_clock(const struct operator_policy *policy, const struct oci_config *config,
                     int requested, int *seconds, struct floor_report *report,
                     struct sb_error *err);

#define OUTPUT_LIMIT_ANNOTATION "run.sbrun.output_limit"

/* Bytes of the container's stdout and stderr a foreground `run` forwards;
 * 0: no limit on that stream. */
struct output_limits {
        int64_t out, err;
};

/* `run`'s requests, 0 where not given: --output-limit (both streams),
 * --stdout-limit, --stderr-limit. */
struct output_request {
        int64_t both, out, err;
};

/* The output limit of each stream: the smallest of the ceiling (the
 * policy's limits.output, else the profile's default: strict has one,
 * standard none; when the profile is stricter than the policy's own, the
 * lower of the two), the annotation run.sbrun.output_limit (both
 * streams), and the request (a stream's own option, else
 * --output-limit; requested NULL: none). As with the wall clock, the annotation and
 * the options may only lower the ceiling: a higher value is clamped and
 * recorded. A malformed annotation is an error naming it. */
int floor_output_limit(const struct operator_policy *policy, enum policy_profile profile,
                       const struct oci_config *config, const struct output_request *requested,
                       struct output_limits *limits, struct floor_report *report,
                       struct sb_error *err);

/* The ceiling alone (what `policy show` reports): bytes, 0 for none. */
int64_t floor_output_ceiling(const struct operator_policy *policy, enum policy_profile profile);

/* Whether the container's resource limits are enforced: the one decision
 * create (runtime/cgroup/container_cgroup.c), `check` and `policy
 * explain`/`show` make, from the host fact runtime/ probes
 * (cgroup_root_probe, runtime/cgroup/cgroup_root.h). host_unusable NULL:
 * the host can enforce them, nothing to decide. Otherwise (it says why
 * not) the container is refused unless the operator's policy says
 * "cgroups": {"enforce": false}; then *unenforced is set and the dropped
 * limits are recorded. In explain mode a refusal is recorded and 0
 * returned. */
int floor_cgroups_decide(const struct operator_policy *policy, const struct oci_config *config,
                         const char *id, const char *host_unusable, bool *unenforced,
                         struct floor_report *report, struct sb_error *err);

#endif
