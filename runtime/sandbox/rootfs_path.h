/* Resolving paths inside an untrusted rootfs. bwrap 0.8.0 follows absolute
 * rootfs symlinks against its own setup root, where the host is visible
 * under /oldroot (docs/design.md#bwrap-follows-rootfs-symlinks-outside-the-rootfs),
 * so sbrun resolves every destination itself and hands bwrap a path with no
 * symlink left in it. */
#ifndef SB_ROOTFS_PATH_H
#define SB_ROOTFS_PATH_H

#include <stdbool.h>

struct sb_error;

enum rootfs_create {
        ROOTFS_NO_CREATE,   /* the path must exist */
        ROOTFS_CREATE_DIR,  /* create missing components as directories */
        ROOTFS_CREATE_FILE, /* ... and the last one as an empty file */
        /* Create nothing, but resolve and refuse as ROOTFS_CREATE_DIR would:
         * a missing component stands for the directory that would be made
         * (`policy explain` checks the rootfs so without writing to it). */
        ROOTFS_WOULD_CREATE
};

/* Walk `path` component by component from base_fd (a directory fd that acts
 * as "/"), following symlinks as the container would see them (absolute
 * targets restart at base_fd, ".." stops at it). Refuses, naming the symlink:
 * a symlink whose target climbs above the root, and creating anything
 * through a symlink whose target does not exist. On success *resolved is the
 * absolute symlink-free path below base_fd, and *out_fd (if not NULL) an
 * O_PATH fd of it, or -1 where ROOTFS_WOULD_CREATE found it missing. */
int rootfs_resolve(int base_fd, const char *path, enum rootfs_create create, char **resolved,
                   int *out_fd, struct sb_error *err);

/* root.path (relative to bundle, or absolute) resolved on the host and
 * opened O_PATH: *real the resolved path, *fd its fd. */
int rootfs_open_root(const char *root_path, const char *bundle, char **real, int *fd,
                     struct sb_error *err);

/* Lexically clean an absolute path: collapse "//" and ".", refuse "..". */
int rootfs_clean_path(const char *path, char **out, struct sb_error *err);

#endif
