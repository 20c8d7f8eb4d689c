#include "spec/floor_runtime.h"

#include "common/error.h"
#include "common/log.h"
#include "oci/config.h"
#include "spec/floor.h"
#include "spec/operator_policy.h"

#include <limits.h>
#include <stdio.h>
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

/* A limit above the ceiling is clamped to it; a lower one replaces it. */
static int lower(int *limit, int wanted, const char *what, const char *source,
                 struct floor_report *report, struct sb_error *err)
{
        char req[32], eff[32], rule[PATH_MAX + 64];

        if (wanted <= 0)
                return 0;
        if (*limit <= 0 || wanted <= *limit) {
                *limit = wanted;
                return 0;
        }
        if (report->log)
                sb_warn("%s: %d s is above the wall-clock ceiling of %d s; clamped to %d s "
                        "(rule: timeout.max_seconds in %s may only be lowered)",
                        what, wanted, *limit, *limit, source);
        snprintf(req, sizeof(req), "%d s", wanted);
        snprintf(eff, sizeof(eff), "%d s", *limit);
        snprintf(rule, sizeof(rule), "timeout.max_seconds in %s may only be lowered", source);
        return floor_record(report, err, FLOOR_CLAMPED, what, req, eff, rule);
}

int floor_wall_clock(const struct operator_policy *policy, const struct oci_config *config,
                     int requested, int *seconds, struct floor_report *report, struct sb_error *err)
{
        const char *source = policy->source ? policy->source : "the built-in policy";
        int annotated, limit = policy->timeout_max_seconds;

        *seconds = 0;
        if (annotation_seconds(config, &annotated, err) < 0)
                return -1;
        if (lower(&limit, annotated, "annotations." TIMEOUT_ANNOTATION, source, report, err) < 0 ||
            lower(&limit, requested, "--timeout", source, report, err) < 0)
                return -1;
        *seconds = limit;
        return 0;
}
