/* Parsing of the operator policy's "floor" object; internal to spec/. */
#ifndef SB_SPEC_OPERATOR_POLICY_FLOOR_H
#define SB_SPEC_OPERATOR_POLICY_FLOOR_H

#include <yajl/yajl_tree.h>

struct sb_error;
struct operator_policy;

int operator_policy_parse_floor(yajl_val v, const char *path, struct operator_policy *policy,
                                struct sb_error *err);

#endif
