/* Landlock: a file system layer of the floor that does not depend on the
 * mount table being right. Under `strict` (or where the operator's policy
 * asks for it, "landlock" in spec/operator_policy.h) every process of the
 * container, the first and each exec'd one, runs in a Landlock domain that
 * sbrun-init makes as its last step before execve (runtime/init/
 * init_landlock.c):
 *
 * - read and execute beneath the container's root;
 * - write (create, remove, truncate, link and rename within) only beneath
 *   what the effective config makes writable: the root if it is not
 *   read-only, each mount without "ro" that is not proc, sysfs or cgroup,
 *   the standard /dev nodes, /dev/pts, /dev/shm, linux.devices and the
 *   run.sbrun.workspace directory; a mount that appears later
 *   (propagation) elsewhere is not writable;
 * - with "exec_writable": false, nothing beneath a writable path may be
 *   executed (W^X; refused with a writable root, which would leave nothing
 *   to run). Landlock's rules sit on inodes and are found by walking up the
 *   path a process used, so W^X holds by file only where no host tree is
 *   bound both writable and executable: a writable bind whose source is,
 *   contains or is inside a read-only bind's source or the root's is
 *   refused, naming both;
 * - under a profile without network, no TCP bind or connect (ABI 4).
 *
 * The host's facts (the kernel's ABI) come from runtime/host/
 * landlock_host.c; the decision is made here. */
#ifndef SB_SPEC_FLOOR_LANDLOCK_H
#define SB_SPEC_FLOOR_LANDLOCK_H

#include "spec/floor_trees.h"

#include "spec/operator_policy.h"

#include <stdbool.h>
#include <stddef.h>

struct sb_error;
struct floor_report;
struct oci_config;
struct stat;

struct landlock_host {
        int abi;            /* the kernel's Landlock ABI; 0: none */
        const char *absent; /* why not, for messages */
};

struct landlock_rules {
        enum landlock_mode mode; /* LANDLOCK_OFF: no ruleset; REQUIRED: its failure fails */
        int abi;                 /* the ABI it is built for: min(kernel, SB_LANDLOCK_ABI_KNOWN) */
        bool exec_writable;      /* execute beneath the writable paths too */
        bool no_tcp;             /* deny TCP bind and connect */
        char **writable; /* NULL-terminated: writes beneath these ("/" for a writable root) */
        size_t n_writable;
};

/* The host side of the container's file trees, for W^X's alias check:
 * the bind sources the runtime holds (runtime/sandbox/bind_sources.h: per
 * mount, the canonical path and fstat of the source it will bind, NULL for
 * a mount that is no bind) and the root's resolved path and fstat. */
struct landlock_sources {
        char *const *paths;
        const struct stat *stats;
        size_t n;
        const char *root_path; /* NULL: not known (nothing checked against it) */
        const struct stat *root_stat;
        /* What each is (spec/floor_trees.h), where known: a second mount of
         * a tree on the host is found by the path inside its file system.
         * NULL: judged by path and inode alone. */
        const struct floor_identity *const *ids; /* per mount, like paths */
        const struct floor_identity *root_id;
};

/* Decide for the effective config under profile. The container gets
 * Landlock under strict unless policy says "best-effort" and the kernel has
 * none (warned), under standard where policy says "required" or
 * "best-effort". A kernel without it where it is required, or
 * exec_writable false with a writable root or with a host tree both
 * writable and executable (sources: NULL for exec, whose config passed at
 * create), is refused naming the field. report: NULL for create and exec
 * (the first refusal fails, a drop is warned about); `policy explain`'s
 * records what is added, dropped and refused. */
int floor_landlock_decide(const struct operator_policy *policy, const struct floor_profile *profile,
                          const struct oci_config *config, const struct landlock_sources *sources,
                          const struct landlock_host *host, struct landlock_rules *out,
                          struct floor_report *report, struct sb_error *err);
void landlock_rules_release(struct landlock_rules *rules);

/* What profile gets under policy: strict requires Landlock unless the
 * policy says best-effort; standard has what the policy says (off). */
enum landlock_mode floor_landlock_mode(const struct operator_policy *policy,
                                       const struct floor_profile *profile);

/* The writable paths of config under profile, as floor_landlock_decide
 * finds them (config may be the requested one: the profile's read-only
 * root and /tmp are taken into account). Pure: exposed for the unit tests.
 * NULL-terminated, *n set; NULL on ENOMEM. */
char **floor_landlock_writable(const struct oci_config *config, const struct floor_profile *profile,
                               size_t *n);

#endif
