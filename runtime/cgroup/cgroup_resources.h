/* linux.resources → the cgroup v2 files and values that carry them out,
 * with the v1→v2 conversions podman and containerd rely on (as runc and
 * crun make them). Pure conversion of values spec/floor_resources.h has
 * let through: the files are written by cgroup_manager, which also checks
 * that each controller is there. */
#ifndef SB_CGROUP_RESOURCES_H
#define SB_CGROUP_RESOURCES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sb_error;
struct oci_resources;

struct cgroup_setting {
        char *file;  /* "memory.max"; the controller is the part before '.' */
        char *value; /* "33554432" */
        char *field; /* "linux.resources.memory.limit", for messages */
        /* Tried when file does not exist (io.weight without iocost → bfq). */
        char *fallback_file, *fallback_value;
        bool optional; /* a missing file is skipped (swap accounting off) */
};

struct cgroup_settings {
        struct cgroup_setting *items;
        size_t n;
};

/* prefix names the object in messages: "linux.resources" for config.json,
 * "--resources" for update. Fields with no v2 meaning are warned about. */
int cgroup_resources_convert(const struct oci_resources *res, const char *prefix,
                             struct cgroup_settings *out, struct sb_error *err);

void cgroup_settings_release(struct cgroup_settings *s);

/* The conversions, exposed for tests. 0 stays 0 ("unset"). */
uint64_t cgroup_cpu_shares_to_weight(uint64_t shares);
uint64_t cgroup_blkio_weight_to_io_weight(uint64_t weight);
/* runc's v1 memory+swap → v2 memory.swap.max; -1 is "max". */
int cgroup_swap_to_v2(int64_t swap, int64_t memory, int64_t *out, const char **why);

#endif
