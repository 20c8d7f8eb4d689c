/* config.json `linux.resources`: the v1-shaped resource model engines send
 * (devices, memory, cpu, pids, blockIO, hugepageLimits, network, rdma) and
 * v2's `unified`. Turning them into cgroup v2 files is the runtime's job. */
#include "oci/config.h"
#include "oci/config_parse_internal.h"

#include "common/cleanup.h"
#include "common/error.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* A limit is a byte or task count, or -1 for "unlimited". */
static int get_limit(yajl_val obj, const char *key, struct jpath *p, int64_t *out, bool *has,
                     struct sb_error *err)
{
        int r = json_get_i64(obj, key, p, out, err);

        if (r < 0)
                return -1;
        *has = r > 0;
        if (r > 0 && *out < -1) {
                size_t saved = jpath_key(p, key);
                jfail(p, err, "%" PRId64 " is not a valid limit", *out);
                jpath_pop(p, saved);
                return -1;
        }
        return 0;
}

static int get_u64_has(yajl_val obj, const char *key, struct jpath *p, uint64_t *out, bool *has,
                       struct sb_error *err)
{
        int r = json_get_u64(obj, key, p, out, err);

        *has = r > 0;
        return r < 0 ? -1 : 0;
}

static int get_i64_has(yajl_val obj, const char *key, struct jpath *p, int64_t *out, bool *has,
                       struct sb_error *err)
{
        int r = json_get_i64(obj, key, p, out, err);

        *has = r > 0;
        return r < 0 ? -1 : 0;
}

static int get_bool_has(yajl_val obj, const char *key, struct jpath *p, bool *out, bool *has,
                        struct sb_error *err)
{
        int r = json_get_bool(obj, key, p, out, err);

        *has = r > 0;
        return r < 0 ? -1 : 0;
}

static int get_u16_has(yajl_val obj, const char *key, struct jpath *p, uint16_t *out, bool *has,
                       struct sb_error *err)
{
        int r = json_get_u16(obj, key, p, out, err);

        *has = r > 0;
        return r < 0 ? -1 : 0;
}

static int require_i64(yajl_val obj, const char *key, struct jpath *p, int64_t *out,
                       struct sb_error *err)
{
        int r = json_get_i64(obj, key, p, out, err);

        if (r == 0)
                return json_fail_required(p, key, err);
        return r < 0 ? -1 : 0;
}

static int require_u64(yajl_val obj, const char *key, struct jpath *p, uint64_t *out,
                       struct sb_error *err)
{
        int r = json_get_u64(obj, key, p, out, err);

        if (r == 0)
                return json_fail_required(p, key, err);
        return r < 0 ? -1 : 0;
}

static int parse_device_rule(yajl_val v, struct jpath *p, void *item, struct sb_error *err)
{
        static const char *const types[] = { "a", "c", "b", NULL };
        struct oci_device_cgroup *d = item;
        int r = json_get_bool(v, "allow", p, &d->allow, err);

        if (r == 0)
                r = json_fail_required(p, "allow", err);
        if (r < 0 || json_get_string(v, "type", p, &d->type, err) < 0 ||
            oci_check_known_member(d->type, types, p, "type", "device type", err) < 0 ||
            get_i64_has(v, "major", p, &d->major, &d->has_major, err) < 0 ||
            get_i64_has(v, "minor", p, &d->minor, &d->has_minor, err) < 0 ||
            json_get_string(v, "access", p, &d->access, err) < 0)
                return -1;
        if (d->access != NULL && strspn(d->access, "rwm") != strlen(d->access)) {
                _cleanup_free_ char *shown = json_describe_string(d->access);
                size_t saved = jpath_key(p, "access");
                jfail(p, err, "invalid access %s (a combination of r, w and m)",
                      shown ? shown : "?");
                jpath_pop(p, saved);
                return -1;
        }
        return 0;
}

static int parse_memory(yajl_val obj, struct jpath *p, struct oci_resources *res,
                        struct sb_error *err)
{
        struct oci_memory *m;
        yajl_val v = NULL;
        size_t saved;
        int r = json_get_object(obj, "memory", p, &v, err);

        if (r <= 0)
                return r;
        m = res->memory = calloc(1, sizeof(*m));
        if (m == NULL)
                return sb_fail(err, ENOMEM, "memory");
        saved = jpath_key(p, "memory");
        r = 0;
        if (get_limit(v, "limit", p, &m->limit, &m->has_limit, err) < 0 ||
            get_limit(v, "reservation", p, &m->reservation, &m->has_reservation, err) < 0 ||
            get_limit(v, "swap", p, &m->swap, &m->has_swap, err) < 0 ||
            get_i64_has(v, "kernel", p, &m->kernel, &m->has_kernel, err) < 0 ||
            get_i64_has(v, "kernelTCP", p, &m->kernel_tcp, &m->has_kernel_tcp, err) < 0 ||
            get_u64_has(v, "swappiness", p, &m->swappiness, &m->has_swappiness, err) < 0 ||
            get_bool_has(v, "disableOOMKiller", p, &m->disable_oom_killer,
                         &m->has_disable_oom_killer, err) < 0 ||
            get_bool_has(v, "useHierarchy", p, &m->use_hierarchy, &m->has_use_hierarchy, err) < 0 ||
            get_bool_has(v, "checkBeforeUpdate", p, &m->check_before_update,
                         &m->has_check_before_update, err) < 0)
                r = -1;
        jpath_pop(p, saved);
        return r;
}

