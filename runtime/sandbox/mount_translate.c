#include "runtime/sandbox/mount_translate.h"

#include "common/cleanup.h"
#include "common/error.h"
#include "common/log.h"
#include "common/size_parse.h"
#include "common/strv.h"
#include "oci/config.h"
#include "runtime/sandbox/bind_sources.h"
#include "runtime/sandbox/id_map.h"
#include "runtime/sandbox/idmap_mount.h"
#include "runtime/sandbox/rootfs_path.h"
#include "spec/floor.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static const struct {
        const char *name;
        unsigned long set;
        unsigned long clear;
} flag_options[] = {
        { "ro", MS_RDONLY, 0 },
        { "rw", 0, MS_RDONLY },
        { "nosuid", MS_NOSUID, 0 },
        { "suid", 0, MS_NOSUID },
        { "nodev", MS_NODEV, 0 },
        { "dev", 0, MS_NODEV },
        { "noexec", MS_NOEXEC, 0 },
        { "exec", 0, MS_NOEXEC },
        { "noatime", MS_NOATIME, 0 },
        { "atime", 0, MS_NOATIME },
        { "relatime", MS_RELATIME, 0 },
        { "norelatime", 0, MS_RELATIME },
        { "strictatime", MS_STRICTATIME, 0 },
        { "nostrictatime", 0, MS_STRICTATIME },
        { "nodiratime", MS_NODIRATIME, 0 },
        { "diratime", 0, MS_NODIRATIME },
        { "sync", MS_SYNCHRONOUS, 0 },
        { "async", 0, MS_SYNCHRONOUS },
        { "dirsync", MS_DIRSYNC, 0 },
        { "mand", MS_MANDLOCK, 0 },
        { "nomand", 0, MS_MANDLOCK },
        { "nosymfollow", MS_NOSYMFOLLOW, 0 },
        { "symfollow", 0, MS_NOSYMFOLLOW },
        { "defaults", 0, 0 },
};

/* The recursive options (runc's and the mount(8) names): the attribute set
 * on the mount and every mount below it, by sbrun-init's mount_setattr
 * with AT_RECURSIVE once bwrap has mounted everything. Only those that
 * take something away: one that would give back, on every mount below a
 * bind of a host tree, what the host took away (rrw over a host's
 * read-only submount) is refused by name. An atime mode replaces the
 * other (MOUNT_ATTR__ATIME in the clear mask). */
static const struct {
        const char *name;
        uint64_t set, clear;
        bool loosens;
} recursive_options[] = {
        { "rro", MOUNT_ATTR_RDONLY, 0, false },
        { "rnosuid", MOUNT_ATTR_NOSUID, 0, false },
        { "rnodev", MOUNT_ATTR_NODEV, 0, false },
        { "rnoexec", MOUNT_ATTR_NOEXEC, 0, false },
        { "rnosymfollow", MOUNT_ATTR_NOSYMFOLLOW, 0, false },
        { "rnodiratime", MOUNT_ATTR_NODIRATIME, 0, false },
        { "rnoatime", MOUNT_ATTR_NOATIME, MOUNT_ATTR__ATIME, false },
        { "rrelatime", MOUNT_ATTR_RELATIME, MOUNT_ATTR__ATIME, false },
        { "rstrictatime", MOUNT_ATTR_STRICTATIME, MOUNT_ATTR__ATIME, false },
        { "rrw", 0, 0, true },
        { "rsuid", 0, 0, true },
        { "rdev", 0, 0, true },
        { "rexec", 0, 0, true },
        { "rsymfollow", 0, 0, true },
        { "rdiratime", 0, 0, true },
        { "ratime", 0, 0, true },
        { "rnorelatime", 0, 0, true },
        { "rnostrictatime", 0, 0, true },
};

/* One of recursive_options into o; 0: not one, -1: refused. */
static int recursive_option(const char *opt, size_t index, struct mount_options *o,
                            struct sb_error *err)
{
        for (size_t r = 0; r < sizeof(recursive_options) / sizeof(recursive_options[0]); r++) {
                if (strcmp(opt, recursive_options[r].name) != 0)
                        continue;
                if (recursive_options[r].loosens)
                        return sb_fail(err, 0,
                                       "mounts[%zu].options: \"%s\" is not supported by sbrun: "
                                       "it would clear on every mount below what the host set",
                                       index, opt);
                if (recursive_options[r].clear != 0)
                        o->attr_set &= ~(uint64_t)MOUNT_ATTR__ATIME;
                o->attr_set |= recursive_options[r].set;
                o->attr_clr |= recursive_options[r].clear;
                return 1;
        }
        return 0;
}

/* bwrap leaves every mount of the container a slave of the host's (it
 * marks / MS_SLAVE|MS_REC before building the root): what runc calls
 * rslave. Other propagation is set by sbrun-init once the mounts exist,
 * in config order, as runc applies its propagation flags. */
static const struct {
        const char *name;
        unsigned long flags;
} propagation_options[] = {
        { "private", MS_PRIVATE },       { "rprivate", MS_PRIVATE | MS_REC },
        { "slave", MS_SLAVE },           { "rslave", MS_SLAVE | MS_REC },
        { "shared", MS_SHARED },         { "rshared", MS_SHARED | MS_REC },
        { "unbindable", MS_UNBINDABLE }, { "runbindable", MS_UNBINDABLE | MS_REC },
};

unsigned long mount_propagation_flags(const char *name)
{
        for (size_t i = 0; name && i < sizeof(propagation_options) / sizeof(propagation_options[0]);
             i++)
                if (strcmp(name, propagation_options[i].name) == 0)
                        return propagation_options[i].flags;
        return 0;
}

/* Once mounted, the mount's propagation, as its options asked. */
static int add_propagation(struct init_mount_list *init, const char *dest,
                           const struct mount_options *o, size_t i, struct sb_error *err)
{
        if (o->propagation == 0)
                return 0;
        if (init_mount_list_add(init, INIT_MOUNT_PROPAGATE, NULL, dest, NULL, o->propagation, NULL,
                                false) < 0)
                return sb_fail(err, ENOMEM, "mounts[%zu]", i);
        return 0;
}

