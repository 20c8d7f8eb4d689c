/* The process: noNewPrivileges always on, RLIMIT_CORE 0 (no core dumps of
 * a container's memory on the host's core_pattern), and under strict the
 * RLIMIT_FSIZE and RLIMIT_NOFILE ceilings. */
#include "spec/floor.h"

#include "common/error.h"
#include "oci/config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

static int no_new_privileges(struct oci_process *p, struct floor_report *report,
                             struct sb_error *err)
{
        bool was = p->no_new_privileges;

        p->no_new_privileges = true;
        if (was)
                return 0;
        return floor_note(report, err, FLOOR_FORCED, "process.noNewPrivileges",
                          p->has_no_new_privileges ? "false" : "(none)", "true",
                          "standard: noNewPrivileges on");
}

static struct oci_rlimit *rlimit_slot(struct oci_process *p, int resource, const char *name,
                                      bool *added, struct sb_error *err)
{
        *added = false;
        for (size_t i = 0; i < p->n_rlimits; i++) {
                if (p->rlimits[i].resource == resource)
                        return &p->rlimits[i];
        }
        struct oci_rlimit *grown = realloc(p->rlimits, (p->n_rlimits + 1) * sizeof(*grown));
        if (grown == NULL) {
                sb_fail(err, ENOMEM, "process.rlimits");
                return NULL;
        }
        p->rlimits = grown;
        struct oci_rlimit *r = &grown[p->n_rlimits++];
        memset(r, 0, sizeof(*r));
        r->resource = resource;
        r->type = strdup(name);
        r->soft = r->hard = RLIM_INFINITY;
        if (r->type == NULL) {
                sb_fail(err, ENOMEM, "process.rlimits");
                return NULL;
        }
        *added = true;
        return r;
}

static void show(char *buf, size_t size, uint64_t v)
{
        if (v == (uint64_t)RLIM_INFINITY)
                snprintf(buf, size, "unlimited");
        else
                snprintf(buf, size, "%" PRIu64, v);
}

static int clamp_rlimit(struct oci_process *p, int resource, const char *name, uint64_t ceiling,
                        const char *rule, struct floor_report *report, struct sb_error *err)
{
        bool added = false;
        struct oci_rlimit *r = rlimit_slot(p, resource, name, &added, err);
        char field[64], req[64], eff[64];

        if (r == NULL)
                return -1;
        if (!added && r->hard <= ceiling)
                return 0;
        snprintf(field, sizeof(field), "process.rlimits.%s", name);
        show(req, sizeof(req), r->hard);
        if (added)
                snprintf(req, sizeof(req), "(none)");
        if (r->soft > ceiling)
                r->soft = ceiling;
        r->hard = ceiling;
        show(eff, sizeof(eff), ceiling);
        return floor_note(report, err, added ? FLOOR_ADDED : FLOOR_CLAMPED, field, req, eff, rule);
}

int floor_process(struct oci_config *config, const struct floor_context *ctx,
                  struct floor_report *report, struct sb_error *err)
{
        struct oci_process *p = config->process;
        const struct floor_ceilings *c = &ctx->ceilings;
        char rule[64];

        if (p == NULL)
                return 0;
        if (no_new_privileges(p, report, err) < 0)
                return -1;
        if (clamp_rlimit(p, RLIMIT_CORE, "RLIMIT_CORE", 0, "standard: no core dumps", report, err) <
            0)
                return -1;
        snprintf(rule, sizeof(rule), "%s fsize ceiling", ctx->profile->name);
        if (c->fsize != 0 &&
            clamp_rlimit(p, RLIMIT_FSIZE, "RLIMIT_FSIZE", c->fsize, rule, report, err) < 0)
                return -1;
        snprintf(rule, sizeof(rule), "%s nofile ceiling", ctx->profile->name);
        if (c->nofile != 0 &&
            clamp_rlimit(p, RLIMIT_NOFILE, "RLIMIT_NOFILE", c->nofile, rule, report, err) < 0)
                return -1;
        return 0;
}
