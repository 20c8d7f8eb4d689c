/* The effective spec: what the container really gets, decided from the
 * requested config.json. Changes are made in place on the parsed config and
 * each one is reported as a warning naming the field. The policy floor
 * (requested ∧ floor) grows here. */
#ifndef SB_SPEC_EFFECTIVE_H
#define SB_SPEC_EFFECTIVE_H

struct sb_error;
struct oci_config;

int effective_spec_apply(struct oci_config *config, struct sb_error *err);

#endif
