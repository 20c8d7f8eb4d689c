/* How much of its stdout and stderr a container may have forwarded by a
 * foreground `run` (spec/floor_runtime.h); runtime/container/output_cap.c
 * carries it out. */
#include "spec/floor_runtime.h"

#include "common/error.h"
#include "oci/config.h"
#include "spec/operator_policy.h"
#include "spec/policy_profiles.h"

#include <string.h>

int64_t floor_output_ceiling(const struct operator_policy *policy, enum policy_profile profile)
{
        int64_t own = policy->output_limit;
        int64_t builtin = policy_profile_get(profile)->output_limit;

        /* As the floor's ceilings: the operator's value replaces the
         * default of the policy's own profile; a stricter profile picked
         * by annotation keeps its default unless the operator's is lower. */
        if (own > 0 && (profile == policy->profile || builtin == 0 || own < builtin))
                return own;
        return builtin;
}

static int annotation_bytes(const struct oci_config *config, int64_t *bytes, struct sb_error *err)
{
        *bytes = 0;
        for (size_t i = 0; i < config->n_annotations; i++) {
                const char *value = config->annotations[i].value;

                if (strcmp(config->annotations[i].key, OUTPUT_LIMIT_ANNOTATION) != 0)
                        continue;
                if (policy_parse_size(value, bytes) < 0)
                        return sb_fail(err, 0,
                                       "annotations.%s: \"%s\" is not a positive size "
                                       "(bytes, or with a k, m, g or t suffix)",
                                       OUTPUT_LIMIT_ANNOTATION, value);
        }
        return 0;
}

int floor_output_limit(const struct operator_policy *policy, enum policy_profile profile,
                       const struct oci_config *config, const struct output_request *requested,
                       struct output_limits *limits, struct floor_report *report,
                       struct sb_error *err)
{
        const struct floor_ceiling ceiling = { "output", "bytes", "limits.output",
                                               policy->source ? policy->source :
                                                                "the built-in policy" };
        int64_t annotated, both = floor_output_ceiling(policy, profile);

        limits->out = limits->err = 0;
        if (annotation_bytes(config, &annotated, err) < 0)
                return -1;
        if (floor_lower(&ceiling, &both, annotated, "annotations." OUTPUT_LIMIT_ANNOTATION, report,
                        err) < 0)
                return -1;
        limits->out = limits->err = both;
        if (requested == NULL)
                return 0;
        /* A stream's own option wins over --output-limit for that stream;
         * neither goes above the ceiling. */
        if (floor_lower(&ceiling, &limits->out, requested->out ? requested->out : requested->both,
                        requested->out ? "--stdout-limit" : "--output-limit", report, err) < 0 ||
            floor_lower(&ceiling, &limits->err, requested->err ? requested->err : requested->both,
                        requested->err ? "--stderr-limit" : "--output-limit", report, err) < 0)
                return -1;
        return 0;
}