/* Once mounted, the recursive attributes its options asked (rro, ...):
 * the set mask in the low half of flags, the clear mask in the high. */
static int add_setattr(struct init_mount_list *init, const char *dest,
                       const struct mount_options *o, size_t i, struct sb_error *err)
{
        if (o->attr_set == 0 && o->attr_clr == 0)
                return 0;
        if (init_mount_list_add(init, INIT_MOUNT_SETATTR, NULL, dest, NULL,
                                o->attr_set | (o->attr_clr << 32), NULL, false) < 0)
                return sb_fail(err, ENOMEM, "mounts[%zu]", i);
        return 0;
}

/* size= and nr_inodes= in the syntax the floor read them with (SIZE_TMPFS). */
static int tmpfs_number(const char *opt, size_t name_len, size_t index, unsigned long long *value,
                        bool *has, struct sb_error *err)
{
        int64_t n = 0;

        if (size_parse(opt + name_len, SIZE_TMPFS, &n) < 0)
                return sb_fail(err, 0, "mounts[%zu].options: invalid \"%s\"", index, opt);
        *value = (unsigned long long)n;
        *has = true;
        return 0;
}

int mount_options_parse(const struct oci_mount *m, size_t index, struct mount_options *o,
                        struct sb_error *err)
{
        for (size_t i = 0; i < m->n_options; i++) {
                const char *opt = m->options[i];
                bool known = false;

                for (size_t f = 0; f < sizeof(flag_options) / sizeof(flag_options[0]); f++) {
                        if (strcmp(opt, flag_options[f].name) == 0) {
                                o->set = (o->set | flag_options[f].set) & ~flag_options[f].clear;
                                known = true;
                        }
                }
                if (!known && mount_propagation_flags(opt) != 0) {
                        o->propagation = mount_propagation_flags(opt);
                        known = true;
                }
                if (known)
                        continue;
                int r = recursive_option(opt, index, o, err);
                if (r < 0)
                        return -1;
                if (r > 0)
                        continue;
                if (strcmp(opt, "bind") == 0 || strcmp(opt, "rbind") == 0) {
                        o->recursive = strcmp(opt, "rbind") == 0;
                } else if (strncmp(opt, "mode=", 5) == 0) {
                        char *end = NULL;
                        o->mode = (unsigned int)strtoul(opt + 5, &end, 8);
                        if (end == opt + 5 || *end != '\0' || o->mode > 07777)
                                return sb_fail(err, 0, "mounts[%zu].options: invalid \"%s\"", index,
                                               opt);
                        o->has_mode = true;
                        strv_add(&o->data, opt);
                } else if (strncmp(opt, "size=", 5) == 0) {
                        if (tmpfs_number(opt, 5, index, &o->size, &o->has_size, err) < 0)
                                return -1;
                        strv_add(&o->data, opt);
                } else if (strncmp(opt, "nr_inodes=", 10) == 0) {
                        if (tmpfs_number(opt, 10, index, &o->inodes, &o->has_inodes, err) < 0)
                                return -1;
                        strv_add(&o->data, opt);
                } else if (strcmp(opt, "tmpcopyup") == 0) {
                        o->copyup = true;
                } else if (strcmp(opt, "idmap") == 0) {
                        o->idmap = true;
                } else if (strcmp(opt, "ridmap") == 0) {
                        o->idmap = o->ridmap = true;
                } else if (strcmp(opt, "recursive") == 0) {
                        return sb_fail(err, 0,
                                       "mounts[%zu].options: \"%s\" is not supported by sbrun",
                                       index, opt);
                } else {
                        strv_add(&o->data, opt);
                }
        }
        return o->data.failed ? sb_fail(err, ENOMEM, "mounts[%zu].options", index) : 0;
}

static char *join_data(const struct strv *data)
{
        size_t len = 1;
        for (size_t i = 0; i < data->n; i++)
                len += strlen(data->items[i]) + 1;
        char *out = calloc(1, len);
        for (size_t i = 0; out && i < data->n; i++) {
                if (i > 0)
                        strcat(out, ",");
                strcat(out, data->items[i]);
        }
        return out;
}

static bool path_has_prefix(const char *path, const char *prefix)
{
        size_t len = strlen(prefix);
        if (strcmp(prefix, "/") == 0)
                return true;
        return strncmp(path, prefix, len) == 0 && (path[len] == '\0' || path[len] == '/');
}

const struct mounted *mount_table_find(const struct mount_table *table, const char *path)
{
        const struct mounted *best = NULL;

        for (size_t i = 0; i < table->n; i++) {
                const struct mounted *m = &table->items[i];
                if (path_has_prefix(path, m->destination) &&
                    (best == NULL || strlen(m->destination) >= strlen(best->destination)))
                        best = m;
        }
        return best;
}

static int table_add(struct mount_table *table, const char *dest, enum mounted_kind kind,
                     const char *source, int source_fd)
{
        if (table->n == table->cap) {
                size_t cap = table->cap ? table->cap * 2 : 16;
                struct mounted *grown = realloc(table->items, cap * sizeof(*grown));
                if (grown == NULL)
                        return -1;
                table->items = grown;
                table->cap = cap;
        }
        struct mounted *m = &table->items[table->n++];
        m->destination = strdup(dest);
        m->kind = kind;
        m->source = source ? strdup(source) : NULL;
        m->source_fd = source_fd;
        return 0;
}

int init_mount_list_add(struct init_mount_list *list, enum init_mount_kind kind, const char *source,
                        const char *destination, const char *fstype, unsigned long flags,
                        const char *data, bool skip_missing)
{
        if (list->n == list->cap) {
                size_t cap = list->cap ? list->cap * 2 : 16;
                struct init_mount *grown = realloc(list->items, cap * sizeof(*grown));
                if (grown == NULL)
                        return -1;
                list->items = grown;
                list->cap = cap;
        }
        struct init_mount *m = &list->items[list->n++];
        m->kind = kind;
        m->source = source ? strdup(source) : NULL;
        m->destination = strdup(destination);
        m->fstype = fstype ? strdup(fstype) : NULL;
        m->flags = flags;
        m->data = data ? strdup(data) : NULL;
        m->skip_missing = skip_missing;
        return 0;
}

