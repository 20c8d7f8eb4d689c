/* The io ceiling (floor.ceilings.io): how fast a container may read and
 * write the disks behind what it can reach, so that one container cannot
 * take a disk from every other tenant. Under a ceiling:
 *
 * - every disk that backs the container's root (through an overlay's
 *   layers) or one of its binds gets the ceiling as throttles in
 *   linux.resources.blockIO (cgroup v2 io.max), added where the spec has
 *   none for that disk;
 * - a blockIO throttle or weight above the ceiling (or asking for no
 *   limit) is clamped to it, at create and at `update`;
 * - a spec's own io.* cgroup files (linux.resources.unified) are refused:
 *   they would undo the ceiling;
 * - the root or a writable bind on a file system with no disk (9p, NFS,
 *   FUSE: nothing io.max can name) cannot be held to the ceiling: refused
 *   where the rule requires it (strict; floor.ceilings.io.require_enforced
 *   true), else allowed with a warning. A tmpfs (memory) needs nothing.
 *
 * The disks are found by runtime/host/io_backing.c from the fds create
 * holds; the io controller's presence is judged by floor_io_controller.
 * Everything is decided here. */
#ifndef SB_SPEC_FLOOR_IO_H
#define SB_SPEC_FLOOR_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sb_error;
struct floor_report;
struct oci_config;
struct oci_resources;
struct operator_policy;
struct floor_profile;
struct floor_context;

/* 0: no ceiling on that quantity. */
struct floor_io_ceiling {
        uint64_t rbps, wbps;   /* bytes per second */
        uint64_t riops, wiops; /* I/O operations per second */
        uint64_t weight;       /* io.weight, 1 to 10000 (the kernel's default is 100) */
};

bool floor_io_ceiling_set(const struct floor_io_ceiling *c);

/* What one source the container reaches (its root, a bind) is stored on. */
enum floor_io_kind {
        FLOOR_IO_UNKNOWN = 0, /* not probed */
        FLOOR_IO_DISKS,       /* on the disks below */
        FLOOR_IO_MEMORY,      /* tmpfs, proc, sysfs...: no disk to hold */
        FLOOR_IO_NO_DISK,     /* a file system with no block device (9p, NFS, FUSE) */
};

#define FLOOR_IO_MAX_DISKS 8

/* A whole disk as io.max names it: a partition's parent, a device-mapper
 * or loop device as it is. */
struct floor_io_disk {
        uint32_t major, minor;
};

struct floor_io_backing {
        enum floor_io_kind kind;
        char fs[192]; /* "ext4 on /dev/vda1", "9p on share", for messages */
        struct floor_io_disk disks[FLOOR_IO_MAX_DISKS];
        size_t n_disks;
};

/* Whether a source without a disk may go unheld. */
enum floor_io_rule {
        IO_RULE_NONE,          /* no io ceiling in force */
        IO_REQUIRED,           /* the profile's rule (strict) */
        IO_REQUIRED_BY_POLICY, /* require_enforced true where the profile has not */
        IO_WAIVED_BY_POLICY,   /* require_enforced false under strict: warned */
        IO_NOT_REQUIRED,       /* standard with an operator's ceiling: warned */
};

/* As floor_volume_rule: default_profile false (a stricter profile by
 * annotation) keeps the profile's rule whatever the policy says. */
enum floor_io_rule floor_io_rule(const struct operator_policy *policy,
                                 const struct floor_profile *profile,
                                 const struct floor_io_ceiling *ceiling, bool default_profile);
const char *floor_io_rule_text(enum floor_io_rule rule);

/* "rbps=1048576 wbps=1048576 riops=1000 wiops=1000 weight=100", the
 * quantities the ceiling has; "none" without one. */
void floor_io_ceiling_text(const struct floor_io_ceiling *c, char *buf, size_t size);

/* The blkio weight (10 to 1000, OCI's blockIO.weight) as io.weight (1 to
 * 10000), linearly as runc and crun convert it; 0 stays 0. */
uint64_t floor_io_weight_of_blkio(uint64_t weight);

/* The floor's concern (spec/floor.h). */
int floor_io(struct oci_config *config, const struct floor_context *ctx,
             struct floor_report *report, struct sb_error *err);
/* `update`: only what r sets is clamped (prefix "--resources" or
 * "linux.resources" in messages); no disk is added. */
int floor_io_update(struct oci_resources *r, const struct floor_context *ctx,
                    struct floor_report *report, struct sb_error *err);

/* The io controller where the container's cgroup is made: missing NULL,
 * it is there. Otherwise (missing says why) a container under an io
 * ceiling is refused where the rule requires it, else *drop is set (the
 * io.* settings go unwritten) with a warning and a record. Without a
 * ceiling nothing is decided. In explain mode a refusal is recorded. */
int floor_io_controller(const struct operator_policy *policy, const struct oci_config *config,
                        const char *missing, bool *drop, struct floor_report *report,
                        struct sb_error *err);

#endif
