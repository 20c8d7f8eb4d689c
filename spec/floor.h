/* The policy floor: effective spec = requested ∧ floor. Applied in place on
 * the parsed config before anything is created; every change is recorded in
 * a floor_report (and logged as a warning naming the field, the requested
 * and the effective value, and the rule); a request that cannot be made
 * safe is refused as an error naming the field and the rule. */
#ifndef SB_SPEC_FLOOR_H
#define SB_SPEC_FLOOR_H

#include "spec/floor_io.h"
#include "spec/floor_trees.h"
#include "spec/floor_volumes.h"
#include "spec/policy_profiles.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct sb_error;
struct stat;
struct oci_config;
struct operator_policy;

enum floor_action { FLOOR_ADDED, FLOOR_DROPPED, FLOOR_CLAMPED, FLOOR_FORCED, FLOOR_REFUSED };

struct floor_change {
        enum floor_action action;
        char *field, *requested, *effective, *rule;
};

struct floor_report {
        struct floor_change *changes;
        size_t n;
        bool log;     /* each change is also an sb_warn */
        bool explain; /* refusals are recorded and the merge goes on */
};

/* What the floor needs to know about the host, gathered by runtime/
 * (runtime/host/floor_host.h): spec/ never reads the host itself. */
struct floor_host {
        int64_t memory; /* MemTotal in bytes; 0: unknown, no clamp to it */
        /* Per linux.namespaces entry (by index): its path names the host's
         * own namespace of its type (pid 1's, or the runtime's, where pid
         * 1's is out of reach as in a nested sandbox). NULL: none does. */
        const bool *ns_is_host;
        size_t n_ns;
        /* Per mount (by index): the project quota of its bind source, for
         * each mount floor_mount_is_volume judges; NULL: none probed. */
        const struct volume_quota *volumes;
        size_t n_volumes;
        /* What the root and each bind source (by mount index, NULL for a
         * mount that is no bind) are, as held open, and the trees none may
         * reach (spec/floor_trees.h). root NULL: the root is not judged
         * (update, and unit tests of other concerns); a bind without an
         * identity is refused. */
        const struct floor_identity *root;
        const struct floor_identity *const *binds;
        size_t n_binds;
        const struct floor_tree *trees;
        size_t n_trees;
        /* The mounts below the root and below each bind source (by mount
         * index, NULL for none): bwrap's binds are recursive, so each is
         * judged as the source is. */
        const struct floor_identity_list *root_submounts;
        const struct floor_identity_list *const *bind_submounts;
        /* What the root and each bind source (by mount index; kind
         * FLOOR_IO_UNKNOWN for a mount that is no bind) are stored on, for
         * the io ceiling (spec/floor_io.h). io_root NULL: not judged. */
        const struct floor_io_backing *io_root;
        const struct floor_io_backing *io_binds;
        size_t n_io_binds;
};

struct floor_context {
        const struct floor_profile *profile;
        const struct floor_host *host;  /* never NULL after floor_select */
        struct floor_ceilings ceilings; /* the profile's, adjusted by the operator */
        const char *policy_source;      /* NULL: built-in default */
        char *const *devices;           /* operator allow-list, NULL-terminated or NULL */
        char *const *net_devices;       /* floor.net_devices, NULL-terminated or NULL */
        const char *state_root;         /* global --root, never bind-mountable */
        const char *audit_dir;          /* the audit trail's directory, or NULL */
        enum floor_volume_rule volumes; /* what a writable volume must be */
        enum floor_io_rule io_rule;     /* where the io ceiling must hold */
        /* floor.volumes.idmap "engine" under a profile that is not strict:
         * an idmapped mount may write any disk ids (spec/floor_spec_fields.c). */
        bool idmap_engine_ids;
        /* Per mount: the canonical path of the bind source the runtime holds
         * open and will bind (runtime/sandbox/bind_sources.h), NULL for the others.
         * A bind without one is an error: the floor never judges a path. */
        char *const *bind_paths;
        const struct stat *bind_stats; /* and its fstat, beside bind_paths */
        size_t n_bind_paths;
};

/* runc's /dev tmpfs size (size=65536k), and an inode count within every
 * profile's: for a /dev tmpfs that names neither, and for the /dev given to
 * a config without one (oci_config.implicit_dev_*), each held to the
 * ceilings. */
