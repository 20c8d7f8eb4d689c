#include "spec/floor_volumes.h"

#include "common/log.h"
#include "oci/config.h"
#include "spec/floor.h"
#include "spec/operator_policy.h"

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>

enum floor_volume_rule floor_volume_rule(const struct operator_policy *policy,
                                         const struct floor_profile *profile, bool default_profile)
{
        if (!policy->volumes_quota_set)
                return profile->volumes_bounded ? VOLUMES_BOUNDED : VOLUMES_ANY;
        if (profile->volumes_bounded)
                return policy->volumes_require_quota || !default_profile ? VOLUMES_BOUNDED :
                                                                           VOLUMES_ANY_BY_POLICY;
        return policy->volumes_require_quota ? VOLUMES_BOUNDED_BY_POLICY : VOLUMES_ANY;
}

bool floor_locks_file_attrs(const struct operator_policy *policy,
                            const struct floor_profile *profile)
{
        return profile->volumes_bounded ||
               (policy->volumes_quota_set && policy->volumes_require_quota);
}

const char *floor_volume_rule_text(enum floor_volume_rule rule)
{
        switch (rule) {
        case VOLUMES_BOUNDED:
                return "required (the profile's rule)";
        case VOLUMES_BOUNDED_BY_POLICY:
                return "required (floor.volumes.require_project_quota true)";
        case VOLUMES_ANY_BY_POLICY:
                return "not required (floor.volumes.require_project_quota false waives the "
                       "profile's rule; each such volume is warned about)";
        case VOLUMES_ANY:
                break;
        }
        return "not required";
}

bool floor_mount_is_volume(const struct oci_mount *m, const struct stat *st)
{
        return oci_mount_is_bind(m) && !oci_mount_is_read_only(m) && S_ISDIR(st->st_mode);
}

/* Whether q bounds the volume; if not, what is missing, to follow its
 * source in a message ("/srv/data is on a file system without ..."). A
 * tmpfs is bounded by its size, within the ceiling every tmpfs the
 * container mounts gets (0: none). */
static bool bounded(const struct volume_quota *q, uint64_t tmp_ceiling, char *why, size_t size)
{
        if (q == NULL || !q->probed)
                snprintf(why, size, "was not probed for project quota");
        else if (q->tmpfs && q->tmpfs_size > 0 &&
                 (tmp_ceiling == 0 || q->tmpfs_size <= tmp_ceiling))
                return true;
        else if (q->tmpfs && q->tmpfs_size == 0)
                snprintf(why, size, "is on a tmpfs without a size limit (%s)", q->fs);
        else if (q->tmpfs)
                snprintf(why, size,
                         "is on a tmpfs of %" PRIu64 " bytes, above the tmp ceiling of %" PRIu64
                         " (%s)",
                         q->tmpfs_size, tmp_ceiling, q->fs);
        else if (q->unknown[0] != '\0')
                snprintf(why, size, "has a project quota that cannot be read: %s (%s)", q->unknown,
                         q->fs);
        else if (!q->enforced)
                snprintf(why, size, "is on a file system without project quota (%s)", q->fs);
        else if (q->project == 0)
                snprintf(why, size, "has no project id (%s)", q->fs);
        else if (!q->inherited)
                snprintf(why, size,
                         "has project id %u, which what is made in it does not inherit "
                         "(no FS_XFLAG_PROJINHERIT, chattr +P) (%s)",
                         q->project, q->fs);
        else if (q->block_limit == 0)
                snprintf(why, size, "is in project %u, which has no block hard limit (%s)",
                         q->project, q->fs);
        else
                return true;
        return false;
}

/* The rule's name as messages give it. */
static void rule_name(const struct floor_context *ctx, char *rule, size_t size)
{
        const char *path = ctx->policy_source ? ctx->policy_source : OPERATOR_POLICY_PATH;

        if (ctx->volumes == VOLUMES_BOUNDED)
                snprintf(rule, size,
                         "%s: a writable volume is bounded by project quota "
                         "(floor.volumes.require_project_quota)",
                         ctx->profile->name);
        else
                snprintf(rule, size, "floor.volumes.require_project_quota %s in %s",
                         ctx->volumes == VOLUMES_ANY_BY_POLICY ? "false" : "true", path);
}

int floor_volumes(struct oci_config *config, const struct floor_context *ctx,
                  struct floor_report *report, struct sb_error *err)
{
        char rule[PATH_MAX + 96];

        if (ctx->volumes == VOLUMES_ANY)
                return 0;
        rule_name(ctx, rule, sizeof(rule));
        for (size_t i = 0; i < config->n_mounts; i++) {
                const struct oci_mount *m = &config->mounts[i];
                const struct floor_host *h = ctx->host;
                char field[64], why[512], value[PATH_MAX + 512];

                /* A bind that was not opened failed floor_mounts already. */
                if (i >= ctx->n_bind_paths || ctx->bind_paths[i] == NULL ||
                    !floor_mount_is_volume(m, &ctx->bind_stats[i]))
                        continue;
                if (bounded(h->volumes != NULL && i < h->n_volumes ? &h->volumes[i] : NULL,
                            ctx->ceilings.tmp_size, why, sizeof(why)))
                        continue;
                snprintf(field, sizeof(field), "mounts[%zu].source", i);
                snprintf(value, sizeof(value), "%s %s", m->source, why);
                if (ctx->volumes != VOLUMES_ANY_BY_POLICY) {
                        if (floor_refuse(report, err, field, value, rule) < 0)
                                return -1;
                        continue;
                }
                if (report->log)
                        sb_warn("%s: %s: allowed unbounded, the container can fill that file "
                                "system (rule: %s)",
                                field, value, rule);
                if (floor_record(report, err, FLOOR_DROPPED, field,
                                 "a volume bounded by project quota", value, rule) < 0)
                        return -1;
        }
        return 0;
}
