#include "spec/floor_trees.h"

#include "common/error.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define SYSTEM_RULE "standard: no root or bind of a host system directory or its ancestor"
#define SYSTEM_WRITE_RULE                                                                   \
        "standard: no root or bind of a host system directory or its ancestor, nothing in " \
        "it writable"

/* The host itself. Reaching one of these is the host: a root or bind that
 * is one, or holds one, is refused. Where a tree's files are the host's
 * configuration, programs or kernel interfaces, nothing in it may be made
 * writable either (a read-only /etc/resolv.conf is an engine's ordinary
 * bind; a writable /etc/shadow or /proc/sys/kernel/core_pattern is root on
 * the host). The host's programs may be bound in read-only (a toolchain's
 * /usr), never be the root. Inside /run, /var and /dev the engines keep
 * each container's files (containerd's shm and rootfs, podman's hosts):
 * only the trees themselves are refused there. */
#define PROGRAMS \
        (FLOOR_TREE_IS | FLOOR_TREE_CONTAINS | FLOOR_TREE_WRITABLE_INSIDE | FLOOR_TREE_READ_BIND_OK)

static const struct {
        const char *path;
        unsigned flags;
} system_trees[] = {
        { "/", FLOOR_TREE_IS | FLOOR_TREE_CONTAINS },
        { "/proc", FLOOR_TREE_IS | FLOOR_TREE_CONTAINS | FLOOR_TREE_WRITABLE_INSIDE },
        { "/sys", FLOOR_TREE_IS | FLOOR_TREE_CONTAINS | FLOOR_TREE_WRITABLE_INSIDE },
        { "/dev", FLOOR_TREE_IS | FLOOR_TREE_CONTAINS },
        { "/run", FLOOR_TREE_IS | FLOOR_TREE_CONTAINS },
        { "/var/run", FLOOR_TREE_IS | FLOOR_TREE_CONTAINS },
        { "/var", FLOOR_TREE_IS | FLOOR_TREE_CONTAINS },
        { "/boot", FLOOR_TREE_IS | FLOOR_TREE_CONTAINS | FLOOR_TREE_WRITABLE_INSIDE },
        { "/etc", FLOOR_TREE_IS | FLOOR_TREE_CONTAINS | FLOOR_TREE_WRITABLE_INSIDE },
        { "/usr", PROGRAMS },
        { "/bin", PROGRAMS },
        { "/sbin", PROGRAMS },
        { "/lib", PROGRAMS },
        { "/lib32", PROGRAMS },
        { "/lib64", PROGRAMS },
        { "/libx32", PROGRAMS },
        { "/opt", PROGRAMS },
        /* What root on the host reads and runs: its home (.ssh, .profile),
         * the cron and at spools, the package and unit databases. */
        { "/root", FLOOR_TREE_IS | FLOOR_TREE_CONTAINS | FLOOR_TREE_WRITABLE_INSIDE },
        { "/var/spool", FLOOR_TREE_IS | FLOOR_TREE_CONTAINS | FLOOR_TREE_WRITABLE_INSIDE },
        { "/var/lib/dpkg", FLOOR_TREE_IS | FLOOR_TREE_CONTAINS | FLOOR_TREE_WRITABLE_INSIDE },
        { "/var/lib/rpm", FLOOR_TREE_IS | FLOOR_TREE_CONTAINS | FLOOR_TREE_WRITABLE_INSIDE },
        { "/var/lib/systemd", FLOOR_TREE_IS | FLOOR_TREE_CONTAINS | FLOOR_TREE_WRITABLE_INSIDE },
};

/* Sockets whose server acts for whoever connects as root: a container
 * whose uid 0 is the host's would start units or run commands on the host
 * (the system bus, systemd's private socket). */
static const char *const root_socket_trees[] = { "/run/dbus", "/run/systemd/private", NULL };

/* Engine sockets give root on the host to whoever can talk to them. */
static const char *const engine_socket_dirs[] = { "/run/containerd", "/run/docker",
                                                  "/run/podman",     "/run/crio",
                                                  "/var/lib/docker", NULL };

static int add(struct floor_tree **trees, size_t *n, const char *path, const char *what,
               const char *rule, unsigned flags, struct sb_error *err)
{
        struct floor_tree *grown = realloc(*trees, (*n + 1) * sizeof(**trees));

        if (grown == NULL)
                return sb_fail(err, ENOMEM, "floor trees");
        *trees = grown;
        memset(&grown[*n], 0, sizeof(grown[*n]));
        grown[*n].path = strdup(path);
        if (grown[*n].path == NULL)
                return sb_fail(err, ENOMEM, "floor trees");
        grown[*n].what = what;
        grown[*n].rule = rule;
        grown[*n].flags = flags;
        (*n)++;
        return 0;
}

