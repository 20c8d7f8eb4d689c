#include "spec/effective.h"

#include "common/error.h"
#include "oci/config.h"
#include "spec/operator_policy.h"

#include <errno.h>
#include <stdlib.h>

int effective_spec_apply(struct oci_config *config, const struct effective_options *opts,
                         struct floor_report *report, enum policy_profile *profile,
                         struct sb_error *err)
{
        struct floor_context ctx;

        if (config->linux_ == NULL) {
                config->linux_ = calloc(1, sizeof(*config->linux_));
                if (config->linux_ == NULL)
                        return sb_fail(err, ENOMEM, "linux");
        }
        report->explain = opts->explain;
        report->log = !opts->explain;
        if (floor_select(opts->policy, config, opts->state_root, &ctx, report, err) < 0)
                return -1;
        if (opts->host != NULL)
                ctx.host = opts->host;
        ctx.bind_paths = opts->bind_paths;
        ctx.bind_stats = opts->bind_stats;
        ctx.n_bind_paths = opts->n_bind_paths;
        ctx.audit_dir = opts->audit_dir;
        *profile = ctx.profile->id;
        return floor_apply(config, &ctx, report, err);
}

int effective_process_apply(const struct oci_config *container, struct oci_process *process,
                            const struct operator_policy *policy, enum policy_profile *profile,
                            struct sb_error *err)
{
        struct floor_context ctx;
        struct floor_report report = { .log = true };
        /* A shallow copy: the floor sees the exec'd process, nothing else changes. */
        struct oci_config view = *container;
        int ret = -1;

        view.process = process;
        if (floor_select(policy, &view, NULL, &ctx, &report, err) == 0 &&
            floor_process_fields(process, "process", &report, err) == 0 &&
            floor_caps(&view, &ctx, &report, err) == 0 &&
            floor_process(&view, &ctx, &report, err) == 0) {
                *profile = ctx.profile->id;
                ret = 0;
        }
        floor_report_release(&report);
        return ret;
}

int effective_resources_apply(const struct oci_config *container, struct oci_resources *res,
                              const struct operator_policy *policy, const struct floor_host *host,
                              struct sb_error *err)
{
        struct floor_context ctx;
        struct floor_report report = { .log = true };
        int ret = floor_select(policy, container, NULL, &ctx, &report, err);

        if (ret == 0) {
                if (host != NULL)
                        ctx.host = host;
                ret = floor_limits_update(res, &ctx, &report, err);
                if (ret == 0)
                        ret = floor_io_update(res, &ctx, &report, err);
        }
        floor_report_release(&report);
        return ret;
}
