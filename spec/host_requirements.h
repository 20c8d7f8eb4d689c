/* What `sbrun check` calls ready: for each host fact runtime/ probes, whether
 * a confined container needs it (create fails without it: FAIL) or only some
 * configs do (WARN), and for cgroups the very decision create makes
 * (floor_cgroups_decide, spec/floor_runtime.h). Pure: the facts come
 * from runtime/host/host_probe.h. */
#ifndef SB_SPEC_HOST_REQUIREMENTS_H
#define SB_SPEC_HOST_REQUIREMENTS_H

#include <stdbool.h>
#include <stddef.h>

struct sb_error;
struct operator_policy;

enum host_status {
        HOST_OK,
        HOST_WARN, /* missing, but only some configs need it, or allowed by the policy */
        HOST_FAIL, /* missing and required: create would fail */
};

/* "ok", "warn", "FAIL" */
const char *host_status_name(enum host_status status);

/* The status of item (a name of the table in spec/host_requirements.c:
 * "bwrap", "user", "namespace pid", …) when it is or is not available.
 * An item not in the table is required: a new probe fails closed until
 * someone says otherwise. */
enum host_status host_requirement_status(const char *item, bool available);

/* The same for a rootless caller (runtime/host/rootless.h), for which some
 * items weigh otherwise: a user runs every container in a user namespace
 * it makes, so "namespace user" is required; the state root and the
 * newuidmap helpers are rootless items alone. */
enum host_status host_requirement_status_rootless(const char *item, bool available);

/* The landlock line: ok where the kernel offers it; otherwise FAIL where
 * the policy's default profile requires it (spec/floor_landlock.h), else a
 * warning. */
enum host_status host_landlock_status(const struct operator_policy *policy, bool available);

/* The audit line: ok where the trail can be written (or is "off");
 * otherwise FAIL where the default profile's creates would fail for it
 * (spec/audit_policy.h), else a warning. */
enum host_status host_audit_status(const struct operator_policy *policy, bool writable);

/* The cgroup line: cgroup v2 usable (host_unusable NULL; where names the
 * delegation root), or not (host_unusable says why, as cgroup_root_probe
 * found it). Then, as create decides, the operator's policy either refuses
 * (FAIL) or lets containers run without limits (WARN, "not enforced,
 * allowed by ..."). *detail is the line's text (caller frees). */
int host_cgroups_status(const struct operator_policy *policy, const char *host_unusable,
                        const char *where, enum host_status *status, char **detail,
                        struct sb_error *err);

/* The io line: the default profile's io ceiling (spec/floor_io.h) and
 * whether this host holds it: no ceiling or the io controller in the
 * delegation root (no_io NULL; where names it) is ok; without it the
 * ceiling's rule decides, as create does (floor_io_controller): FAIL
 * where it refuses, WARN where the policy waives it; no usable cgroup v2
 * (host_unusable) is a WARN here, the cgroups line says the rest. */
int host_io_status(const struct operator_policy *policy, const char *host_unusable,
                   const char *no_io, const char *where, enum host_status *status, char **detail,
                   struct sb_error *err);

#endif
