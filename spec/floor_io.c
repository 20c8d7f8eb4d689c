/* The io ceiling (spec/floor_io.h): clamps, the disks it is added for, the
 * sources it cannot hold and the io controller's absence. */
#include "spec/floor_io.h"

#include "common/error.h"
#include "common/log.h"
#include "oci/config.h"
#include "spec/floor.h"
#include "spec/operator_policy.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The kernel's io.weight when none is written (Documentation/admin-guide/
 * cgroup-v2.rst, io.weight). */
#define IO_DEFAULT_WEIGHT 100

bool floor_io_ceiling_set(const struct floor_io_ceiling *c)
{
        return c->rbps || c->wbps || c->riops || c->wiops || c->weight;
}

enum floor_io_rule floor_io_rule(const struct operator_policy *policy,
                                 const struct floor_profile *profile,
                                 const struct floor_io_ceiling *ceiling, bool default_profile)
{
        bool profile_requires = profile->io_required;

        if (!floor_io_ceiling_set(ceiling))
                return IO_RULE_NONE;
        if (!policy->io_require_set)
                return profile_requires ? IO_REQUIRED : IO_NOT_REQUIRED;
        if (profile_requires)
                return policy->io_require || !default_profile ? IO_REQUIRED : IO_WAIVED_BY_POLICY;
        return policy->io_require ? IO_REQUIRED_BY_POLICY : IO_NOT_REQUIRED;
}

const char *floor_io_rule_text(enum floor_io_rule rule)
{
        switch (rule) {
        case IO_REQUIRED:
                return "required on the root and every writable bind (the profile's rule)";
        case IO_REQUIRED_BY_POLICY:
                return "required on the root and every writable bind "
                       "(floor.ceilings.io.require_enforced true)";
        case IO_WAIVED_BY_POLICY:
                return "not required (floor.ceilings.io.require_enforced false waives the "
                       "profile's rule; each source without a disk is warned about)";
        case IO_NOT_REQUIRED:
                return "not required (each source without a disk is warned about)";
        case IO_RULE_NONE:
                break;
        }
        return "no io ceiling";
}

void floor_io_ceiling_text(const struct floor_io_ceiling *c, char *buf, size_t size)
{
        const struct {
                const char *name;
                uint64_t v;
        } q[] = { { "rbps", c->rbps },
                  { "wbps", c->wbps },
                  { "riops", c->riops },
                  { "wiops", c->wiops },
                  { "weight", c->weight } };
        size_t len = 0;

        buf[0] = '\0';
        for (size_t i = 0; i < sizeof(q) / sizeof(q[0]) && len < size; i++) {
                if (q[i].v == 0)
                        continue;
                int n = snprintf(buf + len, size - len, "%s%s=%" PRIu64, len ? " " : "", q[i].name,
                                 q[i].v);
                if (n < 0)
                        break;
                len += (size_t)n;
        }
        if (buf[0] == '\0')
                snprintf(buf, size, "none");
}

uint64_t floor_io_weight_of_blkio(uint64_t weight)
{
        if (weight == 0)
                return 0;
        return 1 + (weight - 10) * 9999 / 990;
}

/* The largest blkio weight whose io.weight is within the ceiling. */
static uint16_t blkio_within(uint64_t ceiling)
{
        uint64_t w = 10 + (ceiling - 1) * 990 / 9999;
        return (uint16_t)(w > 1000 ? 1000 : w);
}

static void rule_name(const struct floor_context *ctx, char *rule, size_t size)
{
        snprintf(rule, size, "%s io ceiling", ctx->profile->name);
}

/* The four throttle lists, each with its quantity of the ceiling. */
struct throttle_kind {
        const char *field, *key;
        struct oci_throttle_list *list;
        uint64_t ceiling;
};

