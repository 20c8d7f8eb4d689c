/* config.json mounts → bwrap arguments (binds, tmpfs, proc, dev, mqueue)
 * and init steps (sysfs, cgroup2, devpts, flag remounts), in config order. */
#ifndef SB_MOUNT_TRANSLATE_H
#define SB_MOUNT_TRANSLATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/strv.h"
#include "runtime/init/init_plan.h"

struct sb_error;
struct bind_sources;
struct oci_config;
struct oci_linux;
struct oci_mount;

enum mounted_kind {
        MOUNTED_BIND,  /* host directory or file: its content is the source's */
        MOUNTED_FRESH, /* a new filesystem bwrap mounts (tmpfs, proc, dev, mqueue) */
        MOUNTED_INIT,  /* mounted later by sbrun-init (sysfs, cgroup2, devpts) */
};

struct mounted {
        char *destination; /* clean, symlink-free path inside the container */
        enum mounted_kind kind;
        char *source; /* host path for binds */
        /* the held source a bind was made from (bind_sources.h, borrowed):
         * a later destination under it is resolved from it, never from the
         * path, which may name something else by then; -1 if none */
        int source_fd;
};

struct init_mount_list {
        struct init_mount *items;
        size_t n, cap;
};

struct mount_table {
        struct mounted *items;
        size_t n, cap;
        bool has_dev;      /* /dev was set up by bwrap's --dev */
        bool in_userns;    /* set by the caller: the container is in a user namespace not the
                         * host's (its own, or the one rootless podman runs sbrun in) */
        bool new_cgroupns; /* set by the caller: the container gets a cgroup namespace */
        /* set by the caller: resolve every destination as create would,
         * creating nothing (ROOTFS_WOULD_CREATE; `policy explain`) */
        bool dry_run;
        /* set by the caller: sbrun itself runs rootless (as a user, or in
         * a user namespace not the host's), where the kernel makes no
         * idmapped mount of a host file system */
        bool rootless;
        /* set by mounts_translate: the config's linux section (borrowed),
         * whose user namespace mappings an idmapped mount without its own
         * uses */
        const struct oci_linux *linux_;
};

/* A mount's options: MS_* flags, bind recursion, tmpfs mode= and size=,
 * the rest passed to the filesystem. */
struct mount_options {
        unsigned long set; /* MS_* flags asked for */
        bool recursive;
        bool copyup;               /* tmpcopyup: the tmpfs starts with the image's content */
        unsigned long propagation; /* MS_SHARED, MS_SLAVE, … (| MS_REC), 0: as bwrap left it */
        bool has_mode, has_size, has_inodes;
        unsigned int mode;
        unsigned long long size;
        unsigned long long inodes;   /* nr_inodes= */
        uint64_t attr_set, attr_clr; /* rro, rnosuid, ...: MOUNT_ATTR_*, recursively */
        bool idmap;                  /* idmap or ridmap: an idmapped bind (idmap_mount.h) */
        bool ridmap;                 /* ridmap: the mounts below it are idmapped too */
        struct strv data; /* filesystem options passed through (newinstance, gid=5, …) */
};

/* Parse mounts[index]'s options into *o (zeroed by the caller). An invalid
 * mode= or size=, or an option sbrun cannot carry out, fails naming
 * mounts[index].options. The caller releases o->data (strv_release), also
 * on failure. Pure: exposed for the unit tests. */
int mount_options_parse(const struct oci_mount *m, size_t index, struct mount_options *o,
                        struct sb_error *err);

/* MS_* propagation flags of "shared", "rslave", …; 0 for anything else. */
unsigned long mount_propagation_flags(const char *name);

/* The checks of each mount that need only the config (destination, options,
 * type, a bind's source), as mounts_translate makes them: for `policy
 * explain`, which translates nothing. */
int mounts_check(const struct oci_config *config, struct sb_error *err);

/* Bind sources come from bs (opened before the floor checked them) and are
 * handed to bwrap as fds numbered from first_fd (bind_sources_pass). */
int mounts_translate(const struct oci_config *config, const char *bundle, int rootfs_fd,
                     struct bind_sources *bs, int first_fd, struct strv *bwrap,
                     struct init_mount_list *init, struct mount_table *table, struct sb_error *err);

/* NOTIFY_SOCKET's proxy directory (runtime/container/notify_socket.h), the
 * O_PATH fd numbered fd_number, bound read-only, noexec, nosuid, nodev at
 * /run/notify as runc binds it: made in the rootfs when missing, or in a
 * mount over /run. */
#define NOTIFY_MOUNT_POINT "/run/notify"
int mounts_add_notify(int rootfs_fd, int fd_number, struct strv *bwrap,
                      struct init_mount_list *init, struct mount_table *table,
                      struct sb_error *err);

/* The mount whose destination is path or its deepest ancestor, or NULL. */
const struct mounted *mount_table_find(const struct mount_table *table, const char *path);

int init_mount_list_add(struct init_mount_list *list, enum init_mount_kind kind, const char *source,
                        const char *destination, const char *fstype, unsigned long flags,
                        const char *data, bool skip_missing);

void mount_table_release(struct mount_table *table);
void init_mount_list_release(struct init_mount_list *list);

#endif
