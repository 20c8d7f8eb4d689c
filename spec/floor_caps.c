/* Capabilities: each of the five sets intersected with the profile's
 * ceiling (standard: Docker's default minus NET_RAW, MKNOD, AUDIT_WRITE and
 * SETFCAP; strict: none). Also what podman --privileged asks for. */
#include "spec/floor.h"

#include "common/error.h"
#include "oci/config.h"

#include <stdio.h>

static int bound_set(uint64_t *set, bool given, const char *name, const struct floor_context *ctx,
                     struct floor_report *report, struct sb_error *err)
{
        char field[64], rule[64];
        uint64_t extra = given ? *set & ~ctx->profile->caps : 0;

        snprintf(field, sizeof(field), "process.capabilities.%s", name);
        snprintf(rule, sizeof(rule), "%s caps ceiling", ctx->profile->name);
        for (int cap = 0; cap < 64; cap++) {
                if (!(extra & (1ULL << cap)))
                        continue;
                const char *cap_name = oci_capability_name(cap);
                char unknown[32];
                if (cap_name == NULL) {
                        snprintf(unknown, sizeof(unknown), "capability %d", cap);
                        cap_name = unknown;
                }
                if (floor_note(report, err, FLOOR_DROPPED, field, cap_name, NULL, rule) < 0)
                        return -1;
        }
        *set &= ctx->profile->caps;
        return 0;
}

int floor_caps(struct oci_config *config, const struct floor_context *ctx,
               struct floor_report *report, struct sb_error *err)
{
        struct oci_process *p = config->process;

        if (p == NULL || !p->has_capabilities)
                return 0; /* none asked for: the container gets none (as runc) */
        struct oci_capabilities *c = &p->capabilities;
        if (bound_set(&c->bounding, c->has_bounding, "bounding", ctx, report, err) < 0 ||
            bound_set(&c->effective, c->has_effective, "effective", ctx, report, err) < 0 ||
            bound_set(&c->inheritable, c->has_inheritable, "inheritable", ctx, report, err) < 0 ||
            bound_set(&c->permitted, c->has_permitted, "permitted", ctx, report, err) < 0 ||
            bound_set(&c->ambient, c->has_ambient, "ambient", ctx, report, err) < 0)
                return -1;
        return 0;
}