static void throttle_kinds(struct oci_block_io *io, const struct floor_io_ceiling *c,
                           struct throttle_kind out[4])
{
        out[0] = (struct throttle_kind){ "blockIO.throttleReadBpsDevice", "rbps",
                                         &io->throttle_read_bps, c->rbps };
        out[1] = (struct throttle_kind){ "blockIO.throttleWriteBpsDevice", "wbps",
                                         &io->throttle_write_bps, c->wbps };
        out[2] = (struct throttle_kind){ "blockIO.throttleReadIOPSDevice", "riops",
                                         &io->throttle_read_iops, c->riops };
        out[3] = (struct throttle_kind){ "blockIO.throttleWriteIOPSDevice", "wiops",
                                         &io->throttle_write_iops, c->wiops };
}

/* A spec's io.* cgroup files would write io.max or io.weight past the
 * ceiling (or io.latency, which throttles the container's neighbours). */
static int refuse_unified(const struct oci_resources *r, const char *prefix,
                          const struct floor_context *ctx, struct floor_report *report,
                          struct sb_error *err)
{
        char field[64], value[300], rule[96];

        rule_name(ctx, rule, sizeof(rule));
        strncat(rule, ": io.* files are sbrun's to write (use blockIO)",
                sizeof(rule) - strlen(rule) - 1);
        for (size_t i = 0; i < r->n_unified; i++) {
                const char *key = r->unified[i].key ? r->unified[i].key : "";
                if (strncmp(key, "io.", 3) != 0)
                        continue;
                snprintf(field, sizeof(field), "%s.unified", prefix);
                snprintf(value, sizeof(value), "\"%s\"", key);
                if (floor_refuse(report, err, field, value, rule) < 0)
                        return -1;
        }
        return 0;
}

static int clamp_weights(struct oci_block_io *io, const char *prefix,
                         const struct floor_context *ctx, bool update, struct floor_report *report,
                         struct sb_error *err)
{
        uint64_t ceiling = ctx->ceilings.io.weight;
        char field[96], req[64], eff[64], rule[96];

        if (ceiling == 0)
                return 0;
        rule_name(ctx, rule, sizeof(rule));
        uint16_t within = blkio_within(ceiling);
        snprintf(field, sizeof(field), "%s.blockIO.weight", prefix);
        if (io->has_weight && io->weight != 0 && floor_io_weight_of_blkio(io->weight) > ceiling) {
                snprintf(req, sizeof(req), "%u (io.weight %" PRIu64 ")", io->weight,
                         floor_io_weight_of_blkio(io->weight));
                snprintf(eff, sizeof(eff), "%u (io.weight %" PRIu64 ")", within,
                         floor_io_weight_of_blkio(within));
                io->weight = within;
                if (floor_note(report, err, FLOOR_CLAMPED, field, req, eff, rule) < 0)
                        return -1;
        } else if (!update && (!io->has_weight || io->weight == 0) && ceiling < IO_DEFAULT_WEIGHT) {
                /* No weight is the kernel's 100, above this ceiling. */
                snprintf(eff, sizeof(eff), "%u (io.weight %" PRIu64 ")", within,
                         floor_io_weight_of_blkio(within));
                io->has_weight = true;
                io->weight = within;
                if (floor_note(report, err, FLOOR_ADDED, field, "(none)", eff, rule) < 0)
                        return -1;
        }
        for (size_t i = 0; i < io->n_weight_devices; i++) {
                struct oci_weight_device *d = &io->weight_devices[i];
                if (!d->has_weight || floor_io_weight_of_blkio(d->weight) <= ceiling)
                        continue;
                snprintf(field, sizeof(field), "%s.blockIO.weightDevice[%zu].weight", prefix, i);
                snprintf(req, sizeof(req), "%u", d->weight);
                snprintf(eff, sizeof(eff), "%u", within);
                d->weight = within;
                if (floor_note(report, err, FLOOR_CLAMPED, field, req, eff, rule) < 0)
                        return -1;
        }
        return 0;
}

/* Every throttle the spec gives: no limit (0) or more than the ceiling
 * becomes the ceiling. */
static int clamp_throttles(struct oci_block_io *io, const char *prefix,
                           const struct floor_context *ctx, struct floor_report *report,
                           struct sb_error *err)
{
        struct throttle_kind kinds[4];
        char field[128], req[96], eff[96], rule[96];

