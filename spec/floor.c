#include "spec/floor.h"

#include "common/error.h"
#include "oci/config.h"
#include "spec/operator_policy.h"

#include <stdio.h>
#include <string.h>

/* Under a profile stricter than the operator's default, an operator ceiling
 * still binds: the lower of the two (0 is "none") applies. */
#define LOWER(a, b) ((a) == 0 ? (b) : (b) == 0 ? (a) : (a) < (b) ? (a) : (b))

static void merge_ceilings(struct floor_ceilings *c, const struct floor_ceilings *op, bool override)
{
#define PICK(f) c->f = override ? (op->f ? op->f : c->f) : LOWER(c->f, op->f)
        PICK(pids);
        PICK(memory);
        PICK(fsize);
        PICK(nofile);
        PICK(tmp_size);
        PICK(inodes);
        PICK(io.rbps);
        PICK(io.wbps);
        PICK(io.riops);
        PICK(io.wiops);
        PICK(io.weight);
#undef PICK
        if (op->cpu_quota != 0 && (override || c->cpu_quota == 0 || op->cpu_quota < c->cpu_quota)) {
                c->cpu_quota = op->cpu_quota;
                c->cpu_period = op->cpu_period;
        }
}

int floor_select(const struct operator_policy *policy, const struct oci_config *config,
                 const char *state_root, struct floor_context *ctx, struct floor_report *report,
                 struct sb_error *err)
{
        const struct floor_profile *base = policy_profile_get(policy->profile);
        const struct floor_profile *chosen = base;
        const char *asked = oci_annotation(config, POLICY_ANNOTATION);

        if (asked != NULL) {
                const struct floor_profile *p = policy_profile_by_name(asked);
                char field[64];
                snprintf(field, sizeof(field), "annotations[\"%s\"]", POLICY_ANNOTATION);
                if (p == NULL)
                        return sb_fail(err, 0, "%s: \"%s\" is not a profile (standard, strict)",
                                       field, asked);
                /* A container can ask for more confinement, never for less. */
                if (p->id < base->id)
                        return sb_fail(err, 0,
                                       "%s: \"%s\" is looser than the operator's \"%s\" "
                                       "profile: refused (rule: only a stricter profile "
                                       "may be selected)",
                                       field, asked, base->name);
                if (p->id > base->id && floor_note(report, err, FLOOR_FORCED, field, asked, p->name,
                                                   "a stricter profile may be selected") < 0)
                        return -1;
                chosen = p;
        }
        static const struct floor_host unknown_host = { 0 };

        memset(ctx, 0, sizeof(*ctx));
        ctx->profile = chosen;
        ctx->host = &unknown_host;
        ctx->ceilings = chosen->ceilings;
        merge_ceilings(&ctx->ceilings, &policy->ceilings, chosen == base);
        ctx->policy_source = policy->source;
        ctx->devices = policy->devices;
        ctx->net_devices = policy->net_devices;
        ctx->state_root = state_root;
        ctx->volumes = floor_volume_rule(policy, chosen, chosen == base);
        ctx->io_rule = floor_io_rule(policy, chosen, &ctx->ceilings.io, chosen == base);
        ctx->idmap_engine_ids = policy->volumes_idmap_engine && chosen->id != POLICY_STRICT;
        return 0;
}

int floor_apply(struct oci_config *config, const struct floor_context *ctx,
                struct floor_report *report, struct sb_error *err)
{
        typedef int (*concern_fn)(struct oci_config *, const struct floor_context *,
                                  struct floor_report *, struct sb_error *);
        static const concern_fn concerns[] = {
                floor_privileged, floor_spec_fields, floor_net_devices, floor_namespaces,
                floor_caps,       floor_process,     floor_paths,       floor_mounts,
                floor_volumes,    floor_devices,     floor_limits,      floor_io,
                floor_resources,  floor_syscalls
        };

        for (size_t i = 0; i < sizeof(concerns) / sizeof(concerns[0]); i++) {
                if (concerns[i](config, ctx, report, err) < 0)
                        return -1;
        }
        return 0;
}
