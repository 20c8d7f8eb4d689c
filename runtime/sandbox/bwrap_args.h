/* bwrap's command line: the options that build the container's root, sent
 * NUL-separated through a memfd (bwrap --args), and the short argv that
 * names that memfd and sbrun-init as what bwrap runs. */
#ifndef SB_BWRAP_ARGS_H
#define SB_BWRAP_ARGS_H

#include <stdbool.h>

struct sb_error;
struct strv;
struct oci_config;
struct ns_setup;
struct bind_sources;
struct init_mount_list;
struct mount_table;

struct bwrap_inputs {
        const struct oci_config *config;
        const char *bundle;
        const char *rootfs; /* resolved absolute path */
        int rootfs_fd;      /* O_PATH fd of it */
        const struct ns_setup *ns;
        struct bind_sources *binds; /* held bind sources, passed on as fds */
        int preserve_fds;
        bool dry_run; /* create nothing in the rootfs or a bind source (`policy explain`) */
        bool caller_in_userns; /* sbrun itself runs in a user namespace (rootless podman) */
        bool notify;           /* bind LFD_NOTIFY at /run/notify (notify_socket.h) */
};

/* Append the options to args: the rootfs, the pid namespace, the mounts
 * (those bwrap cannot make go to *init_mounts, every mount to *mounts), the
 * cwd and --info-fd. *cwd is process.cwd as it is found inside the rootfs;
 * a missing one is created, as runc does. */
int bwrap_args_build(const struct bwrap_inputs *in, struct strv *args,
                     struct init_mount_list *init_mounts, struct mount_table *mounts, char **cwd,
                     struct sb_error *err);

/* The options as the memfd bwrap --args reads: NUL-separated. */
int bwrap_args_memfd(const struct strv *args, struct sb_error *err);

/* The argv the launcher execs: bwrap --args FD -- sbrun-init PLAN-FD, with
 * the fd numbers the launcher arranges. */
int bwrap_command(int preserve_fds, struct strv *argv, struct sb_error *err);

#endif
