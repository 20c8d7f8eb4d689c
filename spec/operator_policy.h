/* The operator's settings: a root-owned JSON file (default
 * /etc/sbrun/policy.json, `--policy FILE` for tests). Only the operator
 * can loosen anything here; config.json and annotations never can.
 *
 *   {
 *     "cgroups": { "enforce": false },
 *     "timeout": { "max_seconds": 3600 }
 *   }
 *
 * cgroups.enforce (default true): false lets containers run without
 * resource limits on a host that has no usable cgroup v2 controllers
 * (e.g. a hybrid v1/v2 host), with a warning on every create and
 * "sbrun": {"resources": "unenforced"} in their state. Where the
 * controllers exist, limits are enforced either way.
 *
 *   "floor": {
 *     "profile": "standard",          default profile: "standard" or "strict"
 *     "ceilings": {                   override the profile's built-in ceilings
 *       "pids": 1024,                 linux.resources.pids.limit
 *       "memory": "512M",             memory.limit (K/M/G/T suffixes or bytes)
 *       "cpu": "1.0",                 CPUs: cpu.quota per 100 ms cpu.period
 *       "fsize": "64M",               RLIMIT_FSIZE (bytes, suffixes allowed)
 *       "nofile": 1024,               RLIMIT_NOFILE
 *       "tmp": "64M",                 size of every tmpfs mount (strict: /tmp is one)
 *       "inodes": "16k",              nr_inodes of every tmpfs mount
 *       "io": {                       io.max on every disk behind the root and the
 *         "read_bps": "32M",          binds, and io.weight (spec/floor_io.h): bytes
 *         "write_bps": "32M",         per second (suffixes allowed), operations per
 *         "read_iops": 1000,          second, io.weight 1 to 10000;
 *         "write_iops": 1000,         require_enforced: a root or writable bind
 *         "weight": 100,              with no disk (9p, NFS, FUSE) or a cgroup
 *         "require_enforced": true    without the io controller is refused
 *       }                             (default: the profile's, strict true)
 *     },
 *     "devices": ["/dev/fuse"],       device nodes linux.devices may create
 *                                     beyond the standard ones
 *     "net_devices": ["eth1"],        network devices of the runtime's network
 *                                     namespace linux.netDevices may move into a
 *                                     container (standard; strict: none; default: none)
 *     "volumes": {
 *       "require_project_quota": true a writable directory bind must be bounded by
 *                                     project quota (default: the profile's,
 *                                     strict true, standard false)
 *       "idmap": "own-ids"            an idmapped mount writes to the disk only ids
 *     }                               the container's user namespace maps ("own-ids",
 *   }                                 the default); "engine": under standard, any ids
 *                                     the engine asks (podman's :idmap); strict: own-ids
 *
 * A ceiling applies also to a spec that asks for no limit. A ceiling given
 * here replaces the profile's default for the default profile; when an annotation selects a stricter profile, the lower of the
 * two applies. So does volumes.require_project_quota: false under a
 * stricter profile selected by annotation still requires it.
 *
 *   "landlock": {
 *     "mode": "off",                  standard without Landlock, strict with it
 *                                     required ("off", the default); "required":
 *                                     both require it; "best-effort": both apply
 *                                     it where the kernel has it
 *     "exec_writable": true           false: nothing beneath a writable mount
 *   }                                 may be executed (W^X; spec/floor_landlock.h)
 *
 * "audit": the audit trail's log, spec/audit_policy.h.
 *
 * timeout.max_seconds (default none): the wall-clock ceiling of every
 * container, in seconds. The annotation run.sbrun.timeout and `run
 * --timeout` may only lower it (see spec/floor_runtime.h).
 *
 *   "limits": { "output": "16M" }
 *
 * limits.output (default: none under standard, the profile's under
 * strict): the most a foreground `run` forwards of each of the
 * container's stdout and stderr, a size (common/size_parse.h); past it
 * the container is stopped. The annotation run.sbrun.output_limit and
 * `run --output-limit`/`--stdout-limit`/`--stderr-limit` may only lower
 * it (see spec/floor_runtime.h). */
#ifndef SB_SPEC_OPERATOR_POLICY_H
#define SB_SPEC_OPERATOR_POLICY_H

#include "spec/audit_policy.h"
#include "spec/policy_profiles.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "spec/policy_profile_id.h"

struct sb_error;

#include "config.h" /* SBRUN_CONFDIR: configure's --sysconfdir, /etc by default */

#define OPERATOR_POLICY_PATH SBRUN_CONFDIR "/policy.json"

/* landlock.mode: what a kernel without Landlock means for standard (off:
 * nothing) and strict (off and required: no create). */
enum landlock_mode { LANDLOCK_OFF, LANDLOCK_REQUIRED, LANDLOCK_BEST_EFFORT };

/* "off", "required", "best-effort": as the policy file spells them. */
const char *landlock_mode_name(enum landlock_mode mode);

struct operator_policy {
        char *source;                   /* the file read; NULL for the built-in default */
        bool cgroups_enforce;           /* default true */
        enum policy_profile profile;    /* floor.profile, default standard */
        struct floor_ceilings ceilings; /* floor.ceilings; 0: not set */
        char **devices;                 /* floor.devices, NULL-terminated or NULL */
        size_t n_devices;
        char **net_devices; /* floor.net_devices, NULL-terminated or NULL */
        size_t n_net_devices;
        int timeout_max_seconds; /* 0: no ceiling */
        int64_t output_limit;    /* limits.output, bytes; 0: not set */
        enum landlock_mode landlock_mode;
        bool landlock_exec_writable; /* default true */
        bool volumes_quota_set;      /* floor.volumes.require_project_quota given */
        bool volumes_require_quota;  /* and its value */
        bool io_require_set;         /* floor.ceilings.io.require_enforced given */
        bool io_require;             /* and its value */
        bool volumes_idmap_engine;   /* floor.volumes.idmap "engine": standard takes an
                                      * idmapped mount's disk ids as the engine asks */
        struct audit_settings audit; /* spec/audit_policy.h */
        char *text;                  /* the file as read; NULL for the built-in default */
};

/* Its name in /etc, opened beneath the checked /etc fd (rootless). */
#define OPERATOR_POLICY_DIR_NAME "sbrun"
#define OPERATOR_POLICY_DIR "/etc/" OPERATOR_POLICY_DIR_NAME

/* Read path (NULL: OPERATOR_POLICY_PATH, whose absence means the built-in
 * default; an explicit path must exist). The file must be a regular file
 * owned by the host's root and not writable by group or others, or it is
 * refused, so that no user can write their own opt-out.
 *
 * host_root is the uid the host's root shows as to the caller: 0, or in a
 * user namespace that does not map it (rootless podman's) the kernel's
 * overflow uid, which every other unmapped user shows as too. Then the
 * owner alone proves nothing, so the file must also be in
 * OPERATOR_POLICY_DIR, and that directory and its parent owned by
 * host_root and writable by nobody else: only the host's root can have put
 * a file there. */
int operator_policy_load(const char *path, uid_t host_root, struct operator_policy *policy,
                         struct sb_error *err);

/* The same from the text of a policy (origin names it in errors); sets
 * neither source nor text. On error *policy holds nothing to release. */
int operator_policy_parse(const char *text, size_t len, const char *origin,
                          struct operator_policy *policy, struct sb_error *err);

void operator_policy_release(struct operator_policy *policy);

/* What operator_policy_load reads back as the same policy: the file's
 * text, or "{}" for the built-in default. A container's floor is fixed at
 * create by saving this next to its state (exec reads it there). */
const char *operator_policy_text(const struct operator_policy *policy);

#endif
