/* Volumes: a host directory bound in writable is the one place where a
 * container can fill a host file system (its root is read-only under
 * strict and every tmpfs is capped). Under a profile that bounds volumes
 * (strict), or where the operator's policy asks for it
 * (floor.volumes.require_project_quota, spec/operator_policy.h), such a
 * bind must be bounded by project quota:
 *
 * - its file system enforces project quota,
 * - the directory has a nonzero project id that what is made in it
 *   inherits (FS_XFLAG_PROJINHERIT: without it new files get project 0),
 * - and that project has a block hard limit.
 *
 * A directory on a tmpfs no larger than the tmp ceiling is bounded as a
 * tmpfs the container mounts itself is (the engines bind a per-container
 * /dev/shm so: podman's is 64 MiB). Anything less, or what cannot be found out (a rootless caller may not
 * read a project's limits), is refused naming the mount and what is
 * missing; a policy that says false under strict lets it through with a
 * warning. Read-only binds and binds of a single file (the engines' own
 * /etc/hosts, /etc/resolv.conf, /run/.containerenv) are not volumes.
 *
 * The facts are read by runtime/host/quota_host.c from the source the
 * runtime holds open (runtime/sandbox/bind_sources.h); the decision is
 * made here. */
#ifndef SB_SPEC_FLOOR_VOLUMES_H
#define SB_SPEC_FLOOR_VOLUMES_H

#include <stdbool.h>
#include <stdint.h>

struct stat;
struct oci_mount;
struct operator_policy;
struct floor_profile;

/* What the host says of one bind source's project quota. The facts are
 * read in order and the first one that is missing or cannot be read ends
 * the probe: those after it are left 0. */
struct volume_quota {
        bool probed;          /* false: nothing was read (not probed) */
        char fs[160];         /* "ext4 on /dev/sda1", for messages */
        bool tmpfs;           /* on a tmpfs (no project quota: bounded by its size) */
        uint64_t tmpfs_size;  /* and its size in bytes, 0: no limit */
        bool enforced;        /* the file system enforces project quota */
        uint32_t project;     /* the directory's project id, 0: none */
        bool inherited;       /* FS_XFLAG_PROJINHERIT: new files get that id */
        uint64_t block_limit; /* the project's block hard limit in bytes, 0: none */
        char unknown[160];    /* not empty: a fact could not be read, which and why */
};

/* What a writable volume must be, for a profile under a policy. */
enum floor_volume_rule {
        VOLUMES_ANY,               /* standard: nothing asked */
        VOLUMES_BOUNDED,           /* the profile's rule (strict) */
        VOLUMES_BOUNDED_BY_POLICY, /* require_project_quota true where the profile has not */
        VOLUMES_ANY_BY_POLICY,     /* require_project_quota false where the profile has it:
                                    * allowed, warned about */
};

/* default_profile: the profile is the operator's default; false when an
 * annotation selected a stricter one, whose rule the policy cannot loosen
 * (as a ceiling, the stricter of the two applies). */
enum floor_volume_rule floor_volume_rule(const struct operator_policy *policy,
                                         const struct floor_profile *profile, bool default_profile);

/* Whether the floor's seccomp filter refuses to change file attributes
 * (spec/floor_seccomp_rules.h: floor_attr_ioctl_deny): under a profile
 * that bounds volumes, even where the policy waives the quota rule, and
 * where the policy asks for the rule. exec decides it the same way from
 * the container's saved policy. */
bool floor_locks_file_attrs(const struct operator_policy *policy,
                            const struct floor_profile *profile);

/* The rule's one-line description for `policy show`. */
const char *floor_volume_rule_text(enum floor_volume_rule rule);

/* A mount the rule judges: a bind, not read-only, of a directory (st:
 * the fstat of the source held open). Pure: runtime/host/floor_host.c
 * probes exactly these. */
bool floor_mount_is_volume(const struct oci_mount *m, const struct stat *st);

#endif