#define FLOOR_DEV_SIZE (UINT64_C(64) << 20)
#define FLOOR_DEV_INODES UINT64_C(16384)

/* The profile: the operator's default, or a stricter one asked for by the
 * annotation run.sbrun.policy (a looser one is refused). */
int floor_select(const struct operator_policy *policy, const struct oci_config *config,
                 const char *state_root, struct floor_context *ctx, struct floor_report *report,
                 struct sb_error *err);
int floor_apply(struct oci_config *config, const struct floor_context *ctx,
                struct floor_report *report, struct sb_error *err);

/* Recording. A rule's name reads "standard caps ceiling". */
int floor_note(struct floor_report *report, struct sb_error *err, enum floor_action action,
               const char *field, const char *requested, const char *effective, const char *rule);
/* Recorded only: for a decision that logs its own wording. */
int floor_record(struct floor_report *report, struct sb_error *err, enum floor_action action,
                 const char *field, const char *requested, const char *effective, const char *rule);
/* In explain mode: recorded, returns 0. Otherwise: fails *err, returns -1. */
int floor_refuse(struct floor_report *report, struct sb_error *err, const char *field,
                 const char *value, const char *rule);
const char *floor_action_name(enum floor_action action);
void floor_report_release(struct floor_report *report);

/* A device node of TYPE ('c', 'b', 'p') and numbers at PATH (in the
 * container) may be given to it: a standard node or an allow-listed path. */
bool floor_device_allowed(char type, int64_t major, int64_t minor, const char *path,
                          const struct floor_context *ctx);

/* The concerns, one file each; each takes the same arguments. */
/* spec_fields: the runtime-spec fields sbrun does not carry out, refused by
 * name (and an ociVersion of another major version), and the limits on the
 * process's scheduling (nothing real-time, no negative nice, no LINUX32). */
int floor_spec_fields(struct oci_config *config, const struct floor_context *ctx,
                      struct floor_report *report, struct sb_error *err);
/* Its process part, for `exec --process` too; prefix names the process in
 * messages ("process"). */
struct oci_process;
int floor_process_fields(const struct oci_process *p, const char *prefix,
                         struct floor_report *report, struct sb_error *err);
int floor_privileged(struct oci_config *config, const struct floor_context *ctx,
                     struct floor_report *report, struct sb_error *err);
int floor_namespaces(struct oci_config *config, const struct floor_context *ctx,
                     struct floor_report *report, struct sb_error *err);
int floor_caps(struct oci_config *config, const struct floor_context *ctx,
               struct floor_report *report, struct sb_error *err);
int floor_process(struct oci_config *config, const struct floor_context *ctx,
                  struct floor_report *report, struct sb_error *err);
int floor_paths(struct oci_config *config, const struct floor_context *ctx,
                struct floor_report *report, struct sb_error *err);
int floor_mounts(struct oci_config *config, const struct floor_context *ctx,
                 struct floor_report *report, struct sb_error *err);
/* net_devices: linux.netDevices, each moved in only when floor.net_devices
 * names it (standard), never under strict; names valid for the kernel. */
int floor_net_devices(struct oci_config *config, const struct floor_context *ctx,
                      struct floor_report *report, struct sb_error *err);
/* NAME is one the kernel takes for a network device (dev_valid_name);
 * template_ok: it may hold one "%d" for the kernel to number. */
bool floor_net_device_name_valid(const char *name, bool template_ok);
int floor_devices(struct oci_config *config, const struct floor_context *ctx,
                  struct floor_report *report, struct sb_error *err);
int floor_volumes(struct oci_config *config, const struct floor_context *ctx,
                  struct floor_report *report, struct sb_error *err);
int floor_syscalls(struct oci_config *config, const struct floor_context *ctx,
                   struct floor_report *report, struct sb_error *err);
int floor_limits(struct oci_config *config, const struct floor_context *ctx,
                 struct floor_report *report, struct sb_error *err);
/* The ceilings for `update`: only the limits R sets are judged (one it
 * leaves out keeps what create gave it), each clamped as floor_limits
 * clamps it. */
struct oci_resources;
int floor_limits_update(struct oci_resources *r, const struct floor_context *ctx,
                        struct floor_report *report, struct sb_error *err);
/* After floor_limits: spec/floor_resources.h. */
int floor_resources(struct oci_config *config, const struct floor_context *ctx,
                    struct floor_report *report, struct sb_error *err);

#endif
