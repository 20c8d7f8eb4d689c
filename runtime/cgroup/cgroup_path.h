/* linux.cgroupsPath → where the container's cgroup goes, relative to the
 * cgroup2 mount. Pure string work: nothing is created here. */
#ifndef SB_CGROUP_PATH_H
#define SB_CGROUP_PATH_H

#include <stdbool.h>

struct sb_error;
struct cgroup_root;

/* - empty or absent: <delegation root>/sbrun/<id>
 * - "/a/b": a/b under the cgroup2 mount
 * - "a/b": a/b under the delegation root
 * - with systemd, "slice:prefix:name" ("system.slice:docker:abc"): the
 *   directory systemd would use, system.slice/docker-abc.scope, with a
 *   warning that no unit is created. Empty slice: system.slice; empty path:
 *   system.slice:sbrun:<id> (user.slice for a rootless caller, whose
 *   manager is its systemd --user: container_cgroup_plan puts the path
 *   below that manager's cgroup).
 * "." and ".." components, newlines and the root cgroup itself are refused.
 * *rel is "a/b" (no leading '/'); caller frees. */
int cgroup_path_resolve(const struct cgroup_root *root, const char *cgroups_path, const char *id,
                        bool systemd, char **rel, struct sb_error *err);

/* With --systemd-cgroup, a "slice:prefix:name" cgroupsPath's systemd
 * names: slice ("machine.slice"; system.slice when empty) and unit
 * ("libpod-ID.scope", or the name itself when it is a ".slice"). */
int cgroup_path_systemd_unit(const char *cgroups_path, const char *id, char **slice, char **unit,
                             struct sb_error *err);

#endif
