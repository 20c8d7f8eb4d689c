/* `exec --cgroup PATH` (runc 1.2): the exec'd process joins a cgroup below
 * the container's own, which the caller has made (it is never created
 * here, as runc does not). cgroup v2 only: one hierarchy, so one PATH and
 * no "controller:" prefix. */
#ifndef SB_SUB_CGROUP_H
#define SB_SUB_CGROUP_H

struct sb_error;

/* The cgroup sub names below the directory fd base (the container's
 * cgroup, whose path is base_path), opened O_PATH: relative ("/" at its
 * start is ignored, as runc joins it), no ".." (it could leave the
 * container's cgroup), resolved beneath base without symlinks or mount
 * crossings. An empty sub or "/" is base itself. Errors name --cgroup and
 * the value. */
int sub_cgroup_open(int base, const char *base_path, const char *sub, struct sb_error *err);

#endif