int floor_trees_plan(const struct floor_tree_paths *p, struct floor_tree **trees, size_t *n,
                     struct sb_error *err)
{
        /* The runtime's own: what a container reaching them would rewrite
         * is every later container's confinement (the seccomp cache, other
         * containers' state, the policy, the programs that build them). */
        const struct {
                const char *path, *what, *rule;
                unsigned flags;
        } own[] = {
                { p->state_root, "sbrun's state root",
                  "standard: no root or bind of sbrun's state root, anything in it or its ancestor",
                  FLOOR_TREE_IS | FLOOR_TREE_CONTAINS | FLOOR_TREE_INSIDE },
                { p->audit_dir, "sbrun's audit trail directory",
                  "standard: no bind of sbrun's audit trail directory or anything in it, no "
                  "writable bind of its ancestor",
                  FLOOR_TREE_IS | FLOOR_TREE_INSIDE | FLOOR_TREE_WRITABLE_CONTAINS },
                { p->policy_file, "the operator's policy file",
                  "standard: no bind of the operator's policy, no writable bind of its directory",
                  FLOOR_TREE_IS | FLOOR_TREE_WRITABLE_CONTAINS },
                { p->bwrap, "the bwrap sbrun runs",
                  "standard: no bind of sbrun's or bwrap's binary, no writable bind of their "
                  "directory",
                  FLOOR_TREE_IS | FLOOR_TREE_WRITABLE_CONTAINS },
                { p->self, "sbrun's own binary",
                  "standard: no bind of sbrun's or bwrap's binary, no writable bind of their "
                  "directory",
                  FLOOR_TREE_IS | FLOOR_TREE_WRITABLE_CONTAINS },
        };

        *trees = NULL;
        *n = 0;
        for (size_t i = 0; i < sizeof(system_trees) / sizeof(system_trees[0]); i++) {
                unsigned f = system_trees[i].flags;
                if (add(trees, n, system_trees[i].path, "a host system directory",
                        (f & FLOOR_TREE_WRITABLE_INSIDE) ? SYSTEM_WRITE_RULE : SYSTEM_RULE, f,
                        err) < 0)
                        return -1;
        }
        /* A relative --root or --policy is judged too: the runtime opens it
         * where sbrun runs and reads back its canonical path. */
        for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++) {
                if (own[i].path != NULL && own[i].path[0] != '\0' &&
                    add(trees, n, own[i].path, own[i].what, own[i].rule, own[i].flags, err) < 0)
                        return -1;
        }
        for (const char *const *d = root_socket_trees; *d != NULL; d++) {
                if (add(trees, n, *d, "the host's D-Bus or systemd socket",
                        "standard: no socket whose server acts for the host's root",
                        FLOOR_TREE_IS | FLOOR_TREE_CONTAINS | FLOOR_TREE_INSIDE, err) < 0)
                        return -1;
        }
        for (const char *const *d = engine_socket_dirs; *d != NULL; d++) {
                if (add(trees, n, *d, "a container engine's socket directory",
                        "standard: no container engine socket", FLOOR_TREE_IS | FLOOR_TREE_CONTAINS,
                        err) < 0)
                        return -1;
        }
        return 0;
}

void floor_identity_release(struct floor_identity *id)
{
        free(id->path);
        free(id->fs_path);
        memset(id, 0, sizeof(*id));
}

void floor_identity_list_release(struct floor_identity_list *list)
{
        for (size_t i = 0; list->items != NULL && i < list->n; i++)
                floor_identity_release(&list->items[i]);
        free(list->items);
        memset(list, 0, sizeof(*list));
}

void floor_trees_release(struct floor_tree *trees, size_t n)
{
        for (size_t i = 0; trees != NULL && i < n; i++) {
                free(trees[i].path);
                floor_identity_release(&trees[i].id);
        }
        free(trees);
}

/* `inner` is `outer` or below it (both absolute, clean). */
static bool path_within(const char *inner, const char *outer)
{
        size_t n = strlen(outer);

        if (inner == NULL || outer == NULL)
                return false;
        if (strcmp(outer, "/") == 0)
                return inner[0] == '/';
        return strncmp(inner, outer, n) == 0 && (inner[n] == '\0' || inner[n] == '/');
}

/* a is b, or below it: by canonical path, or, on one file system, by the
 * path inside it (a second mount of the same tree spells it otherwise). */
static bool within(const struct floor_identity *a, const char *a_path, const struct floor_tree *b)
{
        if (path_within(a_path, b->id.path ? b->id.path : b->path))
                return true;
        return a->known && b->id.known && a->dev == b->id.dev && a->fs_path != NULL &&
               b->id.fs_path != NULL && path_within(a->fs_path, b->id.fs_path);
}

static bool contains(const struct floor_identity *a, const char *a_path, const struct floor_tree *b)
{
        if (path_within(b->id.path ? b->id.path : b->path, a_path))
                return true;
        return a->known && b->id.known && a->dev == b->id.dev && a->fs_path != NULL &&
               b->id.fs_path != NULL && path_within(b->id.fs_path, a->fs_path);
}

const struct floor_tree *floor_tree_conflict(const struct floor_identity *c, bool writable,
                                             bool is_root, const struct floor_tree *trees, size_t n,
                                             const char **relation)
{
        for (size_t i = 0; i < n; i++) {
                const struct floor_tree *t = &trees[i];
                if (!is_root && !writable && (t->flags & FLOOR_TREE_READ_BIND_OK))
                        continue;
                bool same =
                        (c->known && t->id.known && c->dev == t->id.dev && c->ino == t->id.ino) ||
                        (c->path != NULL &&
                         strcmp(c->path, t->id.path ? t->id.path : t->path) == 0);
                unsigned inside = FLOOR_TREE_INSIDE | (writable ? FLOOR_TREE_WRITABLE_INSIDE : 0);
                unsigned holds =
                        FLOOR_TREE_CONTAINS | (writable ? FLOOR_TREE_WRITABLE_CONTAINS : 0);

                if (same && (t->flags & (FLOOR_TREE_IS | inside | holds))) {
                        *relation = "is";
                        return t;
                }
                if ((t->flags & holds) && contains(c, c->path, t)) {
                        *relation = "contains";
                        return t;
                }
                if ((t->flags & inside) && within(c, c->path, t)) {
                        *relation = "is inside";
                        return t;
                }
        }
        return NULL;
}
