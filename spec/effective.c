#include "spec/effective.h"

#include "common/error.h"
#include "oci/config.h"
#include "spec/operator_policy.h"

#include <errno.h>
#include <stdlib.h>

int effective_spec_apply(struct oci_config *config, const struct effective_options *opts,
                         struct floor_report *report, const char **profile,
                         struct sb_error *err)
{
        struct operator_policy policy;
        struct floor_context ctx;
        int ret = -1;

        if (config->linux_ == NULL) {
                config->linux_ = calloc(1, sizeof(*config->linux_));
                if (config->linux_ == NULL)
                        return sb_fail(err, ENOMEM, "linux");
        }
        if (operator_policy_load(opts->policy_path, &policy, err) < 0)
                return -1;
        report->explain = opts->explain;
        report->log = !opts->explain;
        if (floor_select(&policy, config, opts->state_root, &ctx, report, err) < 0)
                goto out;
        ctx.bundle = opts->bundle;
        if (profile != NULL)
                *profile = ctx.profile->name;
        ret = floor_apply(config, &ctx, report, err);
out:
        operator_policy_release(&policy);
        return ret;
}