        rule_name(ctx, rule, sizeof(rule));
        throttle_kinds(io, &ctx->ceilings.io, kinds);
        for (size_t k = 0; k < 4; k++) {
                for (size_t i = 0; kinds[k].ceiling != 0 && i < kinds[k].list->n; i++) {
                        struct oci_throttle_device *d = &kinds[k].list->devices[i];
                        if (d->rate != 0 && d->rate <= kinds[k].ceiling)
                                continue;
                        snprintf(field, sizeof(field), "%s.%s[%zu]", prefix, kinds[k].field, i);
                        if (d->rate == 0)
                                snprintf(req, sizeof(req),
                                         "%" PRId64 ":%" PRId64 " %s=0 (no limit)", d->major,
                                         d->minor, kinds[k].key);
                        else
                                snprintf(req, sizeof(req), "%" PRId64 ":%" PRId64 " %s=%" PRIu64,
                                         d->major, d->minor, kinds[k].key, d->rate);
                        snprintf(eff, sizeof(eff), "%" PRId64 ":%" PRId64 " %s=%" PRIu64, d->major,
                                 d->minor, kinds[k].key, kinds[k].ceiling);
                        d->rate = kinds[k].ceiling;
                        if (floor_note(report, err, FLOOR_CLAMPED, field, req, eff, rule) < 0)
                                return -1;
                }
        }
        return 0;
}

static int ensure_block_io(struct oci_resources *r, struct sb_error *err)
{
        if (r->block_io == NULL) {
                r->block_io = calloc(1, sizeof(*r->block_io));
                if (r->block_io == NULL)
                        return sb_fail(err, ENOMEM, "linux.resources.blockIO");
        }
        return 0;
}

static int clamp(struct oci_resources *r, const char *prefix, const struct floor_context *ctx,
                 bool update, struct floor_report *report, struct sb_error *err)
{
        if (!floor_io_ceiling_set(&ctx->ceilings.io))
                return 0;
        if (refuse_unified(r, prefix, ctx, report, err) < 0)
                return -1;
        if (r->block_io == NULL && (update || ctx->ceilings.io.weight >= IO_DEFAULT_WEIGHT ||
                                    ctx->ceilings.io.weight == 0))
                return 0;
        if (ensure_block_io(r, err) < 0 ||
            clamp_weights(r->block_io, prefix, ctx, update, report, err) < 0)
                return -1;
        return clamp_throttles(r->block_io, prefix, ctx, report, err);
}

int floor_io_update(struct oci_resources *r, const struct floor_context *ctx,
                    struct floor_report *report, struct sb_error *err)
{
        return clamp(r, "linux.resources", ctx, true, report, err);
}

/* The disks found, each with the sources it backs ("root.path,
 * mounts[2].source"). */
struct disk_use {
        struct floor_io_disk disk;
        char sources[160];
};

struct disk_set {
        struct disk_use *items;
        size_t n;
};

static int disk_add(struct disk_set *set, const struct floor_io_disk *d, const char *source,
                    struct sb_error *err)
{
        struct disk_use *u = NULL;

        for (size_t i = 0; i < set->n; i++) {
                if (set->items[i].disk.major == d->major && set->items[i].disk.minor == d->minor)
                        u = &set->items[i];
        }
        if (u == NULL) {
                struct disk_use *grown = realloc(set->items, (set->n + 1) * sizeof(*grown));
                if (grown == NULL)
                        return sb_fail(err, ENOMEM, "linux.resources.blockIO");
                set->items = grown;
                u = &grown[set->n++];
                memset(u, 0, sizeof(*u));
                u->disk = *d;
        }
        size_t len = strlen(u->sources);
        if (strstr(u->sources, source) == NULL)
                snprintf(u->sources + len, sizeof(u->sources) - len, "%s%s", len ? ", " : "",
                         source);
        return 0;
}

/* A source with no disk: refused where the rule requires the ceiling,
 * else allowed with a warning. writable false: read-only binds are held
 * where a disk backs them and pass otherwise. */