/* Resolve a destination where the container will see it: in the rootfs,
 * inside an earlier bind's source, or as a plain path in a fresh
 * filesystem that only bwrap writes to. */
static int resolve_destination(const struct mount_table *table, int rootfs_fd, const char *dest,
                               enum rootfs_create create, char **resolved, struct sb_error *err)
{
        const struct mounted *under = mount_table_find(table, dest);

        if (table->dry_run)
                create = ROOTFS_WOULD_CREATE;
        if (under == NULL)
                return rootfs_resolve(rootfs_fd, dest, create, resolved, NULL, err);
        if (under->kind != MOUNTED_BIND) {
                *resolved = strdup(dest);
                return *resolved ? 0 : sb_fail(err, ENOMEM, "%s", dest);
        }
        /* From the directory held and bound: the source's path was judged
         * once, and by now may be a symlink to anywhere on the host, where
         * a destination's missing directories would be made. */
        struct stat st;
        _cleanup_close_ int base =
                under->source_fd >= 0 ?
                        fcntl(under->source_fd, F_DUPFD_CLOEXEC, 3) :
                        open(under->source, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        _cleanup_free_ char *inner = NULL;
        if (base < 0)
                return sb_fail(err, errno, "open %s", under->source);
        if (fstat(base, &st) < 0 || !S_ISDIR(st.st_mode))
                return sb_fail(err, ENOTDIR, "inside the bind mount of %s", under->source);
        const char *rest = dest + strlen(under->destination);
        if (rootfs_resolve(base, *rest ? rest : "/", create, &inner, NULL, err) < 0)
                return -1;
        if (asprintf(resolved, "%s%s",
                     strcmp(under->destination, "/") == 0 ? "" : under->destination,
                     strcmp(inner, "/") == 0 ? "" : inner) < 0)
                return sb_fail(err, ENOMEM, "%s", dest);
        return 0;
}

static bool is_type(const struct oci_mount *m, const char *type)
{
        return m->type != NULL && strcmp(m->type, type) == 0;
}

/* held: the source opened by bind_sources (what the floor checked), bound
 * through its fd; NULL for a bind sbrun makes up itself (the host's /sys
 * in a user namespace), bound by path. */
/* MS_* flags of a bind as MOUNT_ATTR_*: an idmapped bind is sbrun's own
 * tree, set with mount_setattr on every mount in it, as bwrap's --ro-bind
 * makes every mount below read-only. */
static void bind_attributes(const struct mount_options *o, uint64_t *set, uint64_t *clr)
{
        static const struct {
                unsigned long ms;
                uint64_t attr;
                bool atime;
        } map[] = {
                { MS_RDONLY, MOUNT_ATTR_RDONLY, false },
                { MS_NOEXEC, MOUNT_ATTR_NOEXEC, false },
                { MS_NOSYMFOLLOW, MOUNT_ATTR_NOSYMFOLLOW, false },
                { MS_NODIRATIME, MOUNT_ATTR_NODIRATIME, false },
                { MS_NOATIME, MOUNT_ATTR_NOATIME, true },
                { MS_RELATIME, MOUNT_ATTR_RELATIME, true },
                { MS_STRICTATIME, MOUNT_ATTR_STRICTATIME, true },
        };

        *set = 0;
        *clr = 0;
        for (size_t k = 0; k < sizeof(map) / sizeof(map[0]); k++) {
                if (!(o->set & map[k].ms))
                        continue;
                if (map[k].atime) {
                        *set &= ~(uint64_t)MOUNT_ATTR__ATIME;
                        *clr |= MOUNT_ATTR__ATIME;
                }
                *set |= map[k].attr;
        }
        /* The recursive options (rro, rnoatime...) come after, as they would
         * be set by sbrun-init after bwrap's bind. */
        if (o->attr_clr & MOUNT_ATTR__ATIME)
                *set &= ~(uint64_t)MOUNT_ATTR__ATIME;
        *set |= o->attr_set;
        *clr |= o->attr_clr;
}

/* bwrap binds a held source by the path its /proc/self/fd link reads
 * (realpath, then a check of the mount against the fd), walked in the
 * container's user namespace: a directory on the way that the container's
 * root cannot search (podman 5's 0700 run directory under --userns=auto)
 * fails the bind with EACCES. Such a bind is made as an idmapped one without
 * a mapping: a detached clone of the held source, made here as the host's
 * root and attached by sbrun-init. The walk here only chooses the way; both
 * bind what the fd holds; and a later mount under it is refused, as under
 * any mount of sbrun-init's. */
static bool searchable_by(const struct stat *st, long long uid, long long gid)
{
        if (uid >= 0 && st->st_uid == (uid_t)uid)
                return st->st_mode & S_IXUSR;
        if (gid >= 0 && st->st_gid == (gid_t)gid)
                return st->st_mode & S_IXGRP;
        return st->st_mode & S_IXOTH;
}

static bool own_userns_cannot_reach(const struct mount_table *table, const char *path)
{
        const struct oci_linux *l = table->linux_;
        bool own = false;

        for (size_t k = 0; l != NULL && k < l->n_namespaces; k++)
                own |= l->namespaces[k].type == OCI_NS_USER && l->namespaces[k].path == NULL;
        if (!own || path == NULL || path[0] != '/')
                return false;
        long long uid = id_map_to_host(l->uid_mappings, l->n_uid_mappings, 0);
        long long gid = id_map_to_host(l->gid_mappings, l->n_gid_mappings, 0);
        _cleanup_free_ char *dir = strdup(path);
        if (dir == NULL)
                return false;
        /* Every directory above the source, from the top. */
        for (char *slash = strchr(dir + 1, '/'); slash != NULL; slash = strchr(slash + 1, '/')) {
                struct stat st;
                *slash = '\0';
                bool ok = stat(dir, &st) == 0 && searchable_by(&st, uid, gid);
                *slash = '/';
                if (!ok)
                        return true;
        }
        return false;
}

/* An idmapped bind (idmap_mount.h): sbrun makes the tree now, on the host,
 * from the source the floor judged; sbrun-init attaches it once bwrap is
 * done, so it is a mount of the init's, and a later mount under it is
 * refused as under any of those. The floor has judged the mapping
 * (spec/floor_spec_fields.c); what is checked here is what only the host
 * can say. */
static int translate_idmap(const struct oci_mount *m, size_t i, int rootfs_fd,
                           const struct mount_options *o, bool idmap, struct bind_sources *held,
                           int first_fd, struct init_mount_list *init, struct mount_table *table,
                           struct sb_error *err)
{
        const struct oci_linux *l = table->linux_;
        _cleanup_free_ char *dest = NULL;
        char what[32], number[16];

