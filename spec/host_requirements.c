#include "spec/host_requirements.h"

#include "common/error.h"
#include "oci/config.h"
#include "spec/floor.h"
#include "spec/floor_landlock.h"
#include "spec/floor_runtime.h"
#include "spec/operator_policy.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *host_status_name(enum host_status status)
{
        switch (status) {
        case HOST_OK:
                return "ok";
        case HOST_WARN:
                return "warn";
        case HOST_FAIL:
                break;
        }
        return "FAIL";
}

/* The floor gives every container new pid, mount, ipc, uts and cgroup
 * namespaces (refusing a spec without pid or ipc, adding the others) and
 * gives every container a network namespace of its own
 * (spec/floor_namespaces.c); bwrap, root, seccomp filters with
 * KILL_PROCESS and ERRNO (the floor's deny-list) and openat2 (sbrun-init
 * resolves every path in the rootfs with RESOLVE_IN_ROOT) are used by every
 * create. A user namespace, the optional seccomp flags and the notify
 * listener are used only when a config asks for them. */
struct requirement {
        const char *item;
        bool required;
};

static const struct requirement table[] = {
        { "bwrap", true },
        { "root", true },
        { "namespace user", false },
        { "namespace pid", true },
        { "namespace mount", true },
        { "namespace network", true },
        { "namespace ipc", true },
        { "namespace uts", true },
        { "namespace cgroup", true },
        { "seccomp", true },
        { "seccomp flags", false },
        { "seccomp notify", false },
        { "openat2", true },
        { "lsm", false },
        /* Only for --systemd-cgroup (podman's and the kubelet's default). */
        { "systemd", false },
};

/* Rootless: a direct caller maps a user namespace of its own for every
 * container (rootless podman's sbrun is already in one and is not asked);
 * its state root must be usable; newuidmap only serves maps beyond the
 * caller's own id. */
static const struct requirement rootless_table[] = {
        { "namespace user", true },
        { "state root", true },
        { "newuidmap", false },
};

/* The item's entry in t (n entries), or NULL. */
static const struct requirement *find(const struct requirement *t, size_t n, const char *item)
{
        for (size_t i = 0; i < n; i++)
                if (strcmp(t[i].item, item) == 0)
                        return &t[i];
        return NULL;
}

enum host_status host_requirement_status_rootless(const char *item, bool available)
{
        const struct requirement *r =
                find(rootless_table, sizeof(rootless_table) / sizeof(rootless_table[0]), item);

        if (available || r == NULL)
                return host_requirement_status(item, available);
        return r->required ? HOST_FAIL : HOST_WARN;
}

enum host_status host_requirement_status(const char *item, bool available)
{
        const struct requirement *r = find(table, sizeof(table) / sizeof(table[0]), item);

        if (available)
                return HOST_OK;
        return r == NULL || r->required ? HOST_FAIL : HOST_WARN;
}

enum host_status host_landlock_status(const struct operator_policy *policy, bool available)
{
        const struct floor_profile *profile = policy_profile_get(policy->profile);

        if (available)
                return HOST_OK;
        /* The default profile cannot create without it; a strict container
         * asked for by annotation could not either: a warning. */
        return floor_landlock_mode(policy, profile) == LANDLOCK_REQUIRED ? HOST_FAIL : HOST_WARN;
}

enum host_status host_audit_status(const struct operator_policy *policy, bool writable)
{
        if (writable)
                return HOST_OK;
        return audit_failure_fatal(policy->profile, AUDIT_CREATE) ? HOST_FAIL : HOST_WARN;
}

int host_cgroups_status(const struct operator_policy *policy, const char *host_unusable,
                        const char *where, enum host_status *status, char **detail,
                        struct sb_error *err)
{
        struct oci_config empty = { 0 };
        struct floor_report report = { 0 };
        struct sb_error refused = { 0 };
        bool unenforced = false;
        int n;

        *detail = NULL;
        /* The same call as create's (runtime/cgroup/container_cgroup.c),
         * without its warning: here the answer is printed instead. */
        if (floor_cgroups_decide(policy, &empty, "(check)", host_unusable, &unenforced, &report,
                                 &refused) < 0) {
                floor_report_release(&report);
                if (refused.errnum != 0) {
                        sb_error_clear(&refused);
                        return sb_fail(err, ENOMEM, "cgroups");
                }
                *status = HOST_FAIL;
                *detail = refused.msg;
                return 0;
        }
        floor_report_release(&report);
        if (!unenforced) {
                *status = HOST_OK;
                n = asprintf(detail, "limits are enforced in %s", where);
        } else {
                *status = HOST_WARN;
                n = asprintf(detail,
                             "not enforced, allowed by policy %s (\"cgroups\": {\"enforce\": "
                             "false}): %s",
                             policy->source ? policy->source : OPERATOR_POLICY_PATH, host_unusable);
        }
        return n < 0 ? sb_fail(err, ENOMEM, "cgroups") : 0;
}

int host_io_status(const struct operator_policy *policy, const char *host_unusable,
                   const char *no_io, const char *where, enum host_status *status, char **detail,
                   struct sb_error *err)
{
        struct oci_config empty = { 0 };
        struct floor_report report = { 0 };
        struct sb_error refused = { 0 };
        struct floor_context ctx;
        char ceiling[160];
        bool drop = false;
        int n;

        *detail = NULL;
        if (floor_select(policy, &empty, NULL, &ctx, &report, err) < 0) {
                floor_report_release(&report);
                return -1;
        }
        floor_io_ceiling_text(&ctx.ceilings.io, ceiling, sizeof(ceiling));
        if (ctx.io_rule == IO_RULE_NONE) {
                *status = HOST_OK;
                n = asprintf(detail, "no io ceiling under %s (floor.ceilings.io)",
                             ctx.profile->name);
        } else if (host_unusable != NULL) {
                /* The cgroups line says whether the container runs at all. */
                *status = HOST_WARN;
                n = asprintf(detail, "ceiling %s not enforced: no usable cgroup v2", ceiling);
        } else if (floor_io_controller(policy, &empty, no_io, &drop, &report, &refused) < 0) {
                if (refused.errnum != 0) {
                        floor_report_release(&report);
                        sb_error_clear(&refused);
                        return sb_fail(err, ENOMEM, "io");
                }
                *status = HOST_FAIL;
                n = asprintf(detail, "ceiling %s: %s", ceiling, refused.msg);
                sb_error_clear(&refused);
        } else if (drop) {
                *status = HOST_WARN;
                n = asprintf(detail, "ceiling %s not enforced (%s): %s", ceiling,
                             floor_io_rule_text(ctx.io_rule), no_io);
        } else {
                *status = HOST_OK;
                n = asprintf(detail,
                             "ceiling %s on every disk behind a container, io controller in %s",
                             ceiling, where);
        }
        floor_report_release(&report);
        return n < 0 ? sb_fail(err, ENOMEM, "io") : 0;
}
