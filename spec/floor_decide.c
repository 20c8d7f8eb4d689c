#include "spec/floor_decide.h"

#include "spec/floor_runtime.h"
#include "spec/policy_profiles.h"

#include "oci/config.h"

#include <string.h>

int floor_decide(struct oci_config *config, const struct floor_decide_inputs *in,
                 struct floor_report *report, struct floor_decision *out, struct sb_error *err)
{
        const struct operator_policy *policy = in->effective->policy;
        /* create's LSM and Landlock decisions warn and fail on their own;
         * explain's record into the report. */
        struct floor_report *recorded = in->effective->explain ? report : NULL;

        memset(out, 0, sizeof(*out));
        out->profile = policy->profile; /* until the floor selects one */
        if (effective_spec_apply(config, in->effective, report, &out->profile, err) < 0 ||
            floor_wall_clock(policy, config, in->timeout_requested, &out->timeout, report, err) <
                    0 ||
            floor_output_limit(policy, out->profile, config, in->output, &out->output, report,
                               err) < 0)
                return -1;
        if (floor_lsm_decide(in->lsm, config->process, NULL,
                             config->linux_ ? &config->linux_->mount_label : NULL, recorded,
                             err) < 0)
                return -1;
        return floor_landlock_decide(policy, policy_profile_get(out->profile), config, in->sources,
                                     in->landlock, &out->landlock, recorded, err);
}