        /* The kernel idmaps a mount for the root of the user namespace
         * that owns its file system: the host's root, or the root of an
         * engine's user namespace (rootless podman's) over what that
         * namespace mounted (idmap_mount_make says which it is not). A
         * user outside any such namespace owns none. */
        if (table->rootless && geteuid() != 0)
                return sb_fail(err, 0,
                               "mounts[%zu].options: an idmapped mount (\"%s\") is not supported "
                               "by sbrun run rootless by a user: the kernel idmaps a mount only "
                               "for the root of the user namespace that owns its file system",
                               i, o->ridmap ? "ridmap" : "idmap");
        if (held == NULL || i >= held->n || held->fds[i] < 0)
                return sb_fail(err, 0,
                               "mounts[%zu].source: an idmapped mount needs its source held", i);
        const struct stat *st = &held->stats[i];
        if (!S_ISDIR(st->st_mode) && !S_ISREG(st->st_mode))
                return sb_fail(err, 0,
                               "mounts[%zu].source: \"%s\": an idmapped mount of anything but a "
                               "directory or a regular file is not supported by sbrun",
                               i, m->source);
        const struct oci_idmap *uids = m->uid_mappings, *gids = m->gid_mappings;
        size_t n_uids = m->n_uid_mappings, n_gids = m->n_gid_mappings;
        if (!idmap) {
                uids = gids = NULL;
                n_uids = n_gids = 0;
        } else if (n_uids == 0 && n_gids == 0 && l != NULL) {
                /* As crun and runc 1.2 do: the container's own mapping. */
                uids = l->uid_mappings;
                gids = l->gid_mappings;
                n_uids = l->n_uid_mappings;
                n_gids = l->n_gid_mappings;
        }
        if (idmap && (n_uids == 0 || n_gids == 0))
                return sb_fail(err, 0,
                               "mounts[%zu]: an idmapped mount needs uidMappings and gidMappings, "
                               "its own or linux's",
                               i);
        if (resolve_destination(table, rootfs_fd, m->destination,
                                S_ISDIR(st->st_mode) ? ROOTFS_CREATE_DIR : ROOTFS_CREATE_FILE,
                                &dest, err) < 0)
                return sb_error_prefix(err, "mounts[%zu].destination: \"%s\"", i, m->destination);
        if (!table->dry_run) {
                struct idmap_mount_request req = {
                        .source_fd = held->fds[i],
                        .uids = uids,
                        .gids = gids,
                        .n_uids = n_uids,
                        .n_gids = n_gids,
                        .recursive = idmap ? o->ridmap : true,
                        .what = what,
                };
                snprintf(what, sizeof(what), "mounts[%zu]", i);
                bind_attributes(o, &req.attr_set, &req.attr_clr);
                int tree = idmap_mount_make(&req, err);
                if (tree < 0)
                        return -1;
                /* The tree takes the source's place: it is what init gets,
                 * and it is closed with the others on any failure. */
                close(held->fds[i]);
                held->fds[i] = tree;
                snprintf(number, sizeof(number), "%d", bind_sources_pass(held, i, first_fd));
                if (init_mount_list_add(init, INIT_MOUNT_MOVE, number, dest, NULL, 0, NULL, false) <
                    0)
                        return sb_fail(err, ENOMEM, "mounts[%zu]", i);
        }
        if (add_propagation(init, dest, o, i, err) < 0)
                return -1;
        return table_add(table, dest, MOUNTED_INIT, held->paths[i], -1) < 0 ?
                       sb_fail(err, ENOMEM, "mounts") :
                       0;
}

static int translate_bind(const struct oci_mount *m, size_t i, const char *bundle, int rootfs_fd,
                          const struct mount_options *o, struct bind_sources *held, int first_fd,
                          struct strv *bwrap, struct init_mount_list *init,
                          struct mount_table *table, struct sb_error *err)
{
        _cleanup_free_ char *source = NULL;
        _cleanup_free_ char *dest = NULL;
        int fd_number = -1, held_fd = -1;
        struct stat st;

