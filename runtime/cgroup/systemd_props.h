/* The cgroup settings systemd owns, as unit properties of the container's
 * scope. With Delegate=yes systemd still writes the files of its own
 * properties (memory.max from MemoryMax=, pids.max from TasksMax=, ...)
 * whenever it realizes the unit again, on `systemctl daemon-reload` too: a
 * limit sbrun wrote only to the file would be undone then. So every setting
 * of a file systemd writes becomes the property that makes it write the
 * same value; what systemd has no property for (hugetlb, rdma, io.max,
 * memory.oom.group, ...) it never writes, and stays sbrun's file alone. */
#ifndef SB_SYSTEMD_PROPS_H
#define SB_SYSTEMD_PROPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sb_error;
struct cgroup_settings;

enum systemd_prop_type {
        SYSTEMD_PROP_U64,  /* "t" */
        SYSTEMD_PROP_BITS, /* "ay": a CPU or NUMA node mask, bit i of byte i/8 */
};

struct systemd_prop {
        const char *name; /* "MemoryMax" */
        enum systemd_prop_type type;
        uint64_t u64; /* UINT64_MAX is systemd's "infinity" */
        uint8_t *bits;
        size_t n_bits; /* bytes in bits */
};

struct systemd_props {
        struct systemd_prop *items;
        size_t n;
};

/* The properties that carry settings out. At a scope's start (at_start)
 * TasksMax is always there: a scope's default is systemd's DefaultTasksMax
 * (15% of pid_max), not the kernel's "max" a cgroupfs container without a
 * pids limit has; an update sets only what it changes. */
int systemd_props_from_settings(const struct cgroup_settings *settings, bool at_start,
                                struct systemd_props *out, struct sb_error *err);

void systemd_props_release(struct systemd_props *props);

#endif