static int no_disk(const struct floor_context *ctx, const char *field, const char *path,
                   const struct floor_io_backing *b, struct floor_report *report,
                   struct sb_error *err)
{
        const char *policy = ctx->policy_source ? ctx->policy_source : OPERATOR_POLICY_PATH;
        char value[PATH_MAX + 300], rule[PATH_MAX + 160];

        snprintf(value, sizeof(value),
                 "%s is on %s, a file system with no block device to hold to the io ceiling", path,
                 b->fs);
        switch (ctx->io_rule) {
        case IO_REQUIRED:
                snprintf(rule, sizeof(rule),
                         "%s: every disk the container reads or writes is held to the io ceiling "
                         "(floor.ceilings.io.require_enforced)",
                         ctx->profile->name);
                return floor_refuse(report, err, field, value, rule);
        case IO_REQUIRED_BY_POLICY:
                snprintf(rule, sizeof(rule), "floor.ceilings.io.require_enforced true in %s",
                         policy);
                return floor_refuse(report, err, field, value, rule);
        case IO_WAIVED_BY_POLICY:
                snprintf(rule, sizeof(rule), "floor.ceilings.io.require_enforced false in %s",
                         policy);
                break;
        case IO_NOT_REQUIRED:
        case IO_RULE_NONE:
                snprintf(rule, sizeof(rule), "%s io ceiling: not required where no disk backs it",
                         ctx->profile->name);
                break;
        }
        if (report->log)
                sb_warn("%s: %s: allowed, the container reads and writes it at any speed "
                        "(rule: %s)",
                        field, value, rule);
        return floor_record(report, err, FLOOR_DROPPED, field, "the io ceiling", value, rule);
}

static int gather(const struct oci_config *config, const struct floor_context *ctx,
                  struct disk_set *set, struct floor_report *report, struct sb_error *err)
{
        const struct floor_host *h = ctx->host;

        if (h->io_root != NULL) {
                const struct floor_io_backing *b = h->io_root;
                for (size_t d = 0; b->kind == FLOOR_IO_DISKS && d < b->n_disks; d++) {
                        if (disk_add(set, &b->disks[d], "root.path", err) < 0)
                                return -1;
                }
                if (b->kind == FLOOR_IO_NO_DISK &&
                    no_disk(ctx, "root.path", config->root.path ? config->root.path : "(none)", b,
                            report, err) < 0)
                        return -1;
        }
        for (size_t i = 0; h->io_binds != NULL && i < h->n_io_binds && i < config->n_mounts; i++) {
                const struct floor_io_backing *b = &h->io_binds[i];
                const struct oci_mount *m = &config->mounts[i];
                char field[64];
                snprintf(field, sizeof(field), "mounts[%zu].source", i);
                for (size_t d = 0; b->kind == FLOOR_IO_DISKS && d < b->n_disks; d++) {
                        if (disk_add(set, &b->disks[d], field, err) < 0)
                                return -1;
                }
                if (b->kind == FLOOR_IO_NO_DISK && !oci_mount_is_read_only(m) &&
                    no_disk(ctx, field, m->source ? m->source : "(none)", b, report, err) < 0)
                        return -1;
        }
        return 0;
}

static struct oci_throttle_device *find_device(struct oci_throttle_list *l,
                                               const struct floor_io_disk *d)
{
        for (size_t i = 0; i < l->n; i++) {
                if (l->devices[i].major == d->major && l->devices[i].minor == d->minor)
                        return &l->devices[i];
        }
        return NULL;
}

/* The ceiling for each disk in every list that has no entry for it. */
static int add_disks(struct oci_block_io *io, const struct disk_set *set,
                     const struct floor_context *ctx, struct floor_report *report,
                     struct sb_error *err)
{
        struct throttle_kind kinds[4];
        char field[96], eff[160], rule[256];

