/* The host trees no container root and no bind may reach: the host's /
 * and system directories, sbrun's state root and everything in it, the
 * audit trail's directory, the operator's policy file, bwrap and sbrun
 * themselves, the engines' socket directories. Each is judged by what it
 * is, not by how a path spells it: the runtime opens it and fills its
 * identity (runtime/host/floor_host.c), and a candidate (the root or a
 * bind source, as held open) is compared by device and inode, by its path
 * inside its file system (so that a second mount of the same tree is the
 * same tree) and by its canonical path. spec/ names the trees and the
 * relations refused; it never reads the host. */
#ifndef SB_SPEC_FLOOR_TREES_H
#define SB_SPEC_FLOOR_TREES_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct sb_error;

/* What one held object is. */
struct floor_identity {
        bool known;    /* dev and ino were read */
        dev_t dev;     /* st_dev */
        ino_t ino;     /* st_ino */
        char *path;    /* canonical path in this mount namespace */
        char *fs_path; /* path from the root of its file system (the mount's root in
                        * mountinfo joined with the rest); NULL: unknown */
};

/* The mounts below a held directory, each as the identity of its root:
 * what a recursive bind of it (bwrap's are) brings along. */
struct floor_identity_list {
        struct floor_identity *items;
        size_t n;
};

/* The relations a tree refuses. */
enum {
        FLOOR_TREE_IS = 1 << 0,                /* the candidate is the tree */
        FLOOR_TREE_CONTAINS = 1 << 1,          /* the candidate is an ancestor of it */
        FLOOR_TREE_INSIDE = 1 << 2,            /* the candidate is within it */
        FLOOR_TREE_WRITABLE_INSIDE = 1 << 3,   /* within it, and writable */
        FLOOR_TREE_WRITABLE_CONTAINS = 1 << 4, /* an ancestor of it, and writable */
        FLOOR_TREE_READ_BIND_OK = 1 << 5,      /* but a read-only bind of it is allowed
                                                * (never as the root) */
};

struct floor_tree {
        char *path;       /* as named (absolute); the identity's path once opened */
        const char *what; /* "a host system directory", "sbrun's state root", ... */
        const char *rule; /* the rule a refusal names */
        unsigned flags;
        struct floor_identity id; /* known = false: not there; judged by path alone */
};

/* The paths the trees depend on; NULL for one that does not apply. */
struct floor_tree_paths {
        const char *state_root;
        const char *audit_dir;
        const char *policy_file;
        const char *bwrap;
        const char *self; /* sbrun's own binary */
};

/* The trees for these paths, without identities (the runtime fills them). */
int floor_trees_plan(const struct floor_tree_paths *paths, struct floor_tree **trees, size_t *n,
                     struct sb_error *err);
void floor_trees_release(struct floor_tree *trees, size_t n);
void floor_identity_release(struct floor_identity *id);
void floor_identity_list_release(struct floor_identity_list *list);

/* The first tree that the candidate (the root, or a bind source), writable
 * or not, reaches in a way it refuses, with *relation set to "is",
 * "contains" or "is inside"; NULL: none. */
const struct floor_tree *floor_tree_conflict(const struct floor_identity *candidate, bool writable,
                                             bool is_root, const struct floor_tree *trees, size_t n,
                                             const char **relation);

#endif