        if (m->source == NULL) /* the sysfs/cgroup binds in a user namespace have one */
                return sb_fail(err, 0, "mounts[%zu].source: required for a bind mount", i);
        if (o->idmap || m->n_uid_mappings > 0 || m->n_gid_mappings > 0)
                return translate_idmap(m, i, rootfs_fd, o, true, held, first_fd, init, table, err);
        /* Root (of the host, or of rootless podman's user namespace, which
         * owns sbrun's mount namespace there) can clone the source; a user
         * cannot, but maps only its own id, which reaches its own files. */
        if (held != NULL && i < held->n && held->fds[i] >= 0 && geteuid() == 0 &&
            (S_ISDIR(held->stats[i].st_mode) || S_ISREG(held->stats[i].st_mode)) &&
            own_userns_cannot_reach(table, held->paths[i]))
                return translate_idmap(m, i, rootfs_fd, o, false, held, first_fd, init, table, err);
        if (held != NULL && i < held->n && held->fds[i] >= 0) {
                source = strdup(held->paths[i]);
                st = held->stats[i];
                held_fd = held->fds[i];
                fd_number = bind_sources_pass(held, i, first_fd);
        } else if (m->source[0] == '/') {
                source = strdup(m->source);
        } else if (asprintf(&source, "%s/%s", bundle, m->source) < 0) {
                source = NULL;
        }
        if (source == NULL)
                return sb_fail(err, ENOMEM, "mounts[%zu]", i);
        if (fd_number < 0 && stat(source, &st) < 0)
                return sb_fail(err, errno, "mounts[%zu].source: \"%s\"", i, m->source);
        if (resolve_destination(table, rootfs_fd, m->destination,
                                S_ISDIR(st.st_mode) ? ROOTFS_CREATE_DIR : ROOTFS_CREATE_FILE, &dest,
                                err) < 0)
                return sb_error_prefix(err, "mounts[%zu].destination: \"%s\"", i, m->destination);
        /* bwrap binds are always recursive and nosuid,nodev; device nodes
         * need --dev-bind to stay usable (docs/design.md, bwrap behaviours:
         * "bwrap binds are recursive, nosuid and nodev"). */
        bool device = S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode);
        bool ro = o->set & MS_RDONLY;
        if (fd_number < 0) {
                strv_add(bwrap, ro ? "--ro-bind" : device ? "--dev-bind" : "--bind");
                strv_add(bwrap, source);
        } else if (device && !ro) {
                /* No --dev-bind-fd: the magic link names the held node itself. */
                strv_add(bwrap, "--dev-bind");
                strv_addf(bwrap, "/proc/self/fd/%d", fd_number);
        } else {
                strv_add(bwrap, ro ? "--ro-bind-fd" : "--bind-fd");
                strv_addf(bwrap, "%d", fd_number);
        }
        strv_add(bwrap, dest);
        if (!o->recursive)
                sb_debug("mounts[%zu]: bwrap binds recursively; \"bind\" treated as \"rbind\"", i);
        unsigned long extra = o->set & (MS_NOEXEC | MS_NOATIME | MS_NODIRATIME | MS_RELATIME |
                                        MS_STRICTATIME | MS_NOSYMFOLLOW);
        if (extra != 0 && init_mount_list_add(init, INIT_MOUNT_REMOUNT, NULL, dest, NULL,
                                              extra | (o->set & MS_RDONLY), NULL, false) < 0)
                return sb_fail(err, ENOMEM, "mounts[%zu]", i);
        if (add_setattr(init, dest, o, i, err) < 0 || add_propagation(init, dest, o, i, err) < 0)
                return -1;
        return table_add(table, dest, MOUNTED_BIND, source, held_fd) < 0 ?
                       sb_fail(err, ENOMEM, "mounts") :
                       0;
}

/* bwrap has no size for --dev (its --size is for --tmpfs only), and an
 * unsized tmpfs may take half the host's RAM and as many inodes as it has
 * pages: the init sets both. */
static int add_dev(unsigned long long size, unsigned long long inodes, struct strv *bwrap,
                   struct init_mount_list *init, struct sb_error *err)
{
        char data[96];

        strv_add(bwrap, "--dev");
        strv_add(bwrap, "/dev");
        snprintf(data, sizeof(data), "size=%llu,nr_inodes=%llu", size, inodes);
        if (init_mount_list_add(init, INIT_MOUNT_RESIZE, NULL, "/dev", NULL, 0, data, false) < 0)
                return sb_fail(err, ENOMEM, "mounts");
        return 0;
}

static int add_inodes(const char *dest, unsigned long long inodes, size_t i,
                      struct init_mount_list *init, struct sb_error *err)
{
        char data[48];

        snprintf(data, sizeof(data), "nr_inodes=%llu", inodes);
        if (init_mount_list_add(init, INIT_MOUNT_RESIZE, NULL, dest, NULL, 0, data, false) < 0)
                return sb_fail(err, ENOMEM, "mounts[%zu]", i);
        return 0;
}

/* tmpcopyup: bwrap mounts the tmpfs over the image's directory, so sbrun
 * holds that directory open from here, on the host, and sbrun-init copies
 * it into the tmpfs once bwrap is done (init_copyup.h). The fd travels to
 * the init like a bind source's. A destination under an earlier mount has
 * no image content there: under a fresh filesystem of this config there is
 * nothing to copy; under a bind it would be the host's, which is refused. */
static int plan_copyup(const struct oci_mount *m, size_t i, int rootfs_fd, const char *dest,
                       const struct mount_table *table, struct bind_sources *bs, int first_fd,
                       struct init_mount_list *init, struct sb_error *err)
{
        const struct mounted *under = mount_table_find(table, dest);
        char number[16];

        if (under != NULL && under->kind == MOUNTED_BIND)
                return sb_fail(err, 0,
                               "mounts[%zu].options: tmpcopyup of \"%s\", which lies under the "
                               "bind mount at %s: not supported",
                               i, m->destination, under->destination);
        if (under != NULL || bs == NULL)
                return 0;
        struct open_how how = { .flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC,
                                .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS };
        int fd = (int)syscall(SYS_openat2, rootfs_fd, dest, &how, sizeof(how));
        if (fd < 0 && errno == ENOENT)
                return 0;
        if (fd < 0)
                return sb_fail(err, errno, "mounts[%zu]: tmpcopyup: open %s in the rootfs", i,
                               dest);
        bs->fds[i] = fd;
        snprintf(number, sizeof(number), "%d", bind_sources_pass(bs, i, first_fd));
        if (init_mount_list_add(init, INIT_MOUNT_COPYUP, number, dest, NULL, 0, NULL, false) < 0)
                return sb_fail(err, ENOMEM, "mounts[%zu]", i);
        return 0;
}

/* bwrap names every tmpfs "tmpfs" in mountinfo, where tools (systemd,
 * runtime-tools) look for the config's source ("shm" for /dev/shm). A
 * tmpfs with another source and no later mount of the config under it is
 * mounted by sbrun-init instead, with its source; one that later mounts
 * need as their base stays bwrap's (sbrun-init mounts after bwrap). */
static int init_tmpfs(const struct oci_mount *m, size_t i, const char *dest,
                      const struct mount_options *o, struct init_mount_list *init,
                      struct sb_error *err)
{
        _cleanup_free_ char *data = join_data(&o->data);

        if (data == NULL)
                return sb_fail(err, ENOMEM, "mounts[%zu]", i);
        if (init_mount_list_add(init, INIT_MOUNT_FS, m->source, dest, "tmpfs",
                                o->set | MS_NOSUID | MS_NODEV, *data ? data : NULL, false) < 0)
                return sb_fail(err, ENOMEM, "mounts[%zu]", i);
        return 0;
}

