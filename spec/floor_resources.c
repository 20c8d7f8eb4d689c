#include "spec/floor_resources.h"

#include "oci/config.h"
#include "spec/floor.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* One refusal: FIELD is prefix + suffix. */
static int refuse(struct floor_report *report, struct sb_error *err, const char *prefix,
                  const char *suffix, const char *value, const char *rule)
{
        char field[512];

        snprintf(field, sizeof(field), "%s.%s", prefix, suffix);
        return floor_refuse(report, err, field, value, rule);
}

/* memory.checkBeforeUpdate (1.3) true is refused: sbrun does not compare
 * a new limit with the usage. memory.swap is memory+swap, as in v1 (runc's
 * rule): -1 and 0 need nothing, any other value a memory limit it is not
 * below. The conversion to v2's swap-only file is
 * runtime/cgroup/cgroup_resources.c's. */
static int memory(const struct oci_memory *m, const char *prefix, struct floor_report *report,
                  struct sb_error *err)
{
        int64_t limit = m->has_limit ? m->limit : 0;
        char value[96];

        /* false is what sbrun does: a limit is written as given. */
        if (m->has_check_before_update && m->check_before_update &&
            refuse(report, err, prefix, "memory.checkBeforeUpdate", "true",
                   "not supported by sbrun: a new limit is not checked against the usage") < 0)
                return -1;
        if (!m->has_swap || m->swap == -1 || m->swap == 0)
                return 0;
        snprintf(value, sizeof(value), "%" PRId64 " (memory.limit %" PRId64 ")", m->swap, limit);
        if (limit == 0 || limit == -1)
                return refuse(report, err, prefix, "memory.swap", value,
                              "a swap limit needs a memory limit");
        if (m->swap < limit)
                return refuse(report, err, prefix, "memory.swap", value,
                              "memory+swap must not be less than the memory limit");
        return 0;
}

static int cpu(const struct oci_cpu *c, const char *prefix, struct floor_report *report,
               struct sb_error *err)
{
        char value[64];

        if (c->has_idle && c->idle != 0 && c->idle != 1) {
                snprintf(value, sizeof(value), "%" PRId64, c->idle);
                return refuse(report, err, prefix, "cpu.idle", value, "cpu.idle is 0 or 1");
        }
        if (c->has_shares && c->shares != 0 && c->has_idle && c->idle == 1) {
                snprintf(value, sizeof(value), "shares %" PRIu64 " and idle 1", c->shares);
                return refuse(report, err, prefix, "cpu", value,
                              "an idle cgroup has no weight: shares and idle 1 exclude each other");
        }
        return 0;
}

static int device_number(const char *prefix, const char *field, size_t i, int64_t major,
                         int64_t minor, struct floor_report *report, struct sb_error *err)
{
        char suffix[96], value[64];

        if (major >= 0 && minor >= 0 && major <= UINT32_MAX && minor <= UINT32_MAX)
                return 0;
        snprintf(suffix, sizeof(suffix), "%s[%zu]", field, i);
        snprintf(value, sizeof(value), "%" PRId64 ":%" PRId64, major, minor);
        return refuse(report, err, prefix, suffix, value,
                      "a device number is two 32-bit unsigned numbers");
}

static int blkio_weight(const char *prefix, const char *suffix, unsigned w,
                        struct floor_report *report, struct sb_error *err)
{
        char value[16];

        if (w >= 10 && w <= 1000)
                return 0;
        snprintf(value, sizeof(value), "%u", w);
        return refuse(report, err, prefix, suffix, value, "a blkio weight is 10 to 1000");
}

static int block_io(const struct oci_block_io *io, const char *prefix, struct floor_report *report,
                    struct sb_error *err)
{
        const struct {
                const char *field;
                const struct oci_throttle_list *list;
        } throttles[] = {
                { "blockIO.throttleReadBpsDevice", &io->throttle_read_bps },
                { "blockIO.throttleWriteBpsDevice", &io->throttle_write_bps },
                { "blockIO.throttleReadIOPSDevice", &io->throttle_read_iops },
                { "blockIO.throttleWriteIOPSDevice", &io->throttle_write_iops },
        };

