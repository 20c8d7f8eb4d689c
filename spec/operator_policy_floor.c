/* The "floor" object of the operator policy file (format in
 * spec/operator_policy.h). Kept apart from the file's loading and checks. */
#include "spec/operator_policy_floor.h"

#include "common/error.h"
#include "common/strv.h"
#include "spec/floor.h"
#include "spec/operator_policy.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int get_size(json_val v, struct jpath *p, int64_t *out, struct sb_error *err)
{
        const char *s = json_string_value(v);

        if (json_integer_value(v, out) && *out > 0)
                return 0;
        if (s != NULL && policy_parse_size(s, out) == 0)
                return 0;
        return jfail(p, err, "expected a positive size");
}

/* floor.ceilings.io: rates and IOPS as positive sizes (suffixes allowed),
 * io.weight's range, and the rule for sources without a disk. */
static int io_member(const char *key, json_val value, struct jpath *p, void *ctx,
                     struct sb_error *err)
{
        struct operator_policy *policy = ctx;
        struct floor_io_ceiling *io = &policy->ceilings.io;
        int64_t n = 0;

        if (strcmp(key, "require_enforced") == 0) {
                if (!json_is_true(value) && !json_is_false(value))
                        return jfail(p, err, "expected true or false");
                policy->io_require_set = true;
                policy->io_require = json_is_true(value);
                return 0;
        }
        if (strcmp(key, "weight") == 0) {
                if (!json_integer_value(value, &n) || n < 1 || n > 10000)
                        return jfail(p, err, "expected an io.weight from 1 to 10000");
                io->weight = (uint64_t)n;
                return 0;
        }
        if (strcmp(key, "read_bps") != 0 && strcmp(key, "write_bps") != 0 &&
            strcmp(key, "read_iops") != 0 && strcmp(key, "write_iops") != 0)
                return jfail(p, err, "unknown io ceiling");
        if (get_size(value, p, &n, err) < 0)
                return -1;
        if (strcmp(key, "read_bps") == 0)
                io->rbps = (uint64_t)n;
        else if (strcmp(key, "write_bps") == 0)
                io->wbps = (uint64_t)n;
        else if (strcmp(key, "read_iops") == 0)
                io->riops = (uint64_t)n;
        else
                io->wiops = (uint64_t)n;
        return 0;
}

static int ceiling_member(const char *key, json_val value, struct jpath *p, void *ctx,
                          struct sb_error *err)
{
        struct operator_policy *policy = ctx;
        struct floor_ceilings *c = &policy->ceilings;
        int64_t n = 0;

        if (strcmp(key, "io") == 0) {
                if (!json_is_object(value))
                        return jfail(p, err, "expected an object");
                return json_each_member(value, p, io_member, policy, err);
        }

        if (strcmp(key, "cpu") == 0) {
                /* A number is read as written: 1.5 CPUs is not rounded. */
                const char *s = json_string_value(value);
                char buf[32];
                if (json_number_text(value) != NULL) {
                        snprintf(buf, sizeof(buf), "%s", json_number_text(value));
                        s = buf;
                }
                if (s == NULL || policy_parse_cpus(s, &c->cpu_quota, &c->cpu_period) < 0)
                        return jfail(p, err, "expected a positive number of CPUs");
                return 0;
        }
        if (get_size(value, p, &n, err) < 0)
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
        else if (strcmp(key, "inodes") == 0)
                c->inodes = (uint64_t)n;
        else
                return jfail(p, err, "unknown ceiling");
        return 0;
}

static int parse_devices(json_val v, struct jpath *p, struct operator_policy *policy,
                         struct sb_error *err)
{
        size_t n = json_array_len(v);