/* Whether a tmpfs made by bwrap carries out a data option: --tmpfs takes
 * mode= (--perms) and size= (--size), sbrun-init remounts with nr_inodes=;
 * --dev is a 0755 tmpfs whose size and inodes sbrun-init sets. Anything
 * else (uid=, gid=, huge=, mpol=...) needs sbrun-init to mount the tmpfs. */
static bool bwrap_applies(const char *opt, const struct mount_options *o, bool dev)
{
        if (strncmp(opt, "mode=", 5) == 0)
                return !dev || o->mode == 0755;
        return strncmp(opt, "size=", 5) == 0 || strncmp(opt, "nr_inodes=", 10) == 0;
}

static bool bwrap_applies_all(const struct mount_options *o)
{
        for (size_t k = 0; k < o->data.n; k++)
                if (!bwrap_applies(o->data.items[k], o, false))
                        return false;
        return true;
}

/* A data option bwrap leaves out is said, never dropped in silence. */
static void warn_not_applied(const struct oci_mount *m, size_t i, const struct mount_options *o,
                             bool dev, const char *why)
{
        for (size_t k = 0; k < o->data.n; k++)
                if (!bwrap_applies(o->data.items[k], o, dev))
                        sb_warn("mounts[%zu].options: \"%s\" of the tmpfs at %s is not applied: %s",
                                i, o->data.items[k], m->destination, why);
}

static int translate_fresh(const struct oci_mount *m, size_t i, int rootfs_fd,
                           const struct mount_options *o, bool nothing_later_under,
                           struct bind_sources *bs, int first_fd, struct strv *bwrap,
                           struct init_mount_list *init, struct mount_table *table,
                           struct sb_error *err)
{
        _cleanup_free_ char *dest = NULL;
        enum mounted_kind kind = MOUNTED_FRESH;

        if (resolve_destination(table, rootfs_fd, m->destination, ROOTFS_CREATE_DIR, &dest, err) <
            0)
                return sb_error_prefix(err, "mounts[%zu].destination: \"%s\"", i, m->destination);

        if (is_type(m, "tmpfs") && strcmp(dest, "/dev") == 0) {
                /* bwrap's --dev is a tmpfs with the standard nodes, devpts and
                 * /dev/shm: what an OCI /dev tmpfs is expected to become. */
                if (add_dev(o->has_size ? o->size : FLOOR_DEV_SIZE,
                            o->has_inodes ? o->inodes : FLOOR_DEV_INODES, bwrap, init, err) < 0)
                        return -1;
                table->has_dev = true;
                warn_not_applied(m, i, o, true,
                                 "/dev is bwrap's, a 0755 tmpfs with the standard nodes");
                if (o->copyup)
                        sb_warn("mounts[%zu].options: tmpcopyup of /dev: the image's /dev is not "
                                "copied, bwrap's /dev has the standard nodes",
                                i);
        } else if (is_type(m, "tmpfs") && nothing_later_under &&
                   ((m->source != NULL && strcmp(m->source, "tmpfs") != 0 && *m->source != '\0') ||
                    !bwrap_applies_all(o))) {
                if (init_tmpfs(m, i, dest, o, init, err) < 0)
                        return -1;
                kind = MOUNTED_INIT;
        } else if (is_type(m, "tmpfs")) {
                warn_not_applied(m, i, o, false,
                                 "a later mount lies under it, so bwrap mounts it, and bwrap's "
                                 "--tmpfs takes mode and size only");
                if (o->has_mode) {
                        strv_add(bwrap, "--perms");
                        strv_addf(bwrap, "%04o", o->mode);
                }
                if (o->has_size) {
                        strv_add(bwrap, "--size");
                        strv_addf(bwrap, "%llu", o->size);
                }
                strv_add(bwrap, "--tmpfs");
                strv_add(bwrap, dest);
                /* bwrap has no option for it: the init remounts with it. */
                if (o->has_inodes && add_inodes(dest, o->inodes, i, init, err) < 0)
                        return -1;
        } else if (is_type(m, "proc")) {
                strv_add(bwrap, "--proc");
                strv_add(bwrap, dest);
        } else {
                strv_add(bwrap, "--mqueue");
                strv_add(bwrap, dest);
        }
        /* The copy goes into the new tmpfs, before a flag remount can make
         * it read-only. */
        if (o->copyup && strcmp(dest, "/dev") != 0 &&
            plan_copyup(m, i, rootfs_fd, dest, table, bs, first_fd, init, err) < 0)
                return -1;
        unsigned long flags = o->set & (MS_RDONLY | MS_NOEXEC | MS_NOATIME | MS_NODIRATIME |
                                        MS_RELATIME | MS_STRICTATIME | MS_NOSYMFOLLOW);
        if (kind == MOUNTED_FRESH && flags != 0 &&
            init_mount_list_add(init, INIT_MOUNT_REMOUNT, NULL, dest, NULL,
                                flags | MS_NOSUID | MS_NODEV, NULL, false) < 0)
                return sb_fail(err, ENOMEM, "mounts[%zu]", i);
        if (add_setattr(init, dest, o, i, err) < 0 || add_propagation(init, dest, o, i, err) < 0)
                return -1;
        return table_add(table, dest, kind, NULL, -1) < 0 ? sb_fail(err, ENOMEM, "mounts") : 0;
}

static int translate_init_fs(const struct oci_mount *m, size_t i, int rootfs_fd,
                             const struct mount_options *o, struct init_mount_list *init,
                             struct mount_table *table, struct sb_error *err)
{
        _cleanup_free_ char *dest = NULL;
        _cleanup_free_ char *data = NULL;
        const char *fstype = m->type;