static int parse_cpu(yajl_val obj, struct jpath *p, struct oci_resources *res, struct sb_error *err)
{
        struct oci_cpu *c;
        yajl_val v = NULL;
        size_t saved;
        int r = json_get_object(obj, "cpu", p, &v, err);

        if (r <= 0)
                return r;
        c = res->cpu = calloc(1, sizeof(*c));
        if (c == NULL)
                return sb_fail(err, ENOMEM, "cpu");
        saved = jpath_key(p, "cpu");
        r = 0;
        if (get_u64_has(v, "shares", p, &c->shares, &c->has_shares, err) < 0 ||
            get_i64_has(v, "quota", p, &c->quota, &c->has_quota, err) < 0 ||
            get_u64_has(v, "burst", p, &c->burst, &c->has_burst, err) < 0 ||
            get_u64_has(v, "period", p, &c->period, &c->has_period, err) < 0 ||
            get_i64_has(v, "realtimeRuntime", p, &c->realtime_runtime, &c->has_realtime_runtime,
                        err) < 0 ||
            get_u64_has(v, "realtimePeriod", p, &c->realtime_period, &c->has_realtime_period, err) <
                    0 ||
            json_get_string(v, "cpus", p, &c->cpus, err) < 0 ||
            json_get_string(v, "mems", p, &c->mems, err) < 0 ||
            get_i64_has(v, "idle", p, &c->idle, &c->has_idle, err) < 0)
                r = -1;
        jpath_pop(p, saved);
        return r;
}

static int parse_pids(yajl_val obj, struct jpath *p, struct oci_resources *res,
                      struct sb_error *err)
{
        yajl_val v = NULL;
        size_t saved;
        int r = json_get_object(obj, "pids", p, &v, err);

        if (r <= 0)
                return r;
        saved = jpath_key(p, "pids");
        r = get_limit(v, "limit", p, &res->pids_limit, &res->has_pids_limit, err);
        jpath_pop(p, saved);
        return r;
}

static int parse_weight_device(yajl_val v, struct jpath *p, void *item, struct sb_error *err)
{
        struct oci_weight_device *d = item;

        if (require_i64(v, "major", p, &d->major, err) < 0 ||
            require_i64(v, "minor", p, &d->minor, err) < 0 ||
            get_u16_has(v, "weight", p, &d->weight, &d->has_weight, err) < 0 ||
            get_u16_has(v, "leafWeight", p, &d->leaf_weight, &d->has_leaf_weight, err) < 0)
                return -1;
        return 0;
}

static int parse_throttle_device(yajl_val v, struct jpath *p, void *item, struct sb_error *err)
{
        struct oci_throttle_device *d = item;

        if (require_i64(v, "major", p, &d->major, err) < 0 ||
            require_i64(v, "minor", p, &d->minor, err) < 0 ||
            require_u64(v, "rate", p, &d->rate, err) < 0)
                return -1;
        return 0;
}

static int parse_throttle_list(yajl_val obj, const char *key, struct jpath *p,
                               struct oci_throttle_list *list, struct sb_error *err)
{
        return oci_each_element(obj, key, p, &list->devices, sizeof(struct oci_throttle_device),
                                &list->n, parse_throttle_device, err);
}

static int parse_block_io(yajl_val obj, struct jpath *p, struct oci_resources *res,
                          struct sb_error *err)
{
        struct oci_block_io *b;
        yajl_val v = NULL;
        size_t saved;
        int r = json_get_object(obj, "blockIO", p, &v, err);

        if (r <= 0)
                return r;
        b = res->block_io = calloc(1, sizeof(*b));
        if (b == NULL)
                return sb_fail(err, ENOMEM, "blockIO");
        saved = jpath_key(p, "blockIO");
        r = 0;
        if (get_u16_has(v, "weight", p, &b->weight, &b->has_weight, err) < 0 ||
            get_u16_has(v, "leafWeight", p, &b->leaf_weight, &b->has_leaf_weight, err) < 0 ||
            oci_each_element(v, "weightDevice", p, &b->weight_devices,
                             sizeof(struct oci_weight_device), &b->n_weight_devices,
                             parse_weight_device, err) < 0 ||
            parse_throttle_list(v, "throttleReadBpsDevice", p, &b->throttle_read_bps, err) < 0 ||
            parse_throttle_list(v, "throttleWriteBpsDevice", p, &b->throttle_write_bps, err) < 0 ||
            parse_throttle_list(v, "throttleReadIOPSDevice", p, &b->throttle_read_iops, err) < 0 ||
            parse_throttle_list(v, "throttleWriteIOPSDevice", p, &b->throttle_write_iops, err) < 0)
                r = -1;
        jpath_pop(p, saved);
        return r;
}

