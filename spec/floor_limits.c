/* Resource ceilings (linux.resources): a ceiling in effect (the profile's
 * or the operator's) is applied whether the spec asks for more or for
 * nothing, since no limit is the most of all. Without a memory ceiling a
 * request above the host's RAM is still clamped to it. Strict: no swap.
 * runtime/cgroup/container_cgroup.c then writes what is left here. */
#include "spec/floor.h"

#include "common/error.h"
#include "oci/config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

static void show(char *buf, size_t size, bool has, int64_t v)
{
        if (!has)
                snprintf(buf, size, "(none)");
        else if (v < 0)
                snprintf(buf, size, "unlimited");
        else
                snprintf(buf, size, "%" PRId64, v);
}

/* update: only what the update sets is judged; what it leaves out keeps
 * the value create gave it, which was judged then. */
static int pids(struct oci_resources *r, const struct floor_context *ctx, bool update,
                struct floor_report *report, struct sb_error *err)
{
        int64_t ceiling = ctx->ceilings.pids;
        char req[32], eff[32], rule[64];

        if (ceiling == 0 || (update && !r->has_pids_limit) ||
            (r->has_pids_limit && r->pids_limit > 0 && r->pids_limit <= ceiling))
                return 0;
        show(req, sizeof(req), r->has_pids_limit, r->pids_limit);
        show(eff, sizeof(eff), true, ceiling);
        snprintf(rule, sizeof(rule), "%s pids ceiling", ctx->profile->name);
        bool had = r->has_pids_limit;
        r->has_pids_limit = true;
        r->pids_limit = ceiling;
        return floor_note(report, err, had ? FLOOR_CLAMPED : FLOOR_ADDED,
                          "linux.resources.pids.limit", req, eff, rule);
}

static int memory(struct oci_resources *r, const struct floor_context *ctx, bool update,
                  struct floor_report *report, struct sb_error *err)
{
        int64_t ceiling = ctx->ceilings.memory;
        bool when_absent = ceiling != 0 && !update;
        char rule[64], req[32], eff[32];

        snprintf(rule, sizeof(rule), "%s memory ceiling", ctx->profile->name);
        if (ceiling == 0) {
                ceiling = ctx->host->memory;
                snprintf(rule, sizeof(rule), "%s: no more memory than the host has",
                         ctx->profile->name);
        }
        if (ceiling == 0)
                return 0;
        if (r->memory == NULL) {
                if (!when_absent)
                        return 0;
                r->memory = calloc(1, sizeof(*r->memory));
                if (r->memory == NULL)
                        return sb_fail(err, ENOMEM, "linux.resources.memory");
        }
        struct oci_memory *m = r->memory;
        bool over = m->has_limit ? (m->limit < 0 || m->limit > ceiling) : when_absent;
        if (over) {
                show(req, sizeof(req), m->has_limit, m->limit);
                show(eff, sizeof(eff), true, ceiling);
                bool had = m->has_limit;
                m->has_limit = true;
                m->limit = ceiling;
                if (floor_note(report, err, had ? FLOOR_CLAMPED : FLOOR_ADDED,
                               "linux.resources.memory.limit", req, eff, rule) < 0)
                        return -1;
        }
        /* OCI's swap is memory+swap: equal to the limit means no swap. An
         * update that sets no swap leaves the cgroup's none as it is. */
        if (ctx->profile->no_swap && (!update || m->has_swap) &&
            (!m->has_swap || m->swap != m->limit)) {
                show(req, sizeof(req), m->has_swap, m->swap);
                show(eff, sizeof(eff), true, m->limit);
                m->has_swap = true;
                m->swap = m->limit;
                return floor_note(report, err, FLOOR_FORCED, "linux.resources.memory.swap", req,
                                  eff, "strict: no swap");
        }
        return 0;
}

static int cpu(struct oci_resources *r, const struct floor_context *ctx, bool update,
               struct floor_report *report, struct sb_error *err)
{
        const struct floor_ceilings *c = &ctx->ceilings;
        char req[64], eff[64], rule[64];

        if (c->cpu_quota == 0 || c->cpu_period == 0)
                return 0;
        if (update && (r->cpu == NULL || !(r->cpu->has_quota || r->cpu->has_period)))
                return 0;
        if (r->cpu == NULL) {
                r->cpu = calloc(1, sizeof(*r->cpu));
                if (r->cpu == NULL)
                        return sb_fail(err, ENOMEM, "linux.resources.cpu");
        }
        struct oci_cpu *p = r->cpu;
        uint64_t period = p->has_period && p->period > 0 ? p->period : 100000;
        bool limited = p->has_quota && p->quota > 0;
        /* Compare quota/period with ceiling_quota/ceiling_period exactly. */
        if (limited && (__int128)p->quota * c->cpu_period <= (__int128)c->cpu_quota * period)
                return 0;
        if (limited)
                snprintf(req, sizeof(req), "%" PRId64 "/%" PRIu64, p->quota, period);
        else
                snprintf(req, sizeof(req), p->has_quota ? "unlimited" : "(none)");
        snprintf(eff, sizeof(eff), "%" PRId64 "/%" PRIu64, c->cpu_quota, c->cpu_period);
        snprintf(rule, sizeof(rule), "%s cpu ceiling", ctx->profile->name);
        bool had = p->has_quota;
        p->has_quota = p->has_period = true;
        p->quota = c->cpu_quota;
        p->period = c->cpu_period;
        return floor_note(report, err, had ? FLOOR_CLAMPED : FLOOR_ADDED, "linux.resources.cpu",
                          req, eff, rule);
}

int floor_limits(struct oci_config *config, const struct floor_context *ctx,
                 struct floor_report *report, struct sb_error *err)
{
        struct oci_linux *l = config->linux_;

        if (l->resources == NULL) {
                l->resources = calloc(1, sizeof(*l->resources));
                if (l->resources == NULL)
                        return sb_fail(err, ENOMEM, "linux.resources");
        }
        if (pids(l->resources, ctx, false, report, err) < 0 ||
            memory(l->resources, ctx, false, report, err) < 0)
                return -1;
        return cpu(l->resources, ctx, false, report, err);
}

int floor_limits_update(struct oci_resources *r, const struct floor_context *ctx,
                        struct floor_report *report, struct sb_error *err)
{
        if (pids(r, ctx, true, report, err) < 0 || memory(r, ctx, true, report, err) < 0)
                return -1;
        return cpu(r, ctx, true, report, err);
}
