#include "spec/effective.h"

#include "common/error.h"
#include "oci/config.h"
#include "spec/operator_policy.h"

#include <errno.h>
#include <stdlib.h>

int effective_spec_apply(struct oci_config *config, const struct effective_options *opts,
                         struct floor_report *report, const char **profile, struct sb_error *err)
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

int effective_process_apply(const struct oci_config *container, struct oci_process *process,
                            const char *policy_path, struct sb_error *err)
{
        struct operator_policy policy;
        struct floor_context ctx;
        struct floor_report report = { .log = true };
        /* A shallow copy: the floor sees the exec'd process, nothing else changes. */
        struct oci_config view = *container;
        int ret = -1;

        view.process = process;
        if (operator_policy_load(policy_path, &policy, err) < 0)
                return -1;
        if (floor_select(&policy, &view, NULL, &ctx, &report, err) == 0 &&
            floor_caps(&view, &ctx, &report, err) == 0 &&
            floor_process(&view, &ctx, &report, err) == 0)
                ret = 0;
        floor_report_release(&report);
        operator_policy_release(&policy);
        return ret;
}