        /* 0 is "no weight", as in runc. */
        if (io->has_weight && io->weight != 0 &&
            blkio_weight(prefix, "blockIO.weight", io->weight, report, err) < 0)
                return -1;
        for (size_t i = 0; i < io->n_weight_devices; i++) {
                const struct oci_weight_device *d = &io->weight_devices[i];
                char suffix[64];
                if (device_number(prefix, "blockIO.weightDevice", i, d->major, d->minor, report,
                                  err) < 0)
                        return -1;
                snprintf(suffix, sizeof(suffix), "blockIO.weightDevice[%zu].weight", i);
                if (d->has_weight && blkio_weight(prefix, suffix, d->weight, report, err) < 0)
                        return -1;
        }
        for (size_t t = 0; t < sizeof(throttles) / sizeof(throttles[0]); t++) {
                for (size_t i = 0; i < throttles[t].list->n; i++) {
                        const struct oci_throttle_device *d = &throttles[t].list->devices[i];
                        if (device_number(prefix, throttles[t].field, i, d->major, d->minor, report,
                                          err) < 0)
                                return -1;
                }
        }
        return 0;
}

/* "2MB", "1GB", "64KB": the names the kernel gives hugetlb.<size>.* files. */
static bool valid_page_size(const char *s)
{
        size_t digits = strspn(s, "0123456789");
        return digits > 0 && s[0] != '0' &&
               (strcmp(s + digits, "KB") == 0 || strcmp(s + digits, "MB") == 0 ||
                strcmp(s + digits, "GB") == 0);
}

static int names(const struct oci_resources *res, const char *prefix, struct floor_report *report,
                 struct sb_error *err)
{
        char suffix[64], value[300];

        for (size_t i = 0; i < res->n_hugepage_limits; i++) {
                const char *size = res->hugepage_limits[i].page_size;
                if (valid_page_size(size))
                        continue;
                snprintf(suffix, sizeof(suffix), "hugepageLimits[%zu].pageSize", i);
                snprintf(value, sizeof(value), "\"%s\"", size);
                if (refuse(report, err, prefix, suffix, value,
                           "a page size is written like \"2MB\"") < 0)
                        return -1;
        }
        for (size_t i = 0; i < res->n_rdma; i++) {
                const char *dev = res->rdma[i].device;
                /* One token of rdma.max's "DEV hca_handle=N hca_object=N". */
                if (*dev != '\0' && dev[strcspn(dev, " \t\n/=")] == '\0')
                        continue;
                snprintf(value, sizeof(value), "\"%s\"", dev);
                if (refuse(report, err, prefix, "rdma", value,
                           "an RDMA device name is one word without '/' or '='") < 0)
                        return -1;
        }
        return 0;
}

/* Interface files a spec must never write: they move, kill or freeze
 * processes, or reshape the tree sbrun manages. */
static bool unified_key_allowed(const char *key)
{
        if (strncmp(key, "cgroup.", 7) != 0)
                return true;
        return strcmp(key, "cgroup.max.depth") == 0 || strcmp(key, "cgroup.max.descendants") == 0;
}

static int unified(const struct oci_resources *res, const char *prefix, struct floor_report *report,
                   struct sb_error *err)
{
        for (size_t i = 0; i < res->n_unified; i++) {
                /* The parser gives every key; "" keeps the compiler from
                 * seeing a NULL reach the format below. */
                const char *key = res->unified[i].key ? res->unified[i].key : "";
                const char *dot = strchr(key, '.');
                char value[300];
                snprintf(value, sizeof(value), "\"%s\"", key);
                if (*key == '\0' || strchr(key, '/') || dot == NULL || dot == key ||
                    dot[1] == '\0') {
                        if (refuse(report, err, prefix, "unified", value,
                                   "a key is a cgroup v2 interface file name, controller.file") < 0)
                                return -1;
                } else if (!unified_key_allowed(key) &&
                           refuse(report, err, prefix, "unified", value,
                                  "cgroup.* files are sbrun's to manage (only cgroup.max.depth "
                                  "and cgroup.max.descendants may be set)") < 0) {
                        return -1;
                }
        }
        return 0;
}

int floor_resources_check(const struct oci_resources *res, const char *prefix,
                          struct floor_report *report, struct sb_error *err)
{
        if (res == NULL)
                return 0;
        if ((res->memory && memory(res->memory, prefix, report, err) < 0) ||
            (res->cpu && cpu(res->cpu, prefix, report, err) < 0) ||
            (res->block_io && block_io(res->block_io, prefix, report, err) < 0) ||
            names(res, prefix, report, err) < 0 || unified(res, prefix, report, err) < 0)
                return -1;
        return 0;
}

/* The floor's concern: after floor_limits, so that the swap rule sees the
 * memory limit the container gets. */
int floor_resources(struct oci_config *config, const struct floor_context *ctx,
                    struct floor_report *report, struct sb_error *err)
{
        (void)ctx;
        return floor_resources_check(config->linux_ ? config->linux_->resources : NULL,
                                     "linux.resources", report, err);
}
