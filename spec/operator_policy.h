/* The operator's settings: a root-owned JSON file (default
 * /etc/sbrun/policy.json, `--policy FILE` for tests). Only the operator
 * can loosen anything here; config.json and annotations never can.
 *
 *   {
 *     "cgroups": { "enforce": false }
 *   }
 *
 * cgroups.enforce (default true): false lets containers run without
 * resource limits on a host that has no usable cgroup v2 controllers
 * (e.g. a hybrid v1/v2 host), with a warning on every create and
 * "run.sbrun.resources": "unenforced" in their state. Where the
 * controllers exist, limits are enforced either way.
 *
 * floor.profile ("standard", the default, or "strict"): the policy floor
 * every container runs under (spec/policy_profile.h).
 *
 * The policy-floor work extends this file with its own keys. */
#ifndef SB_SPEC_OPERATOR_POLICY_H
#define SB_SPEC_OPERATOR_POLICY_H

#include <stdbool.h>

#include "spec/policy_profile.h"

struct sb_error;

#define OPERATOR_POLICY_PATH "/etc/sbrun/policy.json"

struct operator_policy {
        char *source;         /* the file read; NULL for the built-in default */
        bool cgroups_enforce; /* default true */
        enum policy_profile floor_profile; /* default POLICY_STANDARD */
};

/* Read path (NULL: OPERATOR_POLICY_PATH, whose absence means the built-in
 * default; an explicit path must exist). The file must be a regular file
 * owned by root and not writable by group or others, or it is refused. */
int operator_policy_load(const char *path, struct operator_policy *policy, struct sb_error *err);

void operator_policy_release(struct operator_policy *policy);

#endif