        throttle_kinds(io, &ctx->ceilings.io, kinds);
        for (size_t i = 0; i < set->n; i++) {
                const struct floor_io_disk *d = &set->items[i].disk;
                size_t len = 0;
                eff[0] = '\0';
                for (size_t k = 0; k < 4; k++) {
                        struct oci_throttle_list *l = kinds[k].list;
                        if (kinds[k].ceiling == 0 || find_device(l, d) != NULL)
                                continue;
                        struct oci_throttle_device *grown =
                                realloc(l->devices, (l->n + 1) * sizeof(*grown));
                        if (grown == NULL)
                                return sb_fail(err, ENOMEM, "linux.resources.blockIO");
                        l->devices = grown;
                        grown[l->n++] = (struct oci_throttle_device){ .major = d->major,
                                                                      .minor = d->minor,
                                                                      .rate = kinds[k].ceiling };
                        int n = snprintf(eff + len, sizeof(eff) - len, "%s%s=%" PRIu64,
                                         len ? " " : "", kinds[k].key, kinds[k].ceiling);
                        if (n > 0 && (size_t)n < sizeof(eff) - len)
                                len += (size_t)n;
                }
                if (len == 0)
                        continue;
                snprintf(field, sizeof(field), "linux.resources.blockIO[%" PRIu32 ":%" PRIu32 "]",
                         d->major, d->minor);
                snprintf(rule, sizeof(rule), "%s io ceiling on the disk of %s", ctx->profile->name,
                         set->items[i].sources);
                if (floor_note(report, err, FLOOR_ADDED, field, "(none)", eff, rule) < 0)
                        return -1;
        }
        return 0;
}

int floor_io(struct oci_config *config, const struct floor_context *ctx,
             struct floor_report *report, struct sb_error *err)
{
        struct oci_linux *l = config->linux_;
        struct disk_set set = { 0 };
        int ret;

        if (!floor_io_ceiling_set(&ctx->ceilings.io))
                return 0;
        if (l->resources == NULL) {
                l->resources = calloc(1, sizeof(*l->resources));
                if (l->resources == NULL)
                        return sb_fail(err, ENOMEM, "linux.resources");
        }
        if (clamp(l->resources, "linux.resources", ctx, false, report, err) < 0)
                return -1;
        ret = gather(config, ctx, &set, report, err);
        if (ret == 0 && set.n > 0)
                ret = ensure_block_io(l->resources, err);
        if (ret == 0 && set.n > 0)
                ret = add_disks(l->resources->block_io, &set, ctx, report, err);
        free(set.items);
        return ret;
}

int floor_io_controller(const struct operator_policy *policy, const struct oci_config *config,
                        const char *missing, bool *drop, struct floor_report *report,
                        struct sb_error *err)
{
        struct floor_report scratch = { 0 };
        struct floor_context ctx;
        const char *path = policy->source ? policy->source : OPERATOR_POLICY_PATH;
        char value[512], rule[PATH_MAX + 160];
        int ret;

        *drop = false;
        if (missing == NULL)
                return 0;
        /* The profile and ceilings create selects; its notes are the floor's. */
        ret = floor_select(policy, config, NULL, &ctx, &scratch, err);
        floor_report_release(&scratch);
        if (ret < 0 || ctx.io_rule == IO_RULE_NONE)
                return ret;
        snprintf(value, sizeof(value), "the io ceiling cannot be enforced: %s", missing);
        if (ctx.io_rule == IO_REQUIRED || ctx.io_rule == IO_REQUIRED_BY_POLICY) {
                if (ctx.io_rule == IO_REQUIRED)
                        snprintf(rule, sizeof(rule),
                                 "%s: every disk the container reads or writes is held to the "
                                 "io ceiling (floor.ceilings.io.require_enforced)",
                                 ctx.profile->name);
                else
                        snprintf(rule, sizeof(rule),
                                 "floor.ceilings.io.require_enforced true in %s", path);
                return floor_refuse(report, err, "linux.resources.blockIO", value, rule);
        }
        snprintf(rule, sizeof(rule), "%s", floor_io_rule_text(ctx.io_rule));
        if (report->log)
                sb_warn("linux.resources.blockIO: %s; the container runs without it (rule: %s)",
                        value, rule);
        *drop = true;
        return floor_record(report, err, FLOOR_DROPPED, "linux.resources.blockIO", "the io ceiling",
                            "not enforced", rule);
}