        if (resolve_destination(table, rootfs_fd, m->destination, ROOTFS_CREATE_DIR, &dest, err) <
            0)
                return sb_error_prefix(err, "mounts[%zu].destination: \"%s\"", i, m->destination);
        /* sbrun is cgroup v2 only: a "cgroup" mount is the unified hierarchy. */
        if (is_type(m, "cgroup"))
                fstype = "cgroup2";
        data = join_data(&o->data);
        if (data == NULL)
                return sb_fail(err, ENOMEM, "mounts[%zu]", i);
        /* devpts holds the pty devices themselves: nodev would make them unusable. */
        unsigned long forced = is_type(m, "devpts") ? MS_NOSUID : MS_NOSUID | MS_NODEV;
        if (init_mount_list_add(init, INIT_MOUNT_FS, m->source ? m->source : fstype, dest, fstype,
                                o->set | forced, *data ? data : NULL, false) < 0)
                return sb_fail(err, ENOMEM, "mounts[%zu]", i);
        if (add_setattr(init, dest, o, i, err) < 0 || add_propagation(init, dest, o, i, err) < 0)
                return -1;
        return table_add(table, dest, MOUNTED_INIT, NULL, -1) < 0 ? sb_fail(err, ENOMEM, "mounts") :
                                                                    0;
}

/* What the config alone says of one mount, before any rootfs or host is
 * looked at: create checks it as it translates, `policy explain` without
 * translating (mounts_check). o is filled on success; the caller releases
 * o->data either way. */
static int check_one(const struct oci_mount *m, size_t i, struct mount_options *o,
                     struct sb_error *err)
{
        static const char *const types[] = { "tmpfs", "proc",   "mqueue", "devpts",
                                             "sysfs", "cgroup", "cgroup2" };
        bool bind = oci_mount_is_bind(m), known = bind;

        if (m->destination == NULL || m->destination[0] != '/')
                return sb_fail(err, 0, "mounts[%zu].destination: must be an absolute path", i);
        if (strcmp(m->destination, "/") == 0)
                return sb_fail(
                        err, 0,
                        "mounts[%zu].destination: \"/\" cannot be a mount destination (use root.path)",
                        i);
        size_t dest_len = strlen(m->destination);

        if (strstr(m->destination, "/../") != NULL ||
            (dest_len >= 3 && strcmp(m->destination + dest_len - 3, "/..") == 0))
                return sb_fail(err, 0, "mounts[%zu].destination: \"%s\" contains \"..\"", i,
                               m->destination);
        if (mount_options_parse(m, i, o, err) < 0)
                return -1;
        if ((o->idmap || m->n_uid_mappings > 0 || m->n_gid_mappings > 0) && !bind)
                return sb_fail(err, 0,
                               "mounts[%zu]: an idmapped %s mount is not supported by sbrun "
                               "(only a bind can be idmapped)",
                               i, m->type ? m->type : "(no type)");
        if (o->copyup && (bind || !is_type(m, "tmpfs")))
                return sb_fail(err, 0, "mounts[%zu].options: tmpcopyup needs a tmpfs, not %s", i,
                               bind ? "a bind mount" : m->type);
        for (size_t t = 0; !known && t < sizeof(types) / sizeof(types[0]); t++)
                known = is_type(m, types[t]);
        if (!known)
                return sb_fail(err, 0, "mounts[%zu].type: \"%s\" is not supported by sbrun", i,
                               m->type);
        if (bind && m->source == NULL)
                return sb_fail(err, 0, "mounts[%zu].source: required for a bind mount", i);
        /* bwrap makes binds, tmpfs, proc and mqueue without these, and a
         * remount cannot add them to a bind (they are the superblock's). */
        unsigned long unsupported = o->set & (MS_SYNCHRONOUS | MS_DIRSYNC | MS_MANDLOCK);
        if (unsupported != 0 &&
            (bind || is_type(m, "tmpfs") || is_type(m, "proc") || is_type(m, "mqueue")))
                return sb_fail(err, 0,
                               "mounts[%zu].options: \"%s\" is not supported by sbrun on a %s "
                               "mount",
                               i,
                               (unsupported & MS_SYNCHRONOUS) ? "sync" :
                               (unsupported & MS_DIRSYNC)     ? "dirsync" :
                                                                "mand",
                               bind ? "bind" : m->type);
        /* A bind, and bwrap's proc and mqueue, take no file system data:
         * an option that would be data there would be dropped unseen. */
        if ((bind || is_type(m, "proc") || is_type(m, "mqueue")) && o->data.n > 0)
                return sb_fail(err, 0,
                               "mounts[%zu].options: \"%s\" is not supported by sbrun on a %s "
                               "mount",
                               i, o->data.items[0], bind ? "bind" : m->type);
        return 0;
}

int mounts_check(const struct oci_config *config, struct sb_error *err)
{
        for (size_t i = 0; i < config->n_mounts; i++) {
                struct mount_options o = { 0 };
                int r = check_one(&config->mounts[i], i, &o, err);
                strv_release(&o.data);
                if (r < 0)
                        return -1;
        }
        return 0;
}

static int translate_one(const struct oci_mount *m, size_t i, bool nothing_later_under,
                         const char *bundle, int rootfs_fd, struct bind_sources *bs, int first_fd,
                         struct strv *bwrap, struct init_mount_list *init,
                         struct mount_table *table, struct sb_error *err)
{
        struct mount_options o = { 0 };
        int r;

        if (check_one(m, i, &o, err) < 0) {
                strv_release(&o.data);
                return -1;
        }
        const struct mounted *under = mount_table_find(table, m->destination);
        bool bind = oci_mount_is_bind(m);

        bool is_cgroup = is_type(m, "cgroup") || is_type(m, "cgroup2");
        /* The kernel lets a user namespace mount sysfs only where one is
         * already fully visible, never in bwrap's new root, and cgroup2 only
         * in a cgroup namespace it owns (sbrun-init makes one in the
         * container's user namespace): otherwise bind the host's read-only
         * instead, as runc does when rootless. */
        bool kernel_view = is_type(m, "sysfs") || (is_cgroup && !table->new_cgroupns);

