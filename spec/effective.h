/* The effective spec: what the container really gets, decided from the
 * requested config.json and the operator's policy floor (spec/floor.h).
 * Changes are made in place on the parsed config; `create` logs each one,
 * `policy explain` prints them. */
#ifndef SB_SPEC_EFFECTIVE_H
#define SB_SPEC_EFFECTIVE_H

#include "spec/floor.h"

struct sb_error;
struct stat;
struct oci_config;
struct oci_process;
struct oci_resources;
struct operator_policy;

struct effective_options {
        const struct operator_policy *policy; /* loaded once per command */
        const char *state_root;               /* global --root */
        const char *audit_dir;                /* the audit trail's directory, or NULL */
        const struct floor_host *host;        /* NULL: nothing known of the host */
        char *const *bind_paths;              /* per mount: its source as held open, or NULL */
        const struct stat *bind_stats;        /* per mount: fstat of what is held */
        size_t n_bind_paths;
        bool explain; /* record refusals instead of failing */
};

/* Fills *report (released by the caller with floor_report_release) and
 * *profile with the profile that applied (the floor seccomp programs
 * follow it). */
int effective_spec_apply(struct oci_config *config, const struct effective_options *opts,
                         struct floor_report *report, enum policy_profile *profile,
                         struct sb_error *err);

/* The floor for a process `exec` adds to a running container: the same
 * capability ceiling, noNewPrivileges and rlimits, under the policy and the
 * config the container was created with (saved in its state directory), so
 * it gets the same profile. */
int effective_process_apply(const struct oci_config *container, struct oci_process *process,
                            const struct operator_policy *policy, enum policy_profile *profile,
                            struct sb_error *err);

/* The floor for `update` of a running container: its resources clamped
 * to the ceilings of the profile it was created under (the policy and
 * config saved in its state directory), each change logged. An update
 * cannot lift what create would not give. */
int effective_resources_apply(const struct oci_config *container, struct oci_resources *res,
                              const struct operator_policy *policy, const struct floor_host *host,
                              struct sb_error *err);

#endif
