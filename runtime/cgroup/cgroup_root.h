/* Where sbrun may make cgroups: the cgroup v2 mount and, beneath it, the
 * delegation root (cgroup_root_find below; docs/design.md#where-cgroups-are-made).
 * Finding it only reads; nothing under /sys/fs/cgroup is written here. */
#ifndef SB_CGROUP_ROOT_H
#define SB_CGROUP_ROOT_H

struct sb_error;

enum cgroup_layout {
        CGROUP_LAYOUT_LEGACY,  /* only cgroup v1 hierarchies are mounted */
        CGROUP_LAYOUT_HYBRID,  /* a cgroup2 mount beside v1 hierarchies */
        CGROUP_LAYOUT_UNIFIED, /* cgroup2 only */
};

struct cgroup_root {
        enum cgroup_layout layout;
        char *mount; /* the cgroup2 mount point ("/sys/fs/cgroup"), NULL if none */
        char *own;   /* sbrun's own cgroup relative to the mount ("" = the root) */
        char *rel;   /* the delegation root relative to the mount ("" = the root) */
        char *path;  /* the delegation root as an absolute path */
};

#define CGROUP_ROOT_INIT                       \
        {                                      \
                .layout = CGROUP_LAYOUT_LEGACY \
        }

/* The controllers every container's cgroup needs: without them its limits
 * cannot be enforced and create fails closed (docs/design.md#fail-closed).
 * In the order messages name them. */
extern const char *const cgroup_required_controllers[];

/* Find the delegation root: from sbrun's own cgroup upwards, the first
 * cgroup that has the cpu, memory and pids controllers and is delegated
 * (trusted.delegate / user.delegate) or holds no processes. Fails with a
 * message naming the missing controllers and the host layout:
 * "cgroup v2: controllers cpu, memory, pids are not available in
 * /sys/fs/cgroup/unified (hybrid v1/v2 host)". */
int cgroup_root_find(struct cgroup_root *root, struct sb_error *err);

/* The host fact the floor's enforcement decision takes (floor_cgroups_decide,
 * spec/floor_runtime.h): *unusable NULL and *root found where cgroup v2 can
 * enforce limits, else *unusable is cgroup_root_find's reason (caller
 * frees) and *root is released. Only running out of memory fails. */
int cgroup_root_probe(struct cgroup_root *root, char **unusable, struct sb_error *err);

/* A rootless caller (runtime/host/rootless.h) makes its containers' cgroups
 * with cgroupfs only where the delegation root is its to write: systemd's
 * user@UID.service delegates one to a user's own manager, so a sbrun
 * started within it (systemd-run --user, a user service) finds it; a login
 * shell's session scope is root's. *unusable is then the reason (caller
 * frees) and *root is released; 0 and *unusable NULL when root may use it
 * or the caller is not rootless. Only running out of memory fails. */
int cgroup_root_rootless_writable(struct cgroup_root *root, char **unusable, struct sb_error *err);

/* Whether the cgroup at rel below the mount (NULL: the delegation root)
 * can have controller: its nearest existing ancestor offers it. *why NULL
 * where it does, else why not (caller frees), as the io ceiling's
 * decision takes it (spec/floor_io.h). Only running out of memory fails. */
int cgroup_root_missing(const struct cgroup_root *root, const char *rel, const char *controller,
                        char **why, struct sb_error *err);

void cgroup_root_release(struct cgroup_root *root);

/* "hybrid v1/v2 host", … */
const char *cgroup_layout_name(enum cgroup_layout layout);

/* True when the space-separated list (a cgroup.controllers line) holds name. */
int cgroup_list_has(const char *list, const char *name);

#endif
