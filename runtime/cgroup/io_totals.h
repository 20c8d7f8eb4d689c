/* What a container's cgroup read and wrote, and how long it waited on I/O:
 * io.stat summed over its disks and io.pressure's totals, for the verdict
 * and the audit trail (the io ceiling, spec/floor_io.h, is what held it). */
#ifndef SB_CGROUP_IO_TOTALS_H
#define SB_CGROUP_IO_TOTALS_H

#include <stdbool.h>
#include <stdint.h>

struct cgroup;
struct json_writer;

struct cgroup_io_totals {
        bool stat; /* io.stat was read */
        uint64_t rbytes, wbytes, rios, wios;
        bool pressure;                 /* io.pressure was read */
        uint64_t some_usec, full_usec; /* its "total=" of the some and full lines */
};

/* Never fails: a file that cannot be read (no io controller, PSI off)
 * leaves its part unset. */
void cgroup_io_totals_read(struct cgroup *cg, struct cgroup_io_totals *t);

/* "io": {"rbytes": N, "wbytes": N, "rios": N, "wios": N,
 * "pressure_some_usec": N, "pressure_full_usec": N} into an open object,
 * with the parts that were read; nothing when neither was. */
void cgroup_io_totals_write(struct json_writer *w, const struct cgroup_io_totals *t);

#endif
