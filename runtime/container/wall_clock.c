#include "runtime/container/wall_clock.h"

#include "common/error.h"
#include "common/log.h"
#include "oci/config.h"
#include "runtime/container/global_options.h"
#include "spec/operator_policy.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int64_t wall_clock_now_ms(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

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

/* A limit above the operator's ceiling is clamped, and said so. */
static int lower(int current, int wanted, const char *what, const char *source)
{
        if (wanted <= 0)
                return current;
        if (current > 0 && wanted > current) {
                sb_warn("%s: %d s is above the wall-clock ceiling of %d s; clamped to %d s "
                        "(rule: timeout.max_seconds in %s may only be lowered)",
                        what, wanted, current, current, source);
                return current;
        }
        return wanted;
}

int wall_clock_limit(const struct operator_policy *policy, const struct oci_config *config,
                     int requested, int *seconds, struct sb_error *err)
{
        int annotated, limit;

        *seconds = 0;
        if (annotation_seconds(config, &annotated, err) < 0)
                return -1;
        const char *source = policy->source ? policy->source : "the built-in policy";
        limit = policy->timeout_max_seconds;
        limit = lower(limit, annotated, "annotations." TIMEOUT_ANNOTATION, source);
        limit = lower(limit, requested, "--timeout", source);
        *seconds = limit;
        return 0;
}