static int parse_hugepage_limit(yajl_val v, struct jpath *p, void *item, struct sb_error *err)
{
        struct oci_hugepage_limit *h = item;

        if (json_require_string(v, "pageSize", p, &h->page_size, err) < 0 ||
            require_u64(v, "limit", p, &h->limit, err) < 0)
                return -1;
        return 0;
}

static int parse_net_priority(yajl_val v, struct jpath *p, void *item, struct sb_error *err)
{
        struct oci_net_priority *n = item;
        int r;

        if (json_require_string(v, "name", p, &n->name, err) < 0)
                return -1;
        r = json_get_u32(v, "priority", p, &n->priority, err);
        if (r == 0)
                r = json_fail_required(p, "priority", err);
        return r < 0 ? -1 : 0;
}

static int parse_network(yajl_val obj, struct jpath *p, struct oci_resources *res,
                         struct sb_error *err)
{
        yajl_val v = NULL;
        size_t saved;
        int r = json_get_object(obj, "network", p, &v, err);

        if (r <= 0)
                return r;
        res->has_network = true;
        saved = jpath_key(p, "network");
        r = json_get_u32(v, "classID", p, &res->class_id, err);
        res->has_class_id = r > 0;
        if (r >= 0)
                r = oci_each_element(v, "priorities", p, &res->net_priorities,
                                     sizeof(struct oci_net_priority), &res->n_net_priorities,
                                     parse_net_priority, err);
        jpath_pop(p, saved);
        return r < 0 ? -1 : 0;
}

static int parse_rdma_entry(yajl_val v, struct jpath *p, const char *device,
                            struct oci_rdma_limit *limit, struct sb_error *err)
{
        int h, o;

        if (json_check_object(v, p, err) < 0)
                return -1;
        limit->device = strdup(device);
        if (limit->device == NULL)
                return sb_fail(err, ENOMEM, "rdma");
        h = json_get_u32(v, "hcaHandles", p, &limit->hca_handles, err);
        if (h < 0)
                return -1;
        o = json_get_u32(v, "hcaObjects", p, &limit->hca_objects, err);
        if (o < 0)
                return -1;
        limit->has_hca_handles = h > 0;
        limit->has_hca_objects = o > 0;
        return 0;
}

static int parse_rdma(yajl_val obj, struct jpath *p, struct oci_resources *res,
                      struct sb_error *err)
{
        yajl_val v = NULL;
        size_t saved, len;
        int r = json_get_object(obj, "rdma", p, &v, err);

        if (r <= 0)
                return r;
        len = v->u.object.len;
        res->rdma = calloc(len ? len : 1, sizeof(*res->rdma));
        if (res->rdma == NULL)
                return sb_fail(err, ENOMEM, "rdma");
        res->n_rdma = len;
        saved = jpath_key(p, "rdma");
        for (size_t i = 0; i < len; i++) {
                size_t at = jpath_key(p, v->u.object.keys[i]);
                if (parse_rdma_entry(v->u.object.values[i], p, v->u.object.keys[i], &res->rdma[i],
                                     err) < 0) {
                        jpath_pop(p, saved);
                        return -1;
                }
                jpath_pop(p, at);
        }
        jpath_pop(p, saved);
        return 0;
}

int oci_parse_resources_obj(yajl_val v, struct jpath *p, struct oci_resources *res,
                            struct sb_error *err)
{
        if (oci_each_element(v, "devices", p, &res->devices, sizeof(struct oci_device_cgroup),
                             &res->n_devices, parse_device_rule, err) < 0 ||
            parse_memory(v, p, res, err) < 0 || parse_cpu(v, p, res, err) < 0 ||
            parse_pids(v, p, res, err) < 0 || parse_block_io(v, p, res, err) < 0 ||
            oci_each_element(v, "hugepageLimits", p, &res->hugepage_limits,
                             sizeof(struct oci_hugepage_limit), &res->n_hugepage_limits,
                             parse_hugepage_limit, err) < 0 ||
            parse_network(v, p, res, err) < 0 || parse_rdma(v, p, res, err) < 0 ||
            json_get_string_map(v, "unified", p, &res->unified, &res->n_unified, err) < 0)
                return -1;
        return 0;
}

struct oci_resources *oci_resources_parse(const char *json, size_t len, const char *origin,
                                          struct sb_error *err)
{
        _cleanup_json_tree_ yajl_val tree = json_parse(json, len, err);
        struct oci_resources *res;
        struct jpath p;

        if (tree == NULL) {
                sb_error_prefix(err, "%s", origin);
                return NULL;
        }
        jpath_init(&p);
        res = calloc(1, sizeof(*res));
        if (res == NULL) {
                sb_fail(err, ENOMEM, "%s", origin);
                return NULL;
        }
        if (json_check_object(tree, &p, err) < 0 ||
            oci_parse_resources_obj(tree, &p, res, err) < 0) {
                oci_resources_free(res);
                sb_error_prefix(err, "%s", origin);
                return NULL;
        }
        return res;
}
