/* The "floor" object of the operator policy file (format in
 * spec/operator_policy.h). Kept apart from the file's loading and checks. */
#include "spec/operator_policy_floor.h"

#include "common/error.h"
#include "spec/operator_policy.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int get_size(yajl_val v, const char *path, const char *key, int64_t *out,
                    struct sb_error *err)
{
        if (YAJL_IS_INTEGER(v) && YAJL_GET_INTEGER(v) > 0) {
                *out = YAJL_GET_INTEGER(v);
                return 0;
        }
        if (YAJL_IS_STRING(v) && policy_parse_size(YAJL_GET_STRING(v), out) == 0)
                return 0;
        return sb_fail(err, 0, "policy %s: floor.ceilings.%s: expected a positive size", path, key);
}

static int parse_ceilings(yajl_val v, const char *path, struct floor_ceilings *c,
                          struct sb_error *err)
{
        if (!YAJL_IS_OBJECT(v))
                return sb_fail(err, 0, "policy %s: floor.ceilings: expected an object", path);
        for (size_t i = 0; i < v->u.object.len; i++) {
                const char *key = v->u.object.keys[i];
                yajl_val value = v->u.object.values[i];
                int64_t n = 0;

                if (strcmp(key, "cpu") == 0) {
                        const char *s = YAJL_IS_STRING(value) ? YAJL_GET_STRING(value) : NULL;
                        char buf[32];
                        if (YAJL_IS_NUMBER(value) && YAJL_GET_NUMBER(value) != NULL) {
                                snprintf(buf, sizeof(buf), "%s", YAJL_GET_NUMBER(value));
                                s = buf;
                        }
                        if (s == NULL || policy_parse_cpus(s, &c->cpu_quota, &c->cpu_period) < 0)
                                return sb_fail(err, 0,
                                               "policy %s: floor.ceilings.cpu: expected a "
                                               "positive number of CPUs",
                                               path);
                        continue;
                }
                if (get_size(value, path, key, &n, err) < 0)
                        return -1;
                if (strcmp(key, "pids") == 0)
                        c->pids = n;
                else if (strcmp(key, "memory") == 0)
                        c->memory = n;
                else if (strcmp(key, "fsize") == 0)
                        c->fsize = (uint64_t)n;
                else if (strcmp(key, "nofile") == 0)
                        c->nofile = (uint64_t)n;
                else if (strcmp(key, "tmp") == 0)
                        c->tmp_size = (uint64_t)n;
                else
                        return sb_fail(err, 0, "policy %s: floor.ceilings.%s: unknown ceiling",
                                       path, key);
        }
        return 0;
}

static int parse_devices(yajl_val v, const char *path, struct operator_policy *policy,
                         struct sb_error *err)
{
        if (!YAJL_IS_ARRAY(v))
                return sb_fail(err, 0, "policy %s: floor.devices: expected an array", path);
        policy->devices = calloc(v->u.array.len + 1, sizeof(char *));
        if (policy->devices == NULL)
                return sb_fail(err, ENOMEM, "policy %s", path);
        for (size_t i = 0; i < v->u.array.len; i++) {
                const char *s = YAJL_GET_STRING(v->u.array.values[i]);
                if (s == NULL || strncmp(s, "/dev/", 5) != 0)
                        return sb_fail(err, 0,
                                       "policy %s: floor.devices[%zu]: expected a path "
                                       "under /dev",
                                       path, i);
                policy->devices[i] = strdup(s);
                if (policy->devices[i] == NULL)
                        return sb_fail(err, ENOMEM, "policy %s", path);
                policy->n_devices++;
        }
        return 0;
}

int operator_policy_parse_floor(yajl_val v, const char *path, struct operator_policy *policy,
                                struct sb_error *err)
{
        if (!YAJL_IS_OBJECT(v))
                return sb_fail(err, 0, "policy %s: floor: expected an object", path);
        for (size_t i = 0; i < v->u.object.len; i++) {
                const char *key = v->u.object.keys[i];
                yajl_val value = v->u.object.values[i];

                if (strcmp(key, "profile") == 0) {
                        const struct floor_profile *p =
                                YAJL_IS_STRING(value) ?
                                        policy_profile_by_name(YAJL_GET_STRING(value)) :
                                        NULL;
                        if (p == NULL)
                                return sb_fail(err, 0,
                                               "policy %s: floor.profile: expected "
                                               "\"standard\" or \"strict\"",
                                               path);
                        policy->profile = p->id;
                } else if (strcmp(key, "ceilings") == 0) {
                        if (parse_ceilings(value, path, &policy->ceilings, err) < 0)
                                return -1;
                } else if (strcmp(key, "devices") == 0) {
                        if (parse_devices(value, path, policy, err) < 0)
                                return -1;
                } else {
                        return sb_fail(err, 0, "policy %s: floor.%s: unknown setting", path, key);
                }
        }
        return 0;
}