        if (!json_is_array(v))
                return jfail(p, err, "expected an array");
        /* A key given twice (in "floor" or by a second "floor" object): the
         * last one holds, as for every other setting, and the first list
         * must not leak (found by tests/fuzz/fuzz_policy). */
        strv_free_n(policy->devices, policy->n_devices);
        policy->n_devices = 0;
        policy->devices = calloc(n + 1, sizeof(char *));
        if (policy->devices == NULL)
                return sb_fail(err, ENOMEM, "%s", p->buf);
        for (size_t i = 0; i < n; i++) {
                const char *s = json_string_value(json_array_at(v, i));
                size_t saved = jpath_index(p, i);
                if (s == NULL || strncmp(s, "/dev/", 5) != 0)
                        return jfail(p, err, "expected a path under /dev");
                jpath_pop(p, saved);
                policy->devices[i] = strdup(s);
                if (policy->devices[i] == NULL)
                        return sb_fail(err, ENOMEM, "%s", p->buf);
                policy->n_devices++;
        }
        return 0;
}

/* Names of network devices, as the kernel would take them (no template:
 * the operator names a device that exists). */
static int parse_net_devices(json_val v, struct jpath *p, struct operator_policy *policy,
                             struct sb_error *err)
{
        size_t n = json_array_len(v);

        if (!json_is_array(v))
                return jfail(p, err, "expected an array");
        strv_free_n(policy->net_devices, policy->n_net_devices);
        policy->n_net_devices = 0;
        policy->net_devices = calloc(n + 1, sizeof(char *));
        if (policy->net_devices == NULL)
                return sb_fail(err, ENOMEM, "%s", p->buf);
        for (size_t i = 0; i < n; i++) {
                const char *s = json_string_value(json_array_at(v, i));
                size_t saved = jpath_index(p, i);
                if (!floor_net_device_name_valid(s, false))
                        return jfail(p, err, "expected a network device name");
                jpath_pop(p, saved);
                policy->net_devices[i] = strdup(s);
                if (policy->net_devices[i] == NULL)
                        return sb_fail(err, ENOMEM, "%s", p->buf);
                policy->n_net_devices++;
        }
        return 0;
}

static int volumes_member(const char *key, json_val value, struct jpath *p, void *ctx,
                          struct sb_error *err)
{
        struct operator_policy *policy = ctx;

        if (strcmp(key, "idmap") == 0) {
                const char *s = json_string_value(value);
                if (s == NULL || (strcmp(s, "own-ids") != 0 && strcmp(s, "engine") != 0))
                        return jfail(p, err, "expected \"own-ids\" or \"engine\"");
                policy->volumes_idmap_engine = strcmp(s, "engine") == 0;
                return 0;
        }
        if (strcmp(key, "require_project_quota") != 0)
                return jfail(p, err, "unknown setting");
        if (!json_is_true(value) && !json_is_false(value))
                return jfail(p, err, "expected true or false");
        policy->volumes_quota_set = true;
        policy->volumes_require_quota = json_is_true(value);
        return 0;
}

static int floor_member(const char *key, json_val value, struct jpath *p, void *ctx,
                        struct sb_error *err)
{
        struct operator_policy *policy = ctx;

        if (strcmp(key, "profile") == 0) {
                const char *name = json_string_value(value);
                const struct floor_profile *profile = name ? policy_profile_by_name(name) : NULL;
                if (profile == NULL)
                        return jfail(p, err, "expected \"standard\" or \"strict\"");
                policy->profile = profile->id;
                return 0;
        }
        if (strcmp(key, "ceilings") == 0) {
                if (!json_is_object(value))
                        return jfail(p, err, "expected an object");
                return json_each_member(value, p, ceiling_member, policy, err);
        }
        if (strcmp(key, "devices") == 0)
                return parse_devices(value, p, policy, err);
        if (strcmp(key, "net_devices") == 0)
                return parse_net_devices(value, p, policy, err);
        if (strcmp(key, "volumes") == 0) {
                if (!json_is_object(value))
                        return jfail(p, err, "expected an object");
                return json_each_member(value, p, volumes_member, policy, err);
        }
        return jfail(p, err, "unknown setting");
}

int operator_policy_parse_floor(json_val v, const char *path, struct operator_policy *policy,
                                struct sb_error *err)
{
        struct jpath p;
        int r;

        jpath_init(&p);
        jpath_key(&p, "floor");
        r = json_is_object(v) ? json_each_member(v, &p, floor_member, policy, err) :
                                jfail(&p, err, "expected an object");
        return r < 0 ? sb_error_prefix(err, "policy %s", path) : 0;
}
