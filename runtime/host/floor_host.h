/* The host facts the floor decides on (struct floor_host, spec/floor.h):
 * the host's RAM, which linux.namespaces paths name the host's own
 * namespaces and the project quota of each volume's source. Read here, so
 * that spec/ never reads the host itself and a unit test can give it any
 * host. */
#ifndef SB_FLOOR_HOST_H
#define SB_FLOOR_HOST_H

#include "spec/floor.h"

struct bind_sources;
struct oci_config;
struct sb_error;

struct floor_host_facts {
        struct floor_host host;
        bool *ns_is_host;                      /* owned; host.ns_is_host points here */
        struct volume_quota *volumes;          /* owned; host.volumes points here */
        struct floor_identity root;            /* owned; host.root points here when read */
        struct floor_identity *ids;            /* owned, per mount */
        struct floor_identity **bind_ids;      /* owned; host.binds points here */
        struct floor_tree *trees;              /* owned; host.trees points here */
        struct floor_identity_list root_subs;  /* owned */
        struct floor_identity_list *subs;      /* owned, per mount */
        struct floor_identity_list **sub_ptrs; /* owned; host.bind_submounts points here */
        size_t n_trees;
        struct floor_io_backing io_root;   /* owned; host.io_root points here when read */
        struct floor_io_backing *io_binds; /* owned, per mount; host.io_binds */
};

/* What the root and each bind source are stored on (runtime/host/
 * io_backing.h) is read for the io ceiling. What cannot be read is not known: no RAM (no clamp to it), a namespace
 * path that cannot be stat'ed is not the host's (runtime/sandbox/
 * namespaces.c fails on it when it joins), a volume's quota that cannot be
 * read says why (and bounds nothing). binds: the sources opened for
 * config's mounts, root_fd the root as held open, trees the paths the
 * protected trees depend on; NULL and -1 where nothing is judged (update).
 * Fails on ENOMEM, and where the root or a bind source cannot be told
 * (path_identity_of_fd), naming root.path or the mount. */
int floor_host_gather(const struct oci_config *config, const struct bind_sources *binds,
                      int root_fd, const struct floor_tree_paths *trees, struct floor_host_facts *f,
                      struct sb_error *err);
void floor_host_release(struct floor_host_facts *f);

/* The paths the protected trees depend on, for this command: its state
 * root and policy file, the audit directory, the bwrap it runs and itself. */
struct global_options;
void floor_host_tree_paths(const struct global_options *global, const char *audit_dir,
                           struct floor_tree_paths *paths);

#endif
