/* The whole decision for one container, in one place: `create` and `policy
 * explain` both call it, so that explain cannot drift from create. From
 * the parsed config, the operator's policy and the host facts runtime/
 * gathered, it makes the effective config (the floor merged in, every
 * path judged by what it is), the profile, the wall-clock and output limits, the LSM
 * labels and the Landlock rules, and records every change and refusal in
 * the report. (`exec` decides its process with effective_process_apply,
 * under the policy and config saved at create; `update` its resources
 * with effective_resources_apply.) */
#ifndef SB_SPEC_FLOOR_DECIDE_H
#define SB_SPEC_FLOOR_DECIDE_H

#include "spec/effective.h"
#include "spec/floor_landlock.h"
#include "spec/floor_lsm.h"
#include "spec/floor_runtime.h"

struct floor_decide_inputs {
        const struct effective_options *effective; /* policy, host, held sources, explain */
        int timeout_requested;                     /* `run --timeout`, 0: none */
        const struct output_request *output;       /* `run`'s output limits, NULL: none */
        const struct lsm_host_facts *lsm;
        const struct landlock_host *landlock;
        const struct landlock_sources *sources; /* the held binds and root, for W^X */
};

struct floor_decision {
        enum policy_profile profile;
        int timeout;                    /* seconds, 0: none */
        struct output_limits output;    /* bytes per stream, 0: none */
        struct landlock_rules landlock; /* released with landlock_rules_release */
};

/* In explain mode every refusal is recorded and the decision goes on; else
 * the first fails it. On failure out holds nothing to release but its
 * profile: the one selected, or the operator's if none was yet. */
int floor_decide(struct oci_config *config, const struct floor_decide_inputs *in,
                 struct floor_report *report, struct floor_decision *out, struct sb_error *err);

#endif