        if (kernel_view && table->in_userns) {
                struct oci_mount bind = *m;
                bind.source = (char *)(is_type(m, "sysfs") ? "/sys" : "/sys/fs/cgroup");
                o.set |= MS_RDONLY;
                o.recursive = true;
                r = translate_bind(&bind, i, bundle, rootfs_fd, &o, NULL, -1, bwrap, init, table,
                                   err);
        } else if (under != NULL && under->kind == MOUNTED_INIT && !is_cgroup) {
                r = sb_fail(
                        err, 0,
                        "mounts[%zu].destination: \"%s\" lies under the %s mount, which sbrun-init mounts after bwrap: not supported",
                        i, m->destination, under->destination);
        } else if (bind) {
                r = translate_bind(m, i, bundle, rootfs_fd, &o, bs, first_fd, bwrap, init, table,
                                   err);
        } else if (is_type(m, "tmpfs") || is_type(m, "proc") || is_type(m, "mqueue")) {
                r = translate_fresh(m, i, rootfs_fd, &o, nothing_later_under, bs, first_fd, bwrap,
                                    init, table, err);
        } else if (is_type(m, "devpts") && table->has_dev && under != NULL &&
                   strcmp(m->destination, "/dev/pts") == 0) {
                /* bwrap's --dev already mounted a new devpts instance there;
                 * mount the config's own over it so its options hold. */
                r = translate_init_fs(m, i, rootfs_fd, &o, init, table, err);
        } else if (is_type(m, "sysfs") || is_type(m, "cgroup") || is_type(m, "cgroup2") ||
                   is_type(m, "devpts")) {
                r = translate_init_fs(m, i, rootfs_fd, &o, init, table, err);
        } else {
                /* check_one refused every other type. */
                r = sb_fail(err, 0, "mounts[%zu].type: \"%s\" is not supported by sbrun", i,
                            m->type);
        }
        strv_release(&o.data);
        return r;
}

/* Does a mount after mounts[i] in the config go under its destination? By
 * the clean paths as written: a symlink that leads a later one under it
 * anyway is caught when that one is translated (it lies under a mount the
 * init makes). */
static int later_mount_under(const struct oci_config *config, size_t i, bool *found,
                             struct sb_error *err)
{
        _cleanup_free_ char *base = NULL;

        *found = false;
        if (config->mounts[i].destination == NULL ||
            rootfs_clean_path(config->mounts[i].destination, &base, err) < 0) {
                sb_error_clear(err);
                return 0; /* translate_one names the bad destination */
        }
        size_t len = strlen(base);
        for (size_t j = i + 1; j < config->n_mounts && !*found; j++) {
                _cleanup_free_ char *d = NULL;
                if (config->mounts[j].destination == NULL ||
                    rootfs_clean_path(config->mounts[j].destination, &d, err) < 0) {
                        sb_error_clear(err);
                        continue;
                }
                /* The same destination counts: that mount goes over this one. */
                *found =
                        strncmp(d, base, len) == 0 && (d[len] == '/' || d[len] == '\0' || len == 1);
        }
        return 0;
}

int mounts_translate(const struct oci_config *config, const char *bundle, int rootfs_fd,
                     struct bind_sources *bs, int first_fd, struct strv *bwrap,
                     struct init_mount_list *init, struct mount_table *table, struct sb_error *err)
{
        /* runc gives every container the default device nodes even without a
         * /dev mount; bwrap's --dev is that set. */
        if (!oci_config_mounts_dev(config)) {
                if (add_dev(config->implicit_dev_size ? config->implicit_dev_size : FLOOR_DEV_SIZE,
                            config->implicit_dev_inodes ? config->implicit_dev_inodes :
                                                          FLOOR_DEV_INODES,
                            bwrap, init, err) < 0)
                        return -1;
                table->has_dev = true;
                if (table_add(table, "/dev", MOUNTED_FRESH, NULL, -1) < 0)
                        return sb_fail(err, ENOMEM, "mounts");
        }
        table->linux_ = config->linux_;
        for (size_t i = 0; i < config->n_mounts; i++) {
                bool later_under;
                if (later_mount_under(config, i, &later_under, err) < 0 ||
                    translate_one(&config->mounts[i], i, !later_under, bundle, rootfs_fd, bs,
                                  first_fd, bwrap, init, table, err) < 0)
                        return -1;
        }
        /* linux.rootfsPropagation last, over the whole tree, as runc sets
         * it once the root is built. */
        const char *rp = config->linux_ ? config->linux_->rootfs_propagation : NULL;
        if (rp != NULL && init_mount_list_add(init, INIT_MOUNT_PROPAGATE, NULL, "/", NULL,
                                              mount_propagation_flags(rp), NULL, false) < 0)
                return sb_fail(err, ENOMEM, "linux.rootfsPropagation");
        if (bwrap->failed)
                return sb_fail(err, ENOMEM, "mounts");
        return 0;
}

int mounts_add_notify(int rootfs_fd, int fd_number, struct strv *bwrap,
                      struct init_mount_list *init, struct mount_table *table, struct sb_error *err)
{
        _cleanup_free_ char *dest = NULL;

        if (resolve_destination(table, rootfs_fd, NOTIFY_MOUNT_POINT, ROOTFS_CREATE_DIR, &dest,
                                err) < 0)
                return sb_error_prefix(err, "NOTIFY_SOCKET: the mount point %s",
                                       NOTIFY_MOUNT_POINT);
        strv_add(bwrap, "--ro-bind-fd");
        strv_addf(bwrap, "%d", fd_number);
        strv_add(bwrap, dest);
        /* bwrap's binds are nosuid,nodev already. */
        if (init_mount_list_add(init, INIT_MOUNT_REMOUNT, NULL, dest, NULL, MS_RDONLY | MS_NOEXEC,
                                NULL, false) < 0 ||
            table_add(table, dest, MOUNTED_FRESH, NULL, -1) < 0)
                return sb_fail(err, ENOMEM, "NOTIFY_SOCKET");
        return 0;
}

void mount_table_release(struct mount_table *table)
{
        for (size_t i = 0; i < table->n; i++) {
                free(table->items[i].destination);
                free(table->items[i].source);
        }
        free(table->items);
        memset(table, 0, sizeof(*table));
}

void init_mount_list_release(struct init_mount_list *list)
{
        for (size_t i = 0; i < list->n; i++) {
                free(list->items[i].source);
                free(list->items[i].destination);
                free(list->items[i].fstype);
                free(list->items[i].data);
        }
        free(list->items);
        memset(list->items ? list : list, 0, sizeof(*list));
}
