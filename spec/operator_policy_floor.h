/* Parsing of the operator policy's "floor" object; internal to spec/. */
#ifndef SB_SPEC_OPERATOR_POLICY_FLOOR_H
#define SB_SPEC_OPERATOR_POLICY_FLOOR_H

#include "oci/json_read.h"

struct sb_error;
struct operator_policy;

/* v is the value of "floor" in the file at path; errors name both
 * ("policy FILE: floor.ceilings.pids: expected a positive size"). */
int operator_policy_parse_floor(json_val v, const char *path, struct operator_policy *policy,
                                struct sb_error *err);

#endif
