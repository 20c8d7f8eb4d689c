/* A container cgroup's usage, read from its cgroup v2 files (cpu.stat,
 * memory.current/max/peak/stat, memory.swap.*, pids.current/max, io.stat,
 * hugetlb.*), written as the "data" object of a `runc events` stats event:
 * runc's types.Stats, with the v1-shaped values runc derives from v2 (cpu
 * times in ns, swap as memory+swap, "max" as 2^64-1, a pids limit of "max"
 * as 0). */
#ifndef SB_CGROUP_STATS_H
#define SB_CGROUP_STATS_H

struct sb_error;
struct cgroup;
struct json_writer;

/* Read every file first, then write one JSON object to w. */
int cgroup_stats_write(struct cgroup *cg, struct json_writer *w, struct sb_error *err);

#endif
