#include "spec/floor_runtime.h"

#include "common/error.h"
#include "oci/config.h"
#include "spec/operator_policy.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

static int annotation_seconds(const struct oci_config *config, int *seconds, struct sb_error *err)
{
        *seconds = 0;
        for (size_t i = 0; i < config->n_annotations; i++) {
                const char *value = config->annotations[i].value;
                char *end = NULL;
                long n;

                if (strcmp(config->annotations[i].key, TIMEOUT_ANNOTATION) != 0)
                        continue;
                n = strtol(value, &end, 10);
                if (end == value || *end != '\0' || n <= 0 || n > INT_MAX)
                        return sb_fail(err, 0,
                                       "annotations.%s: \"%s\" is not a positive number "
                                       "of seconds",
                                       TIMEOUT_ANNOTATION, value);
                *seconds = (int)n;
        }
        return 0;
}

int floor_wall_clock(const struct operator_policy *policy, const struct oci_config *config,
                     int requested, int *seconds, struct floor_report *report, struct sb_error *err)
{
        const struct floor_ceiling ceiling = { "wall-clock", "s", "timeout.max_seconds",
                                               policy->source ? policy->source :
                                                                "the built-in policy" };
        int64_t limit = policy->timeout_max_seconds;
        int annotated;

        *seconds = 0;
        if (annotation_seconds(config, &annotated, err) < 0)
                return -1;
        if (floor_lower(&ceiling, &limit, annotated, "annotations." TIMEOUT_ANNOTATION, report,
                        err) < 0 ||
            floor_lower(&ceiling, &limit, requested, "--timeout", report, err) < 0)
                return -1;
        *seconds = (int)limit;
        return 0;
}
