#include "runtime/cgroup/cgroup_resources.h"

#include "common/cleanup.h"
#include "common/error.h"
#include "common/log.h"
#include "oci/config.h"
#include "spec/floor_io.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Settings are collected with a sticky allocation failure, like strv. */
struct builder {
        struct cgroup_settings *out;
        const char *prefix;
        bool failed;
};

void cgroup_settings_release(struct cgroup_settings *s)
{
        for (size_t i = 0; i < s->n; i++) {
                free(s->items[i].file);
                free(s->items[i].value);
                free(s->items[i].field);
                free(s->items[i].fallback_file);
                free(s->items[i].fallback_value);
        }
        free(s->items);
        s->items = NULL;
        s->n = 0;
}

static struct cgroup_setting *add(struct builder *b, const char *field, const char *file,
                                  const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static struct cgroup_setting *add(struct builder *b, const char *field, const char *file,
                                  const char *fmt, ...)
{
        struct cgroup_setting *items, *s;
        va_list ap;

        if (b->failed)
                return NULL;
        items = realloc(b->out->items, (b->out->n + 1) * sizeof(*items));
        if (items == NULL) {
                b->failed = true;
                return NULL;
        }
        b->out->items = items;
        s = &items[b->out->n];
        memset(s, 0, sizeof(*s));
        va_start(ap, fmt);
        int r = vasprintf(&s->value, fmt, ap);
        va_end(ap);
        s->file = strdup(file);
        if (asprintf(&s->field, "%s.%s", b->prefix, field) < 0)
                s->field = NULL;
        if (r < 0 || s->file == NULL || s->field == NULL) {
                if (r >= 0)
                        free(s->value);
                free(s->file);
                free(s->field);
                b->failed = true;
                return NULL;
        }
        b->out->n++;
        return s;
}

static void set_fallback(struct builder *b, struct cgroup_setting *s, const char *file,
                         const char *value)
{
        if (s == NULL)
                return;
        s->fallback_file = strdup(file);
        s->fallback_value = strdup(value);
        if (s->fallback_file == NULL || s->fallback_value == NULL)
                b->failed = true;
}

static void warn_ignored(const struct builder *b, const char *field, const char *why)
{
        sb_warn("%s.%s: %s; ignored", b->prefix, field, why);
}

/* Quadratic in log2(shares) through (2, 1), (1024, 100), (262144, 10000):
 * the mapping of crun ≥ 1.23 and runc's opencontainers/cgroups, so that the
 * default 1024 shares become the default weight 100. */
uint64_t cgroup_cpu_shares_to_weight(uint64_t shares)
{
        if (shares == 0)
                return 0;
        if (shares <= 2)
                return 1;
        if (shares >= 262144)
                return 10000;
        double l = log2((double)shares);
        double exponent = (l * l + 125 * l) / 612.0 - 7.0 / 34.0;
        return (uint64_t)ceil(pow(10, exponent));
}

/* blkio.weight [10, 1000] → io.weight [1, 10000], linearly (runc, crun). */
uint64_t cgroup_blkio_weight_to_io_weight(uint64_t weight)
{
        /* The floor's io ceiling compares weights the same way. */
        return floor_io_weight_of_blkio(weight);
}

/* v1 "swap" is memory+swap; v2's memory.swap.max is swap alone. */
int cgroup_swap_to_v2(int64_t swap, int64_t memory, int64_t *out, const char **why)
{
        /* Unlimited memory and unset swap: both unlimited, as with v1. */
        if (memory == -1 && swap == 0) {
                *out = -1;
                return 0;
        }
        if (swap == -1 || swap == 0) {
                *out = swap;
                return 0;
        }
        if (memory == 0 || memory == -1) {
                *why = "a swap limit needs a memory limit";
                return -1;
        }
        if (swap < memory) {
                *why = "memory+swap must not be less than the memory limit";
                return -1;
        }
        *out = swap - memory;
        return 0;
}

static void limit_value(char *buf, size_t len, int64_t v)
{
        if (v < 0)
                snprintf(buf, len, "max");
        else
                snprintf(buf, len, "%" PRId64, v);
}

static int convert_memory(struct builder *b, const struct oci_memory *m, struct sb_error *err)
{
        int64_t memory = m->has_limit ? m->limit : 0;
        char v[32];

        if (m->has_swap) {
                int64_t swap = 0;
                const char *why = NULL;
                /* The values were decided by spec/floor_resources.c: this is
                 * the arithmetic's own guard. */
                if (cgroup_swap_to_v2(m->swap, memory, &swap, &why) < 0)
                        return sb_fail(err, 0,
                                       "%s.memory.swap: %" PRId64 " (memory.limit %" PRId64 "): %s",
                                       b->prefix, m->swap, memory, why);
                /* Equal memory and memory+swap: no swap at all. */
                if (swap != 0 || m->swap > 0) {
                        limit_value(v, sizeof(v), swap);
                        struct cgroup_setting *s =
                                add(b, "memory.swap", "memory.swap.max", "%s", v);
                        /* Without swap accounting there is no swap to limit:
                         * "max" and "0" mean nothing then (as runc). */
                        if (s && (swap == -1 || swap == 0))
                                s->optional = true;
                }
        }
        if (m->has_limit && m->limit != 0) {
                limit_value(v, sizeof(v), m->limit);
                add(b, "memory.limit", "memory.max", "%s", v);
        }
        if (m->has_reservation && m->reservation != 0) {
                limit_value(v, sizeof(v), m->reservation);
                add(b, "memory.reservation", "memory.low", "%s", v);
        }
        if (m->has_kernel)
                warn_ignored(b, "memory.kernel", "kernel memory limits exist only in cgroup v1");
        if (m->has_kernel_tcp)
                warn_ignored(b, "memory.kernelTCP", "kernel TCP limits exist only in cgroup v1");
        if (m->has_swappiness)
                warn_ignored(b, "memory.swappiness", "cgroup v2 has no per-cgroup swappiness");
        if (m->has_use_hierarchy && !m->use_hierarchy)
                warn_ignored(b, "memory.useHierarchy", "cgroup v2 is always hierarchical");
        /* memory.oom.group is no substitute: it kills the whole group on
         * OOM, the opposite of disabling the killer. */
        if (m->has_disable_oom_killer && m->disable_oom_killer)
                warn_ignored(b, "memory.disableOOMKiller",
                             "cgroup v2 cannot disable the OOM killer (the container is OOM-killed "
                             "at memory.max)");
        return 0;
}

static void convert_cpu(struct builder *b, const struct oci_cpu *c)
{
        if (c->has_shares && c->shares != 0) {
                add(b, "cpu.shares", "cpu.weight", "%" PRIu64,
                    cgroup_cpu_shares_to_weight(c->shares));
        }
        /* The kernel keeps the period when only the quota is written. */
        if ((c->has_quota && c->quota != 0) || (c->has_period && c->period != 0)) {
                char quota[32] = "max";
                if (c->has_quota && c->quota > 0)
                        snprintf(quota, sizeof(quota), "%" PRId64, c->quota);
                if (c->has_period && c->period != 0)
                        add(b, "cpu.quota", "cpu.max", "%s %" PRIu64, quota, c->period);
                else
                        add(b, "cpu.quota", "cpu.max", "%s", quota);
        }
        if (c->has_burst)
                add(b, "cpu.burst", "cpu.max.burst", "%" PRIu64, c->burst);
        if (c->has_idle)
                add(b, "cpu.idle", "cpu.idle", "%" PRId64, c->idle);
        if (c->cpus && *c->cpus)
                add(b, "cpu.cpus", "cpuset.cpus", "%s", c->cpus);
        if (c->mems && *c->mems)
                add(b, "cpu.mems", "cpuset.mems", "%s", c->mems);
        if (c->has_realtime_runtime || c->has_realtime_period)
                warn_ignored(b,
                             c->has_realtime_runtime ? "cpu.realtimeRuntime" : "cpu.realtimePeriod",
                             "cgroup v2 has no realtime group scheduling");
}

static void convert_throttles(struct builder *b, const char *field, const char *key,
                              const struct oci_throttle_list *list)
{
        for (size_t i = 0; i < list->n; i++) {
                const struct oci_throttle_device *d = &list->devices[i];
                char f[96];
                snprintf(f, sizeof(f), "%s[%zu]", field, i);
                /* A rate of 0 removes the limit, as in v1. */
                if (d->rate == 0)
                        add(b, f, "io.max", "%" PRId64 ":%" PRId64 " %s=max", d->major, d->minor,
                            key);
                else
                        add(b, f, "io.max", "%" PRId64 ":%" PRId64 " %s=%" PRIu64, d->major,
                            d->minor, key, d->rate);
        }
}

static void convert_block_io(struct builder *b, const struct oci_block_io *io)
{
        char v1[32];

        if (io->has_weight && io->weight != 0) {
                struct cgroup_setting *s = add(b, "blockIO.weight", "io.weight", "default %" PRIu64,
                                               cgroup_blkio_weight_to_io_weight(io->weight));
                /* Without iocost the BFQ scheduler's file takes v1 weights. */
                snprintf(v1, sizeof(v1), "%u", io->weight);
                set_fallback(b, s, "io.bfq.weight", v1);
        }
        if (io->has_leaf_weight)
                warn_ignored(b, "blockIO.leafWeight", "leaf weights exist only in cgroup v1");
        for (size_t i = 0; i < io->n_weight_devices; i++) {
                const struct oci_weight_device *d = &io->weight_devices[i];
                char f[64];
                snprintf(f, sizeof(f), "blockIO.weightDevice[%zu].weight", i);
                if (d->has_leaf_weight)
                        warn_ignored(b, "blockIO.weightDevice.leafWeight",
                                     "leaf weights exist only in cgroup v1");
                if (!d->has_weight)
                        continue;
                struct cgroup_setting *s =
                        add(b, f, "io.weight", "%" PRId64 ":%" PRId64 " %" PRIu64, d->major,
                            d->minor, cgroup_blkio_weight_to_io_weight(d->weight));
                snprintf(v1, sizeof(v1), "%" PRId64 ":%" PRId64 " %u", d->major, d->minor,
                         d->weight);
                set_fallback(b, s, "io.bfq.weight", v1);
        }
        convert_throttles(b, "blockIO.throttleReadBpsDevice", "rbps", &io->throttle_read_bps);
        convert_throttles(b, "blockIO.throttleWriteBpsDevice", "wbps", &io->throttle_write_bps);
        convert_throttles(b, "blockIO.throttleReadIOPSDevice", "riops", &io->throttle_read_iops);
        convert_throttles(b, "blockIO.throttleWriteIOPSDevice", "wiops", &io->throttle_write_iops);
}

static void convert_hugepages(struct builder *b, const struct oci_resources *res)
{
        for (size_t i = 0; i < res->n_hugepage_limits; i++) {
                const struct oci_hugepage_limit *h = &res->hugepage_limits[i];
                char field[64], file[64];
                snprintf(field, sizeof(field), "hugepageLimits[%zu]", i);
                snprintf(file, sizeof(file), "hugetlb.%s.max", h->page_size);
                add(b, field, file, "%" PRIu64, h->limit);
                /* Reservations too (Linux ≥ 5.7), or pages reserved by
                 * mmap escape the limit until they are touched. */
                snprintf(file, sizeof(file), "hugetlb.%s.rsvd.max", h->page_size);
                struct cgroup_setting *s = add(b, field, file, "%" PRIu64, h->limit);
                if (s)
                        s->optional = true;
        }
}

static void convert_rdma(struct builder *b, const struct oci_resources *res)
{
        for (size_t i = 0; i < res->n_rdma; i++) {
                const struct oci_rdma_limit *r = &res->rdma[i];
                char field[300], handles[32] = "max", objects[32] = "max";
                const char *dev = r->device;
                snprintf(field, sizeof(field), "rdma.%s", dev);
                if (r->has_hca_handles)
                        snprintf(handles, sizeof(handles), "%u", r->hca_handles);
                if (r->has_hca_objects)
                        snprintf(objects, sizeof(objects), "%u", r->hca_objects);
                add(b, field, "rdma.max", "%s hca_handle=%s hca_object=%s", dev, handles, objects);
        }
}

static void convert_unified(struct builder *b, const struct oci_resources *res)
{
        for (size_t i = 0; i < res->n_unified; i++) {
                const char *key = res->unified[i].key;
                char field[300];
                snprintf(field, sizeof(field), "unified.%s", key);
                add(b, field, key, "%s", res->unified[i].value);
        }
}

int cgroup_resources_convert(const struct oci_resources *res, const char *prefix,
                             struct cgroup_settings *out, struct sb_error *err)
{
        struct builder b = { .out = out, .prefix = prefix };

        if (res == NULL)
                return 0;
        if (res->memory && convert_memory(&b, res->memory, err) < 0)
                goto fail;
        if (res->cpu)
                convert_cpu(&b, res->cpu);
        if (res->has_pids_limit) {
                /* 0 means "no limit" to runc and crun, like -1. */
                if (res->pids_limit > 0)
                        add(&b, "pids.limit", "pids.max", "%" PRId64, res->pids_limit);
                else
                        add(&b, "pids.limit", "pids.max", "max");
        }
        if (res->block_io)
                convert_block_io(&b, res->block_io);
        convert_hugepages(&b, res);
        convert_rdma(&b, res);
        if (res->has_network)
                warn_ignored(&b, "network", "net_cls and net_prio exist only in cgroup v1");
        /* Last, so that an explicit v2 value wins over a converted one. */
        convert_unified(&b, res);
        if (b.failed) {
                sb_fail(err, ENOMEM, "%s", prefix);
                goto fail;
        }
        return 0;
fail:
        cgroup_settings_release(out);
        return -1;
}
