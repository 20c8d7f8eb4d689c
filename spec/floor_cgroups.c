#include "spec/floor_runtime.h"

#include "common/error.h"
#include "common/log.h"
#include "oci/config.h"
#include "spec/floor.h"
#include "spec/operator_policy.h"

#include <limits.h>
#include <stdio.h>

static bool requests_resources(const struct oci_config *config)
{
        return config->linux_ != NULL && config->linux_->resources != NULL;
}

int floor_cgroups_decide(const struct operator_policy *policy, const struct oci_config *config,
                         const char *id, const char *host_unusable, bool *unenforced,
                         struct floor_report *report, struct sb_error *err)
{
        const char *reason = host_unusable;
        const char *path = policy->source ? policy->source : OPERATOR_POLICY_PATH;
        char rule[PATH_MAX + 64];

        *unenforced = false;
        if (host_unusable == NULL)
                return 0;
        if (policy->cgroups_enforce) {
                if (report->explain) {
                        snprintf(rule, sizeof(rule), "cgroups.enforce true in %s: %s", path,
                                 reason);
                        return floor_refuse(report, err, "linux.resources",
                                            "a container without resource limits", rule);
                }
                return sb_fail(err, 0,
                               "%s; set \"cgroups\": {\"enforce\": false} in %s to run "
                               "without resource limits",
                               reason, path);
        }
        if (report->log)
                sb_warn("container %s runs WITHOUT resource limits%s: %s (allowed by \"cgroups\": "
                        "{\"enforce\": false} in %s)",
                        id, requests_resources(config) ? " (linux.resources is not enforced)" : "",
                        reason, policy->source);
        snprintf(rule, sizeof(rule), "cgroups.enforce false in %s: %s", path, reason);
        *unenforced = true;
        return floor_record(report, err, FLOOR_DROPPED, "linux.resources", "resource limits",
                            "not enforced", rule);
}
