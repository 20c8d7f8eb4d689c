/* The one rule of the run-time ceilings (spec/floor_runtime.h): an
 * annotation or an option may lower a ceiling, never raise it. */
#include "spec/floor_runtime.h"

#include "common/log.h"
#include "spec/floor.h"

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>

int floor_lower(const struct floor_ceiling *ceiling, int64_t *limit, int64_t wanted,
                const char *what, struct floor_report *report, struct sb_error *err)
{
        char req[48], eff[48], rule[PATH_MAX + 64];

        if (wanted <= 0)
                return 0;
        if (*limit <= 0 || wanted <= *limit) {
                *limit = wanted;
                return 0;
        }
        snprintf(req, sizeof(req), "%" PRId64 " %s", wanted, ceiling->unit);
        snprintf(eff, sizeof(eff), "%" PRId64 " %s", *limit, ceiling->unit);
        snprintf(rule, sizeof(rule), "%s in %s may only be lowered", ceiling->key, ceiling->source);
        if (report->log)
                sb_warn("%s: %s is above the %s ceiling of %s; clamped to %s (rule: %s)", what, req,
                        ceiling->name, eff, eff, rule);
        return floor_record(report, err, FLOOR_CLAMPED, what, req, eff, rule);
}
